"""Player records and finished games, as the lobby shows them."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from engine import journal as journal_mod
from engine.hub import Hub
from engine.identity import Player
from engine.journal import DB_NAME, JournalError, SqliteJournal, open_journal
from engine.records import Records, open_records
from engine.tables import TableOptions
from tests.engine.test_journal import seated_three, sensible_move

T0 = 1_780_000_000.0  # a fixed Unix time


class Clock:
    """A clock the test moves: one minute per reading."""

    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> float:
        self.now += 60
        return self.now


@pytest.fixture
def journal(tmp_path: Path) -> Iterator[SqliteJournal]:
    with open_journal(tmp_path, synchronous="OFF", clock=Clock()) as j:
        yield j


def finish(journal: SqliteJournal, code: str, game_no: int,
           seats: list[tuple[str, str, int]], winners: list[int] | None = None) -> None:
    """Store a finished game of table ``code``: ``seats`` are (player id, name, score)."""
    if code not in journal.open_tables():
        journal.record(code, 1, "create", {"seed": "s", "host": seats[0][0], "options": {}})
    scores = [score for _, _, score in seats]
    if winners is None:
        winners = [i for i, p in enumerate(scores) if p == max(scores)]
    result: dict[str, Any] = {"players": [n for _, n, _ in seats], "scores": scores,
                              "winners": winners, "rounds": [{"round": 1}, {"round": 2}]}
    journal.game_over(code, game_no, [(pid, name) for pid, name, _ in seats], result)


def test_the_hall_of_fame_ranks_wins_then_points_and_leaves_bots_out(
        journal: SqliteJournal) -> None:
    finish(journal, "AAAA", 1, [("key:ann", "Ann", 5), ("key:bob", "Bob", 3),
                                ("bot:1:2", "Bot Ada", 9)], winners=[2])
    finish(journal, "AAAA", 2, [("key:ann", "Ann", 6), ("key:bob", "Bob", 6),
                                ("bot:1:2", "Bot Ada", 2)])
    finish(journal, "BBBB", 1, [("key:cy", "Cy", 7), ("key:bob", "Bobby", 4),
                                ("guest:dee", "Dee", 1)])
    records = Records(journal.connection)
    fame = records.hall_of_fame(10)
    assert [(r.player_id, r.games_played, r.games_won, r.total_points) for r in fame] == [
        ("key:bob", 3, 1, 13),  # everyone but Dee has one win: points decide
        ("key:ann", 2, 1, 11),
        ("key:cy", 1, 1, 7),
        ("guest:dee", 1, 0, 1),
    ]
    assert all(not r.player_id.startswith("bot:") for r in fame)
    assert [r.player_id for r in records.hall_of_fame(2)] == ["key:bob", "key:ann"]
    assert records.hall_of_fame(0) == []


def test_a_player_record_counts_games_wins_points_and_names(journal: SqliteJournal) -> None:
    finish(journal, "AAAA", 1, [("key:bob", "Bob", 3), ("key:ann", "Ann", 5),
                                ("key:cy", "Cy", 1)])
    finish(journal, "AAAA", 2, [("key:bob", "Bobby", 6), ("key:ann", "Ann", 2),
                                ("key:cy", "Cy", 1)])
    finish(journal, "BBBB", 1, [("key:bob", "Bob", 4), ("key:cy", "Cy", 4),
                                ("key:dee", "Dee", 0)])
    bob = Records(journal.connection).player_record("key:bob")
    assert bob is not None
    assert bob.games_played == 3
    assert bob.games_won == 2  # game 2, and a shared victory in BBBB
    assert bob.total_points == 13
    assert bob.names == ("Bob", "Bobby")  # latest first
    assert bob.name == "Bob"
    assert bob.last_played.tzinfo is UTC
    assert bob.last_played > datetime.fromtimestamp(T0, tz=UTC)
    assert Records(journal.connection).player_record("key:nobody") is None


def test_recent_games_newest_first_with_scores_and_winners(journal: SqliteJournal) -> None:
    finish(journal, "AAAA", 1, [("key:ann", "Ann", 5), ("key:bob", "Bob", 3),
                                ("bot:1:2", "Bot Ada", 5)])
    finish(journal, "BBBB", 1, [("key:cy", "Cy", 2), ("key:dee", "Dee", 4),
                                ("key:eve", "Eve", 1)])
    finish(journal, "AAAA", 2, [("key:ann", "Ann", 1), ("key:bob", "Bob", 3),
                                ("bot:1:2", "Bot Ada", 2)])
    games = Records(journal.connection).recent_games(2)
    assert [(g.code, g.game_no) for g in games] == [("AAAA", 2), ("BBBB", 1)]
    assert games[0].finished_at > games[1].finished_at
    assert [(p.name, p.score) for p in games[0].players] == [("Ann", 1), ("Bob", 3),
                                                             ("Bot Ada", 2)]
    assert games[0].winners == ("Bob",)
    assert games[0].rounds == 2
    everything = Records(journal.connection).recent_games(10)
    assert everything[-1].winners == ("Ann", "Bot Ada")  # a shared victory, bots included
    assert everything[-1].players[2].is_bot


def test_a_game_played_through_the_hub_shows_in_the_records(
        plain_deck: SimpleNamespace, tmp_path: Path) -> None:
    with open_journal(tmp_path) as journal:
        hub = Hub(deck=plain_deck, journal=journal, seed="t", settle_ms=0)
        table, sessions = seated_three(hub, TableOptions(rounds=2))
        sessions[0].start()
        while table.status == "playing":
            sensible_move(table)
        assert table.state is not None
        records = Records(journal.connection)
        [game] = records.recent_games()
        assert game.code == table.code
        assert [p.score for p in game.players] == list(table.state.scores)
        assert [p.name for p in game.players] == ["Ann", "Bob", "Cy"]
        assert game.rounds == 2
        winners = {table.state.players[s] for s in table.state.winners()}
        assert set(game.winners) == winners
        fame = records.hall_of_fame()
        assert {r.name for r in fame} == {"Ann", "Bob", "Cy"}
        assert sum(r.games_won for r in fame) == len(winners)


def test_another_process_can_read_while_the_server_writes(journal: SqliteJournal) -> None:
    finish(journal, "AAAA", 1, [("key:ann", "Ann", 5), ("key:bob", "Bob", 3),
                                ("key:cy", "Cy", 1)])
    reader = open_records(journal.path.parent)
    try:
        assert [g.code for g in reader.recent_games()] == ["AAAA"]
        finish(journal, "BBBB", 1, [("key:ann", "Ann", 2), ("key:bob", "Bob", 3),
                                    ("key:cy", "Cy", 1)])
        assert [g.code for g in reader.recent_games()] == ["BBBB", "AAAA"]
        with pytest.raises(sqlite3.OperationalError, match="readonly"):
            reader.connection.execute("DELETE FROM games")
    finally:
        reader.close()


def test_reading_without_a_journal_says_so(tmp_path: Path) -> None:
    with pytest.raises(JournalError, match="does not exist"):
        open_records(tmp_path)
    (tmp_path / DB_NAME).write_bytes(b"junk" * 1000)
    with pytest.raises(JournalError, match="not a valid database"):
        open_records(tmp_path)


def test_a_guest_who_reclaims_their_seat_stays_one_person_in_the_records(
        plain_deck: SimpleNamespace, tmp_path: Path) -> None:
    """A keyless guest drops twice (in two games at one table) and comes back each time
    with ``ssh -t host CODE`` and the seat code: one line in the hall of fame, two games,
    and their own record shows both."""
    with open_journal(tmp_path) as journal:
        hub = Hub(deck=plain_deck, journal=journal, seed="t", settle_ms=0)
        hub.records = Records(journal.connection)
        table, sessions = seated_three(hub, TableOptions(rounds=2))
        guest = sessions[2]
        assert guest.player.is_guest
        for game, new_token in ((1, "guest:second-connection"), (2, "guest:third")):
            sessions[0].start()
            sensible_move(table)  # a pick: the game is under way
            seat, seat_code = guest.seat, guest.view().seat_code
            guest.detach()
            guest = hub.attach(Player(new_token, "Cy"))
            assert guest.may_reclaim(table.code)
            guest.reclaim(table.code, seat_code)
            assert guest.seat == seat
            while table.status == "playing":
                sensible_move(table)
            assert table.games == game
        fame = hub.records.hall_of_fame()
        assert sorted(r.name for r in fame) == ["Ann", "Bob", "Cy"]
        assert all(r.games_played == 2 for r in fame)
        mine = guest.history().mine
        assert mine is not None and mine.games_played == 2


def test_a_game_ended_before_its_first_round_counts_for_nobody(
        plain_deck: SimpleNamespace, tmp_path: Path) -> None:
    """The host starts, then ends the game at once: the end screen says "no winner this
    time", and the records agree: no game played, nobody won."""
    with open_journal(tmp_path) as journal:
        hub = Hub(deck=plain_deck, journal=journal, seed="t", settle_ms=0)
        table, sessions = seated_three(hub, TableOptions(rounds=2))
        sessions[0].start()
        sensible_move(table)  # a pick: under way, but no round scored
        sessions[0].end_game()
        assert table.status != "playing"
        records = Records(journal.connection)
        assert records.recent_games() == []
        assert records.hall_of_fame() == []


