"""How well each item serves each task: the one number every bot reads, lead and guesser.

A bot leads by it (it picks the item that serves its task most, ahead of the decoys) and
reads any lead by it, a person's or a bot's, so the bots hold no code of their own that a
person could not share. For a deck with a fit file the number is *meaning people share*: a
developer step (:mod:`engine.deck_fit`, the ``fit`` extra) reads every task and item with a
sentence-embedding model and blends how close the two read with the tags (what the mission
needs, what the item offers). For a deck without one (a host's own deck before ``deck fit``)
it is the tags alone: how many the task and the item share.

The fit file (``engine/data/fit.txt``, or ``fit.txt`` beside a host's deck) is text::

    # comment
    items: Umbrella | Garden Hose | ...
    Rescue a Kitten From an Oak Tree | 12 -3 4 ...

one line per task, one whole number per item in the order of the ``items:`` line, in tenths
of a fit. It must cover every card of its deck, or the bots fall back to the tags.

Beside it a deck may have a ratings file (``engine/data/sense.txt``, or ``sense.txt`` beside a
host's deck): how readily *people* link each item with each task, 0 to 3, rated by hand by
people who never saw the tags or the code. It is what a player sees at a glance (a ladder
for the kitten in the tree), and it reads the blind readers' answers far better than the
tags and the sentence model do (:mod:`engine.reading`). One line per item, every item of
the deck, the tasks it links with and how readily (a task left out: no link)::

    # comment
    Ladder | Rescue a Kitten From an Oak Tree: 3; Escape a Locked Treehouse: 2.5
    Pinecone |
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Iterable, Mapping, Sequence

FIT_FILE = "fit.txt"
JOBS_FILE = "jobs.txt"
SENSE_FILE = "sense.txt"
RATING_MAX = 3.0
SCALE = 10  # the file holds tenths of a fit
ITEMS_PREFIX = "items:"


class FitError(Exception):
    """A fit file is malformed or does not cover its deck; the message says what."""


Ratings = Mapping[tuple[str, str], float]  # (task, item) -> how readily people link them


class Fits:
    """Task x item fit. ``table`` maps a task to its fit with each item (in tenths, in the
    order of ``items``); without a table, ``tags`` (name -> tags) give the fit: the number
    of tags a task and an item share. ``ratings`` (from a ratings file) say how readily
    people link a task and an item, 0-3. An unknown card fits nothing (0)."""

    def __init__(self, tags: Mapping[str, frozenset[str]],
                 table: Mapping[str, array[int]] | None = None, items: Sequence[str] = (),
                 ratings: Ratings | None = None) -> None:
        self._tags = tags
        self._table = dict(table) if table is not None else None
        self._index = {name: k for k, name in enumerate(items)}
        self._ratings = dict(ratings) if ratings is not None else None

    @property
    def by_meaning(self) -> bool:
        """True when the fit comes from a fit file (meaning), False for the tags alone."""
        return self._table is not None

    @property
    def by_people(self) -> bool:
        """True when people rated the deck (its ratings file)."""
        return self._ratings is not None

    def rating(self, task: str, item: str) -> float:
        """How readily people link ``task`` and ``item``, 0-3 (0 without a ratings file)."""
        return 0.0 if self._ratings is None else self._ratings.get((task, item), 0.0)

    def score(self, task: str, item: str) -> float:
        if self._table is not None:
            row, k = self._table.get(task), self._index.get(item)
            if row is not None and k is not None:
                return row[k] / SCALE
            return 0.0
        return float(self.shared_tags(task, item))

    def shared_tags(self, task: str, item: str) -> int:
        """How many tags ``task`` and ``item`` share."""
        return len(self._tags.get(task, frozenset()) & self._tags.get(item, frozenset()))

    def parts(self, task: str, item: str) -> tuple[float, float]:
        """The fit in its two parts: the tags shared, and the rest (how close the two read
        to the sentence model, in standard deviations; 0 without a fit file)."""
        tags = float(self.shared_tags(task, item))
        return tags, (self.score(task, item) - tags) if self._table is not None else 0.0

    def scores(self, tasks: Sequence[str], item: str) -> list[float]:
        """``item``'s fit with each of ``tasks``."""
        return [self.score(task, item) for task in tasks]


def parse_fits(text: str, tasks: Iterable[str], items: Iterable[str],
               tags: Mapping[str, frozenset[str]], filename: str = FIT_FILE,
               ratings: Ratings | None = None) -> Fits:
    """A fit file's text as :class:`Fits` for the deck of ``tasks`` and ``items`` (with
    people's ``ratings`` of it, if any); :class:`FitError` if it is malformed or misses a
    card of the deck."""
    order: list[str] | None = None
    table: dict[str, array[int]] = {}
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        where = f"{filename}:{number}"
        if order is None:
            if not line.startswith(ITEMS_PREFIX):
                raise FitError(f"{where}: expected the '{ITEMS_PREFIX} A | B | ...' line first")
            order = [n.strip() for n in line.removeprefix(ITEMS_PREFIX).split("|")]
            continue
        name, sep, numbers = line.rpartition("|")
        try:
            row = array("h", (int(n) for n in numbers.split()))
        except (ValueError, OverflowError):
            raise FitError(f"{where}: expected 'Task | whole numbers'") from None
        if not sep or len(row) != len(order):
            raise FitError(f"{where}: expected 'Task | {len(order)} whole numbers'")
        table[name.strip()] = row
    if order is None:
        raise FitError(f"{filename}: no '{ITEMS_PREFIX}' line")
    missing = [n for n in tasks if n not in table] + [n for n in items if n not in order]
    if missing:
        raise FitError(f"{filename}: no fit for {len(missing)} card(s) of the deck, such as "
                       f"{missing[0]!r} (run 'mission-impractical deck fit' again)")
    return Fits(tags, table, order, ratings)


