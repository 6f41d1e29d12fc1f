"""Bot plans worth reading aloud: the mission named, a job per item, nothing said twice."""

from __future__ import annotations

import random
from itertools import combinations

import pytest

from engine.cards import load_deck
from engine.plans import _ANY_JOB, _CLOSERS, JOBS, goal, plan_text
from engine.simulate import Lineup, game_seed, play_game
from engine.text import PLAN_MAX


def games(count: int, players: int = 4) -> list[list[list[str]]]:
    """The plans of whole games of normal bots, [game][round][seat], each plan's opener
    marked off by a '|' (what comes before its first item, less the step words)."""
    deck = load_deck()
    return [[[mark_opener(p, r.items[0]) for p in r.plans]
             for r in play_game(players, game_seed("plans", g), deck,
                                lineup=Lineup(("normal",)))[0].history]
            for g in range(count)]


def mark_opener(plan: str, first_item: str) -> str:
    head = plan[:plan.index(first_item)] if plan else ""
    cut = max(head.rfind(mark) for mark in ":.?!") + 1
    return f"{plan[:cut]}|{plan[cut:]}"


def opener(plan: str) -> str:
    return plan.split("|", 1)[0]


def said_in(plan: str, phrases: set[str]) -> set[str]:
    """The phrases ``plan`` says (not those only inside a longer one it says)."""
    found = {p for p in phrases if p in plan}
    return {p for p in found if not any(p != q and p in q for q in found)}


def job_phrases() -> set[str]:
    return {j for pool in JOBS.values() for j in pool if "{obj}" not in j}


@pytest.mark.parametrize("players", [4, 8])
def test_no_opener_closer_or_shrug_comes_twice_in_a_game(players: int) -> None:
    stock = [*_ANY_JOB, *(c.strip(". ") for c in _CLOSERS if "{" not in c)]
    for game in games(12, players):
        plans = [p for round_plans in game for p in round_plans if p]
        openers = [opener(p) for p in plans if opener(p)]
        assert len(openers) == len(set(openers)), openers
        for phrase in stock:
            assert sum(phrase in p for p in plans) <= 1, (phrase, plans)


def test_two_bots_in_a_round_never_read_alike() -> None:
    jobs = job_phrases() | set(_ANY_JOB)
    for game in games(20):
        for round_plans in game:
            for a, b in combinations([p for p in round_plans if p], 2):
                assert opener(a) != opener(b)
                shared = said_in(a, jobs) & said_in(b, jobs)
                assert not shared, (a, b)


def test_the_plan_names_the_mission_or_its_goal_and_every_item_in_order() -> None:
    deck = load_deck()
    rng = random.Random(5)
    for _ in range(300):
        task = rng.choice(deck.task_names)
        items = rng.sample(deck.item_names, 4)
        plan = plan_text(deck, task, items, rng)
        assert len(plan) <= PLAN_MAX
        bare = goal(task).split(" ", 1)[-1] if goal(task).startswith(("the ", "your ")) \
            else goal(task)
        assert task.lower() in plan.lower() or bare.lower() in plan.lower(), plan
        assert [i for i in items if i in plan] == items
        assert sorted(items, key=plan.index) == items


def test_every_item_gets_a_job_that_fits_what_it_offers_when_there_is_room() -> None:
    deck = load_deck()
    plan = plan_text(deck, "Rescue a Kitten From an Oak Tree",
                     ["Ladder", "Pet Treats", "Butterfly Net", "Pillow"], random.Random(1))
    ladder = plan.split("Ladder", 1)[1].split(",")[0]
    assert any(j in ladder for j in JOBS["height"] + JOBS["heavy"]), plan
    pillow = plan.split("Pillow", 1)[1]
    assert any(j.split(" {")[0] in pillow for j in JOBS["soft"] + JOBS["hide"]), plan


def test_the_goal_of_a_mission_is_the_thing_after_its_verb() -> None:
    assert goal("Rescue a Kitten From an Oak Tree") == "the kitten"
    assert goal("Steal Back Your Diary From a Spy") == "your diary"
    assert goal("Scare Seagulls Off Your Fries") == "seagulls"
    assert goal("Escape From Quicksand") == "quicksand"
    assert goal("Fix Mom's Teapot Before She Sees") == "mom's teapot"
