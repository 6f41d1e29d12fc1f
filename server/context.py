"""What the server tells the app factory about one SSH session."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from textual.app import App

from engine.identity import Player


@dataclass(frozen=True)
class SessionContext:
    """One connected terminal, as the app factory sees it.

    ``player`` comes from the SSH authentication; ``join_code`` is the table code typed
    as ``ssh -t host CODE`` (upper case), or ``None``; ``term_type`` and ``size``
    (columns, rows) come from the client's PTY request. ``replay`` is ``(CODE, N)`` for
    ``ssh -t host replay CODE [N]`` (N None: the table's last finished game).
    """

    player: Player
    join_code: str | None
    term_type: str
    size: tuple[int, int]
    peer: str = ""
    replay: tuple[str, int | None] | None = None


AppFactory = Callable[[SessionContext], App[Any]]
"""Builds the Textual app for one session. Called on the server's loop, once per session."""
