"""The frame gate: whole frames or none, a bounded backlog, and a verdict on stuck clients."""

from __future__ import annotations

import asyncio

from server.limits import SessionLimits
from server.output import FrameGate

LIMITS = SessionLimits(
    output_high_water=100, output_low_water=10, backlog_poll_s=0.01, stuck_timeout_s=0.2
)


class FakeChannel:
    def __init__(self) -> None:
        self.written: list[bytes] = []
        self.backlog = 0

    def write(self, data: bytes) -> None:
        self.written.append(data)
        self.backlog += len(data)

    def get_write_buffer_size(self) -> int:
        return self.backlog

    def is_closing(self) -> bool:
        return False

    def get_extra_info(self, name: str, default: object = None) -> object:
        return default


class Events:
    def __init__(self) -> None:
        self.caught_up = 0
        self.stuck = 0

    def on_caught_up(self) -> None:
        self.caught_up += 1

    def on_stuck(self) -> None:
        self.stuck += 1


def _gate(chan: FakeChannel, seen: Events) -> FrameGate:
    return FrameGate(chan, LIMITS, seen.on_caught_up, seen.on_stuck)


async def test_frames_are_dropped_whole_while_the_client_is_behind() -> None:
    chan, seen = FakeChannel(), Events()
    gate = _gate(chan, seen)
    assert gate.send(b"x" * 150)
    assert not gate.send(b"second frame")  # 150 bytes waiting: over the high-water mark
    assert gate.send(b"\x1b[?1049l", essential=True)  # terminal modes always get through
    assert chan.written == [b"x" * 150, b"\x1b[?1049l"]
    assert gate.frames_dropped == 1


async def test_a_client_that_catches_up_is_asked_for_a_repaint() -> None:
    chan, seen = FakeChannel(), Events()
    gate = _gate(chan, seen)
    gate.send(b"x" * 150)
    gate.send(b"dropped")
    chan.backlog = 5  # the client read it
    await asyncio.sleep(0.05)
    assert seen.caught_up == 1 and not gate.behind
    assert gate.send(b"next")


async def test_a_client_stuck_too_long_is_given_up_on() -> None:
    chan, seen = FakeChannel(), Events()
    gate = _gate(chan, seen)
    gate.send(b"x" * 150)
    gate.send(b"dropped")
    await asyncio.sleep(0.35)
    assert seen.stuck == 1
    assert not gate.send(b"anything", essential=True)


async def test_a_client_that_stops_reading_a_quiet_screen_is_given_up_on() -> None:
    chan, seen = FakeChannel(), Events()
    gate = _gate(chan, seen)
    assert gate.send(b"x" * 50)  # under the high-water mark: nothing is ever dropped
    await asyncio.sleep(0.35)  # ...but the backlog never drains
    assert gate.frames_dropped == 0
    assert seen.stuck == 1


async def test_a_client_that_reads_slowly_but_surely_is_kept() -> None:
    chan, seen = FakeChannel(), Events()
    gate = _gate(chan, seen)
    for _ in range(6):
        gate.send(b"x" * 50)
        await asyncio.sleep(0.05)
        chan.backlog = 0  # it read everything
        await asyncio.sleep(0.02)
    await asyncio.sleep(0.3)
    assert seen.stuck == 0
