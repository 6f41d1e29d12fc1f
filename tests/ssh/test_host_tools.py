"""The host's tools against a running server: status, kick, ban, unban, backup, restore,
prune. The server runs in this process on a real journal; each tool runs as the host
would run it, from another thread with its own database connection."""

from __future__ import annotations

import asyncio
import io
import sqlite3
from collections.abc import AsyncIterator, Callable
from functools import partial
from pathlib import Path
from typing import Any

import asyncssh
import pytest

from engine.commands import Chat
from engine.hub import Hub
from engine.identity import Player
from engine.journal import DB_NAME, open_journal
from engine.records import open_records
from server.admin import db as host_db
from server.admin import tools as host_tools
from server.admin.control import KICKED, HostControl
from server.admin.tools import HostToolError
from server.auth import fingerprint
from server.gate import BANNED
from server.ssh_server import GameServer
from tests.ssh.client import TermClient
from tests.ssh.conftest import StartServer
from tests.waiting import until

DAY = 86400.0


async def tool(run: Callable[..., int], *args: Any) -> tuple[int, str]:
    """Run a host tool the way the CLI does (blocking, so on a thread); its exit status
    and what it printed."""
    out = io.StringIO()
    code = await asyncio.to_thread(run, *args, out)
    return code, out.getvalue()


@pytest.fixture
async def served(tmp_path: Path, game_server: StartServer) -> AsyncIterator[tuple[Hub, GameServer]]:
    """A hub journaled in ``tmp_path/data`` and a server that records its sessions there
    and polls for bans and kicks."""
    hub = Hub.open(tmp_path / "data", seed="tools")
    control = HostControl()
    server = await game_server(host_side=control)
    records = host_db.server_connection(hub.journal.path)  # type: ignore[union-attr]
    control.attach(records, lambda: server.sessions, poll_s=0.05)  # as the CLI does
    yield hub, server
    control.close()
    records.close()
    hub.close()


def test_who_is_connected_is_written_without_waiting_for_the_disk_and_moves_still_are(
        tmp_path: Path) -> None:
    hub = Hub.open(tmp_path / "data", seed="tools")
    records = host_db.server_connection(hub.journal.path)  # type: ignore[union-attr]
    try:
        assert records.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert records.execute("PRAGMA synchronous").fetchone()[0] == 1  # NORMAL
        journal = hub.journal.connection  # type: ignore[union-attr]
        assert journal.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
    finally:
        records.close()
        hub.close()


async def test_status_shows_who_is_connected_and_the_tables(
        tmp_path: Path, served: tuple[Hub, GameServer], client_key: asyncssh.SSHKey) -> None:
    """(Where each one is: tests/ssh/test_host_tools_who.py, with the real game.)"""
    hub, server = served
    key_id = f"key:{fingerprint(client_key)}"
    code = hub.attach(Player(key_id, "alice")).create_table()
    alice = await TermClient.connect(server.port, username="alice", key=client_key)
    guest = await TermClient.connect(server.port, username="bob")
    await until(lambda: len(server.sessions) == 2, "both sessions")

    status, text = await tool(host_tools.status, tmp_path / "data")

    assert status == 0
    assert "Server: running" in text
    assert "Connected (2):" in text
    assert f"alice  {fingerprint(client_key)}  from 127.0.0.1" in text
    assert "bob  guest:" in text and "  from 127.0.0.1" in text and "in the lobby" in text
    assert f"{code}  waiting to start: alice (host" in text
    alice.close()
    guest.close()
    await until(lambda: not server.sessions, "both gone")
    _, after = await tool(host_tools.status, tmp_path / "data")
    assert "Connected (0):" in after


async def test_a_kick_ends_only_the_named_players_session_and_tells_them(
        tmp_path: Path, served: tuple[Hub, GameServer], client_key: asyncssh.SSHKey) -> None:
    _, server = served
    alice = await TermClient.connect(server.port, username="alice", key=client_key)
    bob = await TermClient.connect(server.port, username="bob")
    await until(lambda: len(server.sessions) == 2, "both sessions")

    status, text = await tool(host_tools.kick, tmp_path / "data", fingerprint(client_key))

    assert status == 0 and "1 session ended" in text
    await alice.wait_closed()
    assert KICKED.encode() in bytes(alice.raw)
    assert not bob.closed.is_set()
    again = await TermClient.connect(server.port, username="alice", key=client_key)
    await until(lambda: len(server.sessions) == 2, "alice back: a kick is not a ban")
    again.close()
    bob.close()


