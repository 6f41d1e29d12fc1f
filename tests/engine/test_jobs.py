"""The hand-written jobs of the bundled deck (engine/data/jobs.txt, without the pair jobs
of engine/data/pairs, which test_pair_jobs.py checks): one set per item,
every job sound, no stock phrases again, every plan they make within the limit."""

from __future__ import annotations

import random
import re
from collections import Counter
from pathlib import Path

import engine
from engine.cards import TAGS, load_deck_dir
from engine.deck_fit import JOBS_HEADER, writes_jobs
from engine.fits import format_jobs
from engine.plans import (
    ALL,
    JOBS,
    OWN,
    SLOTS,
    STOCK_LINES,
    THING,
    _render,
    hand_written,
    mission,
    plan_text,
)
from engine.text import PLAN_MAX
from tests.engine.decks import own_jobs_deck

REPEAT_MAX = 3  # items that may share one job's text ("to light the way")


def kinds() -> set[str]:
    deck = own_jobs_deck()
    return {k.strip() for task in deck.task_names for mark, value in deck.jobs[task]
            if mark == "kinds" for k in value.split(",")}


def test_every_item_has_hand_written_jobs_for_each_of_its_tags() -> None:
    deck = own_jobs_deck()
    for card in deck.items:
        jobs = deck.jobs.get(card.name, ())
        assert hand_written(jobs), card.name
        assert len(jobs) >= 3, card.name
        marks = {m.strip() for mark, _ in jobs for m in mark.split(",")}
        assert card.tags <= marks, (card.name, card.tags - marks)


def test_every_mission_names_its_goal() -> None:
    deck = own_jobs_deck()
    for task in deck.task_names:
        line = dict(deck.jobs[task])
        assert line.get("obj"), task
        assert set(line) <= {"obj", "it", "who", "as", "pet", "done", "kinds", "use"}, task
        assert all(len(u) <= 40 and u[:1].islower() for u in mission(deck, task).uses), task
        assert line.get("done", ".")[-1] in ".!?", task


def test_every_job_parses() -> None:
    """Its marks are tags, kinds a mission names, tasks or 'any'; its slots are known;
    it says no shrug or closer (those come once a game); it is short."""
    deck = own_jobs_deck()
    known = TAGS | kinds() | set(deck.task_names) | {OWN, ALL, THING}
    stock = [s.lower() for s in STOCK_LINES]
    for item in deck.item_names:
        for mark, job in deck.jobs[item]:
            marks = {m.strip() for m in mark.split(",")}
            assert marks <= known, (item, marks - known)
            slots = set(re.findall(r"{(\w+)}", job))
            assert slots <= set(SLOTS), (item, job)
            assert job == job.strip() and job[:1].islower() and not job.endswith("."), job
            assert len(job) <= 40, (item, job)
            assert not any(s in job.lower() for s in stock), (item, job)
            if marks & {ALL, THING}:  # it bends to any mission: by its goal, never by whom
                assert "{who}" not in job and "{pet}" not in job and "{as}" not in job, job
            if OWN in marks:
                assert "{who}" not in job and "{pet}" not in job and "{as}" not in job, job


def test_no_job_is_a_stock_phrase_again() -> None:
    deck = own_jobs_deck()
    texts = Counter(j for item in deck.item_names for j in {j for _, j in deck.jobs[item]})
    common = [(j, n) for j, n in texts.items() if n > REPEAT_MAX]
    assert not common, common


def test_plans_stay_within_the_limit_and_name_every_item() -> None:
    deck = own_jobs_deck()
    rng = random.Random(31)
    for _ in range(1500):
        task = rng.choice(deck.task_names)
        items = rng.sample(deck.item_names, rng.choice((1, 2, 3, 4, 4, 4)))
        plan = plan_text(deck, task, items, rng)
        assert len(plan) <= PLAN_MAX, plan
        assert [i for i in items if i in plan] == items, plan
        assert "{" not in plan and "}" not in plan and "s's" not in plan, plan
        assert mission(deck, task).title.lower() in plan.lower() \
            or task.lower() in plan.lower(), plan


def test_a_host_deck_without_jobs_takes_stock_phrases_by_tag(tmp_path: Path) -> None:
    own = own_jobs_deck()
    (tmp_path / "tasks.txt").write_text(
        "\n".join(f"{c.name} | {', '.join(sorted(c.tags))}" for c in own.tasks[:8]))
    (tmp_path / "items.txt").write_text(
        "\n".join(f"{c.name} | {', '.join(sorted(c.tags))}" for c in own.items[:32]))
    deck = load_deck_dir(tmp_path)
    task, items = deck.task_names[0], list(deck.item_names[:4])
    plan = plan_text(deck, task, items, random.Random(2))
    assert len(plan) <= PLAN_MAX and all(i in plan for i in items), plan
    stock = {j for pool in JOBS.values() for j in pool}
    assert any(j in plan for j in stock if "{" not in j), plan


def test_deck_fit_never_writes_over_hand_written_jobs(tmp_path: Path) -> None:
    assert writes_jobs(tmp_path)  # none yet
    (tmp_path / "jobs.txt").write_text(format_jobs({"Ladder": [("height", "to climb")]},
                                                   JOBS_HEADER))
    assert writes_jobs(tmp_path)  # its own
    (tmp_path / "jobs.txt").write_text("# mine\nLadder | height: to climb up\n")
    assert not writes_jobs(tmp_path)
    assert not writes_jobs(Path(engine.__file__).parent / "data")


def test_every_job_reads_right_for_every_mission_it_serves() -> None:
    """The slots fill in as English: no "the ducklings's", no "a the penguin"."""
    deck = own_jobs_deck()
    for task in deck.task_names:
        goal = mission(deck, task)
        for item in deck.item_names:
            for mark, job in deck.jobs[item]:
                marks = {m.strip() for m in mark.split(",")}
                if not goal.fills(job) or not (marks & goal.marks or marks & {OWN, ALL, THING}):
                    continue
                text = _render(job, goal)
                assert not re.search(r"s's\b|\ban? (the|my)\b|\bthe (the|my)\b|  ", text), \
                    (task, item, text)
