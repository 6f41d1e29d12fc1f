"""Play: the real server, over real SSH, with tables of four playing at a person's pace.

This process starts ``mission-impractical serve`` (the real server, its real screens, a
fresh data dir) and is every player: one asyncssh client per session with a PTY. A player
decides from the game's status row as the server last drew it ("Round 2 of 6 · Your turn:
hide your guess"), read off the bytes: a pyte screen per player cost the bench more CPU
than the server, and the bench shares the machine with it. (The newest words drawn
mislead: the table's log is drawn below a seat's own instruction, in the same frame.)
pyte still reads the table code off the host's screen.

For each size (50, 100, 200 and 400 sessions by default) it:

1. times ten first screens one at a time on the idle server (connect to the whole lobby),
   with the server's CPU for each new connection up to its settled first screen, then
   connects the sessions four at a time, timing each first screen (the lobby, or the
   table for those who type ``ssh -t host CODE``) while the tables already seated play;
2. seats them at tables of four (one creates the table, three join with its code), the host
   starts the game, and a few sessions stay in the lobby typing a table code;
3. lets each table begin playing at a random moment within ``--stagger`` seconds (at a
   real server tables start whenever their people are ready: with 0 every table starts
   on one signal, and all 100 tables' first picks at 400 sessions fall within ten
   seconds, about seven times the picks per second of steady play), then plays for
   ``--seconds``: a lead picks every ``--pace`` seconds or so, guessers hide their
   guesses, type their plans key by key and reveal, someone chats now and then;
4. prints first screen p50/p95, pick -> other seats' screens p50/p95/p99 (from the key
   leaving the lead's client to the first byte of the pick reaching each other seat),
   key echo in the lobby p50/p95, the server's CPU per new connection and per session,
   RSS per session, and bytes per move, each beside its target.

    python -m bench.play [--sessions 50,100,200,400] [--seconds 40] [--pace 3] [--stagger 30]

``--servers 2`` runs two independent servers side by side, as a host runs a second one
(``docs/hosting.md``), with every table's people on one of them: first screens on the idle
server are timed on the first; CPU (which may then pass 100%) and RSS are the servers' sums.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import asyncssh
import pyte

SCREEN = (100, 30)
PICKED = "●".encode()
STATUS_ROW = re.compile(rb"\x1b\[1;\d+H")  # the top row: the round, what the table waits for
CURSOR_MOVE = re.compile(rb"\x1b\[\d+;\d+H")
SGR = re.compile(rb"\x1b\[[0-9;]*m")
LOBBY = b"the lobby"
TABLE = re.compile(r"table ([A-Z]{4})")
TARGETS = {"pick p95": (50.0, "ms"), "echo p95": (50.0, "ms"),
           "idle first screen p50": (80.0, "ms"), "CPU per connection": (40.0, "ms"),
           "RSS MB per session": (1.5, "MB")}


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1)))]


# -- one player ------------------------------------------------------------------------------


class Player(asyncssh.SSHClientSession[bytes]):
    """One terminal: raw bytes as they come, a pyte screen read on demand."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.screen = pyte.Screen(*SCREEN)
        self.stream = pyte.ByteStream(self.screen)
        self.pending = bytearray()
        self.tail = bytearray()  # the newest output, where the newest instruction is
        self.received = 0
        self.first_screen_at: float | None = None
        self.waiting_for: bytes | None = None
        self.watch: list[tuple[float, bytes, list[float]]] = []  # (since, needle, into)
        self.chan: asyncssh.SSHClientChannel[bytes] | None = None
        self.conn: asyncssh.SSHClientConnection | None = None
        self.closed = asyncio.Event()
        self.read_screen = False
        """Decide from the whole screen (pyte) rather than from the newest output: surer,
        and costlier (a bench with a few players can afford it)."""
        self.status = ""
        """The game's status row as last drawn ("Round 2 of 8 · Your turn: ..."), without
        the countdown."""

    def data_received(self, data: bytes, datatype: asyncssh.DataType) -> None:
        now = time.monotonic()
        self.received += len(data)
        for moved in STATUS_ROW.finditer(data):
            end = CURSOR_MOVE.search(data, moved.end())
            row = SGR.sub(b"", data[moved.end():end.start() if end else None])
            text = row.decode(errors="replace").partition("⏱")[0].strip()
            if text.startswith("Round "):  # the whole row, not the countdown alone
                self.status = text
        self.pending += data
        self.tail += data
        if len(self.tail) > 32768:
            del self.tail[:-16384]
        if self.first_screen_at is None and self.waiting_for is not None \
                and self.waiting_for in self.pending:
            self.first_screen_at = now
        if self.watch:
            keep = []
            for since, needle, into in self.watch:
                if needle in data or not needle:
                    into.append((now - since) * 1000)
                else:
                    keep.append((since, needle, into))
            self.watch = keep

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed.set()

    def text(self) -> str:
        if self.pending:
            self.stream.feed(bytes(self.pending))
            self.pending.clear()
        return "\n".join(self.screen.display)

    def newest(self, phrases: tuple[str, ...]) -> str | None:
        """Of ``phrases``, the one drawn last (None if none was drawn since ``forget``);
        reading the screen: the first of ``phrases`` that asks for a move and is on it."""
        if self.read_screen:
            text = self.text()
            return next((p for p in phrases if p not in IDLE and p in text), None)
        best, where = None, -1
        for phrase in phrases:
            at = self.tail.rfind(phrase.encode())
            if at > where:
                best, where = phrase, at
        return best

    def forget(self) -> None:
        if self.read_screen:
            self.text()  # the screen keeps every byte
        self.tail.clear()
        self.pending.clear()

    def send(self, data: str) -> None:
        if self.chan is not None and not self.chan.is_closing():
            self.chan.write(data.encode())

    def expect(self, needle: bytes, into: list[float]) -> None:
        """Time from now to the first chunk containing ``needle`` (b"": any byte). A
        watch for the same thing still open is dropped: its move was refused (a lead who
        picked on a stale instruction), and timing it to a later move would lie."""
        self.watch = [w for w in self.watch if w[1] != needle]
        self.watch.append((time.monotonic(), needle, into))


