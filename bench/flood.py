"""Floods against a playing table: how long a key takes to reach another player's screen
while one address abuses the server, with every limit lifted ("before") and with the
default limits ("after").

The server (the real one, running bench.sessions' game-shaped app) runs in a subprocess
with a shared password; two friends sit at one table from 127.0.0.2 and one presses space
every 100 ms, bumping the table's counter; the figure is the time until the other friend's
screen shows the new count. The abuser connects from 127.0.0.1:

- idle logins: 400 connections that log in and never open a game;
- session flood: 80 games opened at once;
- resize storm: one game sending window changes as fast as it can (also 240x80 vs 500x200);
- password guessing: 8 clients guessing the password in a loop;
- junk typing: 2 MB of random bytes typed into one game;
- churn: 1,000 players (from 250 addresses, 8 at a time) connect, see their first screen
  and leave; the RSS before and after shows whether memory comes back.

"Before" lifts the per-address caps, the login delays and blocks, the admission line, the
window-change pacing and cap, and the log-line limit; the input-order and memory fixes stay
in both. Each scenario gets a fresh server. It prints p50, p95 and max of the latency per
scenario and mode, the server's RSS after it, and how many log lines it wrote.

    python -m bench.flood [--seconds 4] [--scenario NAME ...]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path

import asyncssh

ROOT = Path(__file__).resolve().parents[1]
PASSWORD = "friends"
FRIENDS = "127.0.0.2"
CODE = "FLOD"


# -- the server (in a subprocess) -------------------------------------------------------------


def _limits(mode: str) -> tuple[object, object]:
    from server.limits import ConnectionLimits, SessionLimits

    if mode == "after":
        return SessionLimits(), ConnectionLimits()
    lifted = ConnectionLimits.for_load_tests()
    line = 2 if mode == "line" else 100_000  # "line": only the admission line is kept
    lifted = ConnectionLimits(**{**vars(lifted), "apps_starting_at_once": line,
                                 "auth_delay_s": 1e-6, "auth_delay_max_s": 1e-6,
                                 "auth_failures_to_block": 10**9, "session_wait_s": 10**6})
    return SessionLimits(resize_interval_s=0.02, max_columns=500, max_rows=200,
                         max_resizes_per_s=10**9), lifted


async def _serve(mode: str, host_key: Path) -> None:
    import logging

    from bench.sessions import bench_factory
    from server.log_limits import limit_repeats

    logging.basicConfig(level=logging.INFO, format="%(message)s")
    logging.getLogger("asyncssh").setLevel(logging.WARNING)
    if mode == "after":
        limit_repeats()
    from server.auth import AccessPolicy
    from server.ssh_server import ServerConfig, start_server

    session_limits, connection_limits = _limits(mode)
    config = ServerConfig(host="127.0.0.1", port=0, host_key_path=host_key, max_sessions=2000,
                          access=AccessPolicy(password=PASSWORD),
                          limits=session_limits,  # type: ignore[arg-type]
                          connection_limits=connection_limits)  # type: ignore[arg-type]
    server = await start_server(bench_factory, config)
    print(server.port, flush=True)
    await asyncio.Event().wait()


# -- the players and the abuser --------------------------------------------------------------


async def _player(port: int, name: str, source: str = FRIENDS, code: str = CODE,
                  **kwargs: object) -> object:
    from tests.ssh.client import TermClient

    return await TermClient.connect(port, username=name, password=PASSWORD, command=code,
                                    source=source, **kwargs)  # type: ignore[arg-type]


async def _login(port: int, password: str = PASSWORD) -> asyncssh.SSHClientConnection:
    return await asyncssh.connect("127.0.0.1", port, username="mallory", password=password,
                                  known_hosts=None, agent_path=None, config=None,
                                  client_keys=None)


async def idle_logins(port: int, stop: asyncio.Event) -> None:
    conns = await asyncio.gather(*(_login(port) for _ in range(400)), return_exceptions=True)
    await stop.wait()
    for conn in conns:
        if isinstance(conn, asyncssh.SSHClientConnection):
            conn.abort()


async def session_flood(port: int, stop: asyncio.Event) -> None:
    games = await asyncio.gather(
        *(_player(port, f"flood{n}", source="127.0.0.1") for n in range(80)),
        return_exceptions=True)
    await stop.wait()
    for game in games:
        if not isinstance(game, BaseException):
            game.abort()  # type: ignore[attr-defined]


async def resize_storm(port: int, stop: asyncio.Event) -> None:
    game = await _player(port, "storm", source="127.0.0.1", size=(500, 200))
    n = 0
    while not stop.is_set() and not game.closed.is_set():  # type: ignore[attr-defined]
        for _ in range(50):
            n += 1
            game.chan.change_terminal_size(400 + n % 100, 150 + n % 50)  # type: ignore[attr-defined]
        await asyncio.sleep(0.001)
    game.abort()  # type: ignore[attr-defined]


async def password_guessing(port: int, stop: asyncio.Event) -> None:
    async def guesser() -> None:
        while not stop.is_set():
            try:
                conn = await _login(port, password=f"guess{random.random()}")
                conn.abort()
            except (OSError, asyncssh.Error):
                await asyncio.sleep(0)

    await asyncio.gather(*(guesser() for _ in range(8)))


async def junk_typing(port: int, stop: asyncio.Event) -> None:
    game = await _player(port, "junk", source="127.0.0.1", code="JUNK")  # its own table
    game.draw = False  # type: ignore[attr-defined]
    rng = random.Random(1)
    junk = bytes(b if b not in (3, 17) else 120 for b in rng.randbytes(2 * 1024 * 1024))
    game.send(junk)  # type: ignore[attr-defined]
    await stop.wait()
    game.abort()  # type: ignore[attr-defined]


CHURN = 1000


async def churn(port: int, stop: asyncio.Event) -> None:
    from tests.ssh.client import TermClient

    slots = asyncio.Semaphore(8)

    async def one(n: int) -> None:
        async with slots:
            source = f"127.0.1.{n % 250 + 1}"
            try:
                player = await TermClient.connect(port, username=f"c{n}", password=PASSWORD,
                                                  command="CHRN",
                                                  source=source)
                await player.wait_for("count:", timeout=30)
                player.close()
                await player.wait_closed(timeout=30)
            except (OSError, asyncssh.Error, AssertionError, TimeoutError):
                pass

    await asyncio.gather(*(one(n) for n in range(CHURN)))


SCENARIOS: dict[str, Callable[[int, asyncio.Event], Awaitable[None]]] = {
    "none": lambda _port, stop: stop.wait(),  # type: ignore[dict-item]
    "idle logins": idle_logins,
    "session flood": session_flood,
    "resize storm": resize_storm,
    "password guessing": password_guessing,
    "junk typing": junk_typing,
    "churn": churn,
}


async def _latencies(alice: object, bob: object, seconds: float) -> list[float]:
    samples: list[float] = []
    count = int(bob.text().split("count: ")[1].split()[0])  # type: ignore[attr-defined]
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        count += 1
        alice.send(" ")  # type: ignore[attr-defined]
        try:
            samples.append(await bob.wait_for(f"count: {count} ", timeout=15))  # type: ignore[attr-defined]
        except AssertionError:
            samples.append(15.0)
            count = int(bob.text().split("count: ")[1].split()[0])  # type: ignore[attr-defined]
        await asyncio.sleep(0.1)
    return samples


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


async def _run(mode: str, name: str, seconds: float, key: Path) -> None:
    log = key.parent / f"{mode}.log"
    with log.open("wb") as err:
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "bench.flood", "serve", mode, str(key), cwd=ROOT,
            stdout=asyncio.subprocess.PIPE, stderr=err,
            env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert process.stdout is not None
    port = int((await process.stdout.readline()).decode())
    try:
        alice = await _player(port, "alice")
        bob = await _player(port, "bob")
        await bob.wait_for("count: 0 ", timeout=30)  # type: ignore[attr-defined]
        lines_before = len(log.read_bytes().splitlines())
        rss_before = _rss_mb(process.pid)
        stop = asyncio.Event()
        flood = asyncio.create_task(SCENARIOS[name](port, stop))
        await asyncio.sleep(0.5)  # let the flood get going
        samples = await _latencies(alice, bob, seconds)
        stop.set()
        try:
            await asyncio.wait_for(flood, 600 if name == "churn" else 20)
        except (TimeoutError, OSError, asyncssh.Error):
            flood.cancel()
        ms = sorted(s * 1000 for s in samples)
        p95 = ms[min(len(ms) - 1, int(len(ms) * 0.95))]
        lines = len(log.read_bytes().splitlines()) - lines_before
        print(f"{mode:6} {name:18} key to other seat: p50 {statistics.median(ms):6.0f} ms"
              f"  p95 {p95:6.0f} ms  max {ms[-1]:6.0f} ms  ({len(ms):2} keys)"
              f"  server RSS {rss_before:4.0f}->{_rss_mb(process.pid):4.0f} MB"
              f"  log lines {lines:5}",
              flush=True)
    finally:
        process.terminate()
        await process.wait()


async def _main(options: argparse.Namespace) -> None:
    from server.host_keys import load_or_create_host_key

    with tempfile.TemporaryDirectory() as tmp:
        key = Path(tmp) / "host_key"
        load_or_create_host_key(key)
        for name in options.scenario or list(SCENARIOS):
            for mode in options.mode or ("before", "after"):
                await _run(mode, name, options.seconds, key)


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["serve"]:
        asyncio.run(_serve(args[1], Path(args[2])))
        return 0
    parser = argparse.ArgumentParser(prog="python -m bench.flood", description=__doc__)
    parser.add_argument("--seconds", type=float, default=4.0, help="measuring time per flood")
    parser.add_argument("--scenario", action="append", choices=list(SCENARIOS))
    parser.add_argument("--mode", action="append", choices=["before", "line", "after"],
                        help="before (limits lifted), line (lifted but for the admission"
                             " line), after (the defaults); default: before and after")
    asyncio.run(_main(parser.parse_args(args)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
