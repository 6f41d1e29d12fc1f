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

A player who leaves leaves their app behind as cyclic garbage (about 1 MB), and so does
every screen they closed; only a full collection frees them. Rare full collections let
that garbage pile up: 200 players coming and going ten at a time raised RSS by 156 MB. A
full collection costs about 0.6 us per object of every player still connected (about 5 ms
a player), so :func:`follow_load` lets CPython collect the oldest generation as usual
(when a quarter of it is new) while at most :data:`CHEAP_PLAYERS` are connected, and
makes it rare above that. :func:`collect_when_empty` runs one a moment after the last
player leaves, hands the freed memory back to the system (``malloc_trim``), and logs
what it freed and whether any app or screen outlived its session.

CPython starts a young collection when allocations minus deallocations pass the first
threshold, and a deallocation counts whatever its age. A screen that replaces a drawn line
frees an old line and makes a new one: the count stands still while the young generation
grows. At 400 players no collection ran for 38 s of play, and then one walked about 200,000
young objects and stopped every player for 70-110 ms (``gc.callbacks`` timing in the
running server). Above :data:`CHEAP_PLAYERS`, :func:`follow_load` therefore also runs the
young and middle collections by the clock (:data:`TICK_S`), so each walks only what a
moment of play left alive; full collections stay CPython's own, as rare as above.

The clock runs the young and middle generations together, every tick. CPython's rule (a
middle collection every fifth young one) walks each object that outlives a tick twice,
once young and once in the middle generation; together, once. At 400 players that halved
the collector's time in steady play (150-190 ms per 10 s to 67-90 ms) and shortened its
longest pause from 16-25 ms to 2-5 ms. Right after 400 game screens are built, when
``bench.play`` times its picks, the middle collections had been 37-56 ms every second;
now 10-17 ms. A middle collection counts towards a full one, so the oldest generation's
threshold is scaled to the clock: still no more than one full collection every
:data:`FULL_EVERY_S` (measured with ``gc.callbacks`` in the running server).

Once tables played whole rounds (``bench.play``, 2026-12-01), those ticks were 7-10% of
the server's CPU (``py-spy`` at 200 and 400 players), and still freed nothing: a
player's objects die by their reference counts, never in a cycle, until the player
leaves. So the clock now *freezes* instead of collecting: ``gc.freeze()`` moves every
tracked object out of the collector's sight at once, without walking any of them, and
CPython's own young collections walk only what was made since the last tick. Cycles
left behind meanwhile wait for the full collection, as they did before: once every
:data:`FULL_EVERY_S` it thaws everything and collects it (the next tick freezes what is
left). Going back below :data:`CHEAP_PLAYERS`, and the server emptying, thaw and collect
too, and nothing is frozen again: CPython's own schedule runs from there.

Frozen objects that later turn into cyclic garbage are kept until the next thaw, and not
only players' apps: the process-wide caches (shared styles, rule matches) are Textual
``LRUCache`` rings, so each entry they drop is a cycle. Freezing again after the
empty-server collection kept such garbage for as long as the server stayed small:
``bench.churn`` (1,000 players coming and going, ten at a time) grew RSS by 19.8 MB
against 15.3-15.8 without that freeze. For the same reason full collections at scale
come by the clock even when nobody has left (a first version waited for a departure).

With 40 players coming and going (``bench.churn --at-once 40``), a full collection only
every :data:`FULL_EVERY_S` let departed players' apps pile up: RSS grew by 535-543 MB
over 1,000 visits, and stayed there after everyone had left (the same before and after
the clock froze). While a full collection is short (:data:`PAUSE_BUDGET_MS`, up to about
100 players), one now also comes once the players who left since the last are half as
many as those connected (:func:`_worth_a_pause`). Above that, pauses of seconds are
worse than the memory, and the clock's period rules as before.
"""

from __future__ import annotations

import asyncio
import contextvars
import ctypes
import gc
import logging
import os
import time
from collections.abc import Callable
from typing import Any

from engine.text import plural

log = logging.getLogger(__name__)

TICK_S = 0.2
"""At scale, how often what play left alive is frozen out of the collector's sight."""
FULL_EVERY_S = 1_000
"""At scale, a full collection (about 3 s at 400 players) runs this often."""
THRESHOLDS = (5_000, 5, int(FULL_EVERY_S / TICK_S))
"""At scale, CPython's own collections between ticks; each sees only what was made since
the last tick (the rest is frozen)."""
CHEAP = (700, 10, 10)
"""CPython's own thresholds, for while full collections are cheap."""
CHEAP_PLAYERS = 20
"""Up to this many players, a full collection pauses them for about 100 ms at most."""
PAUSE_MS_PER_PLAYER = 5.0
"""What a full collection costs per connected player (about 0.6 us an object)."""
PAUSE_BUDGET_MS = 500.0
"""At scale, players leaving bring a full collection sooner only while it would pause
everyone for at most this long (up to about 100 players)."""
LEFT_SHARE = 0.5
"""...once the players who left since the last one are this share of those connected:
their apps, cyclic garbage, are then about half as much as what is live."""
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