def cpu_seconds_of(pid: int) -> float:
    """CPU time of process ``pid`` so far, all its threads, to the nanosecond
    (``/proc/PID/task/*/schedstat``). ``/proc/PID/stat`` counts clock ticks of 10 ms, as
    coarse as a whole connection's CPU: medians of ten connections read 5-10 ms apart
    between runs of the same code. Where the kernel keeps no schedstat, the ticks."""
    if not Path(f"/proc/{pid}/schedstat").exists():
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    total = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            total += int((task / "schedstat").read_text().split()[0])
        except OSError:  # a thread that has just ended
            continue
    return total / 1e9


def home(k: int) -> str:
    """Player ``k``'s own source address: every player comes from a home of their own (any
    127.x.y.z reaches the loopback), so the server's per-address limits apply as they would
    on the internet, at their defaults."""
    return f"127.1.{k // 250}.{k % 250 + 1}"


async def connect(port: int, name: str, key: asyncssh.SSHKey | None, command: str | None,
                  waiting_for: bytes, source: str = "127.0.0.1", *,
                  password: str | None = None, size: tuple[int, int] = SCREEN,
                  read_screen: bool = False) -> tuple[Player, float]:
    """Connect ``name`` (with ``key``, or none and ``password``); returns the player and
    the seconds to its first full screen. A session the server closes first raises."""
    player = Player(name)
    player.read_screen = read_screen
    player.waiting_for = waiting_for
    start = time.monotonic()
    player.conn = await asyncssh.connect(
        "127.0.0.1", port, username=name, known_hosts=None,
        client_keys=[key] if key is not None else (), password=password,
        agent_path=None, config=None, local_addr=(source, 0))
    player.chan, _ = await player.conn.create_session(
        lambda: player, command=command, term_type="xterm-256color", term_size=size,
        encoding=None)
    deadline = start + 60
    while player.first_screen_at is None:
        if player.closed.is_set():
            raise ConnectionError(f"{name}: the server closed the session")
        if time.monotonic() > deadline:
            player.conn.abort()
            raise TimeoutError(f"{name}: no first screen after 60 s")
        await asyncio.sleep(0.005)
    return player, player.first_screen_at - start


