"""The simulator: whole bot games, a readable summary, and JSON lines anyone can audit."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from engine.cards import load_deck
from engine.rules import (
    ROUNDS_BY_PLAYERS,
    Options,
    Phase,
    State,
    action_from_dict,
    apply,
    new_game,
)
from engine.simulate import Summary, game_seed, main, play_game

ROOT = Path(__file__).resolve().parents[2]
ACTION_FIELDS = {"record", "game", "round", "type", "seat", "events"}


def json_lines(capsys: pytest.CaptureFixture[str], argv: list[str]) -> tuple[list[Any], str]:
    assert main(argv) == 0
    out, err = capsys.readouterr()
    return [json.loads(line) for line in out.splitlines()], err


def replay(header: dict[str, Any], actions: list[dict[str, Any]]) -> State:
    """Rebuild a game from its JSON lines alone, with the rules engine."""
    deck = load_deck()
    options = Options(rounds=header["rounds"], best_plan=header["best_plan"])
    state = new_game(header["players"], seed=header["seed"], tasks=deck.task_names,
                     items=deck.item_names, options=options)
    for record in actions:
        fields = {k: v for k, v in record.items() if k not in ("record", "game", "round",
                                                                "events")}
        state, events = apply(state, action_from_dict(fields))
        assert [e.text for e in events] == record["events"]
    return state


def by_game(records: list[dict[str, Any]]) -> dict[int, list[dict[str, Any]]]:
    games: dict[int, list[dict[str, Any]]] = {}
    for record in records:
        games.setdefault(record["game"], []).append(record)
    return games


# --- JSON lines --------------------------------------------------------------------------


def test_json_output_is_one_valid_object_per_line_with_a_final_score_per_game(
        capsys: pytest.CaptureFixture[str]) -> None:
    records, err = json_lines(capsys, ["--players", "4", "--games", "3", "--seed", "j",
                                       "--json"])
    assert "guess accuracy" in err  # the summary goes to stderr, stdout stays JSON
    games = by_game(records)
    assert sorted(games) == [0, 1, 2]
    for lines in games.values():
        assert lines[0]["record"] == "game"
        assert lines[-1]["record"] == "final"
        assert {r["record"] for r in lines[1:-1]} == {"action", "round", "points"}
        for record in (r for r in lines[1:-1] if r["record"] == "action"):
            assert set(record) >= ACTION_FIELDS
            assert all(isinstance(text, str) and text for text in record["events"])


def test_final_scores_in_the_json_match_replaying_its_actions(
        capsys: pytest.CaptureFixture[str]) -> None:
    records, _ = json_lines(capsys, ["--players", "5", "--games", "2", "--seed", "audit",
                                     "--json", "--best-plan"])
    for lines in by_game(records).values():
        header, final = lines[0], lines[-1]
        state = replay(header, [r for r in lines[1:-1] if r["record"] == "action"])
        assert state.phase is Phase.GAME_OVER
        assert list(state.scores) == final["scores"]
        assert list(state.winners()) == final["winners"]
        assert final["rounds"] == len(state.history) == ROUNDS_BY_PLAYERS[5]
    assert any(r.get("type") == "BestPlan" for r in records)


def test_json_records_carry_the_round_each_action_was_played_in() -> None:
    _, records = play_game(3, "rounds", load_deck())
    actions = [r for r in records if r["record"] == "action"]
    assert all("round" in r for r in records[1:-1])
    assert actions[0]["round"] == 1
    nexts = [r for r in actions if r["type"] == "NextRound"]
    assert [r["round"] for r in nexts] == list(range(1, len(nexts) + 1))


# --- the summary -----------------------------------------------------------------------


def test_the_summary_reports_speed_accuracy_stops_spread_and_winner_score(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--players", "3", "--games", "4", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    for label in ("games/s", "guess accuracy", "stop success", "score spread",
                  "mean winner score"):
        assert label in out


def test_summary_figures_agree_with_the_round_history() -> None:
    state, _ = play_game(4, "count", load_deck())
    summary = Summary()
    summary.add(state)
    guesses = sum(1 for r in state.history for s, g in enumerate(r.guesses)
                  if g is not None and s not in r.stop)
    assert summary.guesses == guesses == 8 * 3 - summary.stops
    assert summary.rounds == 8
    assert summary.as_dict()["mean_winner_score"] == max(state.scores)
    assert summary.as_dict()["score_spread"] == max(state.scores) - min(state.scores)


@pytest.mark.parametrize("argv", [["--players", "2"], ["--players", "9"], ["--games", "0"],
                                  ["--rounds", "-1"], ["--bogus"]])
def test_bad_arguments_are_refused_with_a_usage_error(
        argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    assert exit_.value.code == 2
    assert "usage:" in capsys.readouterr().err


# --- play_game -------------------------------------------------------------------------


@pytest.mark.parametrize("players", range(3, 9))
def test_a_game_lasts_the_rulebooks_number_of_rounds(players: int) -> None:
    state, records = play_game(players, game_seed("length", players), load_deck())
    expected = ROUNDS_BY_PLAYERS.get(players, players)
    assert len(state.history) == expected
    assert records[-1]["rounds"] == expected
    assert {r.lead for r in state.history} == set(range(players))


def test_play_game_honours_the_rounds_option_and_is_deterministic() -> None:
    deck = load_deck()
    state, records = play_game(3, "opt", deck, Options(rounds=2))
    assert len(state.history) == 2
    assert play_game(3, "opt", deck, Options(rounds=2))[1] == records
    assert play_game(3, "other", deck, Options(rounds=2))[1] != records


def test_python_dash_m_engine_simulate_runs() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "engine.simulate", "--players", "3", "--games", "1", "--json"],
        capture_output=True, text=True, cwd=ROOT, check=True, timeout=60)
    lines = done.stdout.splitlines()
    assert json.loads(lines[-1])["record"] == "final"
    assert "games/s" in done.stderr
