"""Garbage collection for a process that holds hundreds of apps.

Measured with ``bench.play`` (200 sessions at tables of four): with CPython's default
thresholds (700, 10, 10) a full collection ran every few seconds and stopped the one event
loop, every player's, for 1 to 2.6 s; it was almost all of the pick-to-screen latency past
50 players (p95 2.7 s). The screens make a lot of short- and medium-lived cyclic garbage,
and a full collection walks every object of every app.

:func:`tune` makes the young collections rarer and larger (they still catch the cycles),
and full collections rare: with (20000, 5, 1000) the same run had p95 43 ms. Objects alive
at start (modules, the deck, the restored tables) are frozen out of every collection. Any
collection that still takes long is logged, so a host sees it.

Later the screens stopped making cyclic garbage (see ``tui/lean_strips.py`` and
``tui/styles.py``): in a 30 s window at 400 players nothing at all was collected. What a
young collection costs is then walking the objects made since the last one that are still
alive (freshly drawn lines, mostly), about 0.6 us each: at 20,000 a young collection paused
every player for 32-55 ms and a middle one for 134-190 ms. At 5,000 they pause for 9-17 ms
and 70-118 ms, four times as often: the same total, in shorter stops.
"""

from __future__ import annotations

import gc
import logging
import time
from typing import Any

log = logging.getLogger(__name__)

THRESHOLDS = (5_000, 5, 1_000)
SLOW_MS = 200.0


def tune(thresholds: tuple[int, int, int] = THRESHOLDS) -> None:
    """Freeze what exists now, set ``thresholds``, and log collections slower than
    :data:`SLOW_MS`. Call once, after start-up, before players arrive."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*thresholds)
    if _log_slow not in gc.callbacks:
        gc.callbacks.append(_log_slow)


_started = 0.0


def _log_slow(phase: str, info: dict[str, Any]) -> None:
    global _started
    if phase == "start":
        _started = time.perf_counter()
        return
    took_ms = (time.perf_counter() - _started) * 1000
    if took_ms > SLOW_MS:
        log.warning("garbage collection (generation %d) paused every player for %.0f ms",
                    info.get("generation", -1), took_ms)
