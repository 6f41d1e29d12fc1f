"""A player sending junk, or pasting a novel, cannot freeze the others."""

from __future__ import annotations

import asyncio
import random
import time

import pytest

from engine.cards import load_deck
from engine.hub import Hub
from server.admin.cli import mission_app_factory
from server.limits import ConnectionLimits, SessionLimits
from server.paste import PASTE_START
from server.session import GameSession
from server.ssh_server import GameServer
from tests.ssh.client import TermClient
from tests.ssh.conftest import StartServer, TwoPlayers
from tests.ssh.friends import play_a_round, three_at_a_table
from tests.waiting import until

FRIEND = "127.0.0.2"

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
    two_players: TwoPlayers,
) -> None:
    server, flooder, bob = await two_players("mallory", "bob")
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


@pytest.mark.xdist_group("ssh-timing")
async def test_a_playing_table_keeps_its_pace_while_one_address_floods_sessions(
    game_server: StartServer,
) -> None:
    """The real game: three friends (from their own address) play two rounds while one
    address opens game after game; the lead's pick reaches the other seats' screens
    quickly. (bench.flood measures every abuse; this guards the mechanism, with a bound
    a loaded 2-core machine meets.)"""
    hub = Hub(deck=load_deck(), seed="flood", settle_ms=40, bot_delay=0.0)
    server = await game_server(mission_app_factory(hub))
    (alice, bob, carol), table = await three_at_a_table(server.port, hub, source=FRIEND)
    alice.send("g")
    await until(lambda: table.status == "playing", "the game to start")
    terms = dict(enumerate((alice, bob, carol)))
    flooders: list[TermClient] = []
    stop = asyncio.Event()
    most = 0

    async def flood() -> None:
        nonlocal most
        n = 0
        while not stop.is_set():
            most = max(most, sum(s.player.name.startswith("mallory") for s in server.sessions))
            tries = await asyncio.gather(
                *(TermClient.connect(server.port, username=f"mallory{n + k}")
                  for k in range(20)), return_exceptions=True)
            flooders.extend(t for t in tries if isinstance(t, TermClient))
            for flooder in flooders:
                flooder.draw = False
            n += 20
            await asyncio.sleep(0.5)

    flooding = asyncio.create_task(flood())
    await until(lambda: server.app_slots.waiting > 0 or len(server.sessions) > 10,
                "the flood")
    pick_ms: list[float] = []
    try:
        for _ in range(2):
            await play_a_round(terms, table, pick_ms)
    finally:
        stop.set()
        await flooding
        for flooder in flooders:
            flooder.abort()
    assert 5 <= most <= ConnectionLimits().max_sessions_per_source  # flooded, and capped
    # Here the clients share the server's loop (20 SSH handshakes every 0.5 s): p95 was
    # about 420 ms on an idle 2-core machine (one pick, as the first apps started), and
    # 1.2 s with the limits lifted. bench.flood, the server in a process of its own: 20 ms.
    pick_ms.sort()
    p95 = pick_ms[int(len(pick_ms) * 0.95) - 1]
    assert p95 < 1000, pick_ms
