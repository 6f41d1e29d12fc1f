"""What ``mission-impractical prune`` frees, and what it costs.

    python -m bench.prune [--games 100]

plays ``--games`` whole games (four players, one table each, through the real hub and
journal with ``synchronous=NORMAL`` to save time), closes the tables, and prints the
database's size and the bytes of move-by-move records per game before and after
``prune --older-than 1h`` run an hour later, with the time prune took.
"""

from __future__ import annotations

import argparse
import io
import sqlite3
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from bench.journal import play, seat_table
from engine.hub import Hub
from engine.journal import DB_NAME, open_journal
from server.admin.tools import prune


def _sizes(path: Path) -> tuple[int, int, int]:
    """(file bytes after a checkpoint, record payload bytes, result bytes)."""
    db = sqlite3.connect(path)
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.execute("VACUUM")
    records = db.execute("SELECT coalesce(sum(length(payload)), 0) FROM records").fetchone()[0]
    results = db.execute("SELECT coalesce(sum(length(result)), 0) FROM games").fetchone()[0]
    db.close()
    return path.stat().st_size, records, results


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.prune")
    parser.add_argument("--games", type=int, default=100)
    games = parser.parse_args(argv).games
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp)
        hub = Hub(journal=open_journal(data, synchronous="NORMAL"), seed="prune")
        from engine.records import Records

        hub.records = Records(hub.journal.connection)  # type: ignore[union-attr]
        for _ in range(games):
            table = seat_table(hub)
            play(table)
            for session in list(table.sessions):
                session.leave()
        hub.close()
        before = _sizes(data / DB_NAME)
        started = time.perf_counter()
        prune(data, "1h", io.StringIO(), now=lambda: time.time() + 7200)
        took = time.perf_counter() - started
        after = _sizes(data / DB_NAME)
    print(f"{games} finished games, tables closed, then pruned:")
    print(f"{'':24}{'file KB':>10}{'records B/game':>16}{'results B/game':>16}")
    for label, (size, records, results) in (("before prune", before), ("after prune", after)):
        print(f"{label:24}{size / 1024:>10.0f}{records / games:>16.0f}{results / games:>16.0f}")
    print(f"prune took {took * 1000:.0f} ms; file per game: {before[0] / games / 1024:.1f} KB "
          f"before, {after[0] / games / 1024:.1f} KB after (with VACUUM)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
