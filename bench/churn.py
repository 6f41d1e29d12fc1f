"""Churn: players come and go, 1,000 times; does the server give the memory back?

This process starts the real server (``mission-impractical serve``, as ``bench.play``
does) and is every player: ten at a time, each connects over SSH, waits for the whole
lobby, and leaves; every fourth creates a table first and leaves it. After the last one
has gone the server runs a full collection (``server/gc_tuning.collect_when_empty``) and
logs what is still in memory. It prints the server's RSS before and after, and the apps
and screens still alive, each beside its target:

- no App or Screen alive after everyone has left;
- RSS back within 20 MB of where it was before the 1,000 came.

    python -m bench.churn [--cycles 1000] [--at-once 10,40] [--baseline CHECKOUT]

Ten at a time, the server stays below 20 players, where CPython collects as it always
does; forty at a time it runs its at-scale collector (``server/gc_tuning.py``), which
once let 1,000 visits grow RSS by over 500 MB.
"""

from __future__ import annotations

import argparse
import asyncio
import re
import time
from pathlib import Path
from typing import Any

import asyncssh

from bench.play import LOBBY, TABLE, Server, connect, home

LEFT = re.compile(r"everyone has left: .*?(\d+) apps? and (\d+) screens? still in memory")
TARGETS = {"RSS growth MB": 20.0, "apps alive": 0, "screens alive": 0}


async def visit(port: int, k: int, key: asyncssh.SSHKey) -> None:
    """Player ``k`` comes, looks at the lobby (every fourth creates a table), and goes."""
    player, _ = await connect(port, f"c{k}", key, None, LOBBY, home(k % 1000))
    try:
        if k % 4 == 0:
            player.send("c")
            for _ in range(200):
                await asyncio.sleep(0.02)
                if TABLE.search(player.text()):
                    break
    finally:
        assert player.conn is not None
        player.conn.close()
        await player.closed.wait()


def log_text(server: Server) -> str:
    return (Path(server.dir.name) / "server.log").read_text(errors="replace")


async def everyone_left(server: Server, seen: int, timeout: float = 15.0) -> tuple[int, int]:
    """Wait for the server's note that everyone has left (its ``seen``-th or later);
    returns (apps, screens) still in memory, or (-1, -1) if it never says (an older
    server)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = LEFT.findall(log_text(server))
        if len(found) > seen:
            apps, screens = found[-1]
            return int(apps), int(screens)
        await asyncio.sleep(0.2)
    return -1, -1


async def run(cycles: int, at_once: int, checkout: Path | None) -> dict[str, Any]:
    server = Server(at_once * 2 + 20, [], checkout)
    server.start()
    try:
        keys = [asyncssh.generate_private_key("ssh-ed25519") for _ in range(at_once)]
        for k in range(20):  # warm: modules loaded, caches filled
            await visit(server.port, k, keys[k % at_once])
        await everyone_left(server, 0)
        rss_before = server.rss_mb()
        started = time.monotonic()
        queue: asyncio.Queue[int] = asyncio.Queue()
        for k in range(cycles):
            queue.put_nowait(k)

        async def worker(slot: int) -> None:
            while not queue.empty():
                await visit(server.port, queue.get_nowait(), keys[slot])

        await asyncio.gather(*(worker(slot) for slot in range(at_once)))
        took = time.monotonic() - started
        apps, screens = await everyone_left(server, 1)
        if apps < 0:
            await asyncio.sleep(3)  # an older server says nothing: give it a moment
        rss_after = server.rss_mb()
        return {"cycles": cycles, "seconds": took, "RSS before MB": rss_before,
                "RSS after MB": rss_after, "RSS growth MB": rss_after - rss_before,
                "apps alive": apps, "screens alive": screens}
    finally:
        server.stop()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.churn", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cycles", type=int, default=1000)
    parser.add_argument("--at-once", default="10,40",
                        help="players at a time; a list runs each in turn")
    parser.add_argument("--baseline", type=Path, default=None,
                        help="a checkout of an older version, run the same way beside this one")
    options = parser.parse_args(argv)
    rows = []
    for at_once in (int(n) for n in options.at_once.split(",")):
        for checkout in ([options.baseline] if options.baseline else []) + [None]:
            row = asyncio.run(run(options.cycles, at_once, checkout))
            row["server"] = "baseline" if checkout else "this"
            row["at once"] = at_once
            rows.append(row)
    names = ["server", "at once", "cycles", "seconds", "RSS before MB", "RSS after MB",
             "RSS growth MB", "apps alive", "screens alive"]
    print("players connecting and leaving over SSH, the real server:")
    print("| " + " | ".join(names) + " |")
    print("|" + "---|" * len(names))
    for row in rows:
        cells = [f"{row[n]:.1f}" if isinstance(row[n], float) else str(row[n]) for n in names]
        print("| " + " | ".join(cells) + " |")
    for row in rows:
        if row["server"] != "this":
            continue
        for name, target in TARGETS.items():
            value = row[name]
            shown = f"{value:.1f}" if isinstance(value, float) else str(value)
            where = f"{row['at once']} at once: {name}"
            if value < 0:
                print(f"  {where}: not reported")
            elif value > target:
                print(f"  {where} {shown} MISSES its target of {target}")
            else:
                print(f"  {where} {shown} within its target of {target}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
