"""What an open server meets over time: nasty text, a bad record, tables nobody comes back to."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace

import pytest

from engine.commands import Chat
from engine.errors import NotAllowed, TooFast
from engine.hub import Hub
from engine.identity import Player
from engine.rules import Phase
from engine.session import RENAME_BURST
from engine.tables import TableOptions
from tests.engine.test_journal import rows, seated_three, sensible_move

NASTY = "a\x07b\x08c\x85d\x7fe\u202ef\u200bg\x1b[31mh\x1b]0;title\x07i"


def _hub(deck: SimpleNamespace, data_dir: Path, **kwargs: object) -> Hub:
    return Hub.open(data_dir, deck=deck, seed="t", settle_ms=0, **kwargs)  # type: ignore[arg-type]


def test_control_characters_never_reach_the_journal(plain_deck: SimpleNamespace,
                                                    tmp_path: Path) -> None:
    hub = _hub(plain_deck, tmp_path)
    table, (ann, bob, _cy) = seated_three(hub)
    ann.start()
    bob.chat("hi " + NASTY)
    hub.command(table, Chat(1, NASTY))  # even past the session
    bob.rename("Bo" + NASTY)
    while table.state is not None and table.state.phase is not Phase.REVEALING:
        sensible_move(table)
    state = table.state
    assert state is not None and state.next_revealer is not None
    seat = state.next_revealer
    next(s for s in table.sessions if s.seat == seat).reveal("plan\n" + NASTY)
    stored = [json.loads(payload) for *_, payload in rows(hub.journal)]  # type: ignore[arg-type]
    flat = json.dumps(stored, ensure_ascii=False)
    for bad in "\x07\x08\x85\x7f\u202e\u200b\x1b":
        assert bad not in flat, repr(bad)
    assert {"seat": 1, "text": "abc defghi"} in stored  # the visible letters are kept
    hub.close()


def _bad_record(data_dir: Path, code: str, payload: str, kind: str = "move") -> None:
    import sqlite3

    db = sqlite3.connect(data_dir / "mission.sqlite3")
    table_id, seq = db.execute(
        "SELECT t.id, MAX(r.seq) FROM tables t JOIN records r ON r.table_id = t.id "
        "WHERE t.code = ? GROUP BY t.id", (code,)).fetchone()
    db.execute("INSERT INTO records (table_id, seq, kind, payload, at) VALUES (?, ?, ?, ?, 0)",
               (table_id, seq + 1, kind, payload))
    db.commit()
    db.close()


@pytest.mark.parametrize("kind, payload", [
    ("move", json.dumps({"action": {"type": "Pick", "seat": 0, "column": 99, "row": 0},
                         "bot": False})),
    ("teleport", "{}"),
])
def test_one_bad_record_sets_its_table_aside_and_the_rest_are_served(
    plain_deck: SimpleNamespace, tmp_path: Path, kind: str, payload: str
) -> None:
    hub = _hub(plain_deck, tmp_path)
    broken, _ = seated_three(hub)
    broken_code = broken.code
    dee = hub.attach(Player("key:dee", "Dee"))
    kept = dee.create_table()
    hub.close()
    _bad_record(tmp_path, broken_code, payload, kind)

    again = _hub(plain_deck, tmp_path)
    assert kept in again.tables
    assert broken_code not in again.tables
    assert broken_code in again.set_aside
    for _ in range(30):  # new tables never take the set-aside code
        assert again.attach(Player(f"key:n{_}", "N")).create_table() != broken_code
    again.close()


def test_a_game_every_human_left_ends_after_a_while(plain_deck: SimpleNamespace,
                                                    tmp_path: Path) -> None:
    hub = _hub(plain_deck, tmp_path, abandoned_seconds=60)
    table, sessions = seated_three(hub, TableOptions(bots_fill=True))
    sessions[0].start()
    code = table.code
    hub.close()

    again = _hub(plain_deck, tmp_path, abandoned_seconds=60)  # everyone is away now
    assert code in again.tables
    seat_left = max(s.away_since or 0 for s in again.tables[code].seats)
    assert again.expire_abandoned(now=seat_left + 30_000) == []
    assert code in again.expire_abandoned(now=seat_left + 61_000)
    assert code not in again.tables
    again.close()
    third = _hub(plain_deck, tmp_path)
    assert code not in third.tables  # and it stays ended after a restart
    third.close()


def test_a_player_cannot_open_tables_without_end(plain_deck: SimpleNamespace) -> None:
    hub = Hub(deck=plain_deck, seed="t", settle_ms=0, tables_per_player=2)
    host = Player("key:spam", "Spam")
    hub.create_table(TableOptions(), host)
    hub.create_table(TableOptions(), host)
    with pytest.raises(NotAllowed, match="already at 2 tables"):
        hub.create_table(TableOptions(), host)
    hub.create_table(TableOptions(), Player("key:other", "Other"))  # others still can


def _taken_before_slow_down(act: Callable[[int], object]) -> int:
    """How many of 50 calls ``act(n)`` makes before one is refused as too fast."""
    taken = 0
    with pytest.raises(TooFast, match="slow down"):
        for n in range(50):
            act(n)
            taken += 1
    return taken


def test_renames_are_rate_limited_per_player_and_others_can_still_rename(
    plain_deck: SimpleNamespace,
) -> None:
    """A rename flood: each new name of a seated player is a journal record and a line
    every seat at the table is told of; one session renamed itself as fast as it could
    type (unbounded before). The same name again costs nothing."""
    hub = Hub(deck=plain_deck, seed="t", settle_ms=0)
    table, (ann, bob, _cy) = seated_three(hub)
    assert _taken_before_slow_down(lambda n: ann.rename(f"Ann {n}")) == RENAME_BURST
    kept = f"Ann {RENAME_BURST - 1}"
    assert ann.rename(kept) == kept  # the same name: no cost
    bob.rename("Bobby")
    assert any(seat.name == "Bobby" for seat in table.seats)


def test_chat_is_rate_limited_per_player_and_others_can_still_talk(
    plain_deck: SimpleNamespace,
) -> None:
    hub = Hub(deck=plain_deck, seed="t", settle_ms=0)
    table, (ann, bob, _cy) = seated_three(hub)
    assert _taken_before_slow_down(lambda n: ann.chat(f"spam {n}")) == 5
    bob.chat("can I talk?")
    assert table.chat[-1].text == "can I talk?"


def test_text_in_a_crafted_journal_is_cleaned_again_as_it_is_replayed(
        plain_deck: SimpleNamespace, tmp_path: Path) -> None:
    """Found: a chat record holding ESC, written into the journal (a crafted backup given
    to ``restore``), reached every player's terminal: OSC 0, CSI 2J, RLO."""
    hub = _hub(plain_deck, tmp_path)
    table, _ = seated_three(hub)
    code = table.code
    hub.close()
    _bad_record(tmp_path, code, json.dumps({"seat": 1, "text": NASTY + "\x1b[2J"}), "chat")
    again = _hub(plain_deck, tmp_path)
    assert code in again.tables, again.set_aside
    said = [line.text for line in again.tables[code].chat]
    assert said and all(bad not in text for text in said for bad in "\x07\x1b\u202e\u200b")
    again.close()


