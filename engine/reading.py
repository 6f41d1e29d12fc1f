"""How a person reads a lead: the items' evidence for each task, weighed as people weigh it.

Every bot leads by it and normal and easy bots read by it, so a bot lead picks what a
person would read, and a bot guesser reads no better than a person does. It is fitted on
what blind readers answered (``bench/blind``, sets 1-3: 120 rounds, the readers never saw
the code), and it reads the cards as they did:

* **What people rate comes first.** Where the deck has people's ratings (``sense.txt``,
  :mod:`engine.fits`: how readily a person links an item with a mission, 0-3), a point
  of rating weighs :attr:`Reading.rated` (2.5), beside half a shared tag and 0.45 of a
  standard deviation of the sentence model's closeness. Held out, it predicts a reader's
  answer at log loss 0.46-0.80 a round, where tags and closeness alone reach 1.03-1.12
  (chance 1.39); the two readers of set 4, led with it, found 81%.
* **On a deck nobody rated, closeness counts less than the fit says.** To the readers a
  shared tag (what an item is *for*: a ladder reaches up) weighs about twice a standard
  deviation of closeness (which puts "Tortoise" near "Octopus" and "Matches" near "Dog
  Show"): :attr:`Reading.meaning` (0.45; the fit file weighs them 1 : 1).
* **Only what stands out counts.** An item is evidence for a task where it fits clearly
  (above :attr:`Reading.floor`; below it, a faint link counts a little: a pirate hat for
  a parrot); people do not reason "the Trap Door has nothing to do with clouds, so not
  that one", and a lead must not count on them to.
* **The first item counts most.** Each item weighs :attr:`Reading.attention` (0.75) of the
  one before it: readers settle on a task early and read the rest in its light.

A person's belief is then ``softmax(scale * sum of the items' weighed evidence)``.

A lead that knows this picks, column by column, the item that gives the best chance that
a person reads its task once all four are down (looking ahead over the columns to come):
an item that fits the secret *and* a decoy is worth little, one that fits the secret
alone a lot, and most of all in the first column.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass

from engine.fits import Fits

Evidence = tuple[float, ...]  # an item's evidence for each task of the bar


@dataclass(frozen=True)
class Reading:
    """How a person reads items against tasks (fitted on the blind answers)."""

    rated: float = 2.5  # weight of a point of people's rating (0-3), on a rated deck
    rated_tags: float = 0.5  # and of a shared tag there
    rated_meaning: float = 0.45  # and of a standard deviation of closeness there
    tags: float = 1.0  # on a deck nobody rated: a shared tag
    meaning: float = 0.45  # and a standard deviation of closeness
    floor: float = 0.5  # evidence below this is hardly noticed
    sharpness: float = 4.0  # how sharply: a faint link still counts a little (softplus)
    attention: float = 0.75  # each item weighs this much of the one before
    scale: float = 1.0  # how sure the reading makes a person (low: less sure)


PERSON = Reading()
# A lead reckons with the same reading. (A lead that counts on the person answering with
# the task that reads top, scale 3, was tried: its leads read no better to the models
# fitted on the readers, and worse to the word reader, 61% against 68%, over 100 games.)
LEAD = PERSON


def evidence(fits: Fits, tasks: Sequence[str], item: str, reading: Reading = PERSON
             ) -> Evidence:
    """``item``'s evidence for each of ``tasks``, as a person notices it."""
    rated, tag, meaning = ((reading.rated, reading.rated_tags, reading.rated_meaning)
                           if fits.by_people else (0.0, reading.tags, reading.meaning))
    out = []
    for task in tasks:
        tags, closeness = fits.parts(task, item)
        z = reading.sharpness * (rated * fits.rating(task, item) + tag * tags
                                 + meaning * closeness - reading.floor)
        out.append((max(z, 0.0) + math.log1p(math.exp(-abs(z)))) / reading.sharpness)
    return tuple(out)


