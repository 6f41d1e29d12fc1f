"""Bot players: they see what a player sees (a :class:`~engine.rules.View`) and the public deck.

A bot never receives the game state, so it cannot peek at another seat's secret. It reads
the table as a person reads it (:mod:`engine.reading`, fitted on what blind readers
answered): each item's evidence for each task, from the cards' fit (:mod:`engine.fits`).

* **As lead agent** it picks, column by column, the item that gives the best chance that a
  person reads its secret task once all four items are down (looking ahead over the
  columns to come): an item that fits the secret alone beats one that fits a decoy too,
  and the first item counts most.
* **As guesser** a normal or easy bot reads the items down so far as a person does, and
  no better: its belief is a person's reading, its guess is drawn from it. A sharp one
  also asks, for each task, "had *that* been the secret, how likely would a lead have
  been to pick these items out of these columns?" (what the lead passed over is evidence
  too). It shouts Stop! when one task is ahead enough after a couple of items, and
  otherwise guesses once all four items are down.

How well it plays is its :class:`Level` (``easy``, ``normal``, ``sharp``), chosen per bot
seat by the host: a sharp bot always picks the best item and shouts as soon as it is sure;
a normal one sometimes picks the second best, often hesitates before shouting and sometimes
misreads the items; an easy one more so. :meth:`Bot.think_seconds` says how long a person
would take over each move, so a live table goes at human pace (``simulate`` ignores it).

Everything is deterministic: each decision draws from a random generator seeded with the
bot's seed and the decision's place in the game (round, seat, items down).
"""

from __future__ import annotations

import functools
import math
import random
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Protocol

from engine.cards import Deck
from engine.plans import plan_text
from engine.reading import PERSON, Evidence, evidence, lead_values, read
from engine.rules import (
    Action,
    BestPlan,
    Guess,
    LeadReveal,
    NextRound,
    Phase,
    Pick,
    Reveal,
    Shout,
    View,
)


class LeadPicker(Protocol):
    """Someone else's way of leading, put in a bot's seat (``simulate`` tries the bot
    guessers against it): the rows of ``column`` to choose from for card ``secret``."""

    def pick(self, tasks: Sequence[str], secret: int, column: Sequence[str],
             chosen: Sequence[str]) -> list[int]: ...

BETA = 3.0  # how sharply a sharp guesser assumes a lead prefers the item people read best


@dataclass(frozen=True)
class Level:
    """How well a bot plays. The figures each level gives are printed by ``simulate``
    (see docs/bots.md); tune here and measure there."""

    name: str
    lead_beta: float | None  # the lead picks item r with odds exp(beta * value); None: best
    read_scale: float | None  # reads as a person, this sure (engine.reading); None: sharp
    focus: float | None  # the guess is task k with odds p_k ** focus; None: the likeliest
    stop_confidence: float  # belief in the top task needed before shouting Stop!
    stop_min_items: int  # items that must be down first
    nerve: float  # chance of daring to shout, each item, when sure enough


LEVELS: dict[str, Level] = {
    "easy": Level("easy", lead_beta=6.0, read_scale=0.8, focus=0.7, stop_confidence=0.7,
                  stop_min_items=2, nerve=0.2),
    "normal": Level("normal", lead_beta=40.0, read_scale=PERSON.scale, focus=1.0,
                    stop_confidence=0.9, stop_min_items=2, nerve=0.85),
    "sharp": Level("sharp", lead_beta=None, read_scale=None, focus=None, stop_confidence=0.85,
                   stop_min_items=2, nerve=1.0),
}
DEFAULT_LEVEL = "normal"

_BELIEF_CACHE = 32

Columns = tuple[tuple[Evidence, ...], ...]  # [column][row]: an item's evidence per task


def evidence_grid(deck: Deck, tasks: Sequence[str], grid: Sequence[Sequence[str]]) -> Columns:
    """``[column][row]``: each item's evidence for each task of the bar, as a person
    notices it (:func:`engine.reading.evidence`)."""
    return tuple(tuple(evidence(deck.fits, tasks, item) for item in column)
                 for column in grid)


@functools.lru_cache(maxsize=512)  # about 16 a round; each key about 3 KB
def _lead_values(columns: Columns, picks: tuple[int, ...], secret: int) -> tuple[float, ...]:
    return tuple(lead_values(columns, picks, secret))


def task_probabilities(columns: Columns, picks: Sequence[int], beta: float = BETA
                       ) -> list[float]:
    """A sharp reader's chance of each task being the secret, given the picks so far: for
    each task, "had that been the secret, how likely was a lead to pick these items out of
    these columns?", the lead choosing each column's item with odds ``exp(beta * value)``
    (:func:`engine.reading.lead_values`); with a uniform prior, Bayes' rule does the rest."""
    tasks = len(columns[0][0]) if columns and columns[0] else 0
    log_like = [0.0] * tasks
    for hypothesis in range(tasks):
        for column, row in enumerate(picks):
            values = _lead_values(columns, tuple(picks[:column]), hypothesis)
            scores = [beta * v for v in values]
            log_like[hypothesis] += scores[row] - _logsumexp(scores)
    top = max(log_like)
    weights = [math.exp(x - top) for x in log_like]
    total = sum(weights)
    return [w / total for w in weights]


