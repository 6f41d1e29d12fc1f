"""``mission-impractical export``: a finished game written out while the server runs."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from engine.records import Records
from engine.replay import find_game, load_replay
from engine.tables import TableOptions
from engine.transcript import markdown
from server.admin.cli import main
from tests.engine.test_replay import journal_of, journaled_hub, play_to_the_end, seat_people


def test_export_writes_the_games_log_and_transcript_while_the_server_holds_the_journal(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    hub = journaled_hub(tmp_path, seed="export")  # holds the data dir's lock, as a server
    try:
        table, people = seat_people(hub, ["Ann", "Bob"], bots=("normal",),
                                    options=TableOptions(turn_seconds=0, rounds=2))
        asyncio.run(play_to_the_end(table, people, "export"))
        db = journal_of(hub).connection
        replay = load_replay(db, find_game(Records(db), table.code))

        assert main(["export", table.code, "--format", "json", "--data-dir", str(tmp_path)]) == 0
        lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
        assert lines == list(replay.records)
        moves = [json.loads(p)["action"] for (p,) in db.execute(
            "SELECT payload FROM records WHERE kind = 'move' ORDER BY seq")]
        assert [{k: v for k, v in r.items() if k not in ("record", "game", "round", "events")}
                for r in lines if r["record"] == "action"] == moves
        assert lines[-1]["scores"] == list(table.state.scores)  # type: ignore[union-attr]

        assert main(["export", table.code.lower(), "1", "--data-dir", str(tmp_path)]) == 0
        assert capsys.readouterr().out == markdown(replay)
    finally:
        hub.close()


def test_export_of_a_game_that_is_not_there_says_so(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    journaled_hub(tmp_path).close()
    assert main(["export", "ABCD", "2", "--data-dir", str(tmp_path)]) == 2
    assert "no finished game 2 of table ABCD" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mission.lock", "mission.sqlite3"]
