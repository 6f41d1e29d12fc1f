"""Blind reads of bot leads (and bot plans) for readers who never saw the code.

    python -m bench.blind make [--set N] [--rounds 40] [--seed S]   # questions-N.txt, key-N.jsonl
    python -m bench.blind score answers-N-WHO.txt [--set N]         # right, and the rounds missed
    python -m bench.blind plans [--set N] [--count 40] [--seed S]   # plans-N.txt for raters
    python -m bench.blind replay --set N                            # today's lead on set N

The questions show the four task names and the four items chosen, in order, nothing else;
the key holds each round whole. Keep answers beside them as ``answers-N-WHO.txt``:
``simulate --figures`` scores every one of them against the bots reading the same rounds.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from engine.blind_read import (
    LETTERS,
    key_text,
    parse_answers,
    parse_key,
    questions_text,
    score,
    sets,
    summary_lines,
)
from engine.bots import evidence_grid
from engine.cards import load_deck
from engine.reading import best_picks, read
from engine.simulate import game_seed, make_rounds, play_game

HERE = Path(__file__).resolve().parent


def _make(args: argparse.Namespace) -> int:
    n = args.set or (max(sets(HERE), default=0) + 1)
    rounds = make_rounds(args.rounds, args.seed or f"blind-{n}")
    (HERE / f"questions-{n}.txt").write_text(questions_text(rounds), encoding="utf-8")
    (HERE / f"key-{n}.jsonl").write_text(key_text(rounds), encoding="utf-8")
    print(f"wrote {HERE}/questions-{n}.txt and key-{n}.jsonl ({len(rounds)} rounds)")
    return 0


def _score(args: argparse.Namespace) -> int:
    path = Path(args.answers)
    found = re.match(r"answers-(\d+)-", path.name)
    n = args.set or (int(found.group(1)) if found else max(sets(HERE), default=1))
    rounds = parse_key((HERE / f"key-{n}.jsonl").read_text(encoding="utf-8"))
    result = score(rounds, parse_answers(path.read_text(encoding="utf-8")))
    print(f"set {n}: {result.right} of {result.total} right ({result.share:.0%}; chance 25%)")
    for r, answer in result.wrong:
        said = LETTERS[answer - 1] if answer else "-"
        print(f"  round {r.number}: answered {said}, was {LETTERS[r.secret - 1]} "
              f"({r.tasks[r.secret - 1]}); items {', '.join(r.items)}")
    print("\n".join(summary_lines(HERE)))
    return 0


def _replay(args: argparse.Namespace) -> int:
    """Set N's grids led anew by today's lead (the best item each column): which rounds it
    leads as before (and how the readers did on those), and a person's reading
    (:mod:`engine.reading`) of the items then and now."""
    n = args.set or max(sets(HERE), default=1)
    rounds = parse_key((HERE / f"key-{n}.jsonl").read_text(encoding="utf-8"))
    readers = [parse_answers(p.read_text(encoding="utf-8"))
               for p in sorted(HERE.glob(f"answers-{n}-*.txt"))]
    deck = load_deck()
    same = first = right_same = right_changed = 0
    then_total = now_total = 0.0
    for r in rounds:
        columns = evidence_grid(deck, r.tasks, r.grid)
        new = best_picks(columns, r.secret - 1)
        then = read([columns[c][p] for c, p in enumerate(r.picks)], len(r.tasks))
        now = read([columns[c][p] for c, p in enumerate(new)], len(r.tasks))
        then_total, now_total = then_total + then[r.secret - 1], now_total + now[r.secret - 1]
        right = sum(a.get(r.number) == r.secret for a in readers)
        same += new == r.picks
        first += new[0] == r.picks[0]
        right_same += right if new == r.picks else 0
        right_changed += right if new != r.picks else 0
        if args.verbose and new != r.picks:
            print(f"round {r.number}: {r.tasks[r.secret - 1]} ({right}/{len(readers)} right)\n"
                  f"  then {', '.join(r.items)} ({then[r.secret - 1]:.0%})\n"
                  f"  now  {', '.join(r.grid[c][p] for c, p in enumerate(new))} "
                  f"({now[r.secret - 1]:.0%})")
    k = max(len(readers), 1)
    print(f"set {n}: today's lead picks the same four items in {same} of {len(rounds)} rounds "
          f"(readers right on {right_same}/{same * k} of them), the same first item in "
          f"{first}; readers were right on {right_changed}/{(len(rounds) - same) * k} of the "
          f"rounds it leads otherwise")
    print(f"a person's reading finds the task: then {then_total / len(rounds):.0%}, "
          f"now {now_total / len(rounds):.0%}")
    return 0


def plan_samples(count: int, seed: str) -> list[tuple[str, list[str], str]]:
    """``count`` plans told by normal bots in whole games, one a game, from any round and
    seat: (the task the plan is for, the items in order, the plan)."""
    samples = []
    for game in range(count):
        state, _ = play_game(4, game_seed(seed, game), load_deck())
        result = state.history[game % len(state.history)]
        seat = (result.lead + game) % len(result.plans)
        card = result.secret if seat == result.lead else result.guesses[seat]
        assert card is not None
        samples.append((result.tasks[card - 1], list(result.items), result.plans[seat]))
    return samples


def _plans(args: argparse.Namespace) -> int:
    n = args.set or 1
    lines = ["Mission Impractical: plans told by players. Rate each 1-5 for 'a plan that fits",
             "this mission and these items' (5: fits and reads well aloud; 1: nonsense), one",
             "line a plan, like '1 4'.", ""]
    seed = args.seed or f"plans-{n}"  # the same seed: the same games, told anew
    for k, (task, items, plan) in enumerate(plan_samples(args.count, seed), 1):
        lines += [f"Plan {k}", f"  Mission: {task}", f"  Items, in order: {', '.join(items)}",
                  f"  Plan: {plan}", ""]
    (HERE / f"plans-{n}.txt").write_text("\n".join(lines), encoding="utf-8")
    print(f"wrote {HERE}/plans-{n}.txt ({args.count} plans)")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.blind")
    commands = parser.add_subparsers(dest="command", required=True)
    make = commands.add_parser("make", help="write a new set of blind rounds")
    make.add_argument("--set", type=int, default=None)
    make.add_argument("--rounds", type=int, default=40)
    make.add_argument("--seed", default=None)
    scored = commands.add_parser("score", help="score an answers file against its key")
    scored.add_argument("answers")
    scored.add_argument("--set", type=int, default=None)
    plans = commands.add_parser("plans", help="write bot plans for raters")
    plans.add_argument("--set", type=int, default=None)
    plans.add_argument("--count", type=int, default=40)
    plans.add_argument("--seed", default=None,
                       help="the games' seed (default plans-N; plans-1 to tell set 1 anew)")
    replay = commands.add_parser("replay", help="lead a set's grids anew with today's lead")
    replay.add_argument("--set", type=int, default=None)
    replay.add_argument("--verbose", action="store_true", help="print the rounds led otherwise")
    args = parser.parse_args(argv)
    return {"make": _make, "score": _score, "plans": _plans,
            "replay": _replay}[args.command](args)


if __name__ == "__main__":
    sys.exit(main())
