"""Sessions: every player's app in one server process, against one process per player.

Both servers run the same small Textual app (a table code, a shared counter, a few panels)
behind SSH on 127.0.0.1, each in its own subprocess; this process is the players:

- in-process: this project's server (``server.ssh_server``), every app on one asyncio loop;
- baseline: an asyncssh server that starts ``python -m bench.sessions app`` on a PTY for
  every connection (the usual way to put a terminal program behind SSH).

It measures memory per session (the growth of the server's PSS, and of its children's for
the baseline, divided by the sessions added), time from connect to the first full screen,
a key press echoed on the presser's own screen, and, in-process only, a key press seen by
another player at the same table with all the other sessions connected and idle.

    python -m bench.sessions [--sessions 200] [--baseline-sessions 30] [--samples 50]
"""

from __future__ import annotations

import argparse
import asyncio
import fcntl
import os
import pty
import signal
import statistics
import struct
import sys
import tempfile
import termios
import time
import weakref
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import asyncssh
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import Label, Static

from bench.play import cpu_seconds_of

ROOT = Path(__file__).resolve().parents[1]
SCREEN = (100, 30)
BOTTOM = "END OF SCREEN"  # drawn on the last row: its arrival means the full screen is there
SEAT = 4  # players per table: idle players sit at other tables
PANEL_TEXT = "\n".join(f"item {i}: a thing to pick, with a description" for i in range(8))

# -- the app both servers run -----------------------------------------------------------


@dataclass
class Table:
    """A counter shared by the apps at one table (in one process)."""

    count: int = 0
    apps: weakref.WeakSet[BenchApp] = field(default_factory=weakref.WeakSet)

    def bump(self) -> None:
        self.count += 1
        for app in list(self.apps):
            app.post_message(BenchApp.Changed())


TABLES: dict[str, Table] = {}


class BenchApp(App[None]):
    """A screen shaped like a game: header, two panels, a counter, a footer row."""

    CSS = """
    #count { width: 30; }
    #panels { height: 12; }
    .panel { width: 1fr; border: round $accent; }
    #bottom { dock: bottom; }
    """
    BINDINGS = [Binding("space", "bump", "Bump the table's counter")]  # noqa: RUF012

    class Changed(Message):
        """The table's counter changed."""

    def __init__(self, code: str) -> None:
        super().__init__()
        self.table = TABLES.setdefault(code, Table())
        self.code = code

    def compose(self) -> ComposeResult:
        yield Label(f"BENCH table {self.code}")
        yield Label(f"count: {self.table.count}", id="count")
        with Horizontal(id="panels"):
            yield Static(PANEL_TEXT, classes="panel")
            yield Static(PANEL_TEXT, classes="panel")
        yield Label(BOTTOM, id="bottom")

    def on_mount(self) -> None:
        self.table.apps.add(self)

    def action_bump(self) -> None:
        self.table.bump()

    def on_bench_app_changed(self, _message: Changed) -> None:
        self.query_one("#count", Label).update(f"count: {self.table.count}", layout=False)


def bench_factory(context: Any) -> BenchApp:
    """The in-process server's app factory."""
    return BenchApp(context.join_code or "SOLO")


# -- the servers (each runs in its own subprocess) ---------------------------------------


async def _serve_in_process(host_key: Path, sessions: int) -> asyncssh.SSHAcceptor | Any:
    from server.limits import ConnectionLimits
    from server.ssh_server import ServerConfig, start_server

    config = ServerConfig(host="127.0.0.1", port=0, host_key_path=host_key,
                          max_sessions=sessions + 10,
                          connection_limits=ConnectionLimits.for_load_tests())
    return await start_server(bench_factory, config)


