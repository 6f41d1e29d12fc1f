"""What replays cost: listing finished games, opening one, stepping through it.

    python -m bench.replay [--games 1000] [--runs 50]

builds two journals of finished four-player games (8 rounds each, the tables closed, as
after a night of play; the games are one real hub game's history written again under other
codes and players), one with 10 games and one with ``--games``, and prints for each the
median CPU time over ``--runs`` (this process's own: a busy machine counts little):

1. the lobby's history as it is asked today (``Session.history``: hall of fame, the
   player's record, the 8 latest games), and the list of past games a replay screen would
   add (:func:`engine.replay.past_games`: the player's 20 latest, then the server's);
2. opening one game (:func:`engine.replay.load_replay`) on the server's connection, and on
   a read-only one of its own, opened and closed (:func:`engine.replay.read_replay`, as a
   worker thread or ``export`` would);
3. stepping: one step's ``view()`` (the spectator's view with the secret shown);
4. the disk: the database's bytes per game, and what of it is the moves (what ``prune``
   removes) and the summary (what it keeps).
"""

from __future__ import annotations

import argparse
import sqlite3
import statistics
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from bench.journal import code_of, template
from engine.journal import DB_NAME, open_journal
from engine.records import Records
from engine.replay import load_replay, past_games, read_replay

PLAYERS = 50  # distinct people over the games; "me" plays one game in ten
ME = "key:me"
PAST = "past games (mine, then the others)"


def build(path: Path, games: int) -> None:
    """``games`` finished games at closed tables, one a table."""
    tmpl = template()
    with open_journal(path, synchronous="OFF") as journal:
        for n in range(games):
            code = code_of(n)
            for _, seq, kind, payload in tmpl.records:
                journal.record(code, seq, kind, payload)
            for _, game_no, seats, result in tmpl.games:
                people = [(ME if n % 10 == 0 and i == 0 else f"key:p{(n + i) % PLAYERS}",
                           name) for i, (_, name) in enumerate(seats)]
                journal.game_over(code, game_no, people, result)
            journal.close_table(code)


def median_ms(run: Callable[[], Any], runs: int) -> float:
    """The median CPU time of ``run``, in ms: this process's own, so that other work on a
    shared machine does not count (the database is in the page cache: little waits)."""
    samples = []
    for _ in range(runs):
        start = time.process_time()
        run()
        samples.append((time.process_time() - start) * 1000)
    return statistics.median(samples)


def history(records: Records) -> None:
    """What ``Session.history`` asks when the lobby opens (engine/session.py)."""
    records.hall_of_fame(8)
    records.player_record(ME)
    records.recent_games(8)


def measure(data: Path, runs: int) -> dict[str, float]:
    db = sqlite3.connect(data / DB_NAME)
    records = Records(db)
    game = records.recent_games(1)[0]
    replay = load_replay(db, game)
    steps = [step for _, step in replay.steps()]

    figures = {
        "lobby history today": median_ms(lambda: history(records), runs),
        PAST: median_ms(
            lambda: past_games(records, ME), runs),
        "open a replay": median_ms(lambda: load_replay(db, game), runs),
        "open a replay on its own connection": median_ms(
            lambda: read_replay(data, game.game_id), runs),
        "one step's view": median_ms(lambda: [s.view() for s in steps], runs) / len(steps),
        "steps": len(steps),
        "mine listed": len(past_games(records, ME).mine),
    }
    db.close()
    return figures


def sizes(data: Path, games: int) -> tuple[float, float, float]:
    """(file KB per game after a checkpoint, move records KB per game, summary KB per game)."""
    db = sqlite3.connect(data / DB_NAME)
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    records = db.execute("SELECT sum(length(payload)) FROM records").fetchone()[0]
    results = db.execute("SELECT sum(length(result)) FROM games").fetchone()[0]
    db.close()
    size = (data / DB_NAME).stat().st_size
    return size / games / 1024, records / games / 1024, results / games / 1024


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.replay", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=50)
    args = parser.parse_args(argv)
    counts = (10, args.games)
    results: dict[int, dict[str, float]] = {}
    disk = (0.0, 0.0, 0.0)
    with tempfile.TemporaryDirectory() as tmp:
        for games in counts:
            data = Path(tmp) / str(games)
            started = time.perf_counter()
            build(data, games)
            print(f"  built {games} games in {time.perf_counter() - started:.1f} s", flush=True)
            results[games] = measure(data, args.runs)
            if games == args.games:
                disk = sizes(data, games)
    print(f"CPU ms, medians of {args.runs} runs{'':3}" + "".join(
        f"{f'{n} games':>14}" for n in counts))
    for label in next(iter(results.values())):
        unit = "" if label in ("steps", "mine listed") else " ms"
        cells = "".join(f"{results[n][label]:>11.3f}{unit:3}" if unit else
                        f"{results[n][label]:>14.0f}" for n in counts)
        print(f"  {label:<40}{cells}")
    big = results[args.games]
    print(f"  past games cost {big[PAST] / big['lobby history today']:.0%} of today's lobby "
          f"history at {args.games} games")
    per_game, moves, summary = disk
    print(f"disk at {args.games} games: {per_game:.1f} KB per game in the file; of it, "
          f"{moves:.1f} KB of moves (prune removes them) and {summary:.1f} KB of summary "
          "(kept)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