def totals(items: Sequence[Evidence], reading: Reading = PERSON) -> list[float]:
    """Each task's weighed evidence from ``items`` in order (the first counts most)."""
    total = [0.0] * (len(items[0]) if items else 0)
    weight = 1.0
    for ev in items:
        total = [t + weight * e for t, e in zip(total, ev, strict=True)]
        weight *= reading.attention
    return total


def read(items: Sequence[Evidence], tasks: int, reading: Reading = PERSON,
         scale: float | None = None) -> list[float]:
    """A person's belief, task by task, after reading ``items`` in order (uniform when
    there are none)."""
    if not items:
        return [1.0 / tasks] * tasks
    s = scale if scale is not None else reading.scale
    return _softmax([s * t for t in totals(items, reading)])


def lead_values(columns: Sequence[Sequence[Evidence]], picks: Sequence[int], secret: int,
                reading: Reading = LEAD) -> list[float]:
    """For each item of the next column (number ``len(picks)``): the best chance, as a
    log, that a person reads task ``secret`` (from 0) once every column has an item,
    over the items still to come. ``columns`` hold each item's evidence read with
    :data:`PERSON`; ``reading`` gives the attention and how surely the person answers."""
    column = len(picks)
    weights = [reading.attention ** c for c in range(len(columns))]
    base = [0.0] * len(columns[0][0])
    for c, r in enumerate(picks):
        base = [b + weights[c] * e for b, e in zip(base, columns[c][r], strict=True)]
    later = [[tuple(weights[c] * e for e in ev) for ev in columns[c]]
             for c in range(column + 1, len(columns))]
    tails = [_sum_rows(combo) for combo in itertools.product(*later)] if later else [None]
    values = []
    for ev in columns[column]:
        here = [b + weights[column] * e for b, e in zip(base, ev, strict=True)]
        best = -math.inf
        for tail in tails:
            total = here if tail is None else [h + t for h, t in zip(here, tail, strict=True)]
            s = [reading.scale * x for x in total]
            best = max(best, s[secret] - _logsumexp(s))
        values.append(best)
    return values


def best_picks(columns: Sequence[Sequence[Evidence]], secret: int,
               reading: Reading = LEAD) -> tuple[int, ...]:
    """The rows a lead who always takes the best item picks for task ``secret`` (from 0),
    column by column (the first of equals)."""
    picks: list[int] = []
    for _ in columns:
        values = lead_values(columns, picks, secret, reading)
        picks.append(values.index(max(values)))
    return tuple(picks)


class FirstThoughtLead:
    """A lead as a person in a hurry plays: each column, the item people see as serving the
    secret task most, without reckoning with the decoys (a jetpack for the cloud ride,
    though it carries a pizza over a moat as well). ``simulate`` puts it in the lead to
    see how bot guessers, and their Stop!, fare against a person."""

    def __init__(self, fits: Fits, reading: Reading = PERSON) -> None:
        self.fits, self.reading = fits, reading

    def pick(self, tasks: Sequence[str], secret: int, column: Sequence[str],
             chosen: Sequence[str]) -> list[int]:
        """The rows of ``column`` that serve card ``secret`` (from 1) most; ``chosen`` (the
        items down so far) does not sway a hurried lead."""
        own = [evidence(self.fits, tasks, item, self.reading)[secret - 1] for item in column]
        best = max(own)
        return [r for r, e in enumerate(own) if math.isclose(e, best)]


def _sum_rows(rows: Sequence[Evidence]) -> list[float]:
    return [sum(col) for col in zip(*rows, strict=True)]


def _softmax(values: Sequence[float]) -> list[float]:
    top = max(values)
    weights = [math.exp(v - top) for v in values]
    total = sum(weights)
    return [w / total for w in weights]


def _logsumexp(values: Sequence[float]) -> float:
    top = max(values)
    return top + math.log(sum(math.exp(v - top) for v in values))