class _PtySession(asyncssh.SSHServerSession[bytes]):
    """Baseline: one ``python -m bench.sessions app`` on a PTY per session."""

    live: ClassVar[set[_PtySession]] = set()

    def __init__(self) -> None:
        self._chan: asyncssh.SSHServerChannel[bytes] | None = None
        self._size = SCREEN
        self._code = "SOLO"
        self._master = -1
        self._process: asyncio.subprocess.Process | None = None

    def connection_made(self, chan: asyncssh.SSHServerChannel[bytes]) -> None:
        self._chan = chan

    def pty_requested(self, term_type: str, term_size: Any, term_modes: Any) -> bool:
        self._size = (term_size[0], term_size[1])
        return True

    def shell_requested(self) -> bool:
        return True

    def exec_requested(self, command: str) -> bool:
        self._code = command.strip()[:4] or "SOLO"
        return True

    def session_started(self) -> None:
        asyncio.get_running_loop().create_task(self._spawn())

    async def _spawn(self) -> None:
        master, slave = pty.openpty()
        columns, rows = self._size
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))
        env = {**os.environ, "TERM": "xterm-256color", "COLORTERM": "truecolor"}
        self._process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "bench.sessions", "app", self._code,
            stdin=slave, stdout=slave, stderr=slave, start_new_session=True, env=env, cwd=ROOT,
        )
        _PtySession.live.add(self)
        os.close(slave)
        os.set_blocking(master, False)
        self._master = master
        asyncio.get_running_loop().add_reader(master, self._from_pty)

    def _from_pty(self) -> None:
        try:
            data = os.read(self._master, 65536)
        except OSError:
            data = b""
        if data and self._chan is not None:
            self._chan.write(data)
        elif not data:
            asyncio.get_running_loop().remove_reader(self._master)

    def data_received(self, data: bytes, datatype: asyncssh.DataType) -> None:
        if self._master >= 0:
            os.write(self._master, data)

    def connection_lost(self, exc: Exception | None) -> None:
        if self._master >= 0:
            asyncio.get_running_loop().remove_reader(self._master)
            os.close(self._master)
            self._master = -1
        self.kill()

    def kill(self) -> None:
        """End the app's process (its PTY is not its controlling terminal: no SIGHUP)."""
        _PtySession.live.discard(self)
        if self._process is not None and self._process.returncode is None:
            self._process.kill()


class _PtyServer(asyncssh.SSHServer):
    def begin_auth(self, username: str) -> bool:
        return False

    def session_requested(self) -> _PtySession:
        return _PtySession()


async def _serve_process_per_session(host_key: Path) -> asyncssh.SSHAcceptor:
    from server.host_keys import load_or_create_host_key

    return await asyncssh.listen(
        "127.0.0.1", 0, server_factory=_PtyServer,
        server_host_keys=[load_or_create_host_key(host_key)], encoding=None,
        line_editor=False, config=None,
    )


async def _serve(kind: str, host_key: Path, sessions: int) -> None:
    """Run one server until SIGTERM; its port goes to stdout."""
    if kind == "in-process":
        server = await _serve_in_process(host_key, sessions)
        port = server.port
    else:
        server = await _serve_process_per_session(host_key)
        port = server.get_port()
    print(f"PORT {port}", flush=True)
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    await stop.wait()
    if kind == "in-process":
        await server.close()
    else:
        server.close()
        for session in list(_PtySession.live):
            session.kill()


# -- the players ---------------------------------------------------------------------------


class _Screen(asyncssh.SSHClientSession[bytes]):
    def __init__(self, player: Player) -> None:
        self._player = player

    def data_received(self, data: bytes, datatype: asyncssh.DataType) -> None:
        self._player.raw += data
        self._player.arrived.set()


class Player:
    """One SSH client with a PTY; keeps the bytes it was sent (no terminal emulation)."""

    def __init__(self) -> None:
        self.raw = bytearray()
        self.arrived = asyncio.Event()
        self.conn: asyncssh.SSHClientConnection | None = None
        self.chan: asyncssh.SSHClientChannel[bytes] | None = None

    async def join(self, port: int, code: str, name: str, key: asyncssh.SSHKey) -> float:
        """Connect and wait for the full first screen; returns the seconds it took."""
        start = time.perf_counter()
        self.conn = await asyncssh.connect(
            "127.0.0.1", port, username=name, known_hosts=None, client_keys=[key],
            agent_path=None, config=None,
        )
        self.chan, _ = await self.conn.create_session(
            lambda: _Screen(self), command=code, term_type="xterm-256color",
            term_size=SCREEN, encoding=None,
        )
        await self.wait_for(BOTTOM.encode(), 0, timeout=60)
        return time.perf_counter() - start

    async def wait_for(self, text: bytes, since: int, timeout: float = 10.0) -> None:
        """Wait until ``text`` has arrived after byte ``since``."""
        deadline = time.perf_counter() + timeout
        while text not in self.raw[since:]:
            remaining = deadline - time.perf_counter()
            if remaining <= 0:
                raise TimeoutError(f"{text!r} never arrived")
            self.arrived.clear()
            try:
                await asyncio.wait_for(self.arrived.wait(), remaining)
            except TimeoutError:
                continue

    def press(self, key: bytes) -> None:
        assert self.chan is not None
        self.chan.write(key)

    def leave(self) -> None:
        if self.conn is not None:
            self.conn.close()


