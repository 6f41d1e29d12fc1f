"""Whole games played by bots, for balance figures and audits.

    python -m engine.simulate --players 4 --games 1000 --seed 7 [--level normal] [--json]
    python -m engine.simulate --figures [--games 250]

prints a summary (games per second, guess accuracy, Stop! rate and success, plans naming
all four items, how often a reader of the card words finds a bot lead's task, score spread,
mean winner score). ``--figures`` prints the table docs/bots.md quotes: at each level, bots
against bots, bots against a lead who picks by meaning, and a perfect guesser who never
shouts against three bots.

With ``--json`` it also writes one JSON object per line to standard output (the summary then
goes to standard error), enough to audit a game against the rulebook without the code: the
records of :mod:`engine.audit` (``game``, ``round``, ``action``, ``points``, ``final``); the
``game`` header gives the seed, players, bot levels, the resolved number of rounds, the
Stop! tie window, the best plan rule and the first lead agent.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import random
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Protocol, TextIO

from engine.audit import AuditLog, Record
from engine.blind_read import BLIND_PLAYERS, BlindRound, summary_lines
from engine.bots import DEFAULT_LEVEL, LEVELS, Bot, LeadPicker
from engine.cards import Deck, load_deck
from engine.plain_reader import PlainReader
from engine.plans import plan_names_every_item
from engine.reading import FirstThoughtLead
from engine.rules import (
    MAX_PLAYERS,
    MIN_PLAYERS,
    Action,
    Guess,
    Options,
    Phase,
    RoundResult,
    State,
    View,
    apply,
    new_game,
    view_for,
)

STEP_MS = 1000  # simulated time between two actions (far apart: no Stop! ties)
MAX_STEPS_PER_ROUND = 200  # a guard against bots that stop answering


class Stalled(RuntimeError):
    """No bot had a move although the game is not over."""


def game_seed(seed: str | int, game: int) -> str:
    """The seed of game number ``game`` in a run seeded with ``seed``."""
    return f"{seed}/{game}"


class PerfectGuesser:
    """A yardstick, not a player: it always knows the task but never shouts Stop!, and
    plays like ``bot`` otherwise (leading, plans). ``secret`` tells it the current secret."""

    def __init__(self, bot: Bot, secret: Callable[[], int]) -> None:
        self.bot = bot
        self.secret = secret

    def act(self, view: View, now_ms: int = 0) -> Action | None:
        if view.is_lead or view.seat is None:
            return self.bot.act(view, now_ms)
        if view.phase is Phase.PICKING:
            return None
        if view.phase is Phase.GUESSING:
            return Guess(view.seat, self.secret()) if view.can_guess() else None
        return self.bot.act(view, now_ms)


class Player(Protocol):
    def act(self, view: View, now_ms: int = 0) -> Action | None: ...


def _next_action(state: State, bots: Sequence[Player], now_ms: int, rng: random.Random
                 ) -> Action | None:
    """While items are being picked, ask the guessers (in a random order, so no seat always
    shouts first), then the lead; otherwise ask the seats the table waits for. The first bot
    with a move gets it."""
    if state.phase is Phase.PICKING:
        seats = list(state.guessers)
        rng.shuffle(seats)
        seats.append(state.lead)
    else:
        seats = list(state.waiting_for())
    for seat in seats:
        action = bots[seat].act(view_for(state, seat), now_ms)
        if action is not None:
            return action
    return None


@dataclass(frozen=True)
class Lineup:
    """Who plays a simulated game: a bot level per seat (the last one repeats), whether
    the leads pick as someone else would (by the words on the cards; or as a hurried
    person, by people's sense of each item alone), and a seat for the
    :class:`PerfectGuesser`, if any."""

    levels: tuple[str, ...] = (DEFAULT_LEVEL,)
    lead_by_words: bool = False
    lead_by_sense: bool = False
    perfect_seat: int | None = None

    def level(self, seat: int) -> str:
        return self.levels[min(seat, len(self.levels) - 1)]


def play_game(
    players: int,
    seed: str | int,
    deck: Deck | None = None,
    options: Options | None = None,
    *,
    game: int = 0,
    lineup: Lineup | None = None,
    reader: PlainReader | None = None,
) -> tuple[State, list[Record]]:
    """Play one game between ``players`` bots; return the final state and the records
    (header, rounds, actions, points, final scores) that ``--json`` prints."""
    deck = deck or load_deck()
    options = options or Options()
    lineup = lineup or Lineup()
    seed = str(seed)
    names = [f"Bot {s + 1}" for s in range(players)]
    state = new_game(names, seed=seed, tasks=deck.task_names, items=deck.item_names,
                     options=options)
    if lineup.lead_by_words and reader is None:
        reader = plain_reader()
    lead_reader: LeadPicker | None = (
        reader if lineup.lead_by_words
        else FirstThoughtLead(deck.fits) if lineup.lead_by_sense else None)
    bots: list[Player] = [Bot(deck, f"{seed}/bot{s}", lineup.level(s), reader=lead_reader)
                          for s in range(players)]
    if lineup.perfect_seat is not None:
        current = [state]
        bots[lineup.perfect_seat] = PerfectGuesser(Bot(deck, f"{seed}/perfect"),
                                                   lambda: current[0].secret)
    order = random.Random(f"{seed}/order")
    log = AuditLog(game, {
        "record": "game", "game": game, "seed": seed, "players": names,
        "levels": [lineup.level(s) for s in range(players)],
        "perfect_seat": lineup.perfect_seat, "lead_by_words": lineup.lead_by_words,
        "lead_by_sense": lineup.lead_by_sense,
        "rounds": state.total_rounds, "rounds_option": options.rounds,
        "best_plan": options.best_plan, "stop_tie_window_ms": options.stop_tie_window_ms,
        "first_lead": state.lead,
    }, state)
    steps, limit = 0, MAX_STEPS_PER_ROUND * (state.total_rounds or 1)
    while state.phase is not Phase.GAME_OVER:
        if lineup.perfect_seat is not None:
            current[0] = state
        action = _next_action(state, bots, steps * STEP_MS, order)
        steps += 1
        if action is None or steps > limit:
            raise Stalled(f"game {seed}: no bot moves in {state.phase} of round {state.round}")
        after, events = apply(state, action)
        log.add(state, action, events, after)
        state = after
    return state, log.finish(state, seed)


@functools.cache
def plain_reader() -> PlainReader:
    """The reader of the card words, made on first use."""
    return PlainReader()


# --- figures ---------------------------------------------------------------------------


@dataclass
class Summary:
    """Running figures over finished games (from their round history only).

    ``reader`` (a :class:`PlainReader`) also guesses each round from the four items, to
    measure whether a person could see the leads' links; ``perfect_seat`` counts that
    seat's wins (shared victories included)."""

    reader: PlainReader | None = None
    perfect_seat: int | None = None
    games: int = 0
    rounds: int = 0
    guesses: int = 0  # bot guesses hidden after all four items
    correct: int = 0
    stops: int = 0
    stops_won: int = 0
    stop_rounds: int = 0
    plans: int = 0
    plans_full: int = 0  # plans naming all four items
    read: int = 0
    read_correct: int = 0
    perfect_wins: int = 0
    spread_total: int = 0
    winner_total: int = 0
    seconds: float = 0.0
    _tie_break: random.Random = field(default_factory=lambda: random.Random(0), repr=False)

    def add(self, state: State) -> None:
        self.games += 1
        self.spread_total += max(state.scores) - min(state.scores)
        self.winner_total += max(state.scores)
        if self.perfect_seat is not None:
            self.perfect_wins += self.perfect_seat in state.winners()
        for result in state.history:
            self._add_round(result, len(state.players))

    def _add_round(self, result: RoundResult, players: int) -> None:
        self.rounds += 1
        self.stop_rounds += bool(result.stop)
        for seat in range(players):
            guess = result.guesses[seat]
            if seat != self.perfect_seat:
                self.plans += 1
                self.plans_full += plan_names_every_item(result.plans[seat], result.items)
            if seat == result.lead or guess is None or seat == self.perfect_seat:
                continue
            if seat in result.stop:
                self.stops += 1
                self.stops_won += guess == result.secret
            else:
                self.guesses += 1
                self.correct += guess == result.secret
        if self.reader is not None and result.lead != self.perfect_seat:
            self.read += 1
            cards = self.reader.guess(result.tasks, result.items)
            self.read_correct += self._tie_break.choice(cards) == result.secret

    @property
    def accuracy(self) -> float:
        """Share of guesses hidden after four items that found the task (chance: 25%)."""
        return self.correct / self.guesses if self.guesses else 0.0

    @property
    def stop_success(self) -> float:
        """Share of Stop! bets that won."""
        return self.stops_won / self.stops if self.stops else 0.0

    def as_dict(self) -> dict[str, float]:
        per_game = max(self.games, 1)
        return {
            "games": self.games,
            "games_per_second": self.games / self.seconds if self.seconds else 0.0,
            "guess_accuracy": self.accuracy,
            "stop_rate": self.stop_rounds / max(self.rounds, 1),
            "stop_success": self.stop_success,
            "plans_naming_four_items": self.plans_full / max(self.plans, 1),
            "reader_finds_lead": self.read_correct / max(self.read, 1),
            "perfect_guesser_wins": self.perfect_wins / per_game,
            "score_spread": self.spread_total / per_game,
            "mean_winner_score": self.winner_total / per_game,
        }

    def format(self) -> str:
        d = self.as_dict()
        lines = [
            f"games               {self.games} ({d['games_per_second']:.1f} games/s)",
            f"guess accuracy      {d['guess_accuracy']:.1%} of {self.guesses} guesses after "
            "four items (chance 25%)",
            f"stop rate           {d['stop_rate']:.1%} of {self.rounds} rounds",
            f"stop success        {d['stop_success']:.1%} of {self.stops} Stop! bets",
            f"plans naming 4      {d['plans_naming_four_items']:.1%} of {self.plans} plans",
        ]
        if self.reader is not None:
            lines.append(f"word reader         {d['reader_finds_lead']:.1%} of {self.read} "
                         "bot leads' tasks found from the card words alone (chance 25%)")
        if self.perfect_seat is not None:
            lines.append(f"perfect guesser     wins {d['perfect_guesser_wins']:.1%} of games "
                         "(knows every task, never shouts; ties count)")
        lines += [
            f"score spread        {d['score_spread']:.2f} points (top minus bottom, mean)",
            f"mean winner score   {d['mean_winner_score']:.2f} points",
        ]
        return "\n".join(lines)


def run(players: int, games: int, seed: str | int, options: Options,
        out: TextIO | None = None, lineup: Lineup | None = None) -> Summary:
    """Play ``games`` games; write their JSON records to ``out`` if given."""
    deck = load_deck()
    lineup = lineup or Lineup()
    reader = plain_reader()
    summary = Summary(reader=None if lineup.lead_by_words or lineup.lead_by_sense else reader,
                      perfect_seat=lineup.perfect_seat)
    start = time.perf_counter()
    for game in range(games):
        state, records = play_game(players, game_seed(seed, game), deck, options, game=game,
                                   lineup=lineup, reader=reader)
        summary.add(state)
        if out is not None:
            _write_lines(out, records)
    summary.seconds = time.perf_counter() - start
    return summary


FIGURE_PLAYERS = 4


def figures(games: int, seed: str | int, options: Options) -> str:
    """The table docs/bots.md quotes: per level, bots against bots, bots against two
    stand-ins for a person's lead (by the card words; by the item that serves the mission
    most, as people rate it), and a perfect never-shouting guesser against three bots."""
    rows = [f"{FIGURE_PLAYERS} players, {games} games per line, seed {seed}",
            f"{'':8}{'setup':30}{'accuracy':>9}{'stops':>7}{'stop won':>9}{'plans 4':>8}"
            f"{'reader':>8}{'perfect':>8}"]
    for level in LEVELS:
        setups = (("bots vs bots", Lineup((level,))),
                  ("bot guessers, lead by words", Lineup((level,), lead_by_words=True)),
                  ("bot guessers, hurried lead", Lineup((level,), lead_by_sense=True)),
                  ("perfect guesser vs 3 bots", Lineup(("sharp", level), perfect_seat=0)))
        for name, lineup in setups:
            d = run(FIGURE_PLAYERS, games, seed, options, lineup=lineup).as_dict()
            bot_lead = not (lineup.lead_by_words or lineup.lead_by_sense)
            reader = f"{d['reader_finds_lead']:.0%}" if bot_lead else "-"
            perfect = (f"{d['perfect_guesser_wins']:.0%}" if lineup.perfect_seat is not None
                       else "-")
            rows.append(f"{level:8}{name:30}{d['guess_accuracy']:>9.0%}{d['stop_rate']:>7.0%}"
                        f"{d['stop_success']:>9.0%}{d['plans_naming_four_items']:>8.0%}"
                        f"{reader:>8}{perfect:>8}")
    rows += ["accuracy: bot guesses after four items; stops: rounds with a Stop!; stop won:",
             "bets that paid; plans 4: plans naming all four items; reader: a reader of the",
             "card words (never the tags) finds the bot lead's task; perfect: share of games",
             "the perfect guesser wins or shares."]
    rows += summary_lines()
    return "\n".join(rows)


def make_rounds(count: int, seed: str, level: str = "normal",
                deck: Deck | None = None) -> list[BlindRound]:
    """``count`` rounds led by ``level`` bots for a blind read (:mod:`engine.blind_read`):
    the first round of each of ``count`` games."""
    deck = deck or load_deck()
    rounds = []
    for game in range(count):
        game_id = game_seed(seed, game)
        state, _ = play_game(BLIND_PLAYERS, game_id, deck, Options(rounds=1),
                             lineup=Lineup((level,)))
        result = state.history[0]
        grid = tuple(tuple(column) for column in result.grid)
        picks = tuple(grid[c].index(item) for c, item in enumerate(result.items))
        rounds.append(BlindRound(game + 1, game_id, tuple(result.tasks), grid, picks,
                                 result.secret))
    return rounds


def _write_lines(out: TextIO, records: Iterable[Record]) -> None:
    for record in records:
        out.write(json.dumps(record, ensure_ascii=False) + "\n")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="mission-impractical simulate",
                                     description="Play whole games between bots.")
    parser.add_argument("--players", type=int, default=4,
                        help=f"players per game, {MIN_PLAYERS} to {MAX_PLAYERS} (default 4)")
    parser.add_argument("--games", type=int, default=100, help="games to play (default 100)")
    parser.add_argument("--seed", default="0", help="seed of the whole run (default 0)")
    parser.add_argument("--rounds", type=int, default=None,
                        help="rounds per game (default: by player count, as the rulebook)")
    parser.add_argument("--json", action="store_true",
                        help="write every action and its events as JSON lines to stdout")
    parser.add_argument("--best-plan", action="store_true", help="use the best plan rule")
    parser.add_argument("--level", choices=list(LEVELS), default=DEFAULT_LEVEL,
                        help=f"every bot's level (default {DEFAULT_LEVEL})")
    parser.add_argument("--figures", action="store_true",
                        help="print the bots' figures at every level (4 players; --games "
                             "per line, default 100)")
    return parser


def main(argv: list[str] | None = None) -> int:
    """``simulate --players N --games G --seed S [--json] [--best-plan]``."""
    parser = _parser()
    args = parser.parse_args(argv)
    if not MIN_PLAYERS <= args.players <= MAX_PLAYERS:
        parser.error(f"--players must be from {MIN_PLAYERS} to {MAX_PLAYERS}")
    if args.games < 1:
        parser.error("--games must be at least 1")
    if args.rounds is not None and args.rounds < 1:
        parser.error("--rounds must be at least 1")
    options = Options(rounds=args.rounds, best_plan=args.best_plan)
    try:
        if args.figures:
            print(figures(args.games, args.seed, options))
            return 0
        summary = run(args.players, args.games, args.seed, options,
                      out=sys.stdout if args.json else None, lineup=Lineup((args.level,)))
        print(summary.format(), file=sys.stderr if args.json else sys.stdout)
        sys.stdout.flush()
    except BrokenPipeError:  # e.g. piped into head: the reader has what it wanted
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    return 0


if __name__ == "__main__":
    sys.exit(main())
