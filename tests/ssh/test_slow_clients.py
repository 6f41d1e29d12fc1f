"""A client that stops reading costs the server a bounded amount, then its connection."""

from __future__ import annotations

import asyncio

from server.session import GameSession
from server.ssh_server import GameServer
from tests.ssh.apps import BOARD
from tests.ssh.client import TermClient
from tests.ssh.conftest import StartServer
from tests.waiting import until

SMALL_WINDOW = 32 * 1024  # the client's SSH window: how much may be in flight to it
SLOW = {"output_high_water": 32 * 1024, "output_low_water": 8 * 1024}


def _session_of(server: GameServer, name: str) -> GameSession:
    return next(s for s in server.sessions if s.player.name == name)


async def test_a_client_that_never_reads_is_bounded_then_disconnected(
    game_server: StartServer,
) -> None:
    server = await game_server(limits={**SLOW, "stuck_timeout_s": 1.5})
    alice = await TermClient.connect(server.port, username="alice", window=SMALL_WINDOW)
    await alice.wait_for("len: 0")
    gate = _session_of(server, "alice").terminal.gate  # type: ignore[union-attr]
    assert alice.chan is not None
    alice.chan.pause_reading()  # from now on the client reads nothing
    alice.send(b"\x02")  # ctrl+b: the app redraws a screenful of noise 50 times a second

    await until(lambda: gate.frames_dropped > 5)
    await alice.wait_closed(timeout=10)
    await until(lambda: not server.sessions)
    biggest_frame = 4 * 1024 * 8  # a full screen of noise, generously
    assert gate.max_backlog <= SLOW["output_high_water"] + biggest_frame
    assert gate.frames_sent < 200


async def test_a_client_that_catches_up_gets_a_full_repaint(game_server: StartServer) -> None:
    server = await game_server(limits={**SLOW, "stuck_timeout_s": 30})
    alice = await TermClient.connect(server.port, username="alice", window=SMALL_WINDOW)
    bob = await TermClient.connect(server.port, username="bob")
    await alice.wait_for("len: 0")
    gate = _session_of(server, "alice").terminal.gate  # type: ignore[union-attr]
    assert alice.chan is not None
    alice.chan.pause_reading()
    alice.send(b"\x02")  # noise on
    await until(lambda: gate.frames_dropped > 5)
    alice.send(b"\x02")  # noise off
    bob.send("!\r")  # alice's counter changes while her frames are being dropped
    await bob.wait_for("count: 1")
    await asyncio.sleep(0.2)
    last_noise = BOARD.spam[-1]

    alice.chan.resume_reading()
    await alice.wait_for("count: 1")
    await alice.wait_for(last_noise)
    assert not gate.behind
