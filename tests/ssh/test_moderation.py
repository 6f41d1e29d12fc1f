"""The table host removes a disruptive player mid-game, over SSH with real keys."""

from __future__ import annotations

import asyncio

import asyncssh
import pytest

from engine.cards import load_deck
from engine.hub import Hub
from server.admin.cli import mission_app_factory
from tests.ssh.client import TermClient
from tests.ssh.conftest import StartServer
from tests.ssh.friends import three_at_a_table
from tests.waiting import until
from tui.confirm import READ_MS

pytestmark = pytest.mark.xdist_group("e2e")


async def test_the_host_hands_a_players_seat_to_a_bot_and_they_cannot_come_back(
    game_server: StartServer,
) -> None:
    hub = Hub(deck=load_deck(), seed="mod", settle_ms=40, bot_delay=0.0)
    server = await game_server(mission_app_factory(hub))
    keys = [asyncssh.generate_private_key("ssh-ed25519") for _ in range(3)]
    (alice, bob, carol), table = await three_at_a_table(server.port, hub, keys=keys)
    alice.send("g")
    await until(lambda: table.status == "playing", "the game to start")
    await alice.wait_for("x remove")  # the host's key bar offers it...
    await bob.wait_for("Round 1")
    assert "x remove" not in bob.text()  # ...nobody else's
    alice.send("x")
    await alice.wait_for("Remove whom")
    await asyncio.sleep(READ_MS / 1000)  # keys before a question can be read answer nothing
    alice.send("1")  # bob, the first other person
    await alice.wait_for("Remove bob from the game?")
    await asyncio.sleep(READ_MS / 1000)
    alice.send("y")
    await until(lambda: table.seats[1].is_bot, "a bot in bob's seat")
    assert table.status == "playing" and table.seats[1].name == "bob"
    await carol.wait_for("alice removed bob: a bot plays their seat")
    await bob.wait_for("the lobby")
    await bob.wait_for("alice removed you from table")

    bob.close()  # back with the same key, straight to the table: refused
    again = await TermClient.connect(server.port, username="bob", key=keys[1],
                                     command=table.code)
    await again.wait_for(f"The host removed you from table {table.code}")
    assert table.seat_of(again_id := f"key:{keys[1].get_fingerprint()}") is None
    assert again_id in table.removed


async def test_a_removed_guest_cannot_come_back_as_a_new_guest_from_the_same_address(
    game_server: StartServer,
) -> None:
    """A keyless guest is a new identity every time; their address is what the table
    remembers. A friend at the same address who already sits there plays on."""
    hub = Hub(deck=load_deck(), seed="mod2", settle_ms=40, bot_delay=0.0)
    server = await game_server(mission_app_factory(hub))
    home = "127.0.3.1"  # mallory's and fay's household
    alice = await TermClient.connect(server.port, username="alice",
                                     key=asyncssh.generate_private_key("ssh-ed25519"))
    await alice.wait_for("the lobby")
    alice.send("c")
    await until(lambda: len(hub.tables) == 1, "alice's table")
    table = next(iter(hub.tables.values()))
    mallory = await TermClient.connect(server.port, username="mallory", command=table.code,
                                       source=home)
    await until(lambda: len(table.seats) == 2, "mallory's seat")
    fay = await TermClient.connect(server.port, username="fay", command=table.code,
                                   source=home)
    await until(lambda: len(table.seats) == 3, "fay's seat")
    fay_id = table.seats[2].player_id
    assert fay_id.startswith("guest:")
    alice.send("g")
    await until(lambda: table.status == "playing", "the game to start")
    await alice.wait_for("x remove")
    alice.send("x")
    await alice.wait_for("Remove whom")
    await asyncio.sleep(READ_MS / 1000)
    alice.send("1")  # mallory, the first other person
    await alice.wait_for("Remove mallory from the game?")
    await asyncio.sleep(READ_MS / 1000)
    alice.send("y")
    await mallory.wait_for("alice removed you from table")

    mallory.close()  # back as a new guest, from the same address: refused, told why
    again = await TermClient.connect(server.port, username="mallory", command=table.code,
                                     source=home)
    await again.wait_for(f"Table {table.code}'s host removed a player from your address: "
                         "no new guest from there may join or watch")  # one line at 100x30
    await again.wait_for("the lobby")
    assert "No table has the code" not in again.text()
    assert len(table.sessions) == 2  # alice and fay, nobody watching
    assert table.seat_of(fay_id) == 2 and table.seats[2].connected  # fay plays on
    await fay.wait_for("Round 1")
