"""The journal: a table survives a restart exactly as it was, and a bad file stops the start.

The round trips drive the real hub through player sessions (no bots are ever asked to
move: their seats move through ``hub.submit(..., by_bot=True)``, as the bot tick does),
journal into a real SQLite file, close it, open it again and replay into a fresh hub.
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from engine import hub as hub_module
from engine import journal as journal_mod
from engine import rules
from engine.hub import Hub
from engine.identity import Player
from engine.journal import (
    APPLICATION_ID,
    DB_NAME,
    JournalError,
    SqliteJournal,
    open_journal,
)
from engine.rules import IllegalAction, Phase
from engine.session import Session
from engine.tables import PRESENCE, Table, TableOptions

ROOT = Path(__file__).resolve().parents[2]

ANN = Player("key:SHA256:ann", "Ann")
BOB = Player("key:SHA256:bob", "Bob", address="198.51.100.2")
CY = Player("guest:cy", "Cy")
DEE = Player("key:SHA256:dee", "Dee")


# --- helpers -------------------------------------------------------------------------------


def make_hub(deck: SimpleNamespace, journal: SqliteJournal | None) -> Hub:
    return Hub(deck=deck, journal=journal, seed="t", settle_ms=0)


def snapshot(table: Table) -> dict[str, Any]:
    """Everything about a table that players can notice and that a restart must keep
    (connection flags aside: after a restart everyone is away until they come back)."""
    return {
        "code": table.code,
        "seed": table.seed,
        "options": table.options,
        "host": table.host_id,
        "seats": [(s.player_id, s.name, s.seat_code, s.is_bot) for s in table.seats],
        "status": table.status,
        "games": table.games,
        "seq": table.seq,
        "state": table.state,
        "log": [line for line in table.log  # who is here is not journaled
                if line.kind != PRESENCE],
        "chat": list(table.chat),
    }


def assert_same_table(a: Table, b: Table) -> None:
    assert snapshot(a) == snapshot(b)
    if a.state is not None:
        assert b.state is not None
        assert rules.view_for(a.state, None) == rules.view_for(b.state, None)
        for seat in range(a.state.n):
            assert rules.view_for(a.state, seat) == rules.view_for(b.state, seat)


def replayed(deck: SimpleNamespace, data_dir: Path, **kwargs: Any) -> tuple[Hub, SqliteJournal]:
    """Open the journal again and rebuild a fresh hub from it, as a restarted server does."""
    journal = open_journal(data_dir, **kwargs)
    hub = make_hub(deck, journal)
    hub.replay(journal.records())
    return hub, journal


def session_at(table: Table, seat: int) -> Session:
    player_id = table.seats[seat].player_id
    return next(s for s in table.sessions if s.player.id == player_id)


def sensible_move(table: Table) -> None:
    """One legal move that moves the game on (first row, card 1, plan text...)."""
    state = table.state
    assert state is not None
    match state.phase:
        case Phase.PICKING:
            session_at(table, state.lead).pick(len(state.picks), 0)
        case Phase.GUESSING:
            session_at(table, state.waiting_for()[0]).guess(1)
        case Phase.REVEALING:
            seat = state.next_revealer
            assert seat is not None
            session_at(table, seat).reveal(f"plan of seat {seat}")
        case Phase.LEAD_REVEAL:
            session_at(table, state.lead).lead_reveal("the real plan")
        case Phase.BEST_PLAN:
            session_at(table, state.lead).best_plan(state.guessers[0])
        case Phase.ROUND_OVER:  # the next round starts when everyone is ready
            for seat in range(state.n):
                session_at(table, seat).next_round()
        case _:
            raise AssertionError(f"no move in {state.phase}")


def seated_three(hub: Hub, options: TableOptions | None = None
                 ) -> tuple[Table, list[Session]]:
    ann, bob, cy = (hub.attach(p) for p in (ANN, BOB, CY))
    code = ann.create_table(options)
    bob.join(code)
    cy.join(code)
    return hub.tables[code], [ann, bob, cy]


def rows(journal: SqliteJournal) -> list[tuple[Any, ...]]:
    return journal.connection.execute(
        "SELECT table_id, seq, kind, payload FROM records ORDER BY table_id, seq").fetchall()


# --- round trips through the hub -------------------------------------------------------------


def test_a_game_in_progress_comes_back_exactly(plain_deck: SimpleNamespace,
                                               tmp_path: Path) -> None:
    journal = open_journal(tmp_path / "data")
    hub = make_hub(plain_deck, journal)
    ann, bob, cy = (hub.attach(p) for p in (ANN, BOB, CY))
    dee = hub.attach(DEE)
    code = ann.create_table(TableOptions(best_plan=True, max_seats=5))
    for s in (bob, cy, dee):
        s.join(code)
    dee.leave()  # leaves the lobby: a journalled leave
    bob.rename("Bobby")
    ann.chat("hello agents")
    ann.set_options(TableOptions(best_plan=True, max_seats=4, rounds=3))
    ann.start()
    table = hub.tables[code]
    assert table.state is not None
    # round 1 to its end, then round 2 up to hidden guesses with a Stop! in between
    while table.state.round == 1:
        sensible_move(table)
    state = table.state
    guessers = state.guessers
    session_at(table, state.lead).pick(0, 2)
    session_at(table, guessers[0]).shout(at_ms=1234)
    session_at(table, guessers[0]).guess(3)
    session_at(table, state.lead).pick(1, 1)
    bob.chat("hmm")
    assert table.state.phase is Phase.PICKING
    with pytest.raises(IllegalAction):  # refused: nothing journalled
        session_at(table, guessers[1]).shout(at_ms=2000)
    before = snapshot(table)
    journal.close()

    hub2, journal2 = replayed(plain_deck, tmp_path / "data")
    table2 = hub2.tables[code]
    assert_same_table(table, table2)
    assert snapshot(table2) == before
    assert table2.state is not None
    assert table2.state.round == 2
    assert table2.state.picks == (2, 1)
    assert table2.state.stop == (guessers[0],)
    assert table2.state.guesses[guessers[0]] == 3  # still hidden from the others
    assert rules.view_for(table2.state, guessers[1]).guesses[guessers[0]] is None
    assert [s.name for s in table2.seats] == ["Ann", "Bobby", "Cy"]
    assert table2.seq == table.seq == journal2.open_tables()[code]
    assert all(not s.connected for s in table2.seats)
    journal2.close()


def test_a_player_removed_mid_game_stays_removed_after_a_restart(
        plain_deck: SimpleNamespace, tmp_path: Path) -> None:
    journal = open_journal(tmp_path / "data")
    hub = make_hub(plain_deck, journal)
    table, (ann, _bob, _cy) = seated_three(hub, TableOptions(turn_seconds=0))
    ann.start()
    sensible_move(table)
    ann.remove_seat(1)
    sensible_move(table)
    before = snapshot(table)
    journal.close()

    hub2, journal2 = replayed(plain_deck, tmp_path / "data")
    table2 = hub2.tables[table.code]
    assert snapshot(table2) == before
    assert table2.seats[1].is_bot and table2.seats[1].name == "Bob"
    assert table2.removed == {BOB.id}
    assert table2.removed_from == {"198.51.100.2"}
    back = hub2.attach(BOB)
    assert back.resume() is None
    with pytest.raises(IllegalAction, match="removed you"):
        back.join(table.code)
    journal2.close()


def test_after_a_restart_a_player_in_two_games_comes_back_to_the_newer(
        plain_deck: SimpleNamespace, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Bob left his first game for the lobby and sat down at a second; the server
    restarts (everyone is away since the same moment): he comes back to the second, whose
    code sorts first, and the lobby lists the tables in the order they were made."""
    hub = Hub.open(tmp_path / "data", deck=plain_deck, seed="t", settle_ms=0)
    codes = iter(["ZZZZ", "AAAA"])
    hub.codes.table_code = lambda taken: next(codes)  # type: ignore[method-assign]
    ann, bob, cy, dee = (hub.attach(p) for p in (ANN, BOB, CY, DEE))
    old = ann.create_table(TableOptions(turn_seconds=0))
    bob.join(old)
    cy.join(old)
    ann.start()
    bob.leave()
    new = dee.create_table(TableOptions(turn_seconds=0))
    bob.join(new)
    cy.join(new)
    dee.start()
    hub.close()

    monkeypatch.setattr(hub_module, "now_ms", lambda: 1000.0)  # one moment for every seat
    again = Hub.open(tmp_path / "data", deck=plain_deck, seed="t", settle_ms=0)
    assert list(again.tables) == ["ZZZZ", "AAAA"]
    assert again.attach(BOB).resume() == "AAAA"
    again.close()


