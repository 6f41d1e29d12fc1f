"""Bot plans worth reading aloud: the mission named, a job per item, nothing said twice."""

from __future__ import annotations

import random
import re
from collections import Counter
from itertools import combinations

import pytest

from engine.cards import load_deck
from engine.plans import (
    _ANY_JOB,
    JOBS,
    STOCK_LINES,
    _render,
    content_words,
    goal,
    item_jobs,
    mission,
    plan_text,
    repeats,
)
from engine.simulate import Lineup, game_seed, play_game
from engine.text import PLAN_MAX
from tests.engine.decks import own_jobs_deck


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
    """The plan's opener; "" for none, or for the mission's bare name ("Haunted House:"),
    which is no stock phrase and may open another plan of the mission rather than have
    the plan give up a job written for it."""
    head = plan.split("|", 1)[0]
    bare = re.fullmatch(r"([A-Z][\w'-]*( [A-Z][\w'-]*)*):", head)
    return "" if bare and not head.startswith("Operation ") else head


def said_in(plan: str, phrases: set[str]) -> set[str]:
    """The phrases ``plan`` says (not those only inside a longer one it says)."""
    found = {p for p in phrases if p in plan}
    return {p for p in found if not any(p != q and p in q for q in found)}


def job_phrases() -> set[str]:
    """The stock jobs and the bundled deck's hand-written ones that name no slot (its
    pair jobs too)."""
    deck = load_deck()
    written = {j for item in deck.item_names for _, j in deck.jobs[item] if "{" not in j}
    written |= {j for by_task in deck.pair_jobs.values() for jobs in by_task.values()
                for j in jobs}
    return {j for pool in JOBS.values() for j in pool if "{obj}" not in j} | written


@pytest.mark.parametrize("players", [4, 8])
def test_no_opener_closer_or_shrug_comes_twice_in_a_game(players: int) -> None:
    stock = list(STOCK_LINES)
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
                assert not opener(a) or opener(a) != opener(b)  # (untitled: jobs differ)
                shared = said_in(a, jobs) & said_in(b, jobs)
                assert not shared, (a, b)


def test_two_plans_of_a_round_seldom_open_with_the_same_word() -> None:
    """"So, the socks:" then "So, my fries:" read alike: the seats' short titles turn
    with the seat (8.7% of pairs of titled plans in a round before; a title shortened
    to fit may still meet another)."""
    pairs = same = 0
    for game in games(20):
        for round_plans in game:
            for a, b in combinations([p for p in round_plans if p and opener(p)], 2):
                pairs += 1
                same += a.split()[0] == b.split()[0]
    assert pairs > 200 and same <= pairs // 100, (same, pairs)


def test_a_seat_seldom_opens_its_plans_with_one_word_all_game() -> None:
    """A bot opened "Right, the snowman:", "Right, the dragon:", "Right, the pie:" in three
    rounds running: a plan opens with the words its game has used least, among the
    openers short enough (over these 20 games, seats that opened 3 or more of their 8
    plans alike: 18 of 80 before, 9 now)."""
    alike = 0
    for game in games(20):
        for seat in range(4):
            firsts = Counter(r[seat].split()[0] for r in game if r[seat])
            assert max(firsts.values()) <= 4, firsts
            alike += max(firsts.values()) >= 3
    assert alike <= 12, alike


def test_the_plan_names_the_mission_or_its_goal_and_every_item_in_order() -> None:
    deck = load_deck()
    rng = random.Random(5)
    for _ in range(300):
        task = rng.choice(deck.task_names)
        items = rng.sample(deck.item_names, 4)
        plan = plan_text(deck, task, items, rng)
        assert len(plan) <= PLAN_MAX
        bare = mission(deck, task).title
        assert task.lower() in plan.lower() or bare.lower() in plan.lower(), plan
        assert [i for i in items if i in plan] == items
        assert sorted(items, key=plan.index) == items


def test_every_item_gets_its_own_job_for_the_mission_when_there_is_room() -> None:
    """Without a pair job (said already this round): the item's own jobs, bent to it."""
    deck = own_jobs_deck()
    plan = plan_text(deck, "Rescue a Kitten From an Oak Tree",
                     ["Ladder", "Pet Treats", "Butterfly Net", "Cactus"], random.Random(1))
    ladder = plan.split("Ladder", 1)[1].split(",")[0]
    assert any(j in ladder for m, j in deck.jobs["Ladder"] if m == "height"), plan
    treats = plan.split("Pet Treats", 1)[1].split(",")[0]
    assert "the kitten" in treats, plan
    net = plan.split("Butterfly Net", 1)[1].split(",")[0]
    assert "the kitten" in net, plan
    cactus = plan.split("Cactus", 1)[1]  # it serves none of the mission's needs: a use that
    goal_of = mission(deck, task := "Rescue a Kitten From an Oak Tree")  # bends to it
    bent = [_render(j, goal_of) for m, j in deck.jobs["Cactus"] if m == "all"]
    assert any(j.lower() in cactus.lower()  # (a last item's beat: "Cactus? To wedge...")
               for j in [*bent, *goal_of.uses]), (task, plan)