# -- what a player does, at a person's pace -------------------------------------------------


@dataclass
class Figures:
    first_screen: list[float] = field(default_factory=list)
    pick: list[float] = field(default_factory=list)
    echo: list[float] = field(default_factory=list)
    picks: int = 0
    moves: int = 0
    errors: list[str] = field(default_factory=list)


class Seat:
    """A seated player who looks at the screen every so often and does what it says."""

    def __init__(self, player: Player, table: list[Seat], figures: Figures, pace: float,
                 rng: random.Random) -> None:
        self.player = player
        self.table = table
        self.figures = figures
        self.pace = pace
        self.rng = rng
        self.measuring = False
        self.chats = True  # a word in the chat now and then (its keys may cross a move's)
        self.delay = 0.0  # when its table begins playing (seconds after the others could)
        self.done = ""  # the last thing the status row asked of this seat, and it did

    async def type(self, text: str, per_key: float = 0.12) -> None:
        for char in text:
            self.player.send(char)
            await asyncio.sleep(per_key * self.rng.uniform(0.6, 1.4))

    async def run(self, until: float) -> None:
        await asyncio.sleep(self.delay + self.rng.uniform(0, self.pace))
        while time.monotonic() < until and not self.player.closed.is_set():
            await self.step()
            await asyncio.sleep(self.pace * self.rng.uniform(0.7, 1.3))

    async def step(self) -> None:
        """Do what the status row says is this seat's turn, once per thing asked (the row
        names the column for a pick, so each pick is asked anew). The status row, not the
        newest words drawn: the table's log below it says "All four items are down: hide
        your guesses" and "X reveals next" after the seat's own instructions, in the same
        frame, and a bench that read the newest words sat still until the turn timer ran
        out (90 s) after every round's picks."""
        status = self.player.status
        asked = status.partition(" · ")[2]
        if asked == self.done:
            asked = ""
        if asked.startswith("Your turn: pick an item from column"):
            # A watch of this seat's own still open is for a pick that never arrived (the
            # last lead picked on a stale instruction and was refused): timing it to this
            # seat's own pick would lie.
            self.player.watch = [w for w in self.player.watch if w[1] != PICKED]
            for other in self.table:
                if other is not self and self.measuring:
                    other.player.expect(PICKED, self.figures.pick)
            self.player.send(str(self.rng.randint(1, 4)))
            self.figures.picks += self.measuring
            self.figures.moves += self.measuring
        elif asked.startswith("Your turn: hide"):
            self.player.send(str(self.rng.randint(1, 4)))
            self.figures.moves += self.measuring
        elif asked.startswith("Your turn: reveal your guess"):
            await self.type(self.rng.choice(["we use all of it", "glue, then run",
                                             "the cheese goes first"]))
            self.player.send("\r")
            self.figures.moves += self.measuring
        elif asked.startswith("Your turn: reveal the task"):
            self.player.send("\r")
            self.figures.moves += self.measuring
        elif asked.startswith("Your turn: name the best plan"):
            self.player.send("1")
            self.figures.moves += self.measuring
        elif asked.startswith("Round over"):
            self.player.send("\r")  # ready for the next round
        elif asked.startswith("Game over"):
            self.player.send("\r")  # from the last round's summary to the results
        elif self.chats and self.rng.random() < 0.08:  # a word in the chat
            # Esc first, as a player writing a plan ahead does: the plan has the keys then
            self.player.send("\x1b")
            await asyncio.sleep(0.3)
            self.player.send("c")
            await asyncio.sleep(0.3)
            await self.type("ha")
            self.player.send("\r")
            await asyncio.sleep(0.3)
            self.player.send("\x1b")  # the chat keeps the keys after Enter: back to the board
            return
        else:
            return
        self.done = asked


INSTRUCTIONS = ("Pick from column", "Hide your guess", "hide a guess", "Your turn to reveal",
                "Your turn: reveal the task", "Name the best plan", "for the next round",
                "Waiting for", "Your guess is hidden", "Listen:", "Wait:", "Stop token placed",
                "holds the stop token", "All four items are down", "reveals next")
