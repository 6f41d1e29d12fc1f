"""New apps are let onto the event loop a few at a time.

Building an app's first screen (stylesheet, compose, mount, first layout) is the most
expensive thing a session does, and it runs on the one loop every table shares. A burst of
joins must queue rather than freeze the tables that are playing: :class:`AppSlots` lets
``apps_starting_at_once`` apps start together; each holds its slot until its first frame
is drawn, or ``app_start_wait_s`` at most.
"""

from __future__ import annotations

import asyncio

from server.limits import ConnectionLimits


class AppSlot:
    """One place among the apps starting; :meth:`release` it once (more calls are no-ops)."""

    def __init__(self, slots: AppSlots) -> None:
        self._slots = slots
        self._timer = asyncio.get_running_loop().call_later(
            slots.limits.app_start_wait_s, self.release
        )
        self.held = True

    def release(self) -> None:
        if self.held:
            self.held = False
            self._timer.cancel()
            self._slots._free()


class AppSlots:
    """A line of apps waiting to start, served ``apps_starting_at_once`` at a time."""

    def __init__(self, limits: ConnectionLimits) -> None:
        self.limits = limits
        self.starting = 0
        self._line: list[asyncio.Future[None]] = []

    @property
    def waiting(self) -> int:
        """Apps in line."""
        return sum(1 for future in self._line if not future.done())

    def free_now(self) -> bool:
        """Would an app start at once?"""
        return self.starting < self.limits.apps_starting_at_once and not self.waiting

    async def take(self) -> AppSlot:
        """Wait for a place (first come, first served)."""
        if not self.free_now():
            future = asyncio.get_running_loop().create_future()
            self._line.append(future)
            try:
                await future
            except asyncio.CancelledError:
                if future.done() and not future.cancelled():
                    self._free()  # it was handed a place it will never use
                raise
        else:
            self.starting += 1
        return AppSlot(self)

    def _free(self) -> None:
        while self._line:
            future = self._line.pop(0)
            if not future.done():
                future.set_result(None)  # the place passes straight on
                return
        self.starting -= 1
