"""Games over SSH with scripted people and normal bots: the bots' plans and Stop!s as the
real server plays them.

    python -m bench.ssh_bots [--seconds 240] [--tables 1] [--people hurried|words|random]

Starts ``mission-impractical serve`` (fresh data dir); at each table two people connect
with real SSH clients: Ann creates a table, Bob joins with its code, Ann adds two normal
bots (``b`` twice) and starts. The people do what their status row says at a person's pace
(``bench.play.Seat``; a lead weighs each column as ``bench.bot_stops``' people do, 7-14 s
over the first item and 3.5-8 s over the others), never shouting. With ``--people
hurried`` (the default) or ``words`` they play as a person would, reading their own
screen: a lead picks each item as a hurried person would (the item people see as serving
the mission most, :class:`engine.reading.FirstThoughtLead`) or by the words on the cards
(:mod:`engine.plain_reader`), a guesser hides the task the card words point to; with
``random`` they pick and guess at random.

After ``--seconds`` it stops the server, rebuilds every table from its journal (as a
restart does) and prints, for the rounds played to the end: how often the bots shouted
Stop! in the rounds where they guessed and how often their bets paid, beside ``simulate``
of the same table (:mod:`bench.bot_stops`: two people leading the same way, two normal
bots), the machine's load, and every plan a bot told and every Stop! (one table: all of
them; more: the first table's).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import signal
import sqlite3
import time
from pathlib import Path

import asyncssh

from bench.bot_stops import LEADS, PERSON_PACE, Tally, person_lead, simulated
from bench.play import LOBBY, Figures, Player, Seat, Server, connect, create_table, home
from engine.bots import LeadPicker
from engine.cards import load_deck
from engine.hub import Hub
from engine.plain_reader import PlainReader
from engine.records import open_records
from engine.replay import load_replay
from engine.rules import Phase

_ROW = re.compile(r"^ ([1-4]) (.*)$")
_SECRET = re.compile(r"Your secret task: #([1-4])")
PICKED = "●✓"  # the mark of an item picked, in play and in a replay


def read_board(text: str, tasks: tuple[str, ...], items: tuple[str, ...]
               ) -> tuple[list[str], list[list[str]], list[int | None]]:
    """From a seat's screen: the four tasks of the bar, the grid (``[column][row]``) and
    the row marked picked (● or ✓) in each column (None: not yet)."""
    lines = text.splitlines()
    start = next(k for k, line in enumerate(lines) if line.startswith("─Tasks"))
    middle = next(k for k, line in enumerate(lines) if line.startswith("─Items"))
    bar = []
    for line in lines[start + 1:middle]:
        found = _ROW.match(line)
        if found:
            bar.append(next(t for t in tasks if found.group(2).startswith(t)))
    grid: list[list[str]] = [[] for _ in range(4)]
    picked: list[int | None] = [None] * 4
    for line in lines[middle + 1:middle + 5]:
        found = _ROW.match(line)
        if not found:
            continue
        cells = _names_in(found.group(2), items)
        for column, (name, at) in enumerate(cells[:4]):
            if found.group(2)[max(at - 1, 0)] in PICKED:
                picked[column] = len(grid[column])
            grid[column].append(name)
    return bar, grid, picked


def _names_in(line: str, names: tuple[str, ...]) -> list[tuple[str, int]]:
    """The card names in ``line``, left to right (the longest where two overlap)."""
    found: list[tuple[str, int]] = []
    for name in sorted(names, key=len, reverse=True):
        for hit in re.finditer(rf"(?<![A-Za-z]){re.escape(name)}(?![A-Za-z])", line):
            if all(hit.end() <= at or hit.start() >= at + len(n) for n, at in found):
                found.append((name, hit.start()))
    return sorted(found, key=lambda pair: pair[1])


class WordsSeat(Seat):
    """A person who leads with ``lead`` and guesses by the words on the cards, as read off
    the screen."""

    reader: PlainReader
    lead: LeadPicker
    tasks: tuple[str, ...]
    items: tuple[str, ...]

    async def step(self) -> None:
        asked = self.player.status.partition(" · ")[2]
        if asked != self.done and asked.startswith(("Your turn: pick an item from column",
                                                    "Your turn: hide")):
            key = self._choice(asked)
            if key is not None:
                if asked.startswith("Your turn: pick"):
                    # a person weighs the column before picking (bench.bot_stops' pace:
                    # 7-14 s over the first item, 3.5-8 s over the others)
                    pace = PERSON_PACE["first_pick" if asked.endswith(" 1") else "pick"]
                    await asyncio.sleep(self.rng.uniform(*pace) - self.pace)
                    if self.player.status.partition(" · ")[2] != asked:
                        return  # the game moved on meanwhile (a Stop!): look again
                    self.figures.picks += self.measuring
                self.player.send(key)
                self.done = asked
                return
        await super().step()

    def _choice(self, asked: str) -> str | None:
        text = self.player.text()
        try:
            bar, grid, picked = read_board(text, self.tasks, self.items)
        except StopIteration:
            return None
        if len(bar) != 4 or any(len(column) != 4 for column in grid):
            return None
        if asked.startswith("Your turn: pick"):
            secret = _SECRET.search(text)
            column = int(asked.rsplit(" ", 1)[1]) - 1
            if secret is None or not 0 <= column < 4:
                return None
            chosen = [grid[c][r] for c, r in enumerate(picked[:column]) if r is not None]
            rows = self.lead.pick(bar, int(secret.group(1)), grid[column], chosen)
            return str(self.rng.choice(rows) + 1)
        items = [grid[c][r] for c, r in enumerate(picked) if r is not None]
        return str(self.rng.choice(self.reader.guess(bar, items))) if items else None


async def _shown(player: Player, text: str, seconds: float = 10.0) -> bool:
    """Whether ``text`` shows on ``player``'s screen within ``seconds``."""
    for _ in range(int(seconds / 0.05)):
        if text in player.text():
            return True
        await asyncio.sleep(0.05)
    return False


