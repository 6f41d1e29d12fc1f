"""Timers that never keep a finished app alive.

A Textual timer sleeps in a task that runs in its app's context, and asyncio keeps a
cancelled timer (with that context, and so the whole app) in its heap until the time it
was due. A countdown that sleeps a minute kept every player's app alive for a minute after
they left. :func:`wake_later` schedules on the loop in a context of its own and hands the
call to the widget as a message, so it still runs as that app; cancelled, it holds nothing.
"""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import Callable

from textual.widget import Widget


def wake_later(widget: Widget, seconds: float, callback: Callable[[], object]
               ) -> asyncio.TimerHandle:
    """Call ``callback`` on ``widget`` in ``seconds``; cancel the handle on unmount."""
    return asyncio.get_running_loop().call_later(
        seconds, widget.call_later, callback, context=contextvars.Context())
