"""The game log: ``simulate --json`` lets anyone audit a game against the rulebook."""

from __future__ import annotations

from dataclasses import replace
from itertools import pairwise
from typing import Any

import pytest

from engine.cards import load_deck
from engine.rules import (
    ROUNDS_BY_PLAYERS,
    BestPlan,
    Guess,
    LeadReveal,
    Options,
    Pick,
    Reveal,
    Shout,
    apply,
    game_summary,
    new_game,
)
from engine.simulate import Lineup, main, play_game, run


@pytest.fixture(scope="module")
def records() -> list[dict[str, Any]]:
    return play_game(4, "audit", load_deck(), Options(best_plan=True, stop_tie_window_ms=250)
                     )[1]


def test_the_header_gives_the_resolved_rounds_the_stop_tie_window_and_the_first_lead(
        records: list[dict[str, Any]]) -> None:
    header = records[0]
    assert header["record"] == "game"
    assert header["rounds"] == ROUNDS_BY_PLAYERS[4]
    assert header["rounds_option"] is None
    assert header["stop_tie_window_ms"] == 250
    assert header["first_lead"] == records[1]["lead"]
    assert header["levels"] == ["normal"] * 4


def test_every_round_shows_its_four_tasks_its_sixteen_items_and_its_secret(
        records: list[dict[str, Any]]) -> None:
    rounds = [r for r in records if r["record"] == "round"]
    assert [r["round"] for r in rounds] == list(range(1, ROUNDS_BY_PLAYERS[4] + 1))
    for record in rounds:
        assert len(record["tasks"]) == 4 and record["secret"] in (1, 2, 3, 4)
        assert len(record["grid"]) == 4 and all(len(column) == 4 for column in record["grid"])
        assert len({item for column in record["grid"] for item in column}) == 16
    leads = [r["lead"] for r in rounds]
    assert all((b - a) % 4 == 1 for a, b in pairwise(leads))


def test_every_point_change_is_a_field_with_the_running_score_zeros_included(
        records: list[dict[str, Any]]) -> None:
    scores = [1, 1, 1, 1]
    points = [r for r in records if r["record"] == "points"]
    assert any(0 in r["deltas"] for r in points)  # seats that scored nothing say so
    for record in points:
        for change in record["changes"]:
            scores[change["seat"]] += change["points"]
            assert change["score"] == scores[change["seat"]] and change["reason"]
        assert record["scores"] == scores
        assert {c["seat"] for c in record["changes"]} == {0, 1, 2, 3}  # everyone, 0 or not
        assert [sum(c["points"] for c in record["changes"] if c["seat"] == s)
                for s in range(4)] == record["deltas"]
    assert records[-1]["scores"] == scores


def _stopper_at_zero_with_the_best_plan() -> tuple[dict[str, Any], int]:
    """Seat 1 shouts Stop!, guesses wrong with 0 points, and is named best plan."""
    deck = load_deck()
    state = new_game(list("ABCD"), seed="order", tasks=deck.task_names,
                     items=deck.item_names, options=Options(best_plan=True))
    state = replace(state, lead=0, secret=1, scores=(1, 0, 1, 1))
    for column in range(2):
        state, _ = apply(state, Pick(0, column, 0))
    state, _ = apply(state, Shout(1))
    state, _ = apply(state, Guess(1, 2))
    for column in range(2, 4):
        state, _ = apply(state, Pick(0, column, 0))
    for seat in (2, 3):
        state, _ = apply(state, Guess(seat, 1))
    for seat in (1, 2, 3):
        state, _ = apply(state, Reveal(seat, "a plan"))
    state, _ = apply(state, LeadReveal(0))
    state, _ = apply(state, BestPlan(0, 1))
    return game_summary(state), state.scores[1]


def test_a_stopper_with_0_points_returns_nothing_then_keeps_a_best_plan_point() -> None:
    summary, score = _stopper_at_zero_with_the_best_plan()
    lines = [(line["reason"], line["points"]) for line in summary["rounds"][0]["lines"]
             if line["seat"] == 1]
    assert lines == [("stop token penalty (no point to return)", 0), ("best plan", 1)]
    assert score == 1


def test_the_journals_game_summary_holds_the_grid_the_picks_and_the_scores_per_round() -> None:
    summary, _ = _stopper_at_zero_with_the_best_plan()
    assert summary["total_rounds"] == 8 and summary["stop_tie_window_ms"] == 0
    assert summary["first_lead"] == 0
    first = summary["rounds"][0]
    assert first["deltas"] == [2, 1, 1, 1]  # lead: 2 right; the stopper: 0 then best plan
    assert len(first["grid"]) == 4 and list(first["picks"]) == [0, 0, 0, 0]
    assert list(first["scores"]) == summary["scores"]


def test_the_figures_command_prints_every_level_and_setup(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--figures", "--games", "2"]) == 0
    out = capsys.readouterr().out
    for level in ("easy", "normal", "sharp"):
        assert f"{level}   " in out or f"{level}  " in out
    assert "perfect guesser vs 3 bots" in out and "lead by words" in out
    assert "hurried lead" in out


def test_at_normal_the_bots_meet_the_issues_figures() -> None:
    """Seeded and modest; ``simulate --figures --games 250`` prints the full table."""
    options = Options()
    bots = run(4, 40, "check", options, lineup=Lineup(("normal",)))
    # a reader of the card words (a proxy written by the same hands as the tags, which
    # the leads no longer follow: people's ratings lead them) still finds most of them
    assert bots.as_dict()["reader_finds_lead"] >= 0.5
    for stand_in in (Lineup(("normal",), lead_by_words=True),
                     Lineup(("normal",), lead_by_sense=True)):  # a person's lead, two ways
        people = run(4, 80, "check", options, lineup=stand_in)
        assert 0.25 <= people.as_dict()["stop_rate"] <= 0.55, stand_in
        assert 0.65 <= people.stop_success <= 0.9, stand_in
    for level, games, at_least in (("normal", 150, 0.2), ("easy", 100, 0.4)):
        perfect = run(4, games, "check", options,
                      lineup=Lineup(("sharp", level), perfect_seat=0))
        assert perfect.as_dict()["perfect_guesser_wins"] >= at_least, level
