"""The server's garbage collection: rare full collections, and slow ones logged."""

from __future__ import annotations

import gc
import logging

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