def belief(level: Level, columns: Columns, picks: Sequence[int]) -> list[float]:
    """What a bot of ``level`` believes, task by task, from the items down so far: below
    sharp, a person's reading of the items in order (it reads the lead as a person does);
    sharp, also what the lead passed over (:func:`task_probabilities`)."""
    if level.read_scale is None:
        return task_probabilities(columns, picks)
    items = [columns[c][r] for c, r in enumerate(picks)]
    return read(items, len(columns[0][0]), scale=level.read_scale)


def _logsumexp(values: Sequence[float]) -> float:
    top = max(values)
    return top + math.log(sum(math.exp(v - top) for v in values))


# --- human pace ------------------------------------------------------------------------

# Seconds a person takes, drawn at random between these bounds (``think_seconds``).
PACE: dict[str, tuple[float, float]] = {
    "first_pick": (7.0, 14.0),  # the lead takes in the bar and the whole grid
    "pick": (3.5, 8.0),
    "shout": (1.0, 3.5),  # after reading the new item (see READ_SECONDS)
    "shout_anyway": (0.3, 1.0),  # about to shout when another item came: shouts all the same
    "stop_guess": (1.5, 4.0),
    "guess": (3.0, 8.0),
    "reveal": (5.0, 10.0),  # telling the plan
    "lead_reveal": (5.0, 10.0),
    "best_plan": (3.0, 6.0),
    "next_round": (4.0, 8.0),
}
READ_SECONDS = 1.2  # reading a new item's name, before any reaction
READ_PER_CHARACTER = 0.05


def think_seconds(view: View, action: Action, rng: random.Random) -> float:
    """How long a person would take before ``action`` in ``view``: varied, slower on the
    first item, and never a Stop! before the newest item could be read."""
    match action:
        case Pick():
            low, high = PACE["first_pick" if not view.picks else "pick"]
        case Shout():
            newest = view.picked_items()[-1] if view.picks else ""
            read = READ_SECONDS + READ_PER_CHARACTER * len(newest)
            return read + rng.uniform(*PACE["shout"])
        case Guess() if view.phase is Phase.PICKING:
            low, high = PACE["stop_guess"]
        case Guess():
            low, high = PACE["guess"]
        case Reveal():
            low, high = PACE["reveal"]
        case LeadReveal():
            low, high = PACE["lead_reveal"]
        case BestPlan():
            low, high = PACE["best_plan"]
        case _:
            low, high = PACE["next_round"]
    return rng.uniform(low, high)


# --- the bot ---------------------------------------------------------------------------


