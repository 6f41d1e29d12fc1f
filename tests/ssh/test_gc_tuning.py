"""The server's garbage collection: rare full collections, and slow ones logged."""

from __future__ import annotations

import asyncio
import gc
import logging
import time

import pytest

from server import gc_tuning


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


async def test_at_scale_the_young_generations_are_collected_by_the_clock(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A screen replacing its drawn lines frees old objects as it makes new ones, so
    CPython's allocation count stands still while the young generation grows: collected
    by the clock instead, and never with a full collection."""
    monkeypatch.setattr(gc_tuning, "TICK_S", 0.005)
    before = gc.get_threshold()
    generations: list[int] = []

    def heard(phase: str, info: dict[str, int]) -> None:
        if phase == "stop":
            generations.append(info["generation"])

    lines = [[k] for k in range(20_000)]
    gc.callbacks.append(heard)
    try:
        gc.set_threshold(*gc_tuning.THRESHOLDS)
        gc_tuning.follow_load(gc_tuning.CHEAP_PLAYERS + 1)
        for k in range(len(lines)):  # a new line for an old one: the count stands still
            lines[k] = [k]
            if k % 1_000 == 0:
                await asyncio.sleep(0.006)
        assert gc.get_count()[0] < gc_tuning.THRESHOLDS[0]  # CPython would not have run
        assert generations and set(generations) == {1}  # young and middle, never full
        gc_tuning.follow_load(gc_tuning.CHEAP_PLAYERS)  # few players: CPython's own again
        assert gc_tuning._tick is None and gc.get_threshold() == gc_tuning.CHEAP
    finally:
        gc.callbacks.remove(heard)
        gc_tuning._stop_clock()
        gc.set_threshold(*before)


async def test_an_app_that_lingers_a_moment_is_collected_again_before_the_note(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from textual.app import App

    monkeypatch.setattr(gc_tuning, "QUIET_S", 0.05)
    heard: list[str] = []
    monkeypatch.setattr(gc_tuning.log, "info", lambda text, *args: heard.append(text % args))
    lingering: list[App[None]] = [App()]  # a last message in flight still holds it
    gc_tuning.collect_when_empty(lambda: True)
    await asyncio.sleep(0.08)
    assert heard == []  # it found the app, and waits instead of saying so
    lingering.clear()
    await said(heard, 1)  # each try is a full collection: 20-110 ms in a test process
    assert "; 0 apps and 0 screens still in memory" in heard[0]
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