def test_play_goes_on_after_a_restart_and_survives_another(plain_deck: SimpleNamespace,
                                                           tmp_path: Path) -> None:
    data = tmp_path / "data"
    journal = open_journal(data)
    table, _ = seated_three(make_hub(plain_deck, journal))
    session_at(table, 0).start()
    for _ in range(5):
        sensible_move(table)
    journal.close()

    hub2, journal2 = replayed(plain_deck, data)
    table2 = hub2.tables[table.code]
    for player in (ANN, BOB, CY):  # everyone comes back to their seat
        hub2.attach(player).join(table.code)
    assert all(s.connected for s in table2.seats)
    seq = table2.seq
    for _ in range(12):
        sensible_move(table2)
    assert table2.seq == seq + 12
    journal2.close()

    hub3, journal3 = replayed(plain_deck, data)
    assert_same_table(table2, hub3.tables[table.code])
    journal3.close()


def test_finished_tables_replay_until_closed(plain_deck: SimpleNamespace,
                                             tmp_path: Path) -> None:
    journal = open_journal(tmp_path)
    hub = make_hub(plain_deck, journal)
    done, _ = seated_three(hub, TableOptions(rounds=1))
    for player in (DEE, Player("key:e", "Eve"), Player("key:f", "Fay")):
        hub.attach(player)
    other = hub.attach(DEE)
    other_code = other.create_table()
    session_at(done, 0).start()
    while done.status == "playing":
        sensible_move(done)
    assert done.status == "finished"
    journal.close()

    hub2, journal2 = replayed(plain_deck, tmp_path)
    assert set(hub2.tables) == {done.code, other_code}
    assert_same_table(done, hub2.tables[done.code])
    assert journal2.has_game(done.code, 1)
    assert journal2.connection.execute("SELECT count(*) FROM games").fetchone()[0] == 1
    assert journal2.close_table(done.code)
    assert not journal2.close_table(done.code)
    journal2.close()

    hub3, journal3 = replayed(plain_deck, tmp_path)
    assert set(hub3.tables) == {other_code}
    journal3.close()


