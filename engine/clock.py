"""The one clock of the house: the hub's timers, the turn deadlines and the SSH driver's
arrival stamps all read it, so a stamp and a deadline can be compared."""

from __future__ import annotations

import time


def now_ms() -> float:
    """``time.monotonic()`` in milliseconds."""
    return time.monotonic() * 1000
