"""Fuzzing the whole input path: bytes, pastes, mouse, escape sequences and window changes
through the real driver. Nothing crashes, nothing typed after the junk is reordered, and
nothing received is held once it has been handled.

The suite runs a short round; ``python3 dev.py fuzz`` runs a long one (``MI_FUZZ_EXAMPLES``).
"""

from __future__ import annotations

import asyncio
import os

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from textual import constants

from server.paste import PASTE_END, PASTE_START
from tests.ssh.driver_harness import DriverHarness, FieldApp

EXAMPLES = int(os.environ.get("MI_FUZZ_EXAMPLES", "25"))
PASTE_CAP = 300

_SEQUENCES = [
    "\x1b[A", "\x1b[1;5C", "\x1b[3~", "\x1b[200~", "\x1b[201~", "\x1bOP", "\x1b[<0;10;5M",
    "\x1b[<0;10;5m", "\x1b[<64;1;1M", "\x1b[M !!", "\x1b]52;c;aGk=\x07", "\x1b]0;x\x1b\\",
    "\x1bP1$r\x1b\\", "\x1b[?2026;2$y", "\x1b[I", "\x1b[O", "\x1b[97;5u", "\x1b[1;1:3u",
    "\x1b[48;9999;9999;1;1t", "\x1b", "\x1b[", "\x1b[<", "\x9b", "\x7f", "\r", "\t", "\x03",
]
mouse = st.builds(
    lambda b, x, y, up: f"\x1b[<{b};{x};{y}{'m' if up else 'M'}",
    st.sampled_from([0, 1, 2, 32, 35, 64, 65]), st.integers(0, 400), st.integers(0, 200),
    st.booleans(),
)
escapes = st.lists(st.one_of(st.sampled_from(_SEQUENCES), mouse, st.text(max_size=8)),
                   max_size=12).map("".join)
ops = st.one_of(
    st.tuples(st.just("bytes"), st.binary(max_size=200)),
    st.tuples(st.just("text"), escapes.map(str.encode)),
    st.tuples(st.just("paste"), st.text(max_size=400).map(
        lambda t: (PASTE_START + t + PASTE_END).encode())),
    st.tuples(st.just("open paste"), st.text(max_size=50).map(
        lambda t: (PASTE_START + t).encode())),
    st.tuples(st.just("resize"), st.tuples(st.integers(0, 10_000), st.integers(0, 10_000))),
    st.tuples(st.just("storm"), st.integers(1, 200)),
)


def test_junk_of_every_kind_breaks_nothing_and_typing_after_it_arrives_in_order() -> None:
    loop = asyncio.new_event_loop()
    harness = loop.run_until_complete(
        DriverHarness.start(paste_max_chars=PASTE_CAP, paste_quiet_s=0.05,
                            keys_per_s=10**6))  # junk is thousands of keys: not paced here
    app, terminal = harness.app, harness.terminal
    assert isinstance(app, FieldApp)
    limits = terminal.limits

    @settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
    @given(st.lists(ops, min_size=1, max_size=12))
    def junk_then_typing(steps: list[tuple[str, object]]) -> None:
        async def run() -> None:
            for kind, arg in steps:
                if kind == "resize":
                    terminal.resized(*arg)  # type: ignore[misc]
                elif kind == "storm":
                    for n in range(arg):  # type: ignore[call-overload]
                        terminal.resized(80 + n % 40, 24 + n % 10)
                else:
                    harness.feed(arg)  # type: ignore[arg-type]
            harness.feed(PASTE_END.encode())  # whatever paste the junk left open ends
            while not terminal.pump.idle:
                await asyncio.sleep(0.01)
            await asyncio.sleep(constants.ESCAPE_DELAY + 0.05)  # half sequences give up
            await harness.settled()
            assert not harness.task.done(), "the app ended"
            width, height = app.size
            assert 1 <= width <= limits.max_columns and 1 <= height <= limits.max_rows
            app.field.focus()
            app.field.value = ""
            harness.feed(b"ok", "é!".encode(), b"\x7f?")
            await harness.settled()
            assert app.field.value == "oké?"
            assert terminal.pump.pending_bytes == 0 and terminal.pump.idle

        loop.run_until_complete(run())

    try:
        junk_then_typing()
    finally:
        loop.run_until_complete(harness.stop())
        loop.close()
