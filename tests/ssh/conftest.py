"""Fixtures for the SSH end-to-end tests: a real server on 127.0.0.1, port 0."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import asyncssh
import pytest

from server.admin.oplog import StderrHandler
from server.context import AppFactory
from server.host_keys import load_or_create_host_key
from server.limits import SessionLimits
from server.ssh_server import GameServer, HostSide, ServerConfig, start_server
from tests.ssh.apps import BOARD, counter_factory
from tests.ssh.client import TermClient

StartServer = Callable[..., Awaitable[GameServer]]
TwoPlayers = Callable[..., Awaitable[tuple[GameServer, TermClient, TermClient]]]


@pytest.fixture(scope="session")
def host_key_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One host key for the whole run (made once: generating is cheap, but why repeat)."""
    path = tmp_path_factory.mktemp("host_keys") / "ssh_host_ed25519_key"
    load_or_create_host_key(path)
    return path


@pytest.fixture(scope="session")
def client_key() -> asyncssh.SSHKey:
    """A player's own Ed25519 key."""
    return asyncssh.generate_private_key("ssh-ed25519")


@pytest.fixture
async def game_server(host_key_path: Path) -> AsyncIterator[StartServer]:
    """Starts servers (``await game_server(factory, limits=..., host_side=..., **config)``);
    all are closed at the end of the test."""
    servers: list[GameServer] = []

    async def start(
        factory: AppFactory = counter_factory,
        limits: dict[str, Any] | None = None,
        host_side: HostSide | None = None,
        **config: Any,
    ) -> GameServer:
        base = ServerConfig(host="127.0.0.1", port=0, host_key_path=host_key_path)
        quick = {"hangup_wait_s": 0.1, **(limits or {})}  # test clients never hang up
        settings = replace(base, limits=SessionLimits(**quick), **config)
        server = await start_server(factory, settings, host_side)
        servers.append(server)
        return server

    yield start
    for server in servers:
        await server.close(timeout=2.0)


@pytest.fixture
def two_players(game_server: StartServer) -> TwoPlayers:
    """Starts a server (``game_server``'s arguments) and connects two players to it, one
    after the other, each once its first screen shows ``ready``:
    ``server, alice, bob = await two_players()``."""

    async def start(first: str = "alice", second: str = "bob", *, ready: str = "len: 0",
                    **server: Any) -> tuple[GameServer, TermClient, TermClient]:
        started = await game_server(**server)
        players = []
        for name in (first, second):
            player = await TermClient.connect(started.port, username=name)
            await player.wait_for(ready)
            players.append(player)
        return started, players[0], players[1]

    return start


@pytest.fixture(autouse=True)
def server_log_undone() -> Iterator[None]:
    """A test that runs ``serve`` in-process points the root logger at stderr (at INFO):
    left there, the next test of this worker would find another test's log lines in the
    stderr it reads. Each test ends with the root logger as it found it."""
    root = logging.getLogger()
    level = root.level
    yield
    root.handlers[:] = [h for h in root.handlers if not isinstance(h, StderrHandler)]
    root.setLevel(level)


@pytest.fixture(autouse=True)
def fresh_board() -> None:
    """Each test starts with the shared counter at zero."""
    BOARD.count = 0
    BOARD.started.clear()
    BOARD.contexts.clear()
    BOARD.key_stamps.clear()
    BOARD.keys.clear()
    BOARD.resizes = 0
    BOARD.spam = []
