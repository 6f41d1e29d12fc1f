"""How fast the bots play on a live table: the think times they would take, in seconds.

    python -m bench.bot_pace [--games 100]

Plays seeded 4-player games between normal bots (as ``simulate`` does, instantly) and asks
each bot, for every move it made, how long a person would have thought first
(:meth:`engine.bots.Bot.think_seconds`, which the hub waits out at human pace). Prints
how long a bot lead takes to put down all four items and how long after the newest item a
bot shouts Stop!.
"""

from __future__ import annotations

import argparse
import statistics
from collections.abc import Sequence

from engine.bots import Bot
from engine.cards import load_deck
from engine.rules import Phase, Pick, Shout, action_from_dict, apply, new_game, view_for
from engine.simulate import game_seed, play_game


def _line(name: str, values: Sequence[float]) -> str:
    q = statistics.quantiles(values, n=10)
    return (f"{name:34} median {statistics.median(values):5.1f} s   10%-90% {q[0]:5.1f}-"
            f"{q[-1]:5.1f} s   min {min(values):5.1f} s   ({len(values)} samples)")


def measure(games: int) -> dict[str, list[float]]:
    """Think times of the lead (four items, first item) and of every Stop!."""
    deck = load_deck()
    figures: dict[str, list[float]] = {"four": [], "first": [], "shout": []}
    for game in range(games):
        seed = game_seed("pace", game)
        final, records = play_game(4, seed, deck)
        bots = [Bot(deck, f"{seed}/bot{s}") for s in range(4)]
        state = None
        lead_total = 0.0
        for record in records:
            if record["record"] == "game":
                state = new_game(record["players"], seed=seed, tasks=deck.task_names,
                                 items=deck.item_names)
                continue
            if record["record"] != "action" or state is None:
                continue
            fields = {k: v for k, v in record.items()
                      if k not in ("record", "game", "round", "events")}
            action = action_from_dict(fields)
            seconds = bots[action.seat].think_seconds(view_for(state, action.seat), action)
            if isinstance(action, Pick):
                lead_total = seconds if action.column == 0 else lead_total + seconds
                if action.column == 0:
                    figures["first"].append(seconds)
            if isinstance(action, Shout):
                figures["shout"].append(seconds)
            state, _ = apply(state, action)
            if isinstance(action, Pick) and state.phase is not Phase.PICKING:
                figures["four"].append(lead_total)
        assert final.phase is Phase.GAME_OVER
    return figures


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.bot_pace")
    parser.add_argument("--games", type=int, default=100)
    args = parser.parse_args(argv)
    figures = measure(args.games)
    print(f"normal bots, 4 players, {args.games} games; think times the hub waits out")
    print(_line("lead: first item", figures["first"]))
    print(_line("lead: all four items", figures["four"]))
    print(_line("Stop! after the newest item", figures["shout"]))


if __name__ == "__main__":
    main()
