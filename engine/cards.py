"""The deck as data: task and item cards, each tagged from one fixed vocabulary.

The cards live in ``engine/data/tasks.txt`` and ``engine/data/items.txt``, one card a line::

    # comment
    Rescue a Kite from an Oak Tree | height, rope, catch

A task's tags say what the mission *needs*; an item's tags say what it *offers*. Bots read
the cards through :attr:`Deck.fits` (``fit.txt`` beside the cards, the tags where there is
none: see :mod:`engine.fits`); the rules engine only ever sees the names.
"""

from __future__ import annotations

import functools
import unicodedata
from dataclasses import dataclass, field
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path

from engine.fits import (
    FIT_FILE,
    JOBS_FILE,
    SENSE_FILE,
    FitError,
    Fits,
    parse_fits,
    parse_jobs,
    parse_ratings,
)
from engine.pair_jobs import PairJobs, load_pair_jobs

TASK_COUNT = 62
ITEM_COUNT = 183
NAME_MAX = 32
MIN_TAGS = 1
MAX_TAGS = 4

TAGS: frozenset[str] = frozenset({
    "animal",  # creatures: to charm, to catch, to be
    "catch",  # grab, trap, net, hold on to
    "cold",  # ice, snow, keeping cool
    "disguise",  # look like someone or something else
    "fire",  # heat, flames, cooking hot
    "food",  # something to eat or to feed
    "heavy",  # weight, strength, weighing down
    "height",  # getting up high or down safely
    "hide",  # staying out of sight
    "light",  # seeing in the dark, shining, signalling
    "lure",  # tempting, baiting, distracting
    "noise",  # loud sounds, music, waking up
    "rope",  # tying, pulling, swinging
    "sharp",  # cutting, popping, poking
    "soft",  # cushioning, comfort, quiet
    "speed",  # going fast, getting away
    "sticky",  # glue, honey, things that hold
    "water",  # wet, swimming, floating
})


@dataclass(frozen=True)
class Card:
    """One task or item card: its printed name and its tags."""

    name: str
    tags: frozenset[str]