def test_the_upgrade_removes_unplayed_games_already_recorded(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Journals written before the fix (schema 2) hold games with no round as shared wins:
    opening one with this version takes them out of the records and keeps the played
    games."""
    monkeypatch.setattr(journal_mod, "MIGRATIONS", journal_mod.MIGRATIONS[:2])
    with open_journal(tmp_path, synchronous="OFF", clock=Clock()) as journal:
        finish(journal, "AAAA", 1, [("key:ann", "Ann", 5), ("key:bob", "Bob", 3),
                                    ("key:cy", "Cy", 1)])
        journal.record("AAAA", 2, "chat", {"seat": 0, "text": "again?"})
        db = journal.connection
        cursor = db.execute(  # as the old code wrote it: no rounds, everyone won
            "INSERT INTO games (table_id, code, game_no, finished_at, result)"
            " SELECT table_id, code, 2, finished_at + 60, ? FROM games",
            (json.dumps({"scores": [0, 0, 0], "winners": [0, 1, 2], "rounds": []}),))
        db.executemany("INSERT INTO game_players VALUES (?, ?, ?, ?, 0, 0, 1)",
                       [(cursor.lastrowid, seat, pid, name) for seat, (pid, name) in
                        enumerate([("key:ann", "Ann"), ("key:bob", "Bob"), ("key:cy", "Cy")])])
        db.commit()
        assert len(Records(db).recent_games()) == 2
    monkeypatch.undo()
    with open_journal(tmp_path) as journal:
        records = Records(journal.connection)
        assert [g.game_no for g in records.recent_games()] == [1]
        ann = records.player_record("key:ann")
        assert ann is not None and (ann.games_played, ann.games_won) == (1, 1)
        assert journal.connection.execute(
            "SELECT count(*) FROM game_players").fetchone()[0] == 3