IDLE = {"Waiting for", "Your guess is hidden", "Listen:", "Wait:", "Stop token placed",
        "holds the stop token", "All four items are down", "reveals next"}


class LobbyTypist:
    """Someone in the lobby typing a table code, key by key: each key's echo is timed."""

    def __init__(self, player: Player, figures: Figures, rng: random.Random) -> None:
        self.player = player
        self.figures = figures
        self.rng = rng
        self.measuring = False

    async def run(self, until: float) -> None:
        self.player.send("j")
        await asyncio.sleep(0.3)
        typed = 0
        while time.monotonic() < until and not self.player.closed.is_set():
            key = "\x7f" if typed >= 3 else self.rng.choice("QWXZ")
            typed = typed - 1 if key == "\x7f" else typed + 1
            if self.measuring:
                self.player.expect(b"", self.figures.echo)
            self.player.send(key)
            await asyncio.sleep(self.rng.uniform(0.25, 0.6))


Arrive = Callable[[str, asyncssh.SSHKey, "str | None", bytes, int], Awaitable[Player]]
"""Connects one player: (name, key, command, marker of the first screen, home number)."""


async def create_table(host: Player) -> str:
    """``host`` (in the lobby, reading its screen) creates a table: its code."""
    host.send("c")
    for _ in range(500):
        await asyncio.sleep(0.02)
        found = TABLE.search(host.text())
        if found:
            return found.group(1)
    raise RuntimeError("the host's table never showed its code")


async def seat_table(arrive: Arrive, t: int, keys: list[asyncssh.SSHKey], figures: Figures,
                     pace: float, rng: random.Random) -> list[Seat]:
    """Table ``t``: its host creates it from the lobby, three friends land at it with
    ``ssh -t host CODE``, and the host starts the game. Returns its four seats."""
    host = await arrive(f"h{t}", keys[4 * t], None, LOBBY, 4 * t)
    code = await create_table(host)
    guests = [await arrive(f"p{t}x{k}", keys[4 * t + k], code, code.encode(), 4 * t + k)
              for k in (1, 2, 3)]
    table: list[Seat] = []
    for player in (host, *guests):
        table.append(Seat(player, table, figures, pace, random.Random(rng.random())))
    for _ in range(500):
        await asyncio.sleep(0.05)
        if f"p{t}x3" in host.text():
            break
    host.send("g")
    return table


# -- the server ------------------------------------------------------------------------------


WATCH_GC = """
import gc, sys, time
def _watch_gc(out=open(sys.argv[-1], "a", buffering=1), started=[0.0]):
    def heard(phase, info):
        if phase == "start":
            started[0] = time.perf_counter()
            return
        took = (time.perf_counter() - started[0]) * 1000
        if took >= 5.0:  # a line per pause worth naming (young collections are ~1 ms)
            caller = "<".join(f.f_code.co_name for f in (sys._getframe(1), sys._getframe(2)))
            out.write(f"{time.monotonic():.3f} {info['generation']} {took:.1f} "
                      f"{info['collected']} {caller}\\n")
    gc.callbacks.append(heard)
_watch_gc()
"""
"""Run first in the served process (either checkout): every collection of 5 ms or more
as a line of ``gc.log``: when (``time.monotonic()``, the same clock as the bench's), the
generation, ms, objects freed, and the function that ran it and its caller
(``collect_all<_collect_if``: the empty server's collection, which pauses nobody; any
function at all for CPython's own)."""


@dataclass(frozen=True)
class Pause:
    """One collection the served process ran (see :data:`WATCH_GC`)."""

    at: float
    generation: int
    ms: float
    freed: int
    caller: str

    @property
    def with_players_on(self) -> bool:
        """Not the empty server's own collection (``gc_tuning.collect_when_empty``)."""
        return "_collect_if" not in self.caller