# -- measuring -----------------------------------------------------------------------------


def _memory_kb(pid: int) -> tuple[int, int]:
    """(RSS, PSS) in kB of ``pid`` and all its descendants."""
    rss = pss = 0
    for proc in [pid, *_descendants(pid)]:
        try:
            rollup = Path(f"/proc/{proc}/smaps_rollup").read_text()
        except OSError:
            continue
        for line in rollup.splitlines():
            if line.startswith("Rss:"):
                rss += int(line.split()[1])
            elif line.startswith("Pss:"):
                pss += int(line.split()[1])
    return rss, pss


def _descendants(pid: int) -> list[int]:
    found: list[int] = []
    try:
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        return found
    for child in map(int, children):
        found += [child, *_descendants(child)]
    return found


def _cpu_seconds(pid: int) -> float:
    """User + system CPU time of ``pid`` and its descendants."""
    total = 0.0
    for proc in [pid, *_descendants(pid)]:
        try:
            total += cpu_seconds_of(proc)
        except OSError:  # a process that has just ended
            continue
    return total


def _table_code(table: int) -> str:
    """Four letters, as ``ssh -t host CODE`` takes them: AAAA, AAAB, ..."""
    letters = ""
    for _ in range(4):
        table, digit = divmod(table, 26)
        letters = chr(ord("A") + digit) + letters
    return letters


def _percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


@dataclass
class Result:
    """What one server did."""

    kind: str
    sessions: int
    rss_kb_per_session: float = 0.0
    pss_kb_per_session: float = 0.0
    first_screen_s: list[float] = field(default_factory=list)
    own_echo_s: list[float] = field(default_factory=list)
    other_player_s: list[float] = field(default_factory=list)
    idle_cpu_percent: float = 0.0


async def _start_server(kind: str, host_key: Path, sessions: int) -> tuple[Any, int]:
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bench.sessions", "serve", kind, str(host_key), str(sessions),
        cwd=ROOT, stdout=asyncio.subprocess.PIPE,
    )
    assert process.stdout is not None
    line = await asyncio.wait_for(process.stdout.readline(), 30)
    if not line.startswith(b"PORT "):
        raise RuntimeError(f"{kind} server did not start: {line!r}")
    return process, int(line.split()[1])


async def _key_round_trips(
    presser: Player, watcher: Player, samples: int, start: int
) -> list[float]:
    """Press space ``samples`` times; seconds until ``watcher`` shows the new count."""
    times = []
    for count in range(start + 1, start + samples + 1):
        since = len(watcher.raw)
        began = time.perf_counter()
        presser.press(b" ")
        await watcher.wait_for(f"count: {count}".encode(), since)
        times.append(time.perf_counter() - began)
        await asyncio.sleep(0.03)
    return times


