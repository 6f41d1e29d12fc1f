"""The input pump: Textual events from raw bytes, no faster than the app takes them."""

from __future__ import annotations

import asyncio

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from textual import events
from textual.message import Message

from engine.clock import now_ms
from server.input import InputPump
from server.limits import SessionLimits


class FakeApp:
    """Collects delivered events; its queue is as long as the test says."""

    def __init__(self) -> None:
        self.delivered: list[tuple[Message, float]] = []
        self.queued = 0

    def deliver(self, event: Message, arrived: float) -> None:
        self.delivered.append((event, arrived))
        self.queued += 1

    def keys(self) -> list[str]:
        return [e.key for e, _ in self.delivered if isinstance(e, events.Key)]


class Reading:
    def __init__(self) -> None:
        self.paused = False
        self.pauses = 0

    def pause(self) -> None:
        self.paused, self.pauses = True, self.pauses + 1

    def resume(self) -> None:
        self.paused = False


def _pump(app: FakeApp, reading: Reading, **limits: int | float) -> InputPump:
    pump = InputPump(SessionLimits(**limits), reading.pause, reading.resume)
    pump.attach(app.deliver, lambda: app.queued)
    return pump


async def _settle(seconds: float = 0.02) -> None:
    await asyncio.sleep(seconds)


async def test_keys_arrive_in_order_with_their_arrival_time() -> None:
    app, reading = FakeApp(), Reading()
    pump = _pump(app, reading, max_app_queue=100)
    pump.feed(b"ab", arrived_ms=1000.0)
    pump.feed(b"\r", arrived_ms=2000.0)
    await _settle()
    assert app.keys() == ["a", "b", "enter"]
    assert [arrived for _, arrived in app.delivered] == [1000.0, 1000.0, 2000.0]


async def test_nothing_more_is_handed_on_while_the_app_is_busy() -> None:
    app, reading = FakeApp(), Reading()
    pump = _pump(app, reading, max_app_queue=4)
    pump.feed(b"x" * 100)
    await _settle()
    assert len(app.delivered) == 4  # the app has not taken any yet
    app.queued = 0
    await _settle()
    assert len(app.delivered) == 8


async def test_reading_pauses_while_too_much_waits_and_resumes_after() -> None:
    app, reading = FakeApp(), Reading()
    pump = _pump(app, reading, max_app_queue=50, input_pause_bytes=1000, input_resume_bytes=100,
                 keys_per_s=10**9)
    pump.feed(b"y" * 5000)
    assert reading.paused
    for _ in range(500):
        app.queued = 0
        await _settle(0.006)
        if not reading.paused:
            break
    assert not reading.paused
    assert pump.pending_bytes <= 100


async def test_a_lone_escape_arrives_after_the_escape_delay() -> None:
    app, reading = FakeApp(), Reading()
    pump = _pump(app, reading, max_app_queue=100)
    pump.feed(b"\x1b")
    await _settle()
    assert app.keys() == []
    await _settle(0.2)
    assert app.keys() == ["escape"]


async def test_sizes_typed_by_the_client_are_ignored() -> None:
    app, reading = FakeApp(), Reading()
    pump = _pump(app, reading, max_app_queue=100)
    pump.feed(b"\x1b[48;9999;9999;1;1t\x1b[?2048;1$yk")
    await _settle(0.2)
    assert not [e for e, _ in app.delivered if not isinstance(e, events.Key)]
    assert app.keys()[-1] == "k"


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=300))
def test_no_junk_breaks_the_pump(junk: bytes) -> None:
    async def run() -> list[str]:
        app, reading = FakeApp(), Reading()
        pump = _pump(app, reading, max_app_queue=10_000, paste_quiet_s=0.0)
        pump.feed(junk, arrived_ms=now_ms())
        await _settle(0.12)  # past the escape delay: any half sequence is given up on
        pump.feed(b"\x1b[201~Q", arrived_ms=now_ms() + 1)  # ends any paste the junk began
        await _settle(0.12)
        return app.keys()

    assert asyncio.run(run())[-1:] == ["Q"]


async def test_a_key_reaches_the_app_as_its_bytes_arrive_not_a_loop_turn_later() -> None:
    """On a busy server a loop turn holds dozens of other players' updates."""
    app, reading = FakeApp(), Reading()
    pump = _pump(app, reading, max_app_queue=100, keys_per_s=10**9)
    pump.feed(b"a")
    assert app.keys() == ["a"]
    app.queued = 0
    pump.feed(b"x" * 5000)  # a flood still goes a few slices per turn
    assert len(app.delivered) < 5000
    for _ in range(500):
        app.queued = 0  # the app takes what it was given
        await _settle(0.002)
    assert len(app.delivered) == 5001


async def test_a_typed_flood_is_paced_to_the_key_budget_and_a_paste_is_one_event() -> None:
    """Found: one connection typing 10 MiB slowed every table 25 times (each key is a
    repaint on the shared loop); a paste of the same was fine."""
    app, reading = FakeApp(), Reading()
    pump = _pump(app, reading, max_app_queue=10**9, keys_per_s=100.0, key_burst=20)
    pump.feed(b"x" * 5000)
    await _settle(0.5)
    assert 20 + 30 <= len(app.keys()) <= 20 + 100 * 0.5 + 10  # the burst, then 100 a second
    assert app.keys() == ["x"] * len(app.keys())  # in order, none lost: they wait
    assert reading.paused is False  # 5000 bytes wait: under the pause mark
    pump.detach()
    pasted = FakeApp()
    quiet = _pump(pasted, Reading(), max_app_queue=10**9, keys_per_s=100.0, key_burst=20)
    quiet.feed(b"\x1b[200~" + b"pasted " * 2000 + b"\x1b[201~")
    await _settle(0.1)
    assert [type(e).__name__ for e, _ in pasted.delivered] == ["Paste"]
