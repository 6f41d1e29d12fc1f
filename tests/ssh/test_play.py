"""Playing over SSH: what a player sees and what their keys do."""

from __future__ import annotations

import asyncio

import asyncssh
import pytest

from engine.clock import now_ms
from server.auth import fingerprint
from server.session import CRASHED
from server.terminal import LEAVE_SEQUENCE
from tests.ssh.apps import BOARD
from tests.ssh.client import TermClient
from tests.ssh.conftest import StartServer, TwoPlayers


async def test_a_player_sees_the_full_first_screen(game_server: StartServer) -> None:
    server = await game_server()
    alice = await TermClient.connect(server.port, username="alice")
    await alice.wait_for("MISSION TEST player=alice")
    await alice.wait_for("size: 100x30")
    assert "count: 0" in alice.text()
    assert "▔▔▔" in alice.text()  # the input box is drawn too


async def test_two_players_see_each_others_moves(two_players: TwoPlayers) -> None:
    server, alice, bob = await two_players(ready="count: 0")
    alice.send("hi\r")
    await bob.wait_for("count: 1")
    bob.send("yo\r")
    await alice.wait_for("count: 2")
    assert server.live_apps == 2


async def test_resizing_the_window_reaches_the_app(game_server: StartServer) -> None:
    server = await game_server()
    alice = await TermClient.connect(server.port, size=(100, 30))
    await alice.wait_for("size: 100x30")
    alice.resize(132, 43)
    await alice.wait_for("size: 132x43")
    alice.resize(60, 20)  # too small for the game: the app decides what to show
    await alice.wait_for("size: 60x20")


async def test_a_table_code_after_the_host_joins_that_table(game_server: StartServer) -> None:
    server = await game_server()
    bob = await TermClient.connect(server.port, username="bob", command="wxyz")
    await bob.wait_for("code: WXYZ")
    assert BOARD.contexts[-1].join_code == "WXYZ"


async def test_keys_carry_the_time_their_bytes_arrived(game_server: StartServer) -> None:
    server = await game_server()
    alice = await TermClient.connect(server.port)
    await alice.wait_for("len: 0")
    before = now_ms()
    alice.send("abc")
    await alice.wait_for("len: 3")
    stamps = BOARD.key_stamps[-3:]
    assert all(isinstance(stamp, float) for stamp in stamps)
    assert all(before <= stamp <= now_ms() for stamp in stamps if stamp is not None)


async def test_a_lone_escape_key_arrives(game_server: StartServer) -> None:
    server = await game_server()
    alice = await TermClient.connect(server.port)
    await alice.wait_for("len: 0")
    alice.send(b"\x1b")
    for _ in range(100):
        if "escape" in BOARD.keys:
            break
        await asyncio.sleep(0.01)
    assert "escape" in BOARD.keys


async def test_a_player_with_a_key_is_known_by_its_fingerprint(
    game_server: StartServer, client_key: asyncssh.SSHKey
) -> None:
    server = await game_server()
    alice = await TermClient.connect(server.port, username="alice", key=client_key)
    await alice.wait_for("player=alice")
    player = BOARD.contexts[-1].player
    assert player.id == f"key:{fingerprint(client_key)}"
    assert player.id.startswith("key:SHA256:")
    assert player.name == "alice"


async def test_a_player_without_a_key_comes_in_as_a_guest(game_server: StartServer) -> None:
    server = await game_server()
    guest = await TermClient.connect(server.port, username="  Zoe   the Great, Destroyer")
    await guest.wait_for("player=")
    player = BOARD.contexts[-1].player
    assert player.is_guest
    assert player.name == "Zoe the Great, D"  # one line, at most 16 characters


async def test_leaving_restores_the_terminal_then_shows_the_apps_message(
    game_server: StartServer,
) -> None:
    server = await game_server()
    alice = await TermClient.connect(server.port)
    await alice.wait_for("len: 0")
    alice.send(b"\x05")  # ctrl+e: the test app exits with a message
    await alice.wait_closed()
    raw = bytes(alice.raw)
    restored = raw.rindex(LEAVE_SEQUENCE.encode())
    assert raw.index(b"Goodbye from the test app.") > restored
    assert alice.chan is not None and alice.chan.get_exit_status() == 0


async def test_a_crash_is_explained_to_its_player_and_nobody_else_notices(
    two_players: TwoPlayers, caplog: pytest.LogCaptureFixture
) -> None:
    server, alice, bob = await two_players()
    alice.send(b"\x18")  # ctrl+x: the test app raises
    await alice.wait_closed()
    raw = bytes(alice.raw)
    assert raw.index(CRASHED.splitlines()[0].encode()) > raw.rindex(LEAVE_SEQUENCE.encode())
    assert b"RuntimeError" not in raw  # no traceback for the player
    assert alice.chan is not None and alice.chan.get_exit_status() == 1
    bob.send("still here\r")
    await bob.wait_for("count: 1")
    assert len(server.sessions) == 1
    crash_logs = [r for r in caplog.records if "app crashed" in r.getMessage()]
    assert crash_logs and crash_logs[0].exc_info is not None
    assert "the test app fell over" in str(crash_logs[0].exc_info[1])
