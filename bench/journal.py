"""What the journal costs: per record, per move, and at start.

    python -m bench.journal [--records 2000] [--games 20] [--tables 1000] [--quick]

prints, side by side in one run:

1. one ``journal.record`` call with ``synchronous=FULL`` (what the server uses: a commit
   reaches the disk before the hub tells anyone) and ``NORMAL`` (WAL's cheaper mode: a
   power cut may lose the last commits, never consistency), median, p99 and max;
2. the latency of a player's move (``Session.pick`` / ``guess`` / ``reveal`` /
   ``lead_reveal`` / ``next_round`` through the real hub and deck) without a journal, with
   NORMAL, with FULL, and with FULL committed by the server's writer thread (the loop's
   own time: what every other player waits), and the journal's share of it; then, with
   the writer, how long the news of a move waits for its commit while the loop is idle,
   60% and 90% busy;
3. a restart: ``open_journal`` (with its ``quick_check``) plus ``Hub.replay`` of
   ``--tables`` open tables (half finished, half in the middle of a game) in a database that
   also holds as many closed tables.

Everything runs in a temporary directory on the same file system as ``--dir`` (default: the
system's temp dir; point it at the disk the server's ``data/`` lives on). No bots: the hub
is driven the way its sessions drive it (section 2 on an event loop, which the writer
thread reports to).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.cards import load_deck
from engine.hub import Hub
from engine.identity import Player
from engine.journal import DB_NAME, open_journal
from engine.rules import Phase
from engine.session import Session
from engine.tables import Table, TableOptions

PLAYERS = [Player(f"key:bench{i}", f"Agent {i}") for i in range(4)]
MODES = ("FULL", "NORMAL")


@dataclass
class Figures:
    """Timings in microseconds."""

    samples: list[float]

    @property
    def median(self) -> float:
        return statistics.median(self.samples)

    @property
    def p99(self) -> float:
        ordered = sorted(self.samples)
        return ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]

    @property
    def worst(self) -> float:
        return max(self.samples)


# --- driving a game ----------------------------------------------------------------------------


def session_at(table: Table, seat: int) -> Session:
    player_id = table.seats[seat].player_id
    return next(s for s in table.sessions if s.player.id == player_id)


def next_move(table: Table, turn: int) -> Callable[[], None]:
    """A legal move for the table's state (varied a little by ``turn``), not yet made."""
    state = table.state
    assert state is not None
    match state.phase:
        case Phase.PICKING:
            return lambda: session_at(table, state.lead).pick(len(state.picks), turn % 4)
        case Phase.GUESSING:
            return lambda: session_at(table, state.waiting_for()[0]).guess(1 + turn % 4)
        case Phase.REVEALING:
            seat = state.next_revealer
            assert seat is not None
            return lambda: session_at(table, seat).reveal("with the rope, obviously")
        case Phase.LEAD_REVEAL:
            return lambda: session_at(table, state.lead).lead_reveal("it was the ladder")
        case Phase.ROUND_OVER:
            return lambda: session_at(table, turn % state.n).next_round()
    raise AssertionError(f"no move in {state.phase}")


def seat_table(hub: Hub, players: Sequence[Player] = PLAYERS) -> Table:
    sessions = [hub.attach(p) for p in players]
    code = sessions[0].create_table(TableOptions(turn_seconds=0))
    for s in sessions[1:]:
        s.join(code)
    return hub.tables[code]


def play(table: Table, max_moves: int = 2000) -> list[float]:
    """Play one whole game at ``table``; the time of every move call, in µs."""
    times: list[float] = []
    session_at(table, 0).start()
    while table.status == "playing" and len(times) < max_moves:
        move = next_move(table, len(times))
        start = time.perf_counter_ns()
        move()
        times.append((time.perf_counter_ns() - start) / 1000)
    return times


# --- 1. one record ----------------------------------------------------------------------------

BLOCKS = 10  # the variants take turns, block by block, so that disk and CPU drift hit all