class Server:
    """``mission-impractical serve`` in a subprocess, on a free port, with its own data;
    every collection of 5 ms or more it runs is in :meth:`gc_pauses`."""

    def __init__(self, sessions: int, extra: list[str], checkout: Path | None = None,
                 max_sessions: int | None = None) -> None:
        self.dir = tempfile.TemporaryDirectory(prefix="mi-bench-")
        self.sessions = sessions
        self.max_sessions = max_sessions or sessions + 60
        self.extra = extra
        self.checkout = checkout
        """Another checkout of the project to serve from (the baseline), or None."""
        self.proc: subprocess.Popen[bytes] | None = None
        self.port = 0

    def start(self) -> None:
        # (a baseline checkout from before server/admin/ has its CLI at server.cli)
        command = [sys.executable, "-c", WATCH_GC + "try: from server.admin.cli import main"
                   "\nexcept ImportError: from server.cli import main\n"
                   "sys.exit(main(sys.argv[1:-1]))", "serve", "--host", "127.0.0.1",
                   "--port", "0", "--data-dir", self.dir.name, "--public-name", "localhost"]
        env = dict(os.environ)
        # Room for every session, for both servers: an older one left at its default (300)
        # refused sessions of a 400-session run, which then failed. The players' keys are
        # new to the server, and its last 30 places are kept for keys it knows: 60 more.
        command += ["--max-sessions", str(self.max_sessions)]
        if self.checkout is None:
            command += self.extra
        else:  # an older server: its own code first on the path, its own other settings
            env["PYTHONPATH"] = str(self.checkout)
        command.append(str(Path(self.dir.name) / "gc.log"))  # WATCH_GC's, not serve's
        log = open(Path(self.dir.name) / "server.log", "wb")  # noqa: SIM115
        self.proc = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT,
                                     start_new_session=True, env=env,
                                     cwd=self.checkout or self.dir.name)
        deadline = time.monotonic() + 60
        text = ""
        while time.monotonic() < deadline:
            text = (Path(self.dir.name) / "server.log").read_text(errors="replace")
            found = re.search(r"listening on .*?:(\d+)", text)
            if found:
                self.port = int(found.group(1))
                return
            if self.proc.poll() is not None:
                break
            time.sleep(0.05)
        raise RuntimeError(f"the server did not start:\n{text[-2000:]}")

    def cpu_seconds(self) -> float:
        assert self.proc is not None
        return cpu_seconds_of(self.proc.pid)

    def rss_mb(self) -> float:
        assert self.proc is not None
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        return float("nan")

    def gc_pauses(self, since: float = 0.0, until: float = float("inf")) -> list[Pause]:
        """The collections of 5 ms or more the server ran between two ``time.monotonic()``
        readings."""
        path = Path(self.dir.name) / "gc.log"
        pauses = []
        for line in path.read_text().splitlines() if path.exists() else ():
            at, generation, ms, freed, caller = line.split()
            if since <= float(at) <= until:
                pauses.append(Pause(float(at), int(generation), float(ms), int(freed), caller))
        return pauses

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        self.dir.cleanup()


class Servers:
    """``count`` independent servers, as a host runs a second one beside the first (each
    on its own port, with its own data): table ``t`` is on server ``t % count``. CPU and
    memory are the servers' sums."""

    def __init__(self, count: int, sessions: int, extra: list[str],
                 checkout: Path | None = None) -> None:
        self.all = [Server(sessions, extra, checkout) for _ in range(count)]
        self.first = self.all[0]

    def start(self) -> None:
        for server in self.all:
            server.start()

    def port_for(self, table: int) -> int:
        return self.all[table % len(self.all)].port

    def cpu_seconds(self) -> float:
        return sum(server.cpu_seconds() for server in self.all)

    def rss_mb(self) -> float:
        return sum(server.rss_mb() for server in self.all)

    def stop(self) -> None:
        for server in self.all:
            server.stop()


# -- one run ---------------------------------------------------------------------------------


