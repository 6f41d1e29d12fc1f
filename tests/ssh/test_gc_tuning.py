"""The server's garbage collection: rare full collections, and slow ones logged."""

from __future__ import annotations

import asyncio
import gc
import logging
import time
import weakref
from collections.abc import Iterator

import pytest

from server import gc_tuning
from tests.waiting import until


def test_tuning_sets_the_thresholds_and_freezes_what_exists(
        caplog: pytest.LogCaptureFixture) -> None:
    before = gc.get_threshold()
    try:
        gc_tuning.tune()
        assert gc.get_threshold() == gc_tuning.THRESHOLDS
        assert gc.get_freeze_count() > 0
        gc_tuning.tune()  # twice is harmless: one callback
        assert gc.callbacks.count(gc_tuning._log_slow) == 1
        caplog.set_level(logging.WARNING, logger="server.gc_tuning")
        gc_tuning._log_slow("start", {})
        gc_tuning._started -= 1.0  # as if a collection had taken a second
        gc_tuning._log_slow("stop", {"generation": 2})
        assert "paused every player" in caplog.text
    finally:
        gc.callbacks.remove(gc_tuning._log_slow)
        gc.unfreeze()
        gc.set_threshold(*before)


def test_full_collections_follow_the_load() -> None:
    before = gc.get_threshold()
    try:
        gc.set_threshold(*gc_tuning.THRESHOLDS)
        gc_tuning.follow_load(gc_tuning.CHEAP_PLAYERS)  # cheap: collected as CPython would
        assert gc.get_threshold() == gc_tuning.CHEAP
        gc_tuning.follow_load(gc_tuning.CHEAP_PLAYERS + 1)  # a full one would stop many
        assert gc.get_threshold() == gc_tuning.THRESHOLDS
        gc.set_threshold(100, 2, 3)  # not ours (a test, an embedding): left alone
        gc_tuning.follow_load(0)
        assert gc.get_threshold() == (100, 2, 3)
    finally:
        gc.set_threshold(*before)


class Cycle:
    """Garbage only the collector frees: it refers to itself."""

    def __init__(self) -> None:
        self.me = self