class Bot:
    """One seat's player. :meth:`act` answers with its next move, reading only the view.

    ``level`` is a name from :data:`LEVELS`. With a ``reader`` (a :class:`LeadPicker`: the
    reader of the card words, :class:`engine.plain_reader.PlainReader`, or a hurried
    person's lead, :class:`engine.reading.FirstThoughtLead`) the bot leads that way instead:
    ``simulate`` uses it to see how the bot guessers do against a lead not their own.
    """

    def __init__(
        self,
        deck: Deck,
        rng_seed: str | int,
        level: str | Level = DEFAULT_LEVEL,
        *,
        reader: LeadPicker | None = None,
    ) -> None:
        self.deck = deck
        self.seed = str(rng_seed)
        self.level = level if isinstance(level, Level) else level_named(level)
        self.reader = reader
        self._beliefs: dict[tuple[object, ...], list[float]] = {}  # a pure function's memo

    def act(self, view: View, now_ms: int = 0) -> Action | None:
        """The bot's next action for ``view.seat``, or None when it has nothing to do now.

        Whenever the table waits for this seat, the answer is a move (so the hub can also
        use a bot to move for a player whose time ran out).
        """
        seat = view.seat
        if seat is None:
            return None
        match view.phase:
            case Phase.PICKING:
                return self._picking(view, seat, now_ms)
            case Phase.GUESSING:
                return Guess(seat, self._guess(view)) if view.can_guess() else None
            case Phase.REVEALING if view.waiting_for == (seat,):
                return Reveal(seat, self._plan(view, view.my_guess))
            case Phase.LEAD_REVEAL if view.is_lead:
                return LeadReveal(seat, self._plan(view, view.secret))
            case Phase.BEST_PLAN if view.is_lead:
                return BestPlan(seat, self._best_plan(view))
            case Phase.ROUND_OVER:
                return NextRound(seat)
        return None

    def think_seconds(self, view: View, action: Action) -> float:
        """How long a person would think before ``action`` (see :func:`think_seconds`). A
        Stop! the bot had made up its mind to shout before the newest item came down (a
        quick lead) follows at once: it does not wait to read that item first."""
        rng = self._rng(view, f"think|{type(action).__name__}")
        if isinstance(action, Shout):
            dared = self._dared_at(view)
            if dared is not None and dared < len(view.picks):
                return rng.uniform(*PACE["shout_anyway"])
        return think_seconds(view, action, rng)

    # -- decisions ------------------------------------------------------------------------

    def _rng(self, view: View, purpose: str) -> random.Random:
        return random.Random(f"{self.seed}|{purpose}|{view.round}|{view.seat}|{len(view.picks)}")

    def _columns(self, view: View) -> Columns:
        """``[column][row]``: each item's evidence for each task of the bar."""
        return evidence_grid(self.deck, view.tasks, view.grid)

    def _picking(self, view: View, seat: int, now_ms: int) -> Action | None:
        if view.is_lead:
            return self._pick(view) if view.can_pick() else None
        if view.can_guess():  # holds the stop token: hide the guess now
            return Guess(seat, self._guess(view))
        if view.can_shout() and self._dares_to_shout(view):
            return Shout(seat, now_ms)
        return None

    def _pick(self, view: View) -> Pick:
        assert view.secret is not None
        column = len(view.picks)
        rng = self._rng(view, "pick")
        if self.reader is not None:
            chosen = view.picked_items()
            rows = self.reader.pick(view.tasks, view.secret, view.grid[column], chosen)
            return Pick(view.lead, column, rng.choice(rows))
        values = _lead_values(self._columns(view), view.picks, view.secret - 1)
        beta = self.level.lead_beta
        if beta is None:
            best = max(values)
            rows = [r for r, v in enumerate(values) if math.isclose(v, best)]
            return Pick(view.lead, column, rng.choice(rows))
        top = max(values)
        weights = [math.exp(beta * (v - top)) for v in values]
        return Pick(view.lead, column, rng.choices(range(len(weights)), weights)[0])

    def probabilities(self, view: View) -> list[float]:
        """This bot's belief, task by task, from the items down so far."""
        key = (view.tasks, view.grid, view.picks)
        probs = self._beliefs.get(key)
        if probs is None:
            if len(self._beliefs) >= _BELIEF_CACHE:
                self._beliefs.clear()
            probs = belief(self.level, self._columns(view), view.picks)
            self._beliefs[key] = probs
        return list(probs)

    def _guess(self, view: View) -> int:
        """The likeliest task; below sharp, after four items, drawn by belief instead (a
        Stop! bet is always on the task the bot shouted for)."""
        probs = self.probabilities(view)
        rng = self._rng(view, "guess")
        focus = self.level.focus
        if focus is None or view.phase is Phase.PICKING:
            best = max(probs)
            return rng.choice([k + 1 for k, p in enumerate(probs) if math.isclose(p, best)])
        weights = [p ** focus for p in probs]
        return rng.choices(range(1, len(probs) + 1), weights)[0]

    def _dares_to_shout(self, view: View) -> bool:
        """Sure enough of the top task now, and dared to shout at this item or an earlier
        one: a bot that made up its mind keeps to it when the lead puts the next item down
        before it could shout (live, a quick lead; in ``simulate`` it would have shouted
        already, so the figures there are the same)."""
        if self._dared_at(view) is None:
            return False
        return max(self.probabilities(view)) >= self.level.stop_confidence

    def _dared_at(self, view: View) -> int | None:
        """The first number of items down at which this bot, this round, was sure enough
        and found the nerve to shout (a draw per item, seeded by the count); None: never."""
        level = self.level
        for count in range(level.stop_min_items, len(view.picks) + 1):
            then = view if count == len(view.picks) else replace(view, picks=view.picks[:count])
            if max(self.probabilities(then)) < level.stop_confidence:
                continue
            if self._rng(then, "nerve").random() < level.nerve:
                return count
        return None

    def _plan(self, view: View, card: int | None) -> str:
        """A plan for task ``card`` that says nothing a plan of this game already said."""
        if card is None:
            return ""
        now = [plan for plan in view.plans if plan]
        said = [plan for result in view.history for plan in result.plans if plan] + now
        return plan_text(self.deck, view.tasks[card - 1], view.picked_items(),
                         self._rng(view, "plan"), said, view.seat or 0, now)

    def _best_plan(self, view: View) -> int:
        """Reward a correct guesser (the stop taker's nerve first), else anyone."""
        correct = [s for s in view.guessers if view.guesses[s] == view.secret]
        brave = [s for s in correct if s in view.stop]
        return self._rng(view, "best").choice(brave or correct or list(view.guessers))


def level_named(name: str) -> Level:
    """The :class:`Level` called ``name``; ``ValueError`` saying which names exist."""
    try:
        return LEVELS[name]
    except KeyError:
        raise ValueError(f"no bot level {name!r}: choose {', '.join(LEVELS)}") from None
