"""The numbers that keep one session from costing every other session."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SessionLimits:
    """Per-session budgets for input, output and lifetime.

    Input is parsed ``slice_bytes`` at a time, at most ``slices_per_turn`` slices before
    yielding to the loop, and events are handed on one at a time, only while the app (with
    the focused widget and every parent between) has fewer than ``max_app_queue`` messages
    waiting: Textual handles a whole queue without yielding, so this bounds how long one
    session holds the loop, and at 1 no key can overtake the one before it.
    Reading from the channel pauses above ``input_pause_bytes`` of unparsed input and
    resumes below ``input_resume_bytes``. A bracketed paste is cut at ``paste_max_chars``;
    a paste left open for ``paste_quiet_s`` without input is closed.

    Output frames are dropped while more than ``output_high_water`` bytes wait to reach the
    client; once the backlog is back under ``output_low_water`` the app repaints in full. A
    client still behind after ``stuck_timeout_s`` is disconnected.

    An app told to exit has ``exit_grace_s`` before its task is cancelled; at shutdown,
    clients get ``hangup_wait_s`` to hang up by themselves before they are disconnected.
    """

    slice_bytes: int = 256
    slices_per_turn: int = 4
    max_app_queue: int = 1
    input_pause_bytes: int = 64 * 1024
    input_resume_bytes: int = 8 * 1024
    paste_max_chars: int = 16 * 1024
    paste_quiet_s: float = 2.0
    output_high_water: int = 512 * 1024
    output_low_water: int = 64 * 1024
    backlog_poll_s: float = 0.1
    stuck_timeout_s: float = 20.0
    max_columns: int = 500
    max_rows: int = 200
    exit_grace_s: float = 5.0
    hangup_wait_s: float = 1.0
