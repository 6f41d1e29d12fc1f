"""Pair jobs: written for one item in one mission, said first, two bots never alike."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from engine.cards import Deck, load_deck
from engine.check_pairs import stock_lines
from engine.fits import FitError, parse_jobs
from engine.pair_jobs import JOBS_PER_PAIR, load_pair_jobs, parse_pair_jobs
from engine.plans import item_jobs, plan_text
from tests.engine.decks import deck_in

DECK = load_deck()
TASK = "Get Past a Grumpy Bouncer"
PAIRS = f"""# two items
== {TASK}
Trampoline: to bounce over the rope; to boing in, waving
Umbrella: to twirl like a film star; to shade the bouncer
"""


def parse(text: str) -> dict[str, dict[str, tuple[str, ...]]]:
    return parse_pair_jobs(text, DECK.task_names, DECK.item_names, "x.txt")


def test_a_pairs_file_reads_as_item_then_mission() -> None:
    assert parse(PAIRS) == {
        "Trampoline": {TASK: ("to bounce over the rope", "to boing in, waving")},
        "Umbrella": {TASK: ("to twirl like a film star",
                            "to shade the bouncer")},
    }


@pytest.mark.parametrize(("text", "says"), [
    ("== Juggle Jelly\nTrampoline: to bounce", "x.txt:1: no mission called 'Juggle Jelly'"),
    ("Trampoline: to bounce", "x.txt:1: a job before the first"),
    (f"== {TASK}\nTrampolines: to bounce", "x.txt:2: expected 'Item: job; job'"),
    (f"== {TASK}\nTrampoline: bounce over", "does not read after 'Trampoline'"),
    (f"== {TASK}\nTrampoline: to " + "bounce " * 10, "characters (at most 26"),
    (f"== {TASK}\nTrampoline: to bounce; to Bounce", "is said twice in Get Past"),
    (f"== {TASK}\nTrampoline:", "Trampoline has no job"),
    (f"== {TASK}\nTrampoline: to bounce over {{who}}", "no {slots}"),
])
def test_a_malformed_line_is_named_with_its_line(text: str, says: str) -> None:
    with pytest.raises(FitError) as raised:
        parse(text)
    assert says in str(raised.value)


def deck_with(tmp_path: Path, pairs: dict[str, str]) -> Deck:
    """The game's deck read from ``tmp_path``, with these pairs files beside it."""
    return deck_in(tmp_path, pairs)


def test_files_merge_and_a_pair_job_comes_before_the_items_own(tmp_path: Path) -> None:
    more = f"== {TASK}\nTrampoline: to spring past like a VIP\n"
    deck = deck_with(tmp_path, {"a.txt": PAIRS, "b.txt": more})
    jobs = item_jobs(deck, TASK, "Trampoline")
    assert jobs[:3] == ((TASK, "to bounce over the rope"),
                        (TASK, "to boing in, waving"), (TASK, "to spring past like a VIP"))
    own = parse_jobs((tmp_path / "jobs.txt").read_text(encoding="utf-8"), DECK.item_names)
    assert jobs[3:] == own["Trampoline"]


def test_a_malformed_line_costs_only_its_own_pair_jobs(tmp_path: Path) -> None:
    broken = f"== No Such Mission\nTrampoline: to bounce\n== {TASK}\nUmbrella: to spin\n" \
             "Trampoline: bounce, no 'to'\n"
    deck = deck_with(tmp_path, {"a.txt": broken})
    own = parse_jobs((tmp_path / "jobs.txt").read_text(encoding="utf-8"), DECK.item_names)
    assert item_jobs(deck, TASK, "Trampoline") == own["Trampoline"]
    assert item_jobs(deck, TASK, "Umbrella") == ((TASK, "to spin"), *own["Umbrella"])
    assert deck.jobs["Umbrella"] == own["Umbrella"]  # the item's own, apart


def test_two_bots_planning_one_mission_say_the_two_pair_jobs(tmp_path: Path) -> None:
    deck = deck_with(tmp_path, {"a.txt": PAIRS})
    items = ["Trampoline", "Umbrella"]
    first = plan_text(deck, TASK, items, random.Random(1))
    second = plan_text(deck, TASK, items, random.Random(2), [first], seat=1, said_now=[first])
    assert "Trampoline to bounce over the rope" in first
    assert "Umbrella to twirl like a film star" in first
    assert "Trampoline to boing in, waving" in second
    assert "Umbrella to shade the bouncer" in second


def test_a_pair_job_that_only_waves_or_snacks_comes_after_every_other(
        tmp_path: Path) -> None:
    """Of an item's jobs written for the mission, one that waves, snacks or cheers by the
    way comes last (after the item's own job for this mission by name, "to bounce over
    the rope"), unless it says what the mission is about ("at the list")."""
    pairs = f"== {TASK}\nTrampoline: to wave at the crowd; to twirl for fun; " \
            "to wave at the list\n"
    deck = deck_with(tmp_path, {"a.txt": pairs})
    said: list[str] = []
    for seat in range(4):
        said.append(plan_text(deck, TASK, ["Trampoline"], random.Random(seat), said, seat,
                              said))
    assert ["to twirl for fun" in said[0], "to wave at the list" in said[1],
            "to bounce over the rope" in said[2], "to wave at the crowd" in said[3]
            ] == [True] * 4, said


def test_the_games_own_pairs_read_cleanly() -> None:
    """Every bundled pairs file parses; a pair written at all has its two jobs."""
    folder = Path(str(DECK.folder))
    pairs = load_pair_jobs(folder, DECK.task_names, DECK.item_names)
    short = [(item, task) for item, by_task in pairs.items()
             for task, jobs in by_task.items() if len(jobs) < JOBS_PER_PAIR]
    assert not short


def test_no_pair_job_says_a_stock_line_of_the_plans() -> None:
    """A shrug ("just in case") or a closer said inside a job would come twice in a plan."""
    assert stock_lines({"Bucket": {TASK: ("as a helmet, just in case", "to bail")}}) == [
        f"Bucket in {TASK}: 'as a helmet, just in case' says 'just in case', a line plans "
        "say on their own"]
    folder = Path(str(DECK.folder))
    assert not stock_lines(load_pair_jobs(folder, DECK.task_names, DECK.item_names))
