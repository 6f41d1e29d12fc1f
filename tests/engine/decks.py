"""Decks for tests of the engine's own jobs (``jobs.txt``) apart from its pair jobs."""

from __future__ import annotations

import atexit
import functools
import shutil
import tempfile
from pathlib import Path

from engine.cards import Deck, load_deck, parse_deck


@functools.cache
def own_jobs_deck() -> Deck:
    """The game's deck with each item's own jobs only (``jobs.txt``, no ``pairs/``): what
    a plan falls back on once a round has said an item's pair jobs."""
    data = Path(str(load_deck().folder))
    folder = Path(tempfile.mkdtemp(prefix="own-jobs-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    for name in ("tasks.txt", "items.txt", "jobs.txt", "fit.txt"):
        shutil.copy(data / name, folder / name)
    return parse_deck((folder / "tasks.txt").read_text(encoding="utf-8"),
                      (folder / "items.txt").read_text(encoding="utf-8"), folder=folder)