def test_a_killed_server_loses_nothing_it_acknowledged(tmp_path: Path) -> None:
    """The process dies without closing anything (kill -9, a crash): every record that
    returned is there at the next start, and the lock died with the process."""
    script = (
        "import os, sys\n"
        "from engine.journal import open_journal\n"
        "j = open_journal(sys.argv[1])\n"
        "j.record('ABCD', 1, 'create', {'seed': 's', 'host': 'h', 'options': {}})\n"
        "for seq in range(2, 52):\n"
        "    j.record('ABCD', seq, 'chat', {'seat': 0, 'text': f'line {seq}'})\n"
        "os._exit(9)\n"
    )
    done = subprocess.run([sys.executable, "-c", script, str(tmp_path)], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 9, done.stderr
    assert (tmp_path / f"{DB_NAME}-wal").exists()  # not checkpointed: recovery from the log
    with open_journal(tmp_path) as journal:
        records = list(journal.records())
    assert [r[1] for r in records] == list(range(1, 52))
    assert records[-1] == ("ABCD", 51, "chat", {"seat": 0, "text": "line 51"})


# --- property: any legal history replays to the same tables -----------------------------------

POOL = [Player(f"key:p{i}", f"P{i}") for i in range(5)] + [Player("guest:g", "Guest")]


class Cmd:
    """One command a player (or the hub's bot) may send; shown by name when a case fails."""

    def __init__(self, label: str, run: Callable[[], None]) -> None:
        self.label, self.run = label, run

    def __repr__(self) -> str:
        return self.label


class Driver:
    """Random table commands, most of them legal, through sessions as players send them."""

    def __init__(self, hub: Hub, data: st.DataObject) -> None:
        self.hub = hub
        self.data = data
        self.sessions = {p.id: hub.attach(p) for p in POOL}
        self.clock = 0

    def draw(self, strategy: st.SearchStrategy[Any]) -> Any:
        return self.data.draw(strategy)

    def move(self, table: Table, seat: int, action: rules.Action) -> Cmd:
        """``seat`` moves through its player's session if they sit here, else as the hub's
        bot or turn timer would."""
        session = self.sessions.get(table.seats[seat].player_id)
        if session is not None and session.table is table:
            return Cmd(f"{session.player.name} {action}@{table.code}",
                       lambda: _send(session, action))
        return Cmd(f"bot {action}@{table.code}",
                   lambda: self.hub.submit(table, action, None, by_bot=True))

    def smart(self, table: Table) -> list[Cmd]:
        """Moves that take the game forward (the host starts a game once three sit)."""
        state = table.state
        if table.status != "playing" or state is None:
            host = self.sessions.get(table.host_id or "")
            if host is None or host.table is not table or len(table.seats) < 3:
                return []
            return [Cmd(f"{host.player.name} start@{table.code}", host.start)]
        moves: list[tuple[int, rules.Action]] = []
        plan = self.draw(st.sampled_from(["", "rope!", "\x1b[31mred\x1b[0m plan"]))
        match state.phase:
            case Phase.PICKING:
                moves.append((state.lead, rules.Pick(state.lead, len(state.picks),
                                                     self.draw(st.integers(0, 3)))))
                for s in state.guessers:
                    self.clock += self.draw(st.integers(0, 500))
                    moves.append((s, rules.Shout(s, self.clock)))
                    moves.append((s, rules.Guess(s, self.draw(st.integers(1, 4)))))
            case Phase.GUESSING:
                moves += [(s, rules.Guess(s, self.draw(st.integers(1, 4))))
                          for s in state.waiting_for()]
            case Phase.REVEALING:
                moves += [(s, rules.Reveal(s, plan)) for s in state.waiting_for()]
            case Phase.LEAD_REVEAL:
                moves.append((state.lead, rules.LeadReveal(state.lead, plan)))
            case Phase.BEST_PLAN:
                choice = self.draw(st.sampled_from(state.guessers))
                moves.append((state.lead, rules.BestPlan(state.lead, choice)))
            case Phase.ROUND_OVER:
                moves += [(s, rules.NextRound(s)) for s in range(state.n)]
        return [self.move(table, seat, action) for seat, action in moves]

    def wild(self, table: Table) -> list[Cmd]:
        """Lobby and social commands, and moves that may well be refused."""
        out: list[Cmd] = []
        draw = self.draw
        for player_id, s in self.sessions.items():
            def cmd(what: str, run: Callable[[], None], s: Session = s) -> None:
                out.append(Cmd(f"{s.player.name} {what}@{table.code}", run))

            if s.table is not table:
                # (a spectator's join of its own table is left out: Session.join leaves
                # first, which may close the table it then sits at; see the hub's notes)
                cmd("join", lambda s=s: s.join(table.code))
                if player_id.startswith("guest:"):
                    for i, seat in enumerate(table.seats):
                        cmd(f"reclaim {i}",
                            lambda s=s, c=seat.seat_code: s.reclaim(table.code, c))
            else:
                cmd("leave", lambda s=s: s.leave())
                cmd("chat", lambda s=s: s.chat(draw(st.sampled_from(
                    ["hi", "", "  spaced  ", "\x07bell"]))))
                cmd("rename", lambda s=s: s.rename(draw(st.sampled_from(
                    ["Zed", "P1", "", "Ann\x1b]0;x\x07"]))))
                cmd("start", lambda s=s: s.start())
                cmd("end_game", lambda s=s: s.end_game())
                cmd("add_bot", lambda s=s: s.add_bot())
                cmd("remove_seat", lambda s=s: s.remove_seat(draw(st.integers(0, 5))))
                cmd("options", lambda s=s: s.set_options(TableOptions(
                    rounds=draw(st.sampled_from([None, 0, 1, 2])),
                    best_plan=draw(st.booleans()),
                    max_seats=draw(st.integers(3, 5)))))
                cmd("pick?", lambda s=s: s.pick(draw(st.integers(0, 4)),
                                                draw(st.integers(0, 4))))
                cmd("guess?", lambda s=s: s.guess(draw(st.integers(0, 5))))
                cmd("shout?", lambda s=s: s.shout(at_ms=draw(st.integers(0, 10**6))))
                cmd("reveal?", lambda s=s: s.reveal())
                cmd("next_round?", lambda s=s: s.next_round())
        return out


def _send(session: Session, action: rules.Action) -> None:
    session.play(action)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                      HealthCheck.function_scoped_fixture])
