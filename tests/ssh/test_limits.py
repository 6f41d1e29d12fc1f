"""Limits before login, after it and on the event loop, driven over real SSH from 127.0.0.1
(the abuser) and 127.0.0.2 (a friend in another house)."""

from __future__ import annotations

import asyncio
import logging

import asyncssh
import pytest

from server.auth import AccessPolicy
from server.gate import BLOCKED, NO_SESSION, TOO_FAST, TOO_MANY_CONNECTIONS, TOO_MANY_SESSIONS
from server.limits import ConnectionLimits
from server.session import IN_LINE
from tests.ssh.apps import BOARD
from tests.ssh.client import TermClient, _Guest
from tests.ssh.conftest import StartServer
from tests.waiting import until

FRIEND = "127.0.0.2"


class _Told(_Guest):
    """A keyless client that keeps why the server hung up."""

    reason = ""

    def connection_lost(self, exc: Exception | None) -> None:
        self.reason = getattr(exc, "reason", "")


async def _login(port: int, password: str | None = None) -> asyncssh.SSHClientConnection:
    return await asyncssh.connect(
        "127.0.0.1", port, username="mallory", known_hosts=None, agent_path=None, config=None,
        client_keys=None, password=password, client_factory=None if password else _Told,
    )


async def test_a_login_that_opens_no_game_is_closed_and_players_carry_on(
    game_server: StartServer,
) -> None:
    server = await game_server(connection_limits=ConnectionLimits(session_wait_s=0.3))
    alice = await TermClient.connect(server.port, source=FRIEND)
    await alice.wait_for("len: 0")
    idle, told = await asyncssh.create_connection(
        _Told, "127.0.0.1", server.port, username="mallory", known_hosts=None,
        agent_path=None, config=None, client_keys=None,
    )
    await asyncio.wait_for(idle.wait_closed(), timeout=5)
    assert told.reason == NO_SESSION
    alice.send("x")
    await alice.wait_for("len: 1")
    assert not alice.closed.is_set()


async def test_wrong_passwords_are_logged_then_the_address_is_turned_away(
    game_server: StartServer, caplog: pytest.LogCaptureFixture
) -> None:
    limits = ConnectionLimits(auth_delay_s=0.01, auth_failures_to_block=3)
    server = await game_server(access=AccessPolicy(password="sesame"), connection_limits=limits)
    caplog.set_level(logging.INFO)
    for _ in range(3):
        with pytest.raises((asyncssh.PermissionDenied, asyncssh.DisconnectError)):
            await _login(server.port, password="guess")
    # every failure, in the operator log's stable format (the one fail2ban reads)
    failed = [r.getMessage() for r in caplog.records if "auth failed" in r.getMessage()]
    assert len(failed) >= 3 and all("from 127.0.0.1 port" in line for line in failed)
    assert server.gate.blocked("127.0.0.1")
    with pytest.raises((OSError, asyncssh.Error)):
        await _login(server.port, password="sesame")  # even the right one, for now
    friend = await TermClient.connect(server.port, password="sesame", source=FRIEND)
    await friend.wait_for("len: 0")
    assert BLOCKED in caplog.text


async def test_logins_in_progress_are_capped_per_address(game_server: StartServer) -> None:
    limits = ConnectionLimits(max_unauthenticated_per_source=3)
    server = await game_server(connection_limits=limits)
    stalls = [await asyncio.open_connection("127.0.0.1", server.port) for _ in range(3)]
    reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
    await asyncio.wait_for(reader.read(), timeout=5)  # closed at once, not at the deadline
    assert reader.at_eof()
    assert server.gate.logging_in == 3
    friend = await TermClient.connect(server.port, source=FRIEND)
    await friend.wait_for("len: 0")
    for _, stalled in [*stalls, (reader, writer)]:
        stalled.close()


async def test_connections_after_login_are_capped_per_address(game_server: StartServer) -> None:
    server = await game_server(connection_limits=ConnectionLimits(max_connections_per_source=1))
    alice = await TermClient.connect(server.port)
    await alice.wait_for("len: 0")
    with pytest.raises((asyncssh.DisconnectError, asyncssh.ChannelOpenError)) as refused:
        await TermClient.connect(server.port, username="again")
    assert TOO_MANY_CONNECTIONS in str(refused.value)


async def test_games_per_address_are_capped_with_a_reason(game_server: StartServer) -> None:
    server = await game_server(connection_limits=ConnectionLimits(max_sessions_per_source=2))
    players = [await TermClient.connect(server.port, username=f"p{n}") for n in range(2)]
    for player in players:
        await player.wait_for("len: 0")
    third = await TermClient.connect(server.port, username="p3")
    await third.wait_closed()
    assert third.stderr.decode().strip() == TOO_MANY_SESSIONS


async def test_games_opened_too_fast_are_refused_with_a_reason(game_server: StartServer) -> None:
    limits = ConnectionLimits(session_burst=1, session_interval_s=600)
    server = await game_server(connection_limits=limits)
    first = await TermClient.connect(server.port)
    await first.wait_for("len: 0")
    second = await TermClient.connect(server.port, username="bob")
    await second.wait_closed()
    assert second.stderr.decode().strip() == TOO_FAST


async def test_a_burst_of_joins_starts_apps_one_at_a_time_and_all_get_in(
    game_server: StartServer,
) -> None:
    server = await game_server(connection_limits=ConnectionLimits(apps_starting_at_once=1))
    most = 0

    async def watch() -> None:
        nonlocal most
        while True:
            most = max(most, server.app_slots.starting)
            await asyncio.sleep(0)

    watcher = asyncio.create_task(watch())
    joins = await asyncio.gather(
        *(TermClient.connect(server.port, username=f"p{n}") for n in range(5))
    )
    await asyncio.gather(*(player.wait_for("len: 0") for player in joins))
    watcher.cancel()
    assert most == 1
    assert any(IN_LINE.encode() in player.raw for player in joins)
    assert server.app_slots.starting == 0 and server.app_slots.waiting == 0


async def test_a_storm_of_window_changes_costs_a_few_layouts(game_server: StartServer) -> None:
    server = await game_server(limits={"resize_interval_s": 0.25})
    alice = await TermClient.connect(server.port)
    await alice.wait_for("size: 100x30")
    before = BOARD.resizes
    for n in range(150):
        alice.resize(90 + n % 50, 30)
    alice.resize(120, 40)
    await alice.wait_for("size: 120x40")
    await until(lambda: BOARD.resizes > before, "the last size")
    assert BOARD.resizes - before <= 3
    assert len(server.sessions) == 1


async def test_a_client_flooding_window_changes_is_disconnected_and_others_play_on(
    game_server: StartServer,
) -> None:
    server = await game_server(limits={"max_resizes_per_s": 100})
    mallory = await TermClient.connect(server.port, username="mallory")
    alice = await TermClient.connect(server.port, source=FRIEND)
    await mallory.wait_for("len: 0")
    await alice.wait_for("len: 0")
    assert mallory.chan is not None
    for n in range(1000):
        mallory.chan.change_terminal_size(80 + n % 40, 24)
    await mallory.wait_closed()
    alice.send("x")
    await alice.wait_for("len: 1")
    await until(lambda: [s.player.name for s in server.sessions] == ["alice"],
                "mallory's app to end")  # it may take a moment after the client is gone