async def _table(server: Server, t: int, people: str, until: float, figures: Figures,
                 reader: PlainReader) -> None:
    keys = [asyncssh.generate_private_key("ssh-ed25519") for _ in range(2)]
    ann, _ = await connect(server.port, f"ann{t}", keys[0], None, LOBBY, home(2 * t),
                           read_screen=True)
    code = await create_table(ann)
    bob, _ = await connect(server.port, f"bob{t}", keys[1], code, code.encode(),
                           home(2 * t + 1), read_screen=True)
    # each key once the screen shows the last one took (keys sent blindly were lost while
    # a dozen tables connected at once, and those tables never started)
    await _shown(ann, f"bob{t}")
    for key, shown in (("b", "Bot Ada"), ("b", "Bot Bix"), ("g", "Round 1")):
        for _ in range(3):
            ann.send(key)
            if await _shown(ann, shown):
                break
        else:
            raise RuntimeError(f"table {t}: {shown!r} never showed on the host's screen")
    deck = load_deck()
    table: list[Seat] = []
    for k, player in enumerate((ann, bob)):
        kind = WordsSeat if people in LEADS else Seat
        seat = kind(player, table, figures, pace=2.0, rng=random.Random(f"{t}/{k}"))
        if isinstance(seat, WordsSeat):
            seat.reader, seat.tasks, seat.items = reader, deck.task_names, deck.item_names
            seat.lead = person_lead(people, reader)
        seat.chats = False
        table.append(seat)
    await asyncio.gather(*(seat.run(until) for seat in table))