async def _measure(kind: str, sessions: int, samples: int, host_key: Path) -> Result:
    process, port = await _start_server(kind, host_key, sessions)
    result = Result(kind, sessions)
    players: list[Player] = []
    key = asyncssh.generate_private_key("ssh-ed25519")
    try:
        first = Player()
        result.first_screen_s.append(await first.join(port, _table_code(0), "p0", key))
        players.append(first)
        await asyncio.sleep(1.0)
        rss0, pss0 = _memory_kb(process.pid)
        for i in range(1, sessions):
            player = Player()
            code = _table_code(i // SEAT)
            result.first_screen_s.append(await player.join(port, code, f"p{i}", key))
            players.append(player)
        await asyncio.sleep(2.0)
        rss, pss = _memory_kb(process.pid)
        added = max(1, sessions - 1)
        result.rss_kb_per_session = (rss - rss0) / added
        result.pss_kb_per_session = (pss - pss0) / added
        cpu0 = _cpu_seconds(process.pid)
        await asyncio.sleep(3.0)
        result.idle_cpu_percent = (_cpu_seconds(process.pid) - cpu0) / 3.0 * 100
        result.own_echo_s = await _key_round_trips(players[0], players[0], samples, 0)
        if kind == "in-process" and sessions > 1:
            result.other_player_s = await _key_round_trips(players[0], players[1], samples, samples)
    finally:
        for player in players:
            player.leave()
        process.send_signal(signal.SIGTERM)
        try:
            await asyncio.wait_for(process.wait(), 30)
        except TimeoutError:
            process.kill()
    return result


# -- report --------------------------------------------------------------------------------


def _ms(values: list[float]) -> str:
    if not values:
        return "n/a"
    return f"{_percentile(values, 0.5) * 1000:.0f} / {_percentile(values, 0.95) * 1000:.0f} ms"


def _mb(kb: float) -> str:
    return f"{kb / 1024:.2f} MB"


def report(ours: Result, baseline: Result) -> str:
    """The side-by-side table."""
    rows = [
        ("", "in-process (this server)", "process per session"),
        ("sessions connected", str(ours.sessions), str(baseline.sessions)),
        ("memory per session, PSS", _mb(ours.pss_kb_per_session),
         _mb(baseline.pss_kb_per_session)),
        ("memory per session, RSS", _mb(ours.rss_kb_per_session),
         _mb(baseline.rss_kb_per_session)),
        ("connect to full screen, median",
         f"{statistics.median(ours.first_screen_s) * 1000:.0f} ms",
         f"{statistics.median(baseline.first_screen_s) * 1000:.0f} ms"),
        ("key to own screen, p50 / p95", _ms(ours.own_echo_s), _ms(baseline.own_echo_s)),
        ("key to other player, p50 / p95", _ms(ours.other_player_s),
         "n/a (processes share nothing)"),
        ("server CPU while all idle", f"{ours.idle_cpu_percent:.1f} % of a core",
         f"{baseline.idle_cpu_percent:.1f} % of a core"),
    ]
    width = [max(len(row[i]) for row in rows) for i in range(3)]
    lines = ["  ".join(cell.ljust(width[i]) for i, cell in enumerate(row)) for row in rows]
    lines.insert(1, "-" * len(lines[0]))
    notes = [
        "",
        f"Memory per session: growth of the server's memory (with its children's, for the "
        f"baseline) from 1 to N sessions, over N-1. The baseline runs {baseline.sessions} "
        f"sessions; multiply its figure for {ours.sessions}.",
        f"Key latencies are over {ours.sessions} connected sessions; idle players sit "
        f"{SEAT} to a table, the two measured share one, so in-process every press redraws "
        f"{SEAT} apps; the baseline's apps share nothing and only the presser's redraws.",
    ]
    return "\n".join(lines + notes)


def main(argv: Sequence[str] | None = None) -> int:
    """Run both servers, one after the other, and print the comparison."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["app"]:
        BenchApp(args[1] if len(args) > 1 else "SOLO").run()
        return 0
    if args[:1] == ["serve"]:
        asyncio.run(_serve(args[1], Path(args[2]), int(args[3])))
        return 0
    parser = argparse.ArgumentParser(prog="python -m bench.sessions", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sessions", type=int, default=200, help="in-process sessions")
    parser.add_argument("--baseline-sessions", type=int, default=30,
                        help="process-per-session sessions (each is a whole Python process)")
    parser.add_argument("--samples", type=int, default=50, help="key presses timed per figure")
    options = parser.parse_args(args)
    return asyncio.run(_compare(options))


async def _compare(options: argparse.Namespace) -> int:
    with tempfile.TemporaryDirectory(prefix="bench-sessions-") as tmp:
        host_key = Path(tmp) / "host_key"
        print(f"in-process: {options.sessions} sessions...", flush=True)
        ours = await _measure("in-process", options.sessions, options.samples, host_key)
        print(f"process per session: {options.baseline_sessions} sessions...", flush=True)
        theirs = await _measure("process-per-session", options.baseline_sessions,
                                options.samples, host_key)
    print()
    print(report(ours, theirs))
    return 0


if __name__ == "__main__":
    sys.exit(main())
