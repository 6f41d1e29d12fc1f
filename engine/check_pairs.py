"""Check pair jobs as a writer goes: ``python -m engine.check_pairs [FILE]``.

With a file, every problem in it at once (or how many of the deck's items each of its
missions has); without, the game's own ``engine/data/pairs`` merged.
"""

from __future__ import annotations

import sys
from pathlib import Path

from engine.cards import load_deck
from engine.fits import FitError
from engine.pair_jobs import PairJobs, coverage, load_pair_jobs, parse_pair_jobs
from engine.plans import STOCK_LINES


def stock_lines(pairs: PairJobs) -> list[str]:
    """A problem for each pair job that says a shrug or a closer of the plans."""
    return [f"{item} in {task}: {job!r} says {s!r}, a line plans say on their own"
            for item, by_task in pairs.items() for task, jobs in by_task.items()
            for job in jobs for s in STOCK_LINES if s.lower() in job.lower()]


def main(argv: list[str]) -> int:
    deck = load_deck()
    try:
        if argv:  # one file, every problem in it
            path, problems = Path(argv[0]), list[str]()
            pairs = parse_pair_jobs(path.read_text(encoding="utf-8"), deck.task_names,
                                    deck.item_names, path.name, problems)
            problems += stock_lines(pairs)
            if problems:
                print("\n".join(problems))
                print(f"{len(problems)} problems: fix them all")
                return 1
        else:
            assert deck.folder is not None
            pairs = load_pair_jobs(deck.folder, deck.task_names, deck.item_names)
    except (FitError, OSError, UnicodeDecodeError) as error:
        print(error)
        return 1
    print("\n".join(coverage(pairs, deck.task_names, deck.item_names)) or "no pair jobs")
    total = sum(len(jobs) for by_task in pairs.values() for jobs in by_task.values())
    print(f"{total} pair jobs")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