@pytest.fixture
def at_scale(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """A fast clock, the module's state fresh; yields the generation of each collection
    run meanwhile, and puts the collector back as it was."""
    monkeypatch.setattr(gc_tuning, "TICK_S", 0.005)
    monkeypatch.setattr(gc_tuning, "_players", 0)
    monkeypatch.setattr(gc_tuning, "_left", 0)
    monkeypatch.setattr(gc_tuning, "_last_full", 0.0)
    before = gc.get_threshold()
    generations: list[int] = []

    def heard(phase: str, info: dict[str, int]) -> None:
        if phase == "stop":
            generations.append(info["generation"])

    gc.callbacks.append(heard)
    try:
        gc.set_threshold(*gc_tuning.THRESHOLDS)
        yield generations
    finally:
        gc.callbacks.remove(heard)
        gc_tuning._stop_clock()
        gc.unfreeze()
        gc.set_threshold(*before)


async def test_at_scale_the_clock_freezes_what_play_made_and_walks_nothing(
        at_scale: list[int]) -> None:
    """A screen replacing its drawn lines frees old objects as it makes new ones, so
    CPython's allocation count stands still while the young generation grows. The clock
    takes what grew out of the collector's sight, without walking it (walking it was
    7-10% of the server's CPU in full play, and freed nothing)."""
    lines = [[k] for k in range(20_000)]
    frozen = gc.get_freeze_count()
    gc_tuning.follow_load(gc_tuning.CHEAP_PLAYERS + 1)
    at_scale.clear()  # CPython's own, while the lines were made
    for k in range(len(lines)):  # a new line for an old one: the count stands still
        lines[k] = [k]
        if k % 1_000 == 0:
            await asyncio.sleep(0.006)
    assert at_scale == []  # no collection at all, the clock's or CPython's
    assert gc.get_freeze_count() >= frozen + 15_000  # the new lines are frozen
    assert gc.get_count()[0] < gc_tuning.THRESHOLDS[0]


async def test_at_scale_a_full_collection_comes_by_the_clock_and_frees_what_froze(
        at_scale: list[int], monkeypatch: pytest.MonkeyPatch) -> None:
    """A player's app, or an entry a process-wide cache drops, may turn into cyclic
    garbage after it was frozen: the full collection finds it, at most once a period."""
    monkeypatch.setattr(gc_tuning, "FULL_EVERY_S", 0.1)
    gc_tuning.follow_load(gc_tuning.CHEAP_PLAYERS + 1)
    for round_no in (1, 2):
        kept = weakref.ref(Cycle())  # garbage in a cycle, frozen at the next tick
        await asyncio.sleep(0.03)
        assert kept() is not None and at_scale.count(2) == round_no - 1  # not yet
        await until(lambda k=kept: k() is None, "the full collection", timeout=1.0)
        assert at_scale.count(2) == round_no  # one full collection a period


async def test_players_leaving_bring_a_full_collection_while_it_is_short(
        at_scale: list[int], monkeypatch: pytest.MonkeyPatch) -> None:
    """Each player who leaves leaves their app as cyclic garbage: with 40 coming and going
    (bench.churn --at-once 40), waiting for the clock grew RSS by over 500 MB."""
    monkeypatch.setattr(gc_tuning, "CHEAP_PLAYERS", 2)
    gc_tuning.follow_load(10)
    kept = weakref.ref(Cycle())  # a departed player's app, say: frozen at the next tick
    await asyncio.sleep(0.02)
    for players in (9, 8):
        gc_tuning.follow_load(players)
    await asyncio.sleep(0.03)
    assert kept() is not None and 2 not in at_scale  # 2 left of 8: not worth a pause
    for players in (7, 6):
        gc_tuning.follow_load(players)
    await until(lambda: kept() is None, "the full collection", timeout=1.0)
    assert at_scale.count(2) == 1  # 4 left of 6: collected, once
    monkeypatch.setattr(gc_tuning, "PAUSE_MS_PER_PLAYER", 1_000.0)  # a long pause now
    kept = weakref.ref(Cycle())
    for players in (5, 4, 3):
        gc_tuning.follow_load(players)
    await asyncio.sleep(0.05)
    assert kept() is not None and at_scale.count(2) == 1  # left for the clock


async def test_at_scale_enough_departures_bring_a_full_collection_whatever_it_costs(
        at_scale: list[int], monkeypatch: pytest.MonkeyPatch) -> None:
    """Forty players coming and going, 1,000 visits, with no full collection meanwhile:
    RSS grew by 153 MB. Past the garbage budget, one runs, long as it may be."""
    monkeypatch.setattr(gc_tuning, "GARBAGE_BUDGET_MB", 3 * gc_tuning.LEFT_GARBAGE_MB)
    gc_tuning.follow_load(100)  # a full collection here would be long: not for a few
    kept = weakref.ref(Cycle())
    await asyncio.sleep(0.02)
    gc_tuning.follow_load(99)
    gc_tuning.follow_load(100)
    gc_tuning.follow_load(99)
    await asyncio.sleep(0.03)
    assert kept() is not None and 2 not in at_scale  # two left: not yet
    gc_tuning.follow_load(98)
    await until(lambda: kept() is None, "the full collection", timeout=1.0)
    assert at_scale.count(2) == 1


async def test_dropping_below_scale_pauses_nobody(
        at_scale: list[int], monkeypatch: pytest.MonkeyPatch) -> None:
    """After a flood, thawing and collecting what the busy hours froze paused the players
    still there for 0.9-1.2 s (575,000 objects): it waits for the server to empty, or for
    the period of full collections to pass."""
    gc_tuning.follow_load(gc_tuning.CHEAP_PLAYERS + 1)
    kept = weakref.ref(Cycle())
    await asyncio.sleep(0.02)
    assert kept() is not None  # frozen
    gc_tuning.follow_load(gc_tuning.CHEAP_PLAYERS)  # few players: CPython's own again
    assert gc_tuning._tick is None and gc.get_threshold() == gc_tuning.CHEAP
    assert 2 not in at_scale and kept() is not None  # no full collection: nobody waits
    monkeypatch.setattr(gc_tuning, "FULL_EVERY_S", 0.0)  # the period has passed
    gc_tuning.follow_load(gc_tuning.CHEAP_PLAYERS - 1)
    assert at_scale.count(2) == 1 and kept() is None
    assert gc.get_freeze_count() == 0


async def test_an_app_that_lingers_a_moment_is_collected_again_before_the_note(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from textual.app import App

    monkeypatch.setattr(gc_tuning, "QUIET_S", 0.05)
    heard: list[str] = []
    monkeypatch.setattr(gc_tuning.log, "info", lambda text, *args: heard.append(text % args))
    lingering: list[App[None]] = [App()]  # a last message in flight still holds it
    gc.freeze()  # as at start (and at scale): the empty server's collection thaws it all
    gc_tuning.collect_when_empty(lambda: True)
    await asyncio.sleep(0.08)
    assert heard == []  # it found the app, and waits instead of saying so
    lingering.clear()
    await said(heard, 1)  # each try is a full collection: 20-110 ms in a test process
    assert "; 0 apps and 0 screens still in memory" in heard[0]
    # and freezes nothing again: a frozen object that later turns into cyclic garbage (an
    # entry a shared cache drops) would stay until the next thaw
    assert gc.get_freeze_count() == 0
    lingering.append(App())  # one that never goes is reported, after the last try
    gc_tuning.collect_when_empty(lambda: True, tries=2)
    await said(heard, 2)
    assert "; 1 app and 0 screens still" in heard[1]


async def said(heard: list[str], count: int, timeout: float = 10.0) -> None:
    """Wait until ``heard`` holds ``count`` notes (and no more)."""
    deadline = time.monotonic() + timeout
    while len(heard) < count:
        assert time.monotonic() < deadline, f"only {len(heard)} notes: {heard}"
        await asyncio.sleep(0.02)
    assert len(heard) == count
