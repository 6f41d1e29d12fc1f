"""Garbage collection for a process that holds hundreds of apps.

A collection stops the one event loop every player shares, and a full one walks every
object of every player: about 0.6 us an object, about :data:`PAUSE_MS_PER_PLAYER` per
connected player. Play itself makes no cyclic garbage (a player's objects die by their
reference counts), but a player who leaves would leave their app behind as cyclic
garbage (about 1 MB, 2,200 objects in the lobby); taken apart as the session ends, about
a fifth of that (410 objects) is left for a full collection.

- :func:`tune`, once at start: a full collection, then everything alive (modules, the
  deck, the restored tables) frozen out of every collection; any collection slower than
  :data:`SLOW_MS` is logged.
- :func:`follow_load`, whenever the number of players changes: up to
  :data:`CHEAP_PLAYERS`, CPython's own thresholds (:data:`CHEAP`), its full collections
  being short. Above that, a tick every :data:`TICK_S` freezes (``gc.freeze()``, which
  walks nothing) what play made since the last tick, so CPython's young collections
  (:data:`THRESHOLDS`) only ever walk a moment's objects. CPython starts a young
  collection when allocations minus deallocations pass its threshold, a count that stands
  still while screens replace drawn lines with new ones: the clock bounds what a
  collection walks, the count does not.
- At scale a full collection thaws and collects everything (:func:`collect_all`) every
  :data:`FULL_EVERY_S`, and sooner once the players who left since the last are
  :data:`LEFT_SHARE` of those connected, while it would pause everyone for at most
  :data:`PAUSE_BUDGET_MS` (:func:`_worth_a_pause`), or, whatever the pause, once
  those who left have left about :data:`GARBAGE_BUDGET_MB` behind. Dropping back to
  :data:`CHEAP_PLAYERS` freezes nothing more and collects nothing: what was frozen waits
  for the server to empty (or :data:`FULL_EVERY_S`), as its collection would pause the
  players still there for as long as the busy hours' garbage takes to free.
- A player's app is taken apart as their session ends (``server.app_guard.free_app``):
  most of its objects are freed by reference counts there and then, so little is left
  for a full collection, frozen or not.
- :func:`collect_when_empty`: a moment after the last player leaves, a full collection,
  the freed memory handed back to the system (``malloc_trim``), and a log line saying
  what it freed and whether any app or screen outlived its session. It leaves nothing
  frozen: a frozen object that turns into cyclic garbage (a player's app, an entry one
  of Textual's ``LRUCache`` rings dropped) stays until the next thaw.

The measurements behind each choice are in ``CHANGELOG.md``; the pitfalls of CPython's
collector in ``docs/performance.md``.
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
PAUSE_BUDGET_MS = 100.0
"""At scale, players leaving bring a full collection sooner only while it would pause
everyone for at most this long (up to about 20 players). It was 500 ms: a flood's guests
leaving brought pauses of 370 ms and more."""
LEFT_SHARE = 0.5
"""...once the players who left since the last one are this share of those connected:
their apps, cyclic garbage, are then about half as much as what is live."""
LEFT_GARBAGE_MB = 0.15
"""What a departed player leaves for a full collection (their app taken apart; measured:
1,000 visits, forty at a time, grew RSS by 153 MB with no full collection meanwhile)."""
GARBAGE_BUDGET_MB = 64.0
"""At scale, once the players who left since the last full collection have left about
this much for it, a full collection runs whatever it costs: memory stays bounded under
churn at the price of a rare pause (one per about 430 departures)."""
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
        _left = 0  # below, CPython's own full collections find whoever leaves
    if gc.get_threshold() == THRESHOLDS:
        _start_clock()
    else:
        # What the busy hours froze stays frozen: thawed and collected now, it would pause
        # the players still here for a second after a flood (575,000 objects, 0.9-1.2 s
        # with 20 left). It waits for the server to empty, or for the period to pass.
        _stop_clock()
        if _last_full and time.monotonic() - _last_full >= FULL_EVERY_S:
            collect_all()


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
    :data:`PAUSE_BUDGET_MS`; or they have left :data:`GARBAGE_BUDGET_MB` behind."""
    if _left * LEFT_GARBAGE_MB >= GARBAGE_BUDGET_MB:
        return True
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


def collect_when_empty(is_empty: Callable[[], bool], tries: int = 3,
                       then: Callable[[float], object] | None = None) -> None:
    """In :data:`QUIET_S` seconds, if ``is_empty()`` still holds, run a full collection
    and log what it freed, the apps and screens still in memory (none, when all is well)
    and the process's RSS. An app can outlive its session for a moment (a last message
    or callback of the game in flight, seen with a bot at the table): while some remain,
    it collects again, ``tries`` times in all, before it says so. ``then`` hears the RSS
    (MB) once it has been said, if the server is still empty (see :mod:`server.recycle`)."""
    # In a context of its own: the last player's app may have set Textual's context
    # variables (the active app, screen and message pump) in the one this call runs in,
    # and a callback holds its context, so that app would outlive the collection.
    asyncio.get_running_loop().call_later(QUIET_S, _collect_if, is_empty, tries, then,
                                          context=contextvars.Context())


def _collect_if(is_empty: Callable[[], bool], tries: int,
                then: Callable[[float], object] | None) -> None:
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
        collect_when_empty(is_empty, tries - 1, then)
        return
    rss = rss_mb()
    log.info("everyone has left: a full collection freed %s in %.0f ms; %s and %s still "
             "in memory; RSS %.1f MB", plural(freed, "object"), took_ms, plural(apps, "app"),
             plural(screens, "screen"), rss)
    if then is not None and is_empty():
        then(rss)


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