def record_cost(base: Path, count: int) -> dict[str, Figures]:
    """``count`` records per mode, the modes taking turns in blocks."""
    figures = {mode: Figures([]) for mode in MODES}
    with contextlib.ExitStack() as stack:
        journals = {}
        for mode in MODES:
            tmp = stack.enter_context(tempfile.TemporaryDirectory(dir=base))
            journals[mode] = stack.enter_context(open_journal(tmp, synchronous=mode))
            journals[mode].record("BNCH", 1, "create", {"seed": "s", "host": "h",
                                                        "options": {}})
        seq = 1
        for _ in range(BLOCKS):
            for _ in range(max(1, count // BLOCKS)):
                seq += 1
                payload = {"action": {"type": "Pick", "seat": seq % 4, "column": seq % 4,
                                      "row": 2}, "bot": False}
                for mode, journal in journals.items():
                    start = time.perf_counter_ns()
                    journal.record("BNCH", seq, "move", payload)
                    figures[mode].samples.append((time.perf_counter_ns() - start) / 1000)
    return figures


# --- 2. a move --------------------------------------------------------------------------------


WRITE_BEHIND = "FULL, write-behind"


def move_cost(base: Path, games: int) -> tuple[dict[str, Figures], str]:
    """The same games with no journal, NORMAL, FULL, and FULL committed by the server's
    writer thread (``Hub.write_behind``: the figure is the loop's own time per move), the
    variants taking turns game by game (every variant plays the same moves: same seed,
    same deck). Also says how many commits the writer made."""
    return asyncio.run(_move_cost(base, games))


async def _move_cost(base: Path, games: int) -> tuple[dict[str, Figures], str]:
    deck = load_deck()
    with contextlib.ExitStack() as stack:
        hubs = {"no journal": Hub(deck=deck, seed="bench", settle_ms=0)}
        for mode in (*MODES, WRITE_BEHIND):
            tmp = stack.enter_context(tempfile.TemporaryDirectory(dir=base))
            journal = stack.enter_context(open_journal(tmp, synchronous=mode.split(",")[0]))
            hubs[mode if mode == WRITE_BEHIND else f"journal {mode}"] = Hub(
                deck=deck, journal=journal, seed="bench", settle_ms=0)
        hubs[WRITE_BEHIND].write_behind()
        tables = {label: seat_table(hub) for label, hub in hubs.items()}
        figures = {label: Figures([]) for label in hubs}
        for _ in range(games):
            for label, table in tables.items():
                figures[label].samples += play(table)
                await asyncio.sleep(0.01)  # the writer's commits are heard
        writer = hubs[WRITE_BEHIND].journal.writer  # type: ignore[union-attr]
        writer.flush()
        note = (f"  (write-behind: {writer.queued} writes in {writer.commits} commits, moves "
                "made back to back; at a person's pace, about one commit a move)")
    return figures, note


def told_after(base: Path, seconds: float, load: float) -> Figures:
    """With the writer thread: from a record queued to the loop hearing it is committed
    (when the hub tells the table), in ms, while the loop is busy ``load`` of the time in
    2.5 ms chunks (a screen update each), as it is at 150-200 players."""
    return asyncio.run(_told_after(base, seconds, load))


async def _told_after(base: Path, seconds: float, load: float) -> Figures:
    figures = Figures([])
    queued_at: dict[int, float] = {}
    with tempfile.TemporaryDirectory(dir=base) as tmp, open_journal(tmp) as journal:

        def heard() -> None:
            now = time.perf_counter()
            for ticket in [t for t in queued_at if t <= writer.saved]:
                figures.samples.append((now - queued_at.pop(ticket)) * 1000)

        writer = journal.write_behind(asyncio.get_running_loop(), heard,
                                      lambda _codes, _error: None)
        journal.record("BNCH", 1, "create", {"seed": "s", "host": "h", "options": {}})
        seq, stop = 1, time.perf_counter() + seconds
        while time.perf_counter() < stop:
            seq += 1
            journal.record("BNCH", seq, "move", {"action": {"type": "Pick", "seat": 0,
                                                            "column": seq % 4, "row": 1}})
            queued_at[writer.queued] = time.perf_counter()
            for _ in range(8):  # a move every 20 ms or so
                _spin(0.0025 * load)
                await asyncio.sleep(0.0025 * (1 - load))
        writer.flush()
    return figures


def _spin(seconds: float) -> None:
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass


# --- 3. a restart -----------------------------------------------------------------------------


class Capture:
    """A journal that keeps records in memory: the template of one table's history."""

    def __init__(self) -> None:
        self.records: list[tuple[str, int, str, dict[str, Any]]] = []
        self.games: list[tuple[str, int, list[tuple[str, str]], dict[str, Any]]] = []

    def record(self, code: str, seq: int, kind: str, payload: dict[str, Any]) -> None:
        self.records.append((code, seq, kind, payload))

    def game_over(self, code: str, game_no: int, seats: list[tuple[str, str]],
                  result: dict[str, Any]) -> None:
        self.games.append((code, game_no, seats, result))


def template() -> Capture:
    """One table, four players, one whole game (8 rounds)."""
    capture = Capture()
    play(seat_table(Hub(deck=load_deck(), journal=capture, seed="tmpl", settle_ms=0)))
    return capture


def code_of(n: int) -> str:
    letters = "ABCDEFGHJKLMNPQRSTUVWXYZ"
    out = ""
    for _ in range(4):
        n, r = divmod(n, len(letters))
        out += letters[r]
    return out


def build(path: Path, tables: int, closed: int) -> tuple[int, int]:
    """``tables`` open tables (even: finished game, odd: stopped half way) and ``closed``
    finished, closed ones. Returns (records written, bytes of the database)."""
    tmpl = template()
    half = len(tmpl.records) // 2
    written = 0
    with open_journal(path, synchronous="OFF") as journal:
        for n in range(tables + closed):
            code = code_of(n)
            finished = n >= tables or n % 2 == 0
            for _, seq, kind, payload in tmpl.records[: None if finished else half]:
                journal.record(code, seq, kind, payload)
                written += 1
            if finished:
                for _, game_no, seats, result in tmpl.games:
                    journal.game_over(code, game_no, seats, result)
            if n >= tables:
                journal.close_table(code)
    return written, (path / DB_NAME).stat().st_size


@dataclass
class Restart:
    open_s: float
    quick_check_s: float
    read_s: float
    replay_s: float
    records: int
    tables: int


def restart(path: Path) -> Restart:
    deck = load_deck()
    start = time.perf_counter()
    journal = open_journal(path)
    opened = time.perf_counter()
    try:
        check = time.perf_counter()
        journal.connection.execute("PRAGMA quick_check").fetchall()
        checked = time.perf_counter()
        records = list(journal.records())
        read = time.perf_counter()
        hub = Hub(deck=deck, journal=journal, settle_ms=0)
        hub.replay(iter(records))
        replayed = time.perf_counter()
    finally:
        journal.close()
    return Restart(opened - start, checked - check, read - checked, replayed - read,
                   len(records), len(hub.tables))


# --- report -----------------------------------------------------------------------------------


def _row(label: str, figures: Figures) -> str:
    return (f"  {label:<22} median {figures.median:9.1f} µs   p99 {figures.p99:9.1f} µs"
            f"   max {figures.worst:9.1f} µs   (n={len(figures.samples)})")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.journal", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--records", type=int, default=2000, help="records per mode")
    parser.add_argument("--games", type=int, default=20, help="whole games per variant")
    parser.add_argument("--tables", type=int, default=1000, help="open tables at restart")
    parser.add_argument("--dir", type=Path, default=None,
                        help="where to put the temporary databases (default: system temp)")
    parser.add_argument("--quick", action="store_true", help="small sizes, for a smoke test")
    args = parser.parse_args(argv)
    if args.quick:
        args.records, args.games, args.tables = 200, 2, 50
    base = args.dir or Path(tempfile.gettempdir())
    print(f"journal bench: sqlite in {base}, python {sys.version.split()[0]}")

    print(f"\n1. one journal.record (a move's payload), {args.records} per mode, "
          "modes taking turns")
    records = record_cost(base, args.records)
    for mode in MODES:
        print(_row(f"synchronous={mode}", records[mode]))

    print(f"\n2. one move through Session (real hub and deck, 4 players), {args.games} "
          "whole games per variant, variants taking turns")
    moves, note = move_cost(base, args.games)
    bare = moves["no journal"].median
    for label, figures in moves.items():
        extra = ""
        if label != "no journal":
            share = (figures.median - bare) / figures.median
            extra = f"   journal's share of the median move {share:6.1%}"
        print(_row(label, figures) + extra)
    print(note)
    for load in (0.0, 0.6, 0.9):
        told = told_after(base, 1.0 if args.quick else 4.0, load)
        print(f"  write-behind, queued -> told, loop {load:4.0%} busy: median "
              f"{told.median * 1000:7.1f} µs   p99 {told.p99 * 1000:9.1f} µs   max "
              f"{told.worst * 1000:9.1f} µs   (n={len(told.samples)})")

    print(f"\n3. restart with {args.tables} open tables ({args.tables // 2} finished games, "
          f"the rest half way) and {args.tables} closed ones")
    with tempfile.TemporaryDirectory(dir=base) as tmp:
        start = time.perf_counter()
        written, size = build(Path(tmp), args.tables, args.tables)
        built = time.perf_counter() - start
        print(f"  built {written} records ({size / 1e6:.1f} MB) in {built:.1f} s")
        runs = [restart(Path(tmp)) for _ in range(3)]
        best = min(runs, key=lambda r: r.open_s + r.read_s + r.replay_s)
        total = best.open_s + best.read_s + best.replay_s
        print(f"  open_journal {best.open_s * 1000:8.1f} ms   (of which quick_check about "
              f"{best.quick_check_s * 1000:.1f} ms)")
        print(f"  read records {best.read_s * 1000:8.1f} ms   ({best.records} records of "
              f"{best.tables} tables)")
        print(f"  Hub.replay   {best.replay_s * 1000:8.1f} ms")
        print(f"  total        {total * 1000:8.1f} ms   (best of {len(runs)}; all: "
              + ", ".join(f"{(r.open_s + r.read_s + r.replay_s) * 1000:.0f}" for r in runs)
              + " ms)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