def test_the_obvious_job_comes_first() -> None:
    """What the readers of plans-1 and plans-2 missed: the glove catches the vase, the
    tuxedo makes a penguin, the oven mitts carry the pizza (the item's own jobs)."""
    deck = own_jobs_deck()
    for task, item, words in (("Catch a Falling Vase", "Baseball Glove", "catch the vase"),
                              ("Blend In With the Penguins", "Tuxedo", "a penguin"),
                              ("Tiptoe Past a Guard Dog", "Pet Treats", "the guard dog"),
                              ("Wake a Snoring Dragon", "Alarm Clock", "wake the dragon"),
                              ("Fix Mom's Teapot Before She Sees", "Superglue", "teapot")):
        plan = plan_text(deck, task, [item], random.Random(3))
        assert words in plan, plan


def test_a_job_written_for_the_item_in_this_mission_comes_first() -> None:
    """The game's own deck has four pair jobs for every item in every mission (and some
    items a job of their own for it by name): a plan with room says one of them, and so
    does the next plan of the round."""
    deck = load_deck()
    rng = random.Random(11)
    for _ in range(40):
        task, items = rng.choice(deck.task_names), rng.sample(deck.item_names, 2)
        first = plan_text(deck, task, items, rng)
        second = plan_text(deck, task, items, rng, [first], 1, [first])
        for item in items:
            assert len(deck.pair_jobs[item][task]) >= 2, (task, item)
            written = [j for m, j in item_jobs(deck, task, item) if m == task]
            assert any(f"{item} {j}" in first for j in written), first
            assert any(f"{item} {j}" in second for j in written), second
        assert opener(first) != opener(second)


def test_the_goal_of_a_mission_is_the_thing_after_its_verb() -> None:
    assert goal("Rescue a Kitten From an Oak Tree") == "the kitten"
    assert goal("Steal Back Your Diary From a Spy") == "your diary"
    assert goal("Scare Seagulls Off Your Fries") == "seagulls"
    assert goal("Escape From Quicksand") == "quicksand"
    assert goal("Fix Mom's Teapot Before She Sees") == "mom's teapot"
    deck = load_deck()
    assert mission(deck, "Fix Mom's Teapot Before She Sees").title == "Teapot"
    assert mission(deck, "Sneak Cookies Past the Chef").who == "the chef"


def test_no_word_comes_twice_in_a_plan_when_another_job_would_do() -> None:
    """What the reader of plans-3 heard: "to swat away bad ideas ... to bounce off bad
    ideas", "for a lie-down after ... for a long nap after". A plan's jobs say each word
    once (the goal may come back), as long as the items have other jobs."""
    deck = load_deck()
    rng = random.Random(4)
    clashes = 0
    for _ in range(400):
        task = rng.choice(deck.task_names)
        items = rng.sample(deck.item_names, 4)
        plan = plan_text(deck, task, items, rng)
        goal_of = mission(deck, task)
        jobs = [plan.split(item, 1)[1].split(",")[0].split(". ")[0] for item in items]
        goal_words = content_words(goal_of.obj) | content_words(goal_of.thing)
        clashes += any(repeats(j, jobs[:k], goal_words, len(jobs)) for k, j in enumerate(jobs))
    assert clashes <= 4, clashes


def test_an_item_that_serves_nothing_of_the_mission_still_names_it() -> None:
    """No mission-free line when the item has a use that bends to any mission: the
    Tennis Racket in a leaky boat bats or rows, it does not swat away bad ideas (its own
    jobs, once the round has said its pair jobs)."""
    deck = own_jobs_deck()
    plan = plan_text(deck, "Patch a Leaky Boat on a Lake", ["Tennis Racket"], random.Random(1))
    assert "the boat" in plan.split("Tennis Racket", 1)[1], plan


def test_a_plan_that_ends_on_a_shout_gets_no_full_stop_after_it() -> None:
    """Readers of plans-8 found "and Megaphone to shout Hold the train!."."""
    plan = plan_text(load_deck(), "Skydive Onto a Moving Train",
                     ["Night Light", "Umbrella", "Catapult", "Megaphone"], random.Random(1))
    assert plan.endswith("!") and not plan.endswith(("!.", "?.")), plan