async def play(seconds: float, tables: int = 1, people: str = "hurried") -> list[str]:
    server = Server(2 * tables, [])
    server.start()
    load = [os.getloadavg()[0]]
    try:
        figures = Figures()
        reader = PlainReader()
        until = time.monotonic() + seconds
        runs = [asyncio.create_task(_table(server, t, people, until, figures, reader))
                for t in range(tables)]
        while not all(run.done() for run in runs):
            await asyncio.sleep(5)
            load.append(os.getloadavg()[0])
        for run in runs:
            run.result()
        if server.proc is not None:  # stopped, its data kept until read
            server.proc.send_signal(signal.SIGTERM)
            server.proc.wait(10)
        data = Path(server.dir.name)
        tally, played = tally_tables(data)
        rounds = sum(count for count, _ in played)
        lines = [f"{tables} table(s) of 2 people ({people}) + 2 normal bots over SSH, "
                 f"{seconds:g} s; load average {min(load):.1f}-{max(load):.1f} "
                 f"on {os.cpu_count()} cores; {rounds} rounds played to the end",
                 "rounds per table (and where it stood at the end): "
                 + ", ".join(f"{count} ({where})" for count, where in played),
                 tally.line("over SSH"),
                 simulated(100, "ssh", lead=people if people in LEADS else "words")
                 .line("simulate")]
        return lines + journal_lines(data / "mission.sqlite3", first_table_only=tables > 1)
    finally:
        server.stop()


def tally_tables(data: Path) -> tuple[Tally, list[tuple[int, str]]]:
    """Every game the bench played: the finished ones rebuilt from the journal as a replay
    does, the others as a restart does. The bots' Stop!s in the rounds played to the end,
    and per table the rounds played and where it stood. (A table whose game was over
    holds no game after a restart: counted from the journal's replay, a 600-s run's
    tables had played 34 rounds by the restart's count alone.)"""
    hub = Hub.open(data, deck=load_deck())
    tally, tables = Tally(), []
    try:
        records = open_records(data)
        try:
            for game in records.finished_games(None, limit=10_000):
                replay = load_replay(records.connection, game)
                results = tuple(r.result for r in replay.rounds if r.result is not None)
                tally.add(results, {s for s, level in enumerate(replay.levels)
                                    if level != "human"})
                tables.append((len(results), "game over"))
        finally:
            records.close()
        for table in hub.tables.values():
            state = table.state
            if state is None or state.phase is Phase.GAME_OVER:
                continue  # not begun, or counted from the journal above
            bots = {s for s, seat in enumerate(table.seats) if seat.is_bot}
            tally.add(state.history, bots)
            tables.append((len(state.history), f"{state.phase.value}, round {state.round}"))
    finally:
        hub.close()
    return tally, tables


def journal_lines(db: Path, first_table_only: bool = False) -> list[str]:
    """Every plan a bot told and every Stop! (with the bet), from the journal."""
    lines = []
    with sqlite3.connect(db) as con:
        rows = con.execute("SELECT table_id, kind, payload FROM records "
                           "ORDER BY table_id, seq").fetchall()
    first = rows[0][0] if rows else None
    for table_id, kind, raw in rows:
        payload = json.loads(raw)
        if kind != "move" or (first_table_only and table_id != first):
            continue
        action = payload.get("action", {})
        if action.get("type") in ("Reveal", "LeadReveal") and payload.get("bot"):
            lines.append(f"seat {action['seat']} (bot): {action.get('plan', '')}")
        if action.get("type") == "Shout":
            lines.append(f"seat {action['seat']} shouts Stop!"
                         + (" (bot)" if payload.get("bot") else ""))
    return lines


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.ssh_bots")
    parser.add_argument("--seconds", type=float, default=240)
    parser.add_argument("--tables", type=int, default=1)
    parser.add_argument("--people", choices=(*LEADS, "random"), default="hurried")
    args = parser.parse_args(argv)
    for line in asyncio.run(play(args.seconds, args.tables, args.people)):
        print(line)


if __name__ == "__main__":
    main()