async def run_size(sessions: int, seconds: float, pace: float, extra: list[str],
                   seed: int, checkout: Path | None = None,
                   stagger: float = 30.0, processes: int = 1) -> dict[str, float]:
    rng = random.Random(seed)
    figures = Figures()
    servers = Servers(processes, sessions, extra, checkout)
    server = servers.first  # new connections are timed on one of them
    servers.start()
    players: list[Player] = []
    try:
        typists_n = max(2, sessions // 25)
        tables_n = (sessions - typists_n) // 4
        keys = [asyncssh.generate_private_key("ssh-ed25519") for _ in range(sessions)]
        idle_first: list[float] = []
        connect_cpu: list[float] = []
        # One player idles in the lobby meanwhile: an empty server collects its garbage
        # (gc_tuning.collect_when_empty), which is no new connection's cost.
        anchor, _ = await connect(server.port, "anchor",
                                  asyncssh.generate_private_key("ssh-ed25519"), None, LOBBY,
                                  home(sessions + 20))
        for k in range(10):  # one at a time on the idle server: the floor
            cpu_before = server.cpu_seconds()
            player, took = await connect(server.port, f"idle{k}", keys[k], None, LOBBY,
                                         home(sessions + k))
            await asyncio.sleep(0.2)  # settled: an idle player costs nothing more
            connect_cpu.append((server.cpu_seconds() - cpu_before) * 1000)
            idle_first.append(took * 1000)
            assert player.conn is not None
            player.conn.close()
            await player.closed.wait()
        assert anchor.conn is not None
        anchor.conn.close()
        await anchor.closed.wait()
        await asyncio.sleep(1.0)
        rss_before = servers.rss_mb()  # warm: modules loaded, caches filled by the first apps
        gate = asyncio.Semaphore(4)  # then people arrive a few at a time

        async def arrive(name: str, key: asyncssh.SSHKey, command: str | None,
                         marker: bytes, k: int) -> Player:
            async with gate:  # a table's people (k // 4) all reach its server
                player, took = await connect(servers.port_for(k // 4), name, key, command,
                                             marker, home(k))
            figures.first_screen.append(took * 1000)
            players.append(player)
            return player

        tables = await asyncio.gather(*(seat_table(arrive, t, keys, figures, pace, rng)
                                        for t in range(tables_n)))
        typists = [LobbyTypist(await arrive(f"t{k}", keys[4 * tables_n + k], None, LOBBY,
                                            4 * tables_n + k),
                               figures, random.Random(rng.random()))
                   for k in range(typists_n)]
        connected = len(players)
        await asyncio.sleep(2.0)  # every table's first round under way
        rss_seated = servers.rss_mb()
        for seated in tables:  # each table begins when its people are ready
            begins = rng.uniform(0, stagger)
            for seat in seated:
                seat.delay = begins
        until = time.monotonic() + stagger + 5 + seconds
        actors: list[Any] = [*(seat for table in tables for seat in table), *typists]
        tasks = [asyncio.create_task(actor.run(until)) for actor in actors]
        await asyncio.sleep(stagger + 5)  # every table playing: measure steady play only
        for actor in actors:
            actor.measuring = True
        received_before = sum(p.received for p in players)
        cpu_before, wall_before = servers.cpu_seconds(), time.monotonic()
        bench_cpu_before = time.process_time()
        await asyncio.gather(*tasks)
        cpu = servers.cpu_seconds() - cpu_before
        wall = time.monotonic() - wall_before
        bench_cpu = time.process_time() - bench_cpu_before
        received = sum(p.received for p in players) - received_before
        return {
            "server": "baseline" if checkout else "this",
            "processes": processes,
            "sessions": connected,
            "idle first screen p50": statistics.median(idle_first),
            # the clock ticks in 10 ms: the mean of ten is good to about a millisecond
            "CPU per connection": statistics.mean(connect_cpu),
            "first screen p50": statistics.median(figures.first_screen),
            "first screen p95": percentile(figures.first_screen, 95),
            "pick p50": percentile(figures.pick, 50),
            "pick p95": percentile(figures.pick, 95),
            "pick p99": percentile(figures.pick, 99),
            "picks timed": len(figures.pick),
            "echo p50": percentile(figures.echo, 50),
            "echo p95": percentile(figures.echo, 95),
            "server CPU %": cpu / wall * 100,
            "clients CPU %": bench_cpu / wall * 100,
            "CPU ms/s per session": cpu / wall * 1000 / connected,
            "RSS MB per session": (rss_seated - rss_before) / connected,
            "KB per move": received / 1024 / max(1, figures.moves),
        }
    finally:
        for player in players:
            if player.conn is not None:
                player.conn.abort()
        servers.stop()


COLUMNS = [("server", "{}"), ("processes", "{:.0f}"), ("sessions", "{:.0f}"),
           ("idle first screen p50", "{:.0f}"),
           ("CPU per connection", "{:.0f}"),
           ("first screen p50", "{:.0f}"),
           ("first screen p95", "{:.0f}"), ("pick p50", "{:.0f}"), ("pick p95", "{:.0f}"),
           ("pick p99", "{:.0f}"), ("picks timed", "{:.0f}"), ("echo p50", "{:.0f}"),
           ("echo p95", "{:.0f}"),
           ("server CPU %", "{:.0f}"), ("clients CPU %", "{:.0f}"),
           ("CPU ms/s per session", "{:.2f}"),
           ("RSS MB per session", "{:.2f}"), ("KB per move", "{:.1f}")]


def table(rows: list[dict[str, Any]]) -> list[str]:
    head = " | ".join(name for name, _ in COLUMNS)
    lines = [f"| {head} |", "|" + "---|" * len(COLUMNS)]
    for row in rows:
        cells = " | ".join(_cell(row, name, fmt) for name, fmt in COLUMNS)
        lines.append(f"| {cells} |")
    return lines


def _cell(row: dict[str, Any], name: str, fmt: str) -> str:
    value = row.get(name)
    if value is None:
        return "-"
    return fmt.format(value)


def over_target(value: float, target: float) -> str:
    """``value`` (past ``target``) as a miss is printed: whole milliseconds, or one decimal
    when whole ones would read as the target itself ("50 ms misses 50 ms")."""
    shown = f"{value:.0f}"
    return shown if float(shown) > target else f"{value:.1f}"


def verdicts(rows: list[dict[str, Any]]) -> list[str]:
    out = []
    for row in rows:
        if row.get("server") != "this":
            continue
        for name, (target, unit) in TARGETS.items():
            value = row.get(name, float("nan"))
            if not value <= target:
                shown = over_target(value, target) if unit == "ms" else f"{value:.2f}"
                out.append(f"{row['sessions']:.0f} sessions: {name} {shown} {unit} MISSES "
                           f"its target of {target:g} {unit}")
    return out or ["every figure within its target"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.play", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sessions", default="50,100,200,400")
    parser.add_argument("--seconds", type=float, default=40.0)
    parser.add_argument("--pace", type=float, default=3.0)
    parser.add_argument("--stagger", type=float, default=30.0,
                        help="tables begin playing at random moments within this many "
                             "seconds; 0: all at once (the start-up burst)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--server-arg", action="append", default=[],
                        help="passed to serve (e.g. --server-arg=--limit=...)")
    parser.add_argument("--baseline", type=Path, default=None,
                        help="a checkout of an older version, run the same way beside this one")
    parser.add_argument("--servers", type=int, default=1,
                        help="independent servers side by side (a table's people on one), "
                             "as a host runs a second one for more players than one holds")
    options = parser.parse_args(argv)
    rows: list[dict[str, Any]] = []
    for size in (int(s) for s in options.sessions.split(",")):
        for checkout in ([options.baseline] if options.baseline else []) + [None]:
            label = "baseline" if checkout else "this"
            print(f"... {size} sessions, {label} server", flush=True)
            try:
                rows.append(asyncio.run(run_size(size, options.seconds, options.pace,
                                                 options.server_arg, options.seed,
                                                 checkout, options.stagger,
                                                 options.servers)))
            except Exception as error:  # report and go on with the next size
                print(f"    failed: {error!r}", flush=True)
                rows.append({"server": label, "processes": options.servers,
                             "sessions": size})
            with contextlib.suppress(Exception):
                print("    " + table(rows[-1:])[-1], flush=True)
    print("\nthe real server over SSH, tables of four at a person's pace, beginning within "
          f"{options.stagger:g} s of each other (times in ms):")
    for line in table(rows):
        print(line)
    for line in verdicts(rows):
        print("  " + line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