@given(st.data())
def test_any_legal_history_replays_to_the_same_tables(plain_deck: SimpleNamespace,
                                                      data: st.DataObject) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        journal = open_journal(tmp, synchronous="OFF")  # durability is tested elsewhere
        hub = make_hub(plain_deck, journal)
        driver = Driver(hub, data)
        host = driver.sessions[POOL[0].id]
        host.create_table(TableOptions(rounds=data.draw(st.sampled_from([None, 1, 2])),
                                       best_plan=data.draw(st.booleans())))
        tables = list(hub.tables.values())
        for player in POOL[1:3]:
            driver.sessions[player.id].join(tables[0].code)
        if data.draw(st.booleans()):  # a second table, commands interleaved with the first
            driver.sessions[POOL[3].id].create_table()
            tables = list(hub.tables.values())
        for _ in range(data.draw(st.integers(10, 200))):
            table = data.draw(st.sampled_from(tables))
            smart = driver.smart(table)
            forward = smart and data.draw(st.integers(0, 9)) < 8
            command = data.draw(st.sampled_from(smart if forward else driver.wild(table)))
            seq, stored = table.seq, journal.open_tables()[table.code]
            try:
                command.run()
            except IllegalAction:
                assert table.seq == seq  # a refusal is never journalled
                assert journal.open_tables()[table.code] == stored
            for t in list(tables):
                if t.code in hub.tables:
                    assert journal.open_tables()[t.code] == t.seq
                else:  # the hub closed it: so did the journal
                    assert t.code not in journal.open_tables()
                    tables.remove(t)
            if not tables:
                break
        for t in hub.tables.values():
            event(f"table reached: {t.status}, round "
                  f"{0 if t.state is None else min(t.state.round, 3)}")
        journal.close()

        hub2, journal2 = replayed(plain_deck, Path(tmp))
        assert set(hub2.tables) == set(hub.tables)
        for code, table in hub.tables.items():
            assert_same_table(table, hub2.tables[code])
        journal2.close()


