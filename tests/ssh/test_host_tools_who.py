"""Whom the host's tools reach: a name, a key, a guest or an address, and what they say
before an address shared by several people takes them all; where ``status`` says each
connected person is (seated, watching, the lobby)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from functools import partial
from pathlib import Path

import asyncssh
import pytest

from engine.hub import Hub
from engine.identity import Player
from server.admin import db as host_db
from server.admin import tools as host_tools
from server.admin.control import KICKED, HostControl
from server.admin.tools import HostToolError
from server.auth import fingerprint
from server.gate import BANNED
from server.ssh_server import GameServer
from tests.ssh.client import TermClient
from tests.ssh.conftest import StartServer
from tests.ssh.test_host_tools import tool
from tests.waiting import until


@pytest.fixture
async def game(tmp_path: Path, game_server: StartServer) -> AsyncIterator[tuple[Hub, GameServer]]:
    """The real game on a journaled hub, with the host's side polling every 50 ms."""
    from server.admin.cli import mission_app_factory

    hub = Hub.open(tmp_path / "data", seed="who", settle_ms=0, bot_delay=0.0)
    control = HostControl()
    server = await game_server(mission_app_factory(hub), host_side=control)
    control.attach(hub.journal.connection, lambda: server.sessions,  # type: ignore[union-attr]
                   poll_s=0.05)
    yield hub, server
    control.close()
    hub.close()


def _banned(data: Path) -> list[str]:
    db = host_tools._read_only(data)
    try:
        return [ban.target for ban in host_db.bans(db)]
    finally:
        db.close()


async def test_a_ban_on_an_address_several_people_share_names_them_and_waits_for_yes(
        tmp_path: Path, game: tuple[Hub, GameServer], client_key: asyncssh.SSHKey) -> None:
    _, server = game
    data = tmp_path / "data"
    alice = await TermClient.connect(server.port, username="alice", key=client_key)
    bob = await TermClient.connect(server.port, username="bob")
    await until(lambda: len(server.sessions) == 2, "both sessions")
    await asyncio.sleep(0.2)

    with pytest.raises(HostToolError) as refused:
        await tool(host_tools.ban, data, "127.0.0.1", "")

    said = str(refused.value)
    assert "2 people are connected from 127.0.0.1" in said
    assert f"alice ({fingerprint(client_key)})" in said and "bob (guest:" in said
    assert "--yes" in said
    assert _banned(data) == []  # nothing changed: nobody went
    await asyncio.sleep(0.2)
    assert not alice.closed.is_set() and not bob.closed.is_set()
    with pytest.raises(HostToolError, match="--yes"):
        await tool(host_tools.kick, data, "127.0.0.1")

    status, text = await tool(partial(host_tools.ban, yes=True), data, "127.0.0.1", "")

    assert status == 0 and "ends their sessions now: alice" in text and "bob (guest:" in text
    await alice.wait_closed()
    await bob.wait_closed()


async def test_a_guest_is_kicked_and_banned_by_their_name_and_the_others_stay(
        tmp_path: Path, game: tuple[Hub, GameServer], client_key: asyncssh.SSHKey) -> None:
    _, server = game
    data = tmp_path / "data"
    alice = await TermClient.connect(server.port, username="alice", key=client_key)
    bob = await TermClient.connect(server.port, username="bob")
    await until(lambda: len(server.sessions) == 2, "both sessions")
    await asyncio.sleep(0.2)

    status, text = await tool(host_tools.kick, data, "bob")

    assert status == 0 and "1 session ended (bob (guest:" in text
    await bob.wait_closed()
    assert KICKED.encode() in bytes(bob.raw)
    assert not alice.closed.is_set()

    bob = await TermClient.connect(server.port, username="bob")
    await until(lambda: len(server.sessions) == 2, "bob back: a kick is not a ban")
    await asyncio.sleep(0.2)
    status, text = await tool(host_tools.ban, data, "Bob", "")  # as status shows it, any case
    assert status == 0 and "Banned guest:" in text and "not a new guest connection" in text
    await bob.wait_closed()
    assert BANNED.encode() in bytes(bob.raw)
    assert not alice.closed.is_set()
    [target] = _banned(data)
    assert target.startswith("guest:")
    with pytest.raises(HostToolError, match="nor is it the name of anyone connected"):
        await tool(host_tools.ban, data, "carol", "")
    alice.close()


async def test_status_tells_players_spectators_and_the_lobby_apart(
        tmp_path: Path, game: tuple[Hub, GameServer]) -> None:
    hub, server = game
    host = hub.attach(Player("key:SHA256:ann", "ann"))
    code = host.create_table()
    hub.attach(Player("key:SHA256:bob", "bob")).join(code)
    cy = await TermClient.connect(server.port, username="cy", command=code)
    await until(lambda: len(hub.tables[code].seats) == 3, "cy's seat")
    host.start()
    await cy.wait_for("Round 1")
    dee = await TermClient.connect(server.port, username="dee", command=code)  # a game runs
    await dee.wait_for("watching")
    eve = await TermClient.connect(server.port, username="eve")
    await until(lambda: len(server.sessions) == 3, "three sessions")
    await asyncio.sleep(0.3)  # a few polls

    _, text = await tool(host_tools.status, tmp_path / "data")

    lines = {line.split()[0]: line for line in text.splitlines() if "  from " in line}
    assert lines["cy"].endswith(f"seated at {code}")
    assert lines["dee"].endswith(f"watching {code}")
    assert lines["eve"].endswith("in the lobby")
    assert f"{code}  game 1, round 1" in text and "; 1 watching" in text
    for client in (cy, dee, eve):
        client.close()
