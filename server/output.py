"""Frames to one SSH channel, with a bound on what a slow client can make us hold.

asyncssh buffers whatever is written to a channel without limit, and a client that stops
reading would make the server hold every frame its app draws. :class:`FrameGate` measures
the bytes still waiting to reach the client; above the high-water mark it drops whole
frames (never part of one, so the terminal never sees half an escape sequence). When the
backlog drains it asks for a full repaint; when it does not drain in time it gives up on
the client. A backlog that stays above the low-water mark for that long counts as stuck
too, even while no frame had to be dropped: a quiet screen sends little, and a client that
stopped reading must not be left for the keepalive to find a minute later.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Protocol

from server.limits import SessionLimits

log = logging.getLogger(__name__)


class FrameChannel(Protocol):
    """The part of an SSH channel the gate writes to."""

    def write(self, data: bytes) -> None: ...

    def get_write_buffer_size(self) -> int: ...

    def is_closing(self) -> bool: ...

    def get_extra_info(self, name: str, default: object = None) -> object: ...


def channel_backlog(chan: FrameChannel) -> int:
    """Bytes written to ``chan`` that have not yet left this process.

    That is the channel's own buffer (data beyond the client's SSH window) plus the
    connection transport's buffer (data within the window that the socket has not taken):
    asyncssh ignores transport back-pressure, so a client that advertises a huge window and
    stops reading would otherwise grow the second without bound.
    """
    backlog = chan.get_write_buffer_size()
    conn = chan.get_extra_info("connection")
    transport = getattr(conn, "_transport", None)  # asyncssh exposes no public accessor
    size = getattr(transport, "get_write_buffer_size", None)
    if callable(size):
        backlog += int(size())
    return backlog


class FrameGate:
    """Writes frames to a channel unless the client has fallen behind."""

    def __init__(
        self,
        chan: FrameChannel,
        limits: SessionLimits,
        on_caught_up: Callable[[], None],
        on_stuck: Callable[[], None],
        backlog: Callable[[], int] | None = None,
    ) -> None:
        self._chan = chan
        self._limits = limits
        self._on_caught_up = on_caught_up
        self._on_stuck = on_stuck
        self._backlog = backlog or (lambda: channel_backlog(chan))
        self._loop = asyncio.get_running_loop()
        self._behind_since: float | None = None
        self._backed_up_since: float | None = None
        self._poll: asyncio.TimerHandle | None = None
        self._closed = False
        self.frames_sent = 0
        self.frames_dropped = 0
        self.max_backlog = 0

    @property
    def behind(self) -> bool:
        """Is the client too far behind for new frames?"""
        return self._behind_since is not None

    def send(self, data: bytes, *, essential: bool = False) -> bool:
        """Write one frame; returns False if it was dropped.

        An ``essential`` frame (terminal modes on or off, a goodbye message) is written
        even while the client is behind: it is small and the terminal needs it.
        """
        if self._closed or self._chan.is_closing():
            return False
        backlog = self._backlog()
        self.max_backlog = max(self.max_backlog, backlog)
        if not essential and (self.behind or backlog > self._limits.output_high_water):
            self._fall_behind()
            self.frames_dropped += 1
            return False
        self._chan.write(data)
        self.frames_sent += 1
        if backlog + len(data) > self._limits.output_low_water and self._backed_up_since is None:
            self._backed_up_since = self._loop.time()
            if self._poll is None:
                self._watch()
        return True

    def close(self) -> None:
        """Stop watching the backlog; later frames are discarded."""
        self._closed = True
        if self._poll is not None:
            self._poll.cancel()
            self._poll = None

    def _fall_behind(self) -> None:
        if self._behind_since is None:
            self._behind_since = self._loop.time()
            if self._backed_up_since is None:
                self._backed_up_since = self._behind_since
            log.debug("client behind: dropping frames")
            if self._poll is None:
                self._watch()

    def _watch(self) -> None:
        self._poll = self._loop.call_later(self._limits.backlog_poll_s, self._check)

    def _check(self) -> None:
        self._poll = None
        if self._closed or self._backed_up_since is None:
            return
        if self._backlog() <= self._limits.output_low_water:
            was_behind = self.behind
            self._behind_since = self._backed_up_since = None
            if was_behind:
                self._on_caught_up()
        elif self._loop.time() - self._backed_up_since > self._limits.stuck_timeout_s:
            self._closed = True
            self._on_stuck()
        else:
            self._watch()