# --- the file ----------------------------------------------------------------------------------


def test_first_start_makes_a_private_wal_database(tmp_path: Path) -> None:
    data = tmp_path / "data"
    with open_journal(data) as journal:
        db = journal.connection
        assert journal.path == data / DB_NAME
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
        assert db.execute("PRAGMA user_version").fetchone()[0] == journal_mod.schema_version()
        assert db.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
    assert (data / DB_NAME).stat().st_mode & 0o077 == 0
    assert data.stat().st_mode & 0o077 == 0


def test_close_checkpoints_and_lets_go(tmp_path: Path) -> None:
    journal = open_journal(tmp_path)
    journal.record("ABCD", 1, "create", {"seed": "s", "host": "h", "options": {}})
    assert (tmp_path / f"{DB_NAME}-wal").stat().st_size > 0
    journal.close()
    journal.close()
    wal = tmp_path / f"{DB_NAME}-wal"
    assert not wal.exists() or wal.stat().st_size == 0
    with pytest.raises(JournalError, match="closed"):
        journal.record("ABCD", 2, "chat", {})
    with open_journal(tmp_path) as again:  # the lock went with close()
        assert again.open_tables() == {"ABCD": 1}


def test_one_server_per_data_directory(tmp_path: Path) -> None:
    with open_journal(tmp_path), pytest.raises(JournalError, match="in use by another server"):
        open_journal(tmp_path)


