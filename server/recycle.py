"""Memory back after a crowd: the server starts itself again, in place, once it is empty.

CPython keeps most of the memory a crowd took after the crowd has gone. Measured after a
flood of 270 guests that all left (``bench.churn --guests 320``): RSS 69 MB before, 185 MB
after, of which Python's allocator holds 144 arenas (151 MB) for 32 MB of objects: an
arena goes back to the system only when wholly empty, and some 10,000 small objects made
during the flood and still needed (log books, caches, a few per address) hold one open
nearly everywhere. No collection or trim gets that back; a new process does.

So when everyone has left and no game is playing (an absent player's half-written plan
lives in memory only), the memory is collected (:func:`server.gc_tuning.collect_when_empty`)
and the process still holds more than ``--recycle-mb`` over what it held once started, the
server ends as a restart does (the journal closed, nothing lost) and runs its own command
line again with :func:`os.execv`: the same process id (a service manager sees nothing),
the same arguments and environment, and the listening sockets kept open across, so a
player who connects meanwhile waits a moment in the kernel's queue instead of being
refused. The new process finds them in :data:`ENV` and listens on them.
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import sys
from collections.abc import Callable, Sequence, Sized
from typing import NoReturn, Protocol

log = logging.getLogger(__name__)

ENV = "MI_LISTEN_FDS"
"""The listening sockets handed over, as file descriptors ("5,6")."""

RETRY_S = 0.5
"""Someone logging in when the server would start again (they would be cut off): it
looks again this much later (and gives up once someone has a session)."""

PLAYING_RETRY_S = 30.0
"""An empty server with a game still playing looks again this often."""

DEFAULT_MB = 96.0
"""Start again once empty if the RSS is this much over what it was once started: a flood
of guests leaves about 115 MB; an evening of a few tables, under 20."""


def inherited_sockets() -> list[socket.socket]:
    """The listening sockets the process this one replaced handed over (none on a first
    start); the variable is taken out of the environment, so a later restart that is no
    hand-over (a service manager's) never finds stale descriptors."""
    value = os.environ.pop(ENV, "")
    sockets = []
    for part in value.split(","):
        if not part.strip().isdigit():
            continue
        try:
            sock = socket.socket(fileno=int(part))
        except OSError as error:
            log.warning("a listening socket handed over (descriptor %s) is gone: %s",
                        part.strip(), error)
            continue
        sock.set_inheritable(False)
        sockets.append(sock)
    return sockets


class Server(Protocol):
    """What :class:`Recycler` needs of the running server (``server.ssh_server``)."""

    @property
    def sessions(self) -> Sized: ...
    when_empty: Callable[[float], object] | None

    def is_empty(self) -> bool: ...

    def keep_sockets(self) -> list[socket.socket]: ...


class Recycler:
    """Decides, each time the server empties, whether to start again in place."""

    def __init__(self, over_mb: float, start_mb: float) -> None:
        self.over_mb = over_mb
        self.start_mb = start_mb
        self.wanted = False
        self.rss_mb = 0.0  # when it last wanted to

    def emptied(self, rss_mb: float) -> bool:
        """Everyone has left and the memory is collected at ``rss_mb``: start again?"""
        if self.over_mb > 0 and self.start_mb > 0 and rss_mb - self.start_mb > self.over_mb:
            self.wanted, self.rss_mb = True, rss_mb
        return self.wanted

    async def serve(self, server: Server, stop: asyncio.Event,
                    playing: Callable[[], bool] = lambda: False) -> list[socket.socket]:
        """Wait for ``stop`` (a signal: returns no sockets), or until the server, empty,
        should start again: returns its listening sockets, still listening. Never while a
        game is ``playing``: its absent players' half-written plans live in memory only
        (it waits, looking again every :data:`PLAYING_RETRY_S`, until the game ends, as
        an abandoned one does after ``--abandoned-minutes``)."""
        emptied = asyncio.Event()

        def when_empty(rss_mb: float) -> None:
            if self.emptied(rss_mb):
                emptied.set()

        server.when_empty = when_empty
        while True:
            await _first_of(stop, emptied)
            emptied.clear()
            if stop.is_set():
                return []
            if server.is_empty() and playing():
                asyncio.get_running_loop().call_later(PLAYING_RETRY_S, emptied.set)
            elif server.is_empty():
                log.info("everyone has left and the server holds %.0f MB more than once "
                         "started (%.0f MB): starting again in place to give it back (same "
                         "process id, the same listening sockets)",
                         self.rss_mb - self.start_mb, self.rss_mb)
                return server.keep_sockets()
            elif server.sessions:  # someone came in: when they leave, another time
                self.wanted = False
            else:  # someone is logging in (or a port scanner knocks): in a moment
                asyncio.get_running_loop().call_later(RETRY_S, emptied.set)


async def _first_of(*events: asyncio.Event) -> None:
    """Wait until one of ``events`` is set."""
    waits = [asyncio.ensure_future(event.wait()) for event in events]
    try:
        await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for wait in waits:
            wait.cancel()


def exec_again(sockets: Sequence[socket.socket]) -> NoReturn:
    """Run this process's own command line again in place, handing ``sockets`` over."""
    fds = []
    for sock in sockets:
        sock.set_inheritable(True)
        fds.append(str(sock.fileno()))
    os.environ[ENV] = ",".join(fds)
    logging.shutdown()
    sys.stdout.flush()
    sys.stderr.flush()
    os.execv(sys.executable, sys.orig_argv)
