"""Whole games played by bots, for balance figures and audits.

    python -m engine.simulate --players 4 --games 1000 --seed 7 [--json] [--best-plan]

prints a summary (games per second, guess accuracy, Stop! success, score spread, mean
winner score). With ``--json`` it also writes one JSON object per line to standard output
(the summary then goes to standard error): a ``game`` header, one ``action`` record per
accepted action with the events it caused, and a ``final`` record with the scores, so a
game can be replayed and checked with :mod:`engine.rules` alone.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, TextIO

from engine.bots import Bot
from engine.cards import Deck, load_deck
from engine.rules import (
    MAX_PLAYERS,
    MIN_PLAYERS,
    Action,
    Options,
    Phase,
    State,
    action_to_dict,
    apply,
    new_game,
    view_for,
)

Record = dict[str, Any]

STEP_MS = 1000  # simulated time between two actions (far apart: no Stop! ties)
MAX_STEPS_PER_ROUND = 200  # a guard against bots that stop answering


class Stalled(RuntimeError):
    """No bot had a move although the game is not over."""


def game_seed(seed: str | int, game: int) -> str:
    """The seed of game number ``game`` in a run seeded with ``seed``."""
    return f"{seed}/{game}"


def _next_action(state: State, bots: Sequence[Bot], now_ms: int, rng: random.Random
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


def _action_record(game: int, round_no: int, action: Action, texts: list[str]) -> Record:
    return {"record": "action", "game": game, "round": round_no,
            **action_to_dict(action), "events": texts}


def play_game(
    players: int,
    seed: str | int,
    deck: Deck | None = None,
    options: Options | None = None,
    *,
    game: int = 0,
) -> tuple[State, list[Record]]:
    """Play one game between ``players`` bots; return the final state and the records
    (header, one per accepted action, final scores) that ``--json`` prints."""
    deck = deck or load_deck()
    options = options or Options()
    seed = str(seed)
    names = [f"Bot {s + 1}" for s in range(players)]
    state = new_game(names, seed=seed, tasks=deck.task_names, items=deck.item_names,
                     options=options)
    bots = [Bot(deck, f"{seed}/bot{s}") for s in range(players)]
    order = random.Random(f"{seed}/order")
    records: list[Record] = [{
        "record": "game", "game": game, "seed": seed, "players": names,
        "rounds": options.rounds, "best_plan": options.best_plan,
    }]
    steps, limit = 0, MAX_STEPS_PER_ROUND * (state.total_rounds or 1)
    while state.phase is not Phase.GAME_OVER:
        action = _next_action(state, bots, steps * STEP_MS, order)
        steps += 1
        if action is None or steps > limit:
            raise Stalled(f"game {seed}: no bot moves in {state.phase} of round {state.round}")
        round_no = state.round
        state, events = apply(state, action)
        records.append(_action_record(game, round_no, action, [e.text for e in events]))
    records.append({"record": "final", "game": game, "seed": seed,
                    "scores": list(state.scores), "winners": list(state.winners()),
                    "rounds": len(state.history)})
    return state, records


# --- figures ---------------------------------------------------------------------------


@dataclass
class Summary:
    """Running figures over finished games (from their round history only)."""

    games: int = 0
    rounds: int = 0
    guesses: int = 0  # hidden after all four items
    correct: int = 0
    stops: int = 0
    stops_won: int = 0
    spread_total: int = 0
    winner_total: int = 0
    seconds: float = 0.0

    def add(self, state: State) -> None:
        self.games += 1
        self.spread_total += max(state.scores) - min(state.scores)
        self.winner_total += max(state.scores)
        for result in state.history:
            self.rounds += 1
            for seat in range(len(state.players)):
                guess = result.guesses[seat]
                if seat == result.lead or guess is None:
                    continue
                if seat in result.stop:
                    self.stops += 1
                    self.stops_won += guess == result.secret
                else:
                    self.guesses += 1
                    self.correct += guess == result.secret

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
            "stop_rate": self.stops / max(self.rounds, 1),
            "stop_success": self.stop_success,
            "score_spread": self.spread_total / per_game,
            "mean_winner_score": self.winner_total / per_game,
        }

    def format(self) -> str:
        d = self.as_dict()
        return "\n".join([
            f"games               {self.games} ({d['games_per_second']:.1f} games/s)",
            f"guess accuracy      {d['guess_accuracy']:.1%} of {self.guesses} guesses after "
            "four items (chance 25%)",
            f"stop success        {d['stop_success']:.1%} of {self.stops} Stop! bets "
            f"({d['stop_rate']:.2f} per round)",
            f"score spread        {d['score_spread']:.2f} points (top minus bottom, mean)",
            f"mean winner score   {d['mean_winner_score']:.2f} points",
        ])


def run(players: int, games: int, seed: str | int, options: Options,
        out: TextIO | None = None) -> Summary:
    """Play ``games`` games; write their JSON records to ``out`` if given."""
    deck = load_deck()
    summary = Summary()
    start = time.perf_counter()
    for game in range(games):
        state, records = play_game(players, game_seed(seed, game), deck, options, game=game)
        summary.add(state)
        if out is not None:
            _write_lines(out, records)
    summary.seconds = time.perf_counter() - start
    return summary


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
        summary = run(args.players, args.games, args.seed, options,
                      out=sys.stdout if args.json else None)
        print(summary.format(), file=sys.stderr if args.json else sys.stdout)
        sys.stdout.flush()
    except BrokenPipeError:  # e.g. piped into head: the reader has what it wanted
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    return 0


if __name__ == "__main__":
    sys.exit(main())