def test_garbage_file_is_reported_and_left_alone(tmp_path: Path) -> None:
    path = tmp_path / DB_NAME
    junk = b"these are not the tables you are looking for\n" * 200
    path.write_bytes(junk)
    with pytest.raises(JournalError) as raised:
        open_journal(tmp_path)
    message = str(raised.value)
    assert str(path) in message
    assert "not a valid database" in message
    assert "move it away or restore a backup" in message
    assert path.read_bytes() == junk
    assert not (tmp_path / f"{DB_NAME}-wal").exists()
    with open_journal(tmp_path / "elsewhere"):  # the failed open kept no lock behind
        pass


def test_damaged_pages_are_found_at_open(tmp_path: Path) -> None:
    with open_journal(tmp_path) as journal:
        journal.record("ABCD", 1, "create", {"seed": "s", "host": "h", "options": {}})
        for seq in range(2, 400):
            journal.record("ABCD", seq, "chat", {"seat": 0, "text": "x" * 100})
    path = tmp_path / DB_NAME
    raw = bytearray(path.read_bytes())
    page = 4096
    assert len(raw) > 6 * page
    raw[3 * page : 5 * page] = b"\xa5" * (2 * page)  # two pages of the records tree
    path.write_bytes(bytes(raw))
    with pytest.raises(JournalError) as raised:
        open_journal(tmp_path)
    assert f"{path} is not a valid database" in str(raised.value)
    assert path.read_bytes() == bytes(raw)


def test_someone_elses_database_is_not_taken_over(tmp_path: Path) -> None:
    path = tmp_path / DB_NAME
    other = sqlite3.connect(path)
    other.execute("CREATE TABLE recipes (name TEXT)")
    other.commit()
    other.close()
    before = path.read_bytes()
    with pytest.raises(JournalError, match="not a Mission Impractical journal"):
        open_journal(tmp_path)
    assert path.read_bytes() == before


def test_a_newer_schema_is_refused(tmp_path: Path) -> None:
    with open_journal(tmp_path) as journal:
        journal.connection.execute("PRAGMA user_version = 99")
    with pytest.raises(JournalError, match="newer version"):
        open_journal(tmp_path)


