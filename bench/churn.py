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
    python -m bench.churn --guests 320 [--rounds 3] [--recycle-mb 0,96] [--baseline CHECKOUT]

``--guests N`` is a guest flood instead: N keyless guests from 40 addresses in 8
networks ask at once for the server's 300 places (the last 30 are kept for known keys,
so some are refused), wait for the lobby and all leave, ``--rounds`` times; RSS before,
at the peak of each round and once everyone has left; then, when the server starts
itself again in place once empty (``--recycle-mb``, ``server/recycle.py``), its RSS after.

Each run also names the longest garbage collection the server ran with players on (and
how many took over 100 ms: every player waits that long), and the longest the empty
server ran (nobody waits for it).

Ten at a time, the server stays below 20 players, where CPython collects as it always
does; forty at a time it runs its at-scale collector (``server/gc_tuning.py``), which
once let 1,000 visits grow RSS by over 500 MB.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import time
from pathlib import Path
from typing import Any

import asyncssh

from bench.play import LOBBY, TABLE, Player, Server, connect, home

PASSWORD = "friends"
LEFT = re.compile(r"everyone has left: .*?(\d+) apps? and (\d+) screens? still in memory")
LEFT_RSS = re.compile(r"everyone has left: .*?still in memory; RSS ([\d.]+) MB")
TARGETS = {"RSS growth MB": 20.0, "apps alive": 0, "screens alive": 0,
           "longest gc ms": 100.0}


async def visit(port: int, k: int, key: asyncssh.SSHKey) -> None:
    """Player ``k`` comes, looks at the lobby (every fourth creates a table), and goes."""
    player, _ = await connect(port, f"c{k}", key, None, LOBBY, home(k % 1000),
                              password=os.environ.get("MI_PASSWORD"))
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


def notes(server: Server) -> int:
    """How many times the server has said that everyone has left."""
    return len(LEFT.findall(log_text(server)))


async def everyone_left(server: Server, seen: int, timeout: float = 15.0) -> tuple[int, int]:
    """Wait for the server's note that everyone has left, one after the ``seen`` it had
    written (:func:`notes`) when they began to leave; returns (apps, screens) still in
    memory, or (-1, -1) if it never says (an older server)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = LEFT.findall(log_text(server))
        if len(found) > seen:
            apps, screens = found[-1]
            return int(apps), int(screens)
        await asyncio.sleep(0.2)
    return -1, -1


STARTED = re.compile(r"listening on ")


async def started_again(server: Server, starts: int, timeout: float = 10.0) -> bool:
    """Has the server, once empty, started itself again in place (``server/recycle.py``)?
    Waits for its next banner while it says it is doing so; ``starts``: the banners it
    had printed before."""
    if "starting again in place" not in log_text(server).split("everyone has left")[-1]:
        return False
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if len(STARTED.findall(log_text(server))) > starts:
            await asyncio.sleep(0.5)  # settled
            return True
        await asyncio.sleep(0.1)
    return False


def gc_figures(server: Server, since: float) -> dict[str, Any]:
    pauses = server.gc_pauses(since)
    on = [p for p in pauses if p.with_players_on]
    return {"longest gc ms": max((p.ms for p in on), default=0.0),
            "gc over 100 ms": sum(p.ms > 100 for p in on),
            "empty server's gc ms": max((p.ms for p in pauses if not p.with_players_on),
                                        default=0.0)}


async def warm(server: Server, key: asyncssh.SSHKey) -> float:
    """Twenty visits (modules loaded, caches filled), then the server's RSS once empty."""
    for k in range(19):
        await visit(server.port, k, key)
    seen = notes(server)
    await visit(server.port, 19, key)
    await everyone_left(server, seen)
    return server.rss_mb()


def guest_address(k: int) -> str:
    """Guest ``k`` of a flood: 40 addresses, 5 in each of 8 networks (/24), 8 guests each."""
    address = k % 40
    return f"127.3.{address % 8}.{address // 8 + 1}"


async def guest(port: int, k: int, into: list[Player], tries: int = 50) -> None:
    """A guest comes and waits for the lobby, trying again while the server drops it
    before login (too many logging in), and no more once a session was refused (full)."""
    for _ in range(tries):
        try:
            player, _ = await connect(port, f"g{k}", None, None, LOBBY, guest_address(k),
                                      password=PASSWORD)
        except (OSError, asyncssh.Error, TimeoutError) as error:
            if type(error) is ConnectionError:
                return  # bench.play's: the session was refused (full)
            await asyncio.sleep(0.2)  # dropped before login: again, as a flood does
            continue
        into.append(player)
        return