@dataclass(frozen=True)
class Deck:
    """All task cards and all item cards, in file order."""

    tasks: tuple[Card, ...]
    items: tuple[Card, ...]
    folder: Path | Traversable | None = field(default=None, repr=False, compare=False)
    """Where the deck's files are: its fit file and jobs file are read from there on first
    use (:attr:`fits`, :attr:`jobs`)."""
    _by_name: dict[str, Card] = field(init=False, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        by_name = {c.name: c for c in (*self.tasks, *self.items)}
        object.__setattr__(self, "_by_name", by_name)

    @property
    def task_names(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.tasks)

    @property
    def item_names(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.items)

    def card(self, name: str) -> Card:
        """The task or item card called ``name``; ``KeyError`` if there is none."""
        return self._by_name[name]

    @functools.cached_property
    def fits(self) -> Fits:
        """How well each item serves each task, as the bots read it: from the fit file
        when there is a sound one, from the tags otherwise (:attr:`fit_problem` says why)."""
        tags = {name: card.tags for name, card in self._by_name.items()}
        ratings = self.ratings
        path = None if self.folder is None else self.folder / FIT_FILE
        if path is None or not path.is_file():
            return Fits(tags, ratings=ratings)
        try:
            text = path.read_text(encoding="utf-8")
            return parse_fits(text, self.task_names, self.item_names, tags, str(path), ratings)
        except (OSError, UnicodeDecodeError, FitError) as error:
            object.__setattr__(self, "_fit_problem", str(error))
            return Fits(tags, ratings=ratings)

    @functools.cached_property
    def ratings(self) -> dict[tuple[str, str], float] | None:
        """How readily people link each item with each task (``sense.txt`` beside the
        cards, :func:`engine.fits.parse_ratings`); None without a sound one (then
        :meth:`fit_note` says what was wrong with it)."""
        path = None if self.folder is None else self.folder / SENSE_FILE
        if path is None or not path.is_file():
            return None
        try:
            return parse_ratings(path.read_text(encoding="utf-8"), self.task_names,
                                 self.item_names, str(path))
        except (OSError, UnicodeDecodeError, FitError) as error:
            object.__setattr__(self, "_ratings_problem", str(error))
            return None

    @functools.cached_property
    def jobs(self) -> dict[str, tuple[tuple[str, str], ...]]:
        """Per item, the jobs its plans give it, best first, each with the tag it serves;
        per task, the jobs that read closest to the mission (tag ``mission``), best first
        (``jobs.txt``, written with the fit file); empty without one."""
        path = None if self.folder is None else self.folder / JOBS_FILE
        try:
            if path is None or not path.is_file():
                return {}
            return parse_jobs(path.read_text(encoding="utf-8"),
                              (*self.item_names, *self.task_names))
        except (OSError, UnicodeDecodeError, FitError):
            return {}

    @functools.cached_property
    def pair_jobs(self) -> PairJobs:
        """Per item and mission, the jobs written for the two together, best first
        (``pairs/*.txt``, :mod:`engine.pair_jobs`); a malformed line costs only itself."""
        if self.folder is None:
            return {}
        try:
            return load_pair_jobs(self.folder, self.task_names, self.item_names, [])
        except (OSError, UnicodeDecodeError):
            return {}

    def read_all(self) -> None:
        """Read the fit and jobs files now (the bundled jobs take about 60 ms): a server
        does it at start, not on a bot's first move with every player waiting."""
        _ = self.fits, self.jobs, self.pair_jobs

    def fit_note(self) -> str:
        """One line for the host at start: how the bots read this deck."""
        if self.fits.by_meaning:
            note = "bots read the deck by meaning (its fit file)"
        else:
            why = getattr(self, "_fit_problem", None) or "it has no fit.txt"
            note = (f"bots read the deck by its tags alone ({why}); to have them read it by "
                    "meaning: pip install 'mission-impractical[fit]', then "
                    "mission-impractical deck fit DIR")
        if self.fits.by_people:
            return f"{note}, and as people rated it ({SENSE_FILE})"
        problem = getattr(self, "_ratings_problem", None)
        return f"{note}; its ratings are not read ({problem})" if problem else note


class DeckError(Exception):
    """A deck file is malformed; the message names the file, the line and the problem."""


def _has_control(text: str) -> bool:
    return any(unicodedata.category(ch).startswith("C") for ch in text)


def _parse_line(line: str, where: str) -> Card:
    """One ``Name | tag, tag`` line as a card, or :class:`DeckError` naming ``where``."""
    if _has_control(line):
        raise DeckError(f"{where}: control character in line")
    if line.count("|") != 1:
        raise DeckError(f"{where}: expected 'Name | tag, tag', got {line!r}")
    raw_name, raw_tags = line.split("|")
    name = " ".join(raw_name.split())
    if not name:
        raise DeckError(f"{where}: card has no name")
    if len(name) > NAME_MAX:
        raise DeckError(f"{where}: name {name!r} is longer than {NAME_MAX} characters")
    tags = [t.strip().lower() for t in raw_tags.split(",") if t.strip()]
    if not MIN_TAGS <= len(tags) <= MAX_TAGS:
        raise DeckError(f"{where}: {name!r} has {len(tags)} tags, "
                        f"expected {MIN_TAGS} to {MAX_TAGS}")
    unknown = sorted(set(tags) - TAGS)
    if unknown:
        raise DeckError(f"{where}: {name!r} has unknown tag(s) {', '.join(unknown)}"
                        f" (known tags: {', '.join(sorted(TAGS))})")
    if len(set(tags)) != len(tags):
        raise DeckError(f"{where}: {name!r} repeats a tag")
    return Card(name, frozenset(tags))


def _parse_file(text: str, filename: str) -> list[tuple[Card, str]]:
    """Cards of one file, each with its ``file:line`` location."""
    cards = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        where = f"{filename}:{number}"
        cards.append((_parse_line(line, where), where))
    return cards


def _check_unique(located: list[tuple[Card, str]]) -> None:
    seen: dict[str, str] = {}
    for card, where in located:
        key = card.name.casefold()
        if key in seen:
            raise DeckError(f"{where}: duplicate card name {card.name!r} "
                            f"(first at {seen[key]})")
        seen[key] = where


def _check_count(cards: list[tuple[Card, str]], expected: int, filename: str) -> None:
    if len(cards) != expected:
        raise DeckError(f"{filename}: {len(cards)} cards, expected {expected}")


# A game needs two bars of tasks and two grids of items to deal a second round.
MIN_OWN_TASKS = 8
MIN_OWN_ITEMS = 32


def _check_enough(count: int, least: int, filename: str) -> None:
    if count < least:
        raise DeckError(f"{filename}: {count} cards, a game needs at least {least}")


def parse_deck(tasks_text: str, items_text: str, *, expect_counts: bool = True,
               names: tuple[str, str] = ("tasks.txt", "items.txt"),
               folder: Path | Traversable | None = None) -> Deck:
    """Parse and validate both deck files (see the module docstring for the format).

    ``names`` are the files as errors name them. With ``expect_counts`` the deck must hold
    the rulebook's 62 tasks and 183 items; without, enough cards to play.
    """
    tasks_name, items_name = names
    tasks = _parse_file(tasks_text, tasks_name)
    items = _parse_file(items_text, items_name)
    _check_unique([*tasks, *items])
    if expect_counts:
        _check_count(tasks, TASK_COUNT, tasks_name)
        _check_count(items, ITEM_COUNT, items_name)
    return Deck(tuple(c for c, _ in tasks), tuple(c for c, _ in items), folder)


def load_deck_dir(directory: Path | str) -> Deck:
    """A host's own deck: ``tasks.txt`` and ``items.txt`` in ``directory``, in the same
    format as the game's, any number of cards from enough to play. :class:`DeckError`
    names the file, the line and the problem."""
    folder = Path(directory)
    texts = []
    for name in ("tasks.txt", "items.txt"):
        path = folder / name
        try:
            texts.append(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise DeckError(f"{path}: no such file (a deck folder holds tasks.txt "
                            "and items.txt)") from None
        except UnicodeDecodeError as error:
            raise DeckError(f"{path}: not UTF-8 text ({error.reason})") from None
        except OSError as error:
            raise DeckError(f"{path}: cannot read it ({error.strerror})") from None
    tasks_path, items_path = str(folder / "tasks.txt"), str(folder / "items.txt")
    deck = parse_deck(texts[0], texts[1], expect_counts=False, names=(tasks_path, items_path),
                      folder=folder)
    _check_enough(len(deck.tasks), MIN_OWN_TASKS, tasks_path)
    _check_enough(len(deck.items), MIN_OWN_ITEMS, items_path)
    return deck


@functools.cache
def load_deck() -> Deck:
    """The game's own deck from ``engine/data``, validated (loaded once)."""
    data = resources.files("engine") / "data"
    tasks_text = (data / "tasks.txt").read_text(encoding="utf-8")
    items_text = (data / "items.txt").read_text(encoding="utf-8")
    return parse_deck(tasks_text, items_text, folder=data)