async def test_a_banned_key_is_sent_away_with_a_short_message_until_the_ban_is_lifted(
        tmp_path: Path, served: tuple[Hub, GameServer], client_key: asyncssh.SSHKey) -> None:
    _, server = served
    data = tmp_path / "data"
    alice = await TermClient.connect(server.port, username="alice", key=client_key)
    await until(lambda: len(server.sessions) == 1, "alice's session")

    status, text = await tool(host_tools.ban, data, f"key:{fingerprint(client_key)}", "spam")
    assert status == 0 and "Banned key:SHA256:" in text

    await alice.wait_closed()
    assert BANNED.encode() in bytes(alice.raw)
    with pytest.raises(asyncssh.DisconnectError, match=BANNED):
        await TermClient.connect(server.port, username="alice", key=client_key)
    guest = await TermClient.connect(server.port, username="bob")  # others still get in
    _, listed = await tool(host_tools.status, data)
    assert "Bans (1):" in listed and "spam" in listed

    assert (await tool(host_tools.unban, data, fingerprint(client_key)))[0] == 0
    await asyncio.sleep(0.2)  # the server's next look at the bans
    back = await TermClient.connect(server.port, username="alice", key=client_key)
    await until(lambda: len(server.sessions) == 2, "alice back in")
    back.close()
    guest.close()


async def test_a_banned_address_is_refused_before_logging_in(
        tmp_path: Path, served: tuple[Hub, GameServer]) -> None:
    _, server = served
    assert (await tool(host_tools.ban, tmp_path / "data", "127.0.0.0/8", ""))[0] == 0
    await asyncio.sleep(0.2)
    with pytest.raises(asyncssh.DisconnectError, match=BANNED):
        await TermClient.connect(server.port, username="anyone")
    assert not server.sessions


async def test_a_backup_taken_while_the_server_writes_is_a_whole_journal(
        tmp_path: Path, served: tuple[Hub, GameServer]) -> None:
    hub, _ = served
    session = hub.attach(Player("key:SHA256:abc", "alice"))
    code = session.create_table()
    for n in range(20):  # straight to the hub: players' chat is rate-limited
        hub.command(hub.tables[code], Chat(0, f"line {n}"))
    copy = tmp_path / "copy.sqlite3"

    status, text = await tool(host_tools.backup, tmp_path / "data", copy)

    assert status == 0 and str(copy) in text
    restored = Hub.open(tmp_path / "elsewhere", seed="tools")  # what restore puts back
    restored.close()
    (tmp_path / "elsewhere" / DB_NAME).unlink()
    (tmp_path / "elsewhere" / DB_NAME).write_bytes(copy.read_bytes())
    again = Hub.open(tmp_path / "elsewhere")
    try:
        table = next(iter(again.tables.values()))
        assert [line.text for line in table.chat][-1] == "line 19"
    finally:
        again.close()
    with pytest.raises(HostToolError, match="already exists"):
        await tool(host_tools.backup, tmp_path / "data", copy)


async def test_restore_waits_for_the_server_to_stop_and_keeps_what_it_replaces(
        tmp_path: Path) -> None:
    data = tmp_path / "data"
    hub = Hub.open(data, seed="tools")
    hub.attach(Player("key:SHA256:abc", "alice")).create_table()
    await tool(host_tools.backup, data, tmp_path / "one-table.sqlite3")
    with pytest.raises(HostToolError, match="the server is running"):
        await tool(host_tools.restore, data, tmp_path / "one-table.sqlite3")
    hub.attach(Player("key:SHA256:def", "bob")).create_table()
    hub.close()

    status, text = await tool(host_tools.restore, data, tmp_path / "one-table.sqlite3")

    assert status == 0 and "Kept the database it replaces" in text
    assert len(list(data.glob(f"{DB_NAME}.before-restore-*"))) == 1
    back = Hub.open(data)
    assert len(back.tables) == 1
    back.close()
    (tmp_path / "junk").write_bytes(b"not a database" * 100)
    with pytest.raises(HostToolError, match="not a"):
        await tool(host_tools.restore, data, tmp_path / "junk")


def _finish_a_game(data: Path, when: float) -> int:
    """One table, one finished game for two players, closed at ``when``; its record count."""
    with open_journal(data, clock=lambda: when) as journal:
        code = f"T{int(when) % 1000:03d}"
        journal.record(code, 1, "create", {"seed": "s", "host": "key:a", "options": {}})
        for seq in range(2, 40):
            journal.record(code, seq, "chat", {"seat": 0, "text": "a move-sized record"})
        journal.game_over(code, 1, [("key:a", "Ann"), ("key:b", "Ben")],
                          {"scores": [5, 3], "winners": [0], "rounds": [{}, {}]})
        journal.record(code, 40, "close", {})
        return 40


