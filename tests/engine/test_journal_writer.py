"""The journal committed on a thread of its own: the loop never waits for the disk, and
nobody is told of a change before the disk has it."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from engine.hub import Hub
from engine.identity import Player
from engine.journal import DB_NAME
from engine.journal_writer import JournalWriter
from engine.session import Session
from engine.tables import Table, TableOptions
from tests.waiting import until

NO_TIMER = TableOptions(turn_seconds=0)


class Told:
    """A session's callbacks, counted."""

    def __init__(self) -> None:
        self.changes = 0
        self.notices: list[str] = []

    def change(self) -> None:
        self.changes += 1


@pytest.fixture
def disk_gate(monkeypatch: pytest.MonkeyPatch) -> Iterator[threading.Event]:
    """A disk that commits only while the event is set (a slow SD card, held at will)."""
    gate = threading.Event()
    gate.set()
    commit = JournalWriter._commit

    def slow_commit(self: JournalWriter, *args: object) -> int:
        gate.wait(timeout=10)
        return commit(self, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(JournalWriter, "_commit", slow_commit)
    yield gate
    gate.set()


def on_disk(data: Path, sql: str) -> int:
    """One count, read the way another process would (a connection of its own)."""
    with sqlite3.connect(data / DB_NAME) as db:
        return int(db.execute(sql).fetchone()[0])


def chat_lines(data: Path) -> int:
    return on_disk(data, "SELECT COUNT(*) FROM records WHERE kind = 'chat'")


@contextmanager
def writing_behind(data: Path) -> Iterator[Hub]:
    """The server's hub on ``data``: journaled, its commits on the writer thread."""
    hub = Hub.open(data, seed="wb", settle_ms=0, bot_delay=0.0)
    try:
        hub.write_behind()
        yield hub
    finally:
        hub.close()


def restarted(data: Path) -> list[Table]:
    """The tables a server started again on ``data`` would serve."""
    hub = Hub.open(data, seed="wb")
    try:
        return list(hub.tables.values())
    finally:
        hub.close()


def two_at_a_table(hub: Hub) -> tuple[list[Session], list[Told]]:
    told = [Told(), Told()]
    sessions = [hub.attach(Player(f"key:{i}", f"P{i}"), told[i].change,
                           told[i].notices.append) for i in range(2)]
    code = sessions[0].create_table(NO_TIMER)
    sessions[1].join(code)
    return sessions, told


async def two_seated(hub: Hub) -> tuple[list[Session], list[Told]]:
    """Two at a table, their seats on disk."""
    seated = two_at_a_table(hub)
    await until(lambda: not hub.journal.writer.pending, "the seats saved")  # type: ignore[union-attr]
    return seated


async def test_a_move_is_told_once_the_disk_has_it_and_the_loop_never_waits(
        tmp_path: Path, disk_gate: threading.Event) -> None:
    with writing_behind(tmp_path) as hub:
        (ann, bob), (_ann_told, bob_told) = await two_seated(hub)
        disk_gate.clear()  # the disk stalls
        before = bob_told.changes
        ann.chat("hello")
        ticks = 0
        for _ in range(10):  # the loop runs on while the commit waits
            await asyncio.sleep(0.01)
            ticks += 1
        assert ticks == 10
        assert bob.view().chat[-1].text == "hello"  # accepted, in memory
        assert chat_lines(tmp_path) == 0  # not on disk yet...
        assert bob_told.changes == before  # ...so nobody is told
        disk_gate.set()
        await until(lambda: bob_told.changes > before, "bob told of the chat line")
        assert chat_lines(tmp_path) == 1


async def test_moves_made_while_the_disk_works_share_one_commit(
        tmp_path: Path, disk_gate: threading.Event) -> None:
    with writing_behind(tmp_path) as hub:
        (ann, bob), (_ann_told, bob_told) = await two_seated(hub)
        writer = hub.journal.writer
        commits, before = writer.commits, bob_told.changes
        disk_gate.clear()
        for n in range(5):
            ann.chat(f"ann {n}")
            bob.chat(f"bob {n}")
            await asyncio.sleep(0.002)  # the first commit has begun, and waits
        disk_gate.set()
        await until(lambda: not writer.pending, "every line saved")
        assert chat_lines(tmp_path) == 10
        assert writer.commits - commits <= 2  # ten moves, one or two fsyncs
        assert bob_told.changes - before <= 2  # told once per commit, not per move
    (table,) = restarted(tmp_path)
    assert [line.text for line in table.chat][-2:] == ["ann 4", "bob 4"]


async def test_closing_commits_whatever_is_still_queued(tmp_path: Path) -> None:
    with writing_behind(tmp_path) as hub:
        (ann, _bob), _told = two_at_a_table(hub)
        ann.chat("last words")
        assert hub.journal.writer.pending  # the loop has not heard of a commit yet
    (table,) = restarted(tmp_path)
    assert table.chat[-1].text == "last words"
    assert [seat.name for seat in table.seats] == ["P0", "P1"]


@pytest.fixture
def full_disk(monkeypatch: pytest.MonkeyPatch) -> threading.Event:
    """While the event is set, every commit fails as on a full disk (after its writes)."""
    commit = JournalWriter._commit
    failing = threading.Event()

    def no_room_left(self: JournalWriter, db: sqlite3.Connection, batch: list,
                     refused: int) -> int:
        if failing.is_set() and batch:
            def no_room(_db: sqlite3.Connection) -> None:
                raise sqlite3.OperationalError("database or disk is full")
            batch = [*batch, (batch[-1][0], batch[-1][1], no_room)]
        return commit(self, db, batch, refused)

    monkeypatch.setattr(JournalWriter, "_commit", no_room_left)
    return failing


async def test_a_failed_commit_undoes_its_moves_and_says_so(
        tmp_path: Path, full_disk: threading.Event) -> None:
    with writing_behind(tmp_path) as hub:
        (ann, bob), (ann_told, bob_told) = await two_seated(hub)
        writer = hub.journal.writer
        full_disk.set()
        before = bob_told.changes
        ann.chat("lost to the disk")
        await until(lambda: bob.view().chat == () or bob.view().chat[-1].text
                    != "lost to the disk", "the table rebuilt from the disk")
        assert chat_lines(tmp_path) == 0
        assert all("could not save" in told.notices[-1] for told in (ann_told, bob_told))
        assert bob_told.changes > before  # told: their screens show the table as saved
        full_disk.clear()  # room on the disk again: moves are kept as before
        ann.chat("kept")
        await until(lambda: not writer.pending, "the next line saved")
        assert chat_lines(tmp_path) == 1
        assert bob.view().chat[-1].text == "kept"
    (table,) = restarted(tmp_path)
    assert [line.text for line in table.chat] == ["kept"]


async def test_a_table_whose_creation_was_not_saved_is_gone_and_its_players_are_back(
        tmp_path: Path, full_disk: threading.Event) -> None:
    with writing_behind(tmp_path) as hub:
        full_disk.set()
        (ann, bob), (ann_told, bob_told) = two_at_a_table(hub)
        await until(lambda: ann.table is None and bob.table is None, "both in the lobby")
        assert hub.tables == {} and ann.lobby() == ()
        assert all("could not save your new table" in told.notices[-1]
                   for told in (ann_told, bob_told))
        full_disk.clear()
        code = ann.create_table(NO_TIMER)  # the disk has room again: a table as before
        bob.join(code)
        await until(lambda: not hub.journal.writer.pending, "the new table saved")
        assert on_disk(tmp_path, "SELECT COUNT(*) FROM tables") == 1
    assert [[seat.name for seat in table.seats] for table in restarted(tmp_path)] == [
        ["P0", "P1"]]
