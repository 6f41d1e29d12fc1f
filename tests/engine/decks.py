"""Decks for tests of the engine's own jobs (``jobs.txt``) apart from its pair jobs."""

from __future__ import annotations

import atexit
import functools
import shutil
import tempfile
from pathlib import Path

from engine.cards import Deck, load_deck, parse_deck


def deck_in(folder: Path, pairs: dict[str, str] | None = None) -> Deck:
    """The game's deck read from a copy in ``folder``, with these ``pairs/`` files (name
    -> text) beside it instead of its own."""
    data = Path(str(load_deck().folder))
    for name in ("tasks.txt", "items.txt", "jobs.txt", "fit.txt"):
        shutil.copy(data / name, folder / name)
    if pairs is not None:
        (folder / "pairs").mkdir()
        for name, text in pairs.items():
            (folder / "pairs" / name).write_text(text, encoding="utf-8")
    return parse_deck((folder / "tasks.txt").read_text(encoding="utf-8"),
                      (folder / "items.txt").read_text(encoding="utf-8"), folder=folder)


@functools.cache
def own_jobs_deck() -> Deck:
    """The game's deck with each item's own jobs only (``jobs.txt``, no ``pairs/``): what
    a plan falls back on once a round has said an item's pair jobs."""
    folder = Path(tempfile.mkdtemp(prefix="own-jobs-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    return deck_in(folder)