def test_names_in_a_crafted_journals_finished_games_are_cleaned_as_they_are_read(
        tmp_path: Path) -> None:
    import sqlite3

    from engine.journal import open_journal
    from engine.records import Records

    journal = open_journal(tmp_path)
    journal.close()
    db = sqlite3.connect(tmp_path / "mission.sqlite3")
    db.execute("INSERT INTO tables (id, code, created_at, closed_at) VALUES (1, 'ABCD', 0, 1)")
    db.execute("INSERT INTO games (id, table_id, code, game_no, finished_at, result)"
               " VALUES (1, 1, 'ABCD', 1, 1, '{}')")
    db.execute("INSERT INTO game_players (game_id, seat, player_id, name, score, won, is_bot)"
               " VALUES (1, 0, 'key:x', ?, 3, 1, 0)", ("Eve" + NASTY,))
    db.commit()
    records = Records(db)
    (best,) = records.hall_of_fame()
    (game,) = records.recent_games()
    for name in (best.name, *best.names, *(p.name for p in game.players)):
        assert all(bad not in name for bad in "\x07\x1b\u202e\u200b"), repr(name)
    db.close()


def test_a_journal_missing_a_table_is_refused_in_one_line(tmp_path: Path) -> None:
    """Found: a journal missing its ``records`` table made ``serve`` die with a raw
    traceback (sqlite3.OperationalError)."""
    import sqlite3

    from engine.journal import JournalError, open_journal

    open_journal(tmp_path).close()
    db = sqlite3.connect(tmp_path / "mission.sqlite3")
    db.execute("DROP TABLE records")
    db.commit()
    db.close()
    with pytest.raises(JournalError, match="records"):
        open_journal(tmp_path)
