"""A game over SSH with two scripted people and two normal bots: the bots' plans and
Stop!s as the real server plays them.

    python -m bench.ssh_bots [--seconds 240]

Starts ``mission-impractical serve`` (fresh data dir), connects two people with real SSH
clients: Ann creates a table, Bob joins with its code, Ann adds two bots (``b`` twice) and
starts. The people do what their status row says at a person's pace (``bench.play.Seat``:
picks at random, hides a guess, types a plan), never shouting. After ``--seconds`` it
prints, from the server's journal, every plan a bot told and every Stop! with its bet.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sqlite3
import time
from pathlib import Path

import asyncssh

from bench.play import LOBBY, Figures, Seat, Server, connect, create_table


async def play(seconds: float) -> list[str]:
    server = Server(2, [])
    server.start()
    try:
        keys = [asyncssh.generate_private_key("ssh-ed25519") for _ in range(2)]
        ann, _ = await connect(server.port, "ann", keys[0], None, LOBBY, read_screen=True)
        code = await create_table(ann)
        bob, _ = await connect(server.port, "bob", keys[1], code, code.encode())
        await asyncio.sleep(1)
        for key in "bb":
            ann.send(key)
            await asyncio.sleep(0.5)
        ann.send("g")
        figures = Figures()
        table: list[Seat] = []
        for k, player in enumerate((ann, bob)):
            seat = Seat(player, table, figures, pace=2.0, rng=random.Random(k))
            seat.chats = False
            table.append(seat)
        until = time.monotonic() + seconds
        await asyncio.gather(*(seat.run(until) for seat in table))
        return journal_lines(Path(server.dir.name) / "mission.sqlite3")
    finally:
        server.stop()


def journal_lines(db: Path) -> list[str]:
    """Every plan a bot told and every Stop! (with the bet), from the journal."""
    lines = []
    with sqlite3.connect(db) as con:
        rows = con.execute("SELECT kind, payload FROM records ORDER BY table_id, seq").fetchall()
    for kind, raw in rows:
        payload = json.loads(raw)
        if kind != "move":
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
    args = parser.parse_args(argv)
    for line in asyncio.run(play(args.seconds)):
        print(line)


if __name__ == "__main__":
    main()