def test_an_unwritable_data_directory_is_reported(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    with pytest.raises(JournalError, match="cannot create the data directory"):
        open_journal(blocker / "data")


# --- schema versions -------------------------------------------------------------------------


def test_an_empty_v0_database_gets_the_current_schema(tmp_path: Path) -> None:
    path = tmp_path / DB_NAME
    sqlite3.connect(path).close()  # an empty SQLite file: user_version 0, no tables
    with open_journal(tmp_path) as journal:
        db = journal.connection
        assert db.execute("PRAGMA user_version").fetchone()[0] == journal_mod.schema_version()
        names = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        assert {"tables", "records", "games", "game_players"} <= names
    assert not list(tmp_path.glob("*.bak"))  # nothing to keep from an empty file


def _to_v2(db: sqlite3.Connection) -> None:
    """A future layout: every record knows its size (backfilled)."""
    db.execute("ALTER TABLE records ADD COLUMN size INTEGER NOT NULL DEFAULT 0")
    db.execute("UPDATE records SET size = length(payload)")


def test_an_older_database_is_upgraded_in_place_with_a_backup(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    now = journal_mod.schema_version()
    with open_journal(tmp_path) as journal:  # written by today's server
        journal.record("ABCD", 1, "create", {"seed": "s", "host": "h", "options": {}})
        journal.record("ABCD", 2, "chat", {"seat": 0, "text": "hé"})
    monkeypatch.setattr(journal_mod, "MIGRATIONS", [*journal_mod.MIGRATIONS, _to_v2])
    with open_journal(tmp_path) as journal:
        db = journal.connection
        assert db.execute("PRAGMA user_version").fetchone()[0] == now + 1
        assert [r[1] for r in journal.records()] == [1, 2]
        sizes = [r[0] for r in db.execute("SELECT size FROM records ORDER BY seq")]
        assert sizes[1] == len(json.dumps({"seat": 0, "text": "hé"}, ensure_ascii=False,
                                          separators=(",", ":")))
        journal.record("ABCD", 3, "chat", {"seat": 0, "text": "after"})
    backup = sqlite3.connect(tmp_path / f"{DB_NAME}.v{now}.bak")
    assert backup.execute("PRAGMA user_version").fetchone()[0] == now
    assert backup.execute("SELECT count(*) FROM records").fetchone()[0] == 2
    backup.close()


def test_a_failed_upgrade_leaves_the_file_as_it_was(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with open_journal(tmp_path) as journal:
        journal.record("ABCD", 1, "create", {"seed": "s", "host": "h", "options": {}})

    def broken(db: sqlite3.Connection) -> None:
        db.execute("ALTER TABLE records ADD COLUMN note TEXT")
        db.execute("SELECT no_such_column FROM records")

    now = journal_mod.schema_version()
    monkeypatch.setattr(journal_mod, "MIGRATIONS", [*journal_mod.MIGRATIONS, broken])
    with pytest.raises(JournalError, match=rf"cannot upgrade .* from schema {now} to {now + 1}"):
        open_journal(tmp_path)
    monkeypatch.undo()
    with open_journal(tmp_path) as journal:
        db = journal.connection
        assert db.execute("PRAGMA user_version").fetchone()[0] == now
        assert "note" not in {r[1] for r in db.execute("PRAGMA table_info(records)")}
        assert [r[2] for r in journal.records()] == ["create"]


# --- what record() refuses -------------------------------------------------------------------


CREATE = {"seed": "s", "host": "h", "options": {}}


@pytest.mark.parametrize(("code", "seq", "kind", "payload", "message"), [
    ("ABCD", 2, "chat", {}, "does not follow"),
    ("ABCD", 4, "chat", {}, "does not follow"),
    ("WXYZ", 1, "chat", {}, "not open"),
    ("ABCD", 1, "create", CREATE, "already open"),
    ("ABCD", 3, "chat", {"text": {1, 2}}, "not JSON-ready"),
    ("ABCD", 3, "chat", {"x": float("nan")}, "not JSON-ready"),
    ("WXYZ", 2, "create", CREATE, "must start at seq 1"),
])
def test_records_that_would_replay_wrongly_are_refused(
        tmp_path: Path, code: str, seq: int, kind: str, payload: dict[str, Any],
        message: str) -> None:
    with open_journal(tmp_path) as journal:
        journal.record("ABCD", 1, "create", CREATE)
        journal.record("ABCD", 2, "chat", {"seat": 0, "text": "hi"})
        before = rows(journal)
        with pytest.raises(JournalError, match=message):
            journal.record(code, seq, kind, payload)
        assert rows(journal) == before
        journal.record("ABCD", 3, "chat", {"seat": 0, "text": "still fine"})


def test_a_closed_code_can_be_used_again(tmp_path: Path) -> None:
    with open_journal(tmp_path) as journal:
        journal.record("ABCD", 1, "create", {**CREATE, "seed": "old"})
        journal.record("ABCD", 2, "chat", {"seat": 0, "text": "old"})
        journal.close_table("ABCD")
        journal.record("ABCD", 1, "create", {**CREATE, "seed": "new"})
        assert list(journal.records()) == [("ABCD", 1, "create", {**CREATE, "seed": "new"})]
    with open_journal(tmp_path) as journal:
        assert journal.open_tables() == {"ABCD": 1}
        assert [r[3]["seed"] for r in journal.table_records("ABCD")] == ["new"]


def test_a_broken_history_is_reported_not_replayed(tmp_path: Path) -> None:
    with open_journal(tmp_path) as journal:
        journal.record("ABCD", 1, "create", CREATE)
        for seq in (2, 3, 4):
            journal.record("ABCD", seq, "chat", {"seat": 0, "text": str(seq)})
        journal.connection.execute("DELETE FROM records WHERE seq = 3")
    with open_journal(tmp_path) as journal, pytest.raises(JournalError, match="broken history"):
        list(journal.records())


def test_a_finished_game_is_stored_once(plain_deck: SimpleNamespace, tmp_path: Path) -> None:
    with open_journal(tmp_path) as journal:
        hub = make_hub(plain_deck, journal)
        table, sessions = seated_three(hub, TableOptions(rounds=1))
        sessions[0].start()
        while table.status == "playing":
            sensible_move(table)
        assert table.state is not None
        assert journal.has_game(table.code, 1)  # the hub stored it as the game ended
        seats = [(s.player_id, s.name) for s in table.seats]
        result = rules.game_summary(table.state)
        journal.game_over(table.code, table.games, seats, result)  # again: no double
        stored = journal.connection.execute("SELECT result FROM games").fetchall()
        assert len(stored) == 1
        assert json.loads(stored[0][0])["scores"] == list(table.state.scores)
        assert journal.connection.execute(
            "SELECT count(*) FROM game_players").fetchone()[0] == 3
        with pytest.raises(JournalError, match="one integer score per seat"):
            journal.game_over(table.code, 2, seats[:2], result)
        with pytest.raises(JournalError, match="not open"):
            journal.game_over("NOPE", 1, seats, result)
        sessions[0].start()  # the same table plays its second game
        while table.status == "playing":
            sensible_move(table)
        assert journal.has_game(table.code, 2)


def test_a_table_the_hub_forgets_is_closed_for_good(plain_deck: SimpleNamespace,
                                                   tmp_path: Path) -> None:
    with open_journal(tmp_path) as journal:
        hub = make_hub(plain_deck, journal)
        host = hub.attach(ANN)
        gone = host.create_table()
        host.add_bot()
        host.leave()  # only a bot is left: the hub forgets the table
        assert gone not in hub.tables
        assert gone not in journal.open_tables()
        assert list(journal.records()) == []
        kept = hub.attach(BOB).create_table()
        assert [r[2] for r in rows(journal)] == ["create", "join", "add_bot", "leave", "close",
                                                 "create", "join"]
    hub2, journal2 = replayed(plain_deck, tmp_path)
    assert set(hub2.tables) == {kept}
    journal2.close()


def test_a_full_disk_refuses_the_record_and_keeps_the_history_whole(tmp_path: Path) -> None:
    with open_journal(tmp_path) as journal:
        journal.record("ABCD", 1, "create", CREATE)
        pages = journal.connection.execute("PRAGMA page_count").fetchone()[0]
        journal.connection.execute(f"PRAGMA max_page_count = {pages + 2}")  # nearly full
        seq = 1
        with pytest.raises(JournalError, match="database or disk is full") as raised:
            for seq in range(2, 1000):
                journal.record("ABCD", seq, "chat", {"seat": 0, "text": "x" * 500})
        assert str(journal.path) in str(raised.value)
        assert journal.open_tables() == {"ABCD": seq - 1}  # the refused one is not counted
        journal.connection.execute("PRAGMA max_page_count = 1000000")  # space again
        journal.record("ABCD", seq, "chat", {"seat": 0, "text": "retried"})
    with open_journal(tmp_path) as journal:
        assert [r[1] for r in journal.records()] == list(range(1, seq + 1))