async def run_guests(guests: int, rounds: int, checkout: Path | None,
                     recycle_mb: str = "96") -> list[dict[str, Any]]:
    os.environ["MI_PASSWORD"] = PASSWORD  # keyless players are guests who know it
    server = Server(guests, ["--recycle-mb", recycle_mb], checkout, max_sessions=300)
    server.start()
    rows = []
    try:
        rss_start = await warm(server, asyncssh.generate_private_key("ssh-ed25519"))
        for round_no in range(1, rounds + 1):
            started = time.monotonic()
            players: list[Player] = []
            await asyncio.gather(*(guest(server.port, k, players) for k in range(guests)))
            await asyncio.sleep(1.0)
            rss_peak = server.rss_mb()
            seen = notes(server)
            starts = len(STARTED.findall(log_text(server)))
            for player in players:
                assert player.conn is not None
                player.conn.close()
            for player in players:
                await player.closed.wait()
            apps, screens = await everyone_left(server, seen, 60)
            said = LEFT_RSS.findall(log_text(server))  # as the server said (it may be
            rss_left = float(said[-1]) if said else server.rss_mb()  # starting again now)
            again = await started_again(server, starts)
            rows.append({"round": round_no, "guests in": len(players),
                         "seconds": time.monotonic() - started, "RSS before MB": rss_start,
                         "RSS peak MB": rss_peak, "RSS left MB": rss_left,
                         "started again": "yes" if again else "no",
                         "RSS after MB": server.rss_mb(),
                         "RSS growth MB": server.rss_mb() - rss_start, "apps alive": apps,
                         "screens alive": screens, **gc_figures(server, started)})
        return rows
    finally:
        server.stop()


async def run(cycles: int, at_once: int, checkout: Path | None) -> dict[str, Any]:
    server = Server(at_once * 2 + 20, [], checkout)
    server.start()
    try:
        keys = [asyncssh.generate_private_key("ssh-ed25519") for _ in range(at_once)]
        rss_before = await warm(server, keys[0])
        started = time.monotonic()
        queue: asyncio.Queue[int] = asyncio.Queue()
        for k in range(cycles):
            queue.put_nowait(k)

        async def worker(slot: int) -> None:
            while not queue.empty():
                await visit(server.port, queue.get_nowait(), keys[slot])

        seen = notes(server)  # the warm-up's (one per pause between its visits)
        await asyncio.gather(*(worker(slot) for slot in range(at_once)))
        took = time.monotonic() - started
        apps, screens = await everyone_left(server, seen)
        if apps < 0:
            await asyncio.sleep(3)  # an older server says nothing: give it a moment
        rss_after = server.rss_mb()
        return {"cycles": cycles, "seconds": took, "RSS before MB": rss_before,
                "RSS after MB": rss_after, "RSS growth MB": rss_after - rss_before,
                "apps alive": apps, "screens alive": screens,
                **gc_figures(server, started)}
    finally:
        server.stop()


def table(names: list[str], rows: list[dict[str, Any]]) -> None:
    print("| " + " | ".join(names) + " |")
    print("|" + "---|" * len(names))
    for row in rows:
        cells = [f"{row[n]:.1f}" if isinstance(row[n], float) else str(row[n]) for n in names]
        print("| " + " | ".join(cells) + " |")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.churn", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cycles", type=int, default=1000)
    parser.add_argument("--at-once", default="10,40",
                        help="players at a time; a list runs each in turn")
    parser.add_argument("--guests", type=int, default=0,
                        help="a guest flood of this many instead (see above)")
    parser.add_argument("--rounds", type=int, default=3, help="guest floods, one after another")
    parser.add_argument("--recycle-mb", default="96",
                        help="the server's --recycle-mb for the guest floods; a list (0,96)"
                             " runs each in turn")
    parser.add_argument("--baseline", type=Path, default=None,
                        help="a checkout of an older version, run the same way beside this one")
    options = parser.parse_args(argv)
    checkouts = ([options.baseline] if options.baseline else []) + [None]
    rows = []
    if options.guests:
        runs = [(checkout, "-") for checkout in checkouts if checkout] + \
            [(None, mb) for mb in options.recycle_mb.split(",")]
        for checkout, recycle_mb in runs:
            for row in asyncio.run(run_guests(options.guests, options.rounds, checkout,
                                              recycle_mb)):
                row["server"] = "baseline" if checkout else "this"
                row["recycle MB"] = recycle_mb
                row["at once"] = f"{options.guests} guests, round {row['round']}"
                rows.append(row)
        print(f"guest floods over SSH ({options.guests} asking for 300 places), the real server:")
        table(["server", "recycle MB", "at once", "guests in", "seconds", "RSS before MB",
               "RSS peak MB", "RSS left MB", "started again", "RSS after MB", "apps alive",
               "screens alive", "longest gc ms", "gc over 100 ms", "empty server's gc ms"],
              rows)
    else:
        for at_once in (int(n) for n in options.at_once.split(",")):
            for checkout in checkouts:
                row = asyncio.run(run(options.cycles, at_once, checkout))
                row["server"] = "baseline" if checkout else "this"
                row["at once"] = at_once
                rows.append(row)
        print("players connecting and leaving over SSH, the real server:")
        table(["server", "at once", "cycles", "seconds", "RSS before MB", "RSS after MB",
               "RSS growth MB", "apps alive", "screens alive", "longest gc ms",
               "gc over 100 ms", "empty server's gc ms"], rows)
    for row in rows:
        if row["server"] != "this":
            continue
        for name, target in TARGETS.items():
            value = row[name]
            shown = f"{value:.1f}" if isinstance(value, float) else str(value)
            where = f"{row['at once']} at once: {name}"
            if value < 0 and name != "RSS growth MB":  # (RSS may well shrink)
                print(f"  {where}: not reported")
            elif value > target:
                print(f"  {where} {shown} MISSES its target of {target}")
            else:
                print(f"  {where} {shown} within its target of {target}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