async def test_prune_forgets_old_tables_moves_but_keeps_every_players_totals(
        tmp_path: Path) -> None:
    data = tmp_path / "data"
    now = 1_800_000_000.0
    _finish_a_game(data, now - 100 * DAY)
    _finish_a_game(data, now - 10 * DAY)
    records = open_records(data)
    before = records.player_record("key:a")
    records.close()

    status, text = await tool(partial(host_tools.prune, now=lambda: now), data, "90d")

    assert status == 0 and "Removed 40 records of 1 table closed before" in text
    db = sqlite3.connect(data / DB_NAME)
    assert db.execute("SELECT count(*) FROM records").fetchone()[0] == 40  # the recent one
    db.close()
    records = open_records(data)
    assert records.player_record("key:a") == before
    assert before is not None and before.games_played == 2 and before.total_points == 10
    assert len(records.recent_games()) == 2
    records.close()


@pytest.mark.parametrize(("run", "args", "message"), [
    (host_tools.prune, ("ninety days",), "is not an age"),
    (host_tools.prune, ("0d",), "is not an age"),
    (host_tools.ban, ("somebody", ""), "neither a key fingerprint"),
    (host_tools.unban, ("SHA256",), "neither a key fingerprint"),
    (host_tools.kick, ("127.0.0.1",), "no server is running"),
])
async def test_bad_requests_are_refused_with_a_reason_and_change_nothing(
        tmp_path: Path, run: Callable[..., int], args: tuple[Any, ...], message: str) -> None:
    data = tmp_path / "data"
    _finish_a_game(data, 1_000.0)
    before = (data / DB_NAME).read_bytes()
    with pytest.raises(HostToolError, match=message):
        await tool(run, data, *args)
    assert (data / DB_NAME).read_bytes() == before


async def test_the_tools_say_when_there_is_no_database_yet(tmp_path: Path) -> None:
    with pytest.raises(HostToolError, match="start the server once"):
        await tool(host_tools.status, tmp_path / "nothing-here")