_tick: asyncio.TimerHandle | None = None
_last_full = 0.0  # time.monotonic() of the last full collection
_players = 0
_left = 0  # players who left since the last full collection


def follow_load(players: int) -> None:
    """Collect the oldest generation as CPython would while ``players`` is small enough
    for that to be cheap; above that, freeze by the clock and collect in full rarely."""
    global _players, _left
    _left += max(0, _players - players)
    _players = players
    wanted = CHEAP if players <= CHEAP_PLAYERS else THRESHOLDS
    if gc.get_threshold() in (CHEAP, THRESHOLDS) and gc.get_threshold() != wanted:
        gc.set_threshold(*wanted)
        _left = 0  # below, CPython's own full collections found whoever had left
    if gc.get_threshold() == THRESHOLDS:
        _start_clock()
    elif _tick is not None:
        _stop_clock()
        collect_all()  # what the busy hours froze is CPython's to collect from now on


def _start_clock() -> None:
    global _tick, _last_full
    if _tick is not None:
        return
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:  # no loop (a script, a test): CPython's own schedule only
        return
    if not _last_full:
        _last_full = time.monotonic()
    # In a fresh context: scheduled while a player's app runs, the handle would hold it.
    _tick = loop.call_later(TICK_S, _on_tick, context=contextvars.Context())


def _stop_clock() -> None:
    global _tick
    if _tick is not None:
        _tick.cancel()
        _tick = None


def _on_tick() -> None:
    """Freeze what a moment of play left alive (no object is walked), or collect
    everything: once every :data:`FULL_EVERY_S`, or sooner when enough players left and
    the pause is short (:func:`_worth_a_pause`)."""
    global _tick
    _tick = None
    if time.monotonic() - _last_full >= FULL_EVERY_S or _worth_a_pause():
        collect_all()
    else:
        gc.freeze()
    _start_clock()


def _worth_a_pause() -> bool:
    """The apps of the players who left since the last full collection are a good share
    of what is live (:data:`LEFT_SHARE`), and collecting them pauses everyone for at most
    :data:`PAUSE_BUDGET_MS`."""
    return (_left >= max(1.0, LEFT_SHARE * _players)
            and _players * PAUSE_MS_PER_PLAYER <= PAUSE_BUDGET_MS)


def collect_all() -> int:
    """A full collection of every object, frozen ones included; nothing stays frozen.
    Returns how many objects were freed."""
    global _last_full, _left
    gc.unfreeze()
    freed = gc.collect()
    _last_full, _left = time.monotonic(), 0
    return freed


QUIET_S = 2.0
"""How long the server must stay empty before :func:`collect_when_empty` collects."""


def collect_when_empty(is_empty: Callable[[], bool], tries: int = 3) -> None:
    """In :data:`QUIET_S` seconds, if ``is_empty()`` still holds, run a full collection
    and log what it freed, the apps and screens still in memory (none, when all is well)
    and the process's RSS. An app can outlive its session for a moment (a last message
    or callback of the game in flight, seen with a bot at the table): while some remain,
    it collects again, ``tries`` times in all, before it says so."""
    # In a context of its own: the last player's app may have set Textual's context
    # variables (the active app, screen and message pump) in the one this call runs in,
    # and a callback holds its context, so that app would outlive the collection.
    asyncio.get_running_loop().call_later(QUIET_S, _collect_if, is_empty, tries,
                                          context=contextvars.Context())


def _collect_if(is_empty: Callable[[], bool], tries: int) -> None:
    if not is_empty():
        return
    from textual.app import App
    from textual.screen import Screen

    started = time.perf_counter()
    freed = collect_all()  # frozen objects too (the busy hours' players' apps among them)
    took_ms = (time.perf_counter() - started) * 1000
    _trim()
    apps = screens = 0
    for thing in gc.get_objects():
        if isinstance(thing, App):
            apps += 1
        elif isinstance(thing, Screen):
            screens += 1
    if (apps or screens) and tries > 1:
        collect_when_empty(is_empty, tries - 1)
        return
    log.info("everyone has left: a full collection freed %s in %.0f ms; %s and %s still "
             "in memory; RSS %.1f MB", plural(freed, "object"), took_ms, plural(apps, "app"),
             plural(screens, "screen"), rss_mb())


def rss_mb() -> float:
    """This process's resident memory, in MB (0 where /proc is not there)."""
    try:
        with open(f"/proc/{os.getpid()}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def _trim() -> None:
    """Give the C heap's free memory back to the system (glibc only; elsewhere nothing)."""
    try:
        libc = ctypes.CDLL("libc.so.6")
        libc.malloc_trim(0)
    except (OSError, AttributeError):
        pass
