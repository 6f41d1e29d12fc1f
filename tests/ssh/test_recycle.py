"""Memory back after a crowd: once everyone has left, a server holding more than
``--recycle-mb`` over what it held at start runs itself again in place (server/recycle.py).

The real server runs as a subprocess. A player comes, makes a table and leaves; the
server (told to start again at any growth) says so, comes back with the same process id
on the same port with the same host key and journal, and meanwhile every connection
attempt waits in the kernel's queue and is answered: none is refused.
"""

from __future__ import annotations

import asyncio
import os
import re
import socket
import sqlite3
import sys
import time
from collections.abc import Callable
from pathlib import Path

import asyncssh
import pytest

from server import recycle
from tests.ssh.client import TermClient

pytestmark = pytest.mark.xdist_group("restart")

SCRIPT = Path(sys.executable).with_name("mission-impractical")


async def _line(proc: asyncio.subprocess.Process, pattern: str, seen: list[str],
                timeout: float = 30.0) -> re.Match[str]:
    """The next line of the server's output matching ``pattern`` (every line read goes
    into ``seen``)."""
    assert proc.stdout is not None
    deadline = time.monotonic() + timeout
    while True:
        raw = await asyncio.wait_for(proc.stdout.readline(), deadline - time.monotonic())
        assert raw, f"the server ended (exit {await proc.wait()}): {''.join(seen)[-2000:]}"
        line = raw.decode(errors="replace")
        seen.append(line)
        found = re.search(pattern, line)
        if found:
            return found


async def _table_code(data: Path, timeout: float = 10.0) -> str:
    """The code of the table the journal holds, once it holds one."""
    deadline = time.monotonic() + timeout
    while True:
        db = sqlite3.connect(f"file:{data / 'mission.sqlite3'}?mode=ro", uri=True)
        try:
            row = db.execute("SELECT code FROM tables").fetchone()
        except sqlite3.OperationalError:  # not created yet
            row = None
        finally:
            db.close()
        if row:
            return str(row[0])
        assert time.monotonic() < deadline, "no table in the journal"
        await asyncio.sleep(0.1)


async def _knock(port: int, answered: list[float], refused: list[BaseException],
                 stop: asyncio.Event) -> None:
    """Connect again and again, each time reading the server's first line (its SSH
    version): answered (however late) or refused."""
    while not stop.is_set():
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            started = time.monotonic()
            first = await asyncio.wait_for(reader.readline(), 20)
            assert first.startswith(b"SSH-2.0-"), first
            answered.append(time.monotonic() - started)
            writer.close()
        except OSError as error:
            refused.append(error)
        await asyncio.sleep(0.02)


async def test_an_emptied_server_starts_again_in_place_and_refuses_no_one(
        tmp_path: Path) -> None:
    data, key = tmp_path / "data", asyncssh.generate_private_key("ssh-ed25519")
    env = dict(os.environ, MI_RECYCLE_MB="0.001")  # any growth at all: start again
    proc = await asyncio.create_subprocess_exec(
        str(SCRIPT), "serve", "--host", "127.0.0.1", "--port", "0", "--data-dir", str(data),
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT, env=env)
    seen: list[str] = []
    try:
        port = int((await _line(proc, r"listening on 127\.0\.0\.1:(\d+)", seen)).group(1))
        fingerprint = (await _line(proc, r"Host key fingerprint: (\S+)", seen)).group(1)
        player = await TermClient.connect(port, username="alice", key=key)
        await player.wait_for("the lobby")
        player.send("c")
        code = await _table_code(data)
        answered: list[float] = []
        refused: list[BaseException] = []
        stop = asyncio.Event()
        knocking = asyncio.ensure_future(_knock(port, answered, refused, stop))
        player.close()
        await _line(proc, r"starting again in place", seen)
        again = await _line(proc, r"listening on 127\.0\.0\.1:(\d+)", seen)
        assert int(again.group(1)) == port and proc.returncode is None  # the same process
        assert (await _line(proc, r"Host key fingerprint: (\S+)", seen)).group(1) == fingerprint
        await asyncio.sleep(0.5)
        stop.set()
        await knocking
        # none refused, and one at least waited in the queue while the server started again
        assert refused == [] and len(answered) >= 5 and max(answered) > 0.2, answered
        back = await TermClient.connect(port, username="alice", key=key)
        await back.wait_for("the lobby")
        back.close()
        assert await _table_code(data) == code  # the same journal
    finally:
        if proc.returncode is None:
            proc.terminate()
            assert await asyncio.wait_for(proc.wait(), 20) == 0


def test_a_server_starts_again_only_past_its_margin_and_never_at_zero() -> None:
    assert not recycle.Recycler(96, 70).emptied(160)
    assert recycle.Recycler(96, 70).emptied(170)
    assert not recycle.Recycler(0, 70).emptied(10_000)  # --recycle-mb 0: never
    assert not recycle.Recycler(96, 0).emptied(10_000)  # no /proc: RSS unknown, never


def test_handed_over_sockets_are_taken_once_and_junk_is_ignored(
        monkeypatch: pytest.MonkeyPatch) -> None:
    listening = socket.create_server(("127.0.0.1", 0))
    closed = socket.socket()
    gone = closed.fileno()
    closed.close()
    monkeypatch.setenv(recycle.ENV, f"{listening.fileno()},x,{gone}")
    taken = recycle.inherited_sockets()
    try:
        assert [s.getsockname() for s in taken] == [listening.getsockname()]
        assert recycle.ENV not in os.environ  # a later start by hand finds nothing stale
        assert recycle.inherited_sockets() == []
    finally:
        for sock in taken:
            sock.detach()  # the same descriptor as ``listening``
        listening.close()


class EmptyServer:
    """A server with nobody on (what :meth:`recycle.Recycler.serve` looks at)."""

    def __init__(self) -> None:
        self.sessions: set[object] = set()
        self.when_empty: Callable[[float], object] | None = None
        self.kept = [socket.socket()]

    def is_empty(self) -> bool:
        return True

    def keep_sockets(self) -> list[socket.socket]:
        return self.kept


async def test_an_empty_server_waits_for_its_games_to_end_before_starting_again(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The tester's finding: an absent player's half-written plan lives in memory only, so
    while a game is playing the server does not start again, however empty."""
    monkeypatch.setattr(recycle, "PLAYING_RETRY_S", 0.05)
    server, playing = EmptyServer(), [True]
    recycler = recycle.Recycler(1, 70)
    waiting = asyncio.ensure_future(recycler.serve(server, asyncio.Event(),
                                                   lambda: playing[0]))
    await asyncio.sleep(0)
    assert server.when_empty is not None
    server.when_empty(200.0)
    await asyncio.sleep(0.3)
    assert not waiting.done()  # a game still playing: it looks again, and waits
    playing[0] = False
    assert await asyncio.wait_for(waiting, 2) == server.kept
    server.kept[0].close()