def test_an_older_database_gains_the_host_tables_and_keeps_its_games(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import engine.journal as journal_mod

    monkeypatch.setattr(journal_mod, "MIGRATIONS", journal_mod.MIGRATIONS[:1])  # version 1
    _finish_a_game(tmp_path, 1_000.0)
    monkeypatch.undo()
    with open_journal(tmp_path) as journal:
        names = {row[0] for row in journal.connection.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table'")}
        assert {"live_sessions", "bans", "kicks"} <= names
    records = open_records(tmp_path)
    assert [p.name for p in records.recent_games()[0].players] == ["Ann", "Ben"]
    records.close()
    assert (tmp_path / f"{DB_NAME}.v1.bak").is_file()


async def test_after_a_crash_nobody_is_listed_as_connected(
        tmp_path: Path, game_server: StartServer) -> None:
    hub = Hub.open(tmp_path / "data", seed="tools")
    db = hub.journal.connection  # type: ignore[union-attr]
    db.execute("INSERT INTO live_sessions (address, player_id, name, since)"
               " VALUES ('192.0.2.1', 'guest:x', 'ghost', 1.0)")  # left by a killed server
    control = HostControl()
    server = await game_server(host_side=control)
    control.attach(db, lambda: server.sessions)
    try:
        _, text = await tool(host_tools.status, tmp_path / "data")
        assert "Connected (0):" in text and "ghost" not in text
    finally:
        control.close()
        hub.close()


async def test_reading_with_no_server_running_leaves_the_data_dir_as_it_was(
        tmp_path: Path) -> None:
    data = tmp_path / "data"
    _finish_a_game(data, 1_000.0)
    before = sorted(p.name for p in data.iterdir())
    assert (await tool(host_tools.status, data))[0] == 0
    assert (await tool(host_tools.backup, data, tmp_path / "copy"))[0] == 0
    assert sorted(p.name for p in data.iterdir()) == before  # no -wal or -shm left behind


async def a_guest_in_a_game(hub: Hub, port: int) -> tuple[str, str, TermClient]:
    """Ann (the host) and Bob by key, and the guest Cy over SSH, in a game that has begun:
    the table's code, Cy's seat code and Cy's terminal."""
    host = hub.attach(Player("key:SHA256:ann", "ann"))
    code = host.create_table()
    hub.attach(Player("key:SHA256:bob", "bob")).join(code)
    cy = await TermClient.connect(port, username="cy", command=code)
    await until(lambda: len(hub.tables[code].seats) == 3, "cy's seat")
    host.start()
    await cy.wait_for("Round 1")
    return code, hub.tables[code].seats[2].seat_code, cy


async def test_status_follows_a_guest_who_takes_their_seat_back(
        tmp_path: Path, game_server: StartServer) -> None:
    """After ``ssh -t host CODE`` and the seat code, the guest is that seat's guest again:
    status lists them at the table, and their seat not away."""
    from server.admin.cli import mission_app_factory

    hub = Hub.open(tmp_path / "data", seed="tools", settle_ms=0, bot_delay=0.0)
    control = HostControl()
    server = await game_server(mission_app_factory(hub), host_side=control)
    control.attach(hub.journal.connection, lambda: server.sessions,  # type: ignore[union-attr]
                   poll_s=0.05)
    try:
        code, seat_code, cy = await a_guest_in_a_game(hub, server.port)
        cy.abort()
        await until(lambda: not hub.tables[code].seats[2].connected, "cy away")
        await asyncio.sleep(0.2)  # a poll or two
        _, text = await tool(host_tools.status, tmp_path / "data")
        # a guest who lost the code asks the host, who reads it here
        assert f"cy (away, seat code {seat_code})" in text
        assert "seat code" not in text.replace(f"cy (away, seat code {seat_code})", "")
        back = await TermClient.connect(server.port, username="cy", command=code)
        await back.wait_for("Type its seat code")
        back.send(seat_code + "\r")
        await until(lambda: hub.tables[code].seats[2].connected, "cy back")
        await asyncio.sleep(0.2)  # a poll or two
        _, text = await tool(host_tools.status, tmp_path / "data")
        assert f"cy  {hub.tables[code].seats[2].player_id}  from 127.0.0.1" in text
        assert f"seated at {code}" in text and "in the lobby" not in text
        assert "cy (away)" not in text
    finally:
        control.close()
        hub.close()


async def test_a_guest_whose_client_closes_its_input_gets_the_goodbye_with_the_seat_code(
        tmp_path: Path, game_server: StartServer) -> None:
    """A client that sends EOF (its input ran out) can still be written to: the guest is
    told their seat code as on the quit key, then the channel closes. (A connection that
    drops cannot be: the code is on their screen before, at the table, in the task bar
    and at the round's summary.)"""
    from server.admin.cli import mission_app_factory

    hub = Hub.open(tmp_path / "data", seed="eof", settle_ms=0, bot_delay=0.0)
    server = await game_server(mission_app_factory(hub))
    try:
        code, seat_code, cy = await a_guest_in_a_game(hub, server.port)
        assert cy.chan is not None
        cy.chan.write_eof()
        await cy.wait_closed()
        said = bytes(cy.raw).decode(errors="replace")
        assert f"type your seat code: {seat_code}" in " ".join(said.split())
        assert not hub.tables[code].seats[2].connected  # kept for them, away
    finally:
        hub.close()


async def test_status_lists_a_table_the_server_would_set_aside_in_one_line(
        tmp_path: Path) -> None:
    """Found: status crashed with a traceback (IllegalAction, exit 1) whenever a table's
    records could not be replayed."""
    data = tmp_path / "data"
    with open_journal(data) as journal:
        journal.record("GOOD", 1, "create", {"seed": "s", "host": "key:a", "options": {}})
        journal.record("BADD", 1, "create", {"seed": "s", "host": "key:a", "options": {}})
        journal.record("BADD", 2, "move", {"action": {"type": "Pick", "seat": 0,
                                                      "column": 99, "row": 0}, "bot": False})
    status, text = await tool(host_tools.status, data)
    assert status == 0
    assert "Open tables (1, 0 playing)" in text and "  GOOD  waiting to start" in text
    (line,) = [line for line in text.splitlines() if "BADD" in line]
    assert line.startswith("  BADD  set aside: its journal cannot be replayed (")


async def test_status_and_serve_explain_a_journal_missing_its_records_in_one_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Found: a journal missing its records table made serve die with a raw traceback."""
    data = tmp_path / "data"
    _finish_a_game(data, 1_000.0)
    db = sqlite3.connect(data / DB_NAME)
    db.execute("DROP TABLE records")
    db.commit()
    db.close()
    with pytest.raises(HostToolError, match="records table missing"):
        await tool(host_tools.status, data)
    from server.admin import cli

    code = await asyncio.to_thread(cli.main, ["serve", "--data-dir", str(data), "--port", "0",
                                              "--host", "127.0.0.1"])
    said = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(said) == 1 and "records table missing" in said[0], said