def parse_ratings(text: str, tasks: Iterable[str], items: Iterable[str],
                  filename: str = SENSE_FILE) -> dict[tuple[str, str], float]:
    """A ratings file's text (see the module docstring) as ``{(task, item): rating}``, the
    links it names only; :class:`FitError` naming the line if a line is malformed, names an
    unknown card or a rating outside 0-3, or if an item of the deck has no line."""
    task_names, item_names = set(tasks), list(items)
    known = set(item_names)
    ratings: dict[tuple[str, str], float] = {}
    seen: set[str] = set()
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        where = f"{filename}:{number}"
        item, sep, rest = (part.strip() for part in line.partition("|"))
        if not sep:
            raise FitError(f"{where}: expected 'Item | Task: rating; Task: rating'")
        if item not in known:
            raise FitError(f"{where}: no item {item!r} in the deck")
        if item in seen:
            raise FitError(f"{where}: {item!r} is rated twice")
        seen.add(item)
        for link in filter(None, (part.strip() for part in rest.split(";"))):
            task, colon, value = (part.strip() for part in link.rpartition(":"))
            try:
                rating = float(value)
            except ValueError:
                rating = math.nan
            if not colon or not 0 <= rating <= RATING_MAX:
                raise FitError(f"{where}: expected 'Task: rating' (0 to 3), got {link!r}")
            if task not in task_names:
                raise FitError(f"{where}: no task {task!r} in the deck")
            ratings[(task, item)] = rating
    missing = [name for name in item_names if name not in seen]
    if missing:
        raise FitError(f"{filename}: no line for {len(missing)} item(s) of the deck, such as "
                       f"{missing[0]!r} (an item linked with no task: '{missing[0]} |')")
    return ratings


def format_ratings(items: Sequence[str], tasks: Sequence[str], ratings: Ratings,
                   header: str = "") -> str:
    """The ratings file's text for ``ratings`` (see :func:`parse_ratings`): per item, the
    tasks it links with, most readily first, then in the order of ``tasks``."""
    lines = [f"# {line}".rstrip() for line in header.splitlines()]
    for item in items:
        links = sorted(((ratings[(t, item)], k, t) for k, t in enumerate(tasks)
                        if ratings.get((t, item), 0) > 0), key=lambda x: (-x[0], x[1]))
        lines.append(f"{item} |" + "".join(f"{' ' if n == 0 else '; '}{t}: {r:g}"
                                           for n, (r, _, t) in enumerate(links)))
    return "\n".join(lines) + "\n"


def format_fits(tasks: Sequence[str], items: Sequence[str],
                fit: Sequence[Sequence[float]], header: str = "") -> str:
    """The fit file's text for ``fit[task][item]`` (see the module docstring)."""
    lines = [f"# {line}".rstrip() for line in header.splitlines()]
    lines.append(f"{ITEMS_PREFIX} " + " | ".join(items))
    for task, row in zip(tasks, fit, strict=True):
        lines.append(f"{task} | " + " ".join(str(round(v * SCALE)) for v in row))
    return "\n".join(lines) + "\n"


def parse_jobs(text: str, items: Iterable[str],
               filename: str = JOBS_FILE) -> dict[str, tuple[tuple[str, str], ...]]:
    """A jobs file (``Item | tag: job; tag: job``, best first) as ``{item: ((tag, job),
    ...)}`` for the cards in ``items``; :class:`FitError` on a malformed line."""
    known = set(items)
    jobs: dict[str, tuple[tuple[str, str], ...]] = {}
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        name, sep, rest = line.partition("|")
        pairs = [part.partition(":") for part in rest.split(";") if part.strip()]
        if not sep or any(not colon for _, colon, _ in pairs):
            raise FitError(f"{filename}:{number}: expected 'Item | tag: job; tag: job'")
        if name.strip() in known:
            jobs[name.strip()] = tuple((t.strip(), j.strip()) for t, _, j in pairs)
    return jobs


def format_jobs(jobs: Mapping[str, Sequence[tuple[str, str]]], header: str = "") -> str:
    """The jobs file's text (see :func:`parse_jobs`)."""
    lines = [f"# {line}".rstrip() for line in header.splitlines()]
    lines += [f"{item} | " + "; ".join(f"{tag}: {job}" for tag, job in pairs)
              for item, pairs in jobs.items()]
    return "\n".join(lines) + "\n"
