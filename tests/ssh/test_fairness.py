"""A player sending junk, or pasting a novel, cannot freeze the others."""

from __future__ import annotations

import asyncio
import random
import time

import pytest

from server.limits import SessionLimits
from server.paste import PASTE_START
from server.session import GameSession
from server.ssh_server import GameServer
from tests.ssh.client import TermClient
from tests.ssh.conftest import StartServer

# Keys the test app (or Textual) binds to quit, crash or leave: junk must not press them.
_BOUND = {0x03, 0x05, 0x0F, 0x10, 0x11, 0x13, 0x18, 0x1A}
_BROKEN = [
    b"\x1b[", b"\x1b[<", b"\x1b[<0;", b"\x1b[1;", b"\x1bO", b"\x1b]", b"\x1b[99999999999999;1u",
    b"\x1b[1;1:99999999u", b"\x1b[48;9999;9999;1;1t", b"\xff", b"\xc3", b"\xe2\x82",
    b"\x1b[M", b"\x1b[?2026;2$y", b"\x1b[I", b"\x1b[O", b"9" * 40,
]


def junk(size: int, seed: int = 7) -> bytes:
    """Random bytes laced with broken escape sequences and broken UTF-8."""
    rng = random.Random(seed)
    out = bytearray()
    while len(out) < size:
        if rng.random() < 0.3:
            out += rng.choice(_BROKEN)
        else:
            out += bytes(b if b not in _BOUND else 0x78 for b in rng.randbytes(64))
    return bytes(out[:size])


def _session_of(server: GameServer, name: str) -> GameSession:
    return next(s for s in server.sessions if s.player.name == name)


async def _round_trip(client: TermClient, typed: int) -> float:
    client.send("k")
    return await client.wait_for(f"len: {typed}", timeout=5.0)


@pytest.mark.xdist_group("ssh-timing")
async def test_a_flood_of_junk_does_not_slow_down_another_player(
    game_server: StartServer,
) -> None:
    server = await game_server()
    flooder = await TermClient.connect(server.port, username="mallory")
    bob = await TermClient.connect(server.port, username="bob")
    await flooder.wait_for("len: 0")
    await bob.wait_for("len: 0")
    pump = _session_of(server, "mallory").terminal.pump  # type: ignore[union-attr]
    limits = server.limits
    flooder.draw = False  # its screen is not what this test watches

    flooder.send(junk(1_000_000))
    round_trips, most_pending = [], 0
    for typed in range(1, 9):
        await asyncio.sleep(0.1)
        most_pending = max(most_pending, pump.pending_bytes)
        round_trips.append(await _round_trip(bob, typed))

    assert pump.bytes_parsed > 0  # the flood is being worked through...
    assert pump.pending_bytes > 0  # ...slowly, at the pace its own app can take
    assert max(round_trips) < 1.0, round_trips
    assert most_pending < limits.input_pause_bytes + 64 * 1024
    app = _session_of(server, "mallory").app
    assert app is not None and tuple(app.size) == (100, 30)  # typed sizes are ignored


async def test_an_endless_paste_is_cut_at_the_cap(game_server: StartServer) -> None:
    server = await game_server(limits={"paste_max_chars": 2000, "paste_quiet_s": 0.3})
    alice = await TermClient.connect(server.port)
    await alice.wait_for("len: 0")
    alice.send(PASTE_START + "x" * 200_000)  # and no end marker, ever
    await alice.wait_for("len: 2000", timeout=10)
    pump = _session_of(server, "alice").terminal.pump  # type: ignore[union-attr]
    assert pump.pastes_truncated == 1
    await asyncio.sleep(0.5)  # the client goes quiet: typing works again
    alice.send("ab")
    await alice.wait_for("len: 2002")


async def test_a_paste_within_the_cap_arrives_whole(game_server: StartServer) -> None:
    server = await game_server(limits={"paste_max_chars": 2000})
    alice = await TermClient.connect(server.port)
    await alice.wait_for("len: 0")
    alice.send(PASTE_START + "y" * 1500 + "\x1b[201~")
    await alice.wait_for("len: 1500")
    alice.send("z")
    await alice.wait_for("len: 1501")


def test_the_default_limits_leave_room_for_a_real_paste() -> None:
    limits = SessionLimits()
    assert limits.paste_max_chars >= 4096
    assert limits.input_resume_bytes < limits.input_pause_bytes
    assert limits.output_low_water < limits.output_high_water


async def test_window_changes_in_a_burst_reach_the_app_once_settled(
    game_server: StartServer,
) -> None:
    server = await game_server()
    alice = await TermClient.connect(server.port)
    await alice.wait_for("size: 100x30")
    start = time.monotonic()
    for width in range(101, 240):
        alice.resize(width, 30)
    await alice.wait_for("size: 239x30")
    assert time.monotonic() - start < 5

    assert alice.chan is not None
    alice.chan.change_terminal_size(9999, 9999)  # absurd sizes are clamped
    app = _session_of(server, "alice").app
    assert app is not None
    limits = server.limits
    for _ in range(250):
        if tuple(app.size) == (limits.max_columns, limits.max_rows):
            break
        await asyncio.sleep(0.02)
    assert tuple(app.size) == (limits.max_columns, limits.max_rows)
    alice.resize(120, 40)
    await alice.wait_for("size: 120x40")
