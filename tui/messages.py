"""Messages that carry the hub's news into one app, and the one way screens run commands.

The hub calls a session's callbacks from whatever code changed the table: another player's
app, a timer, or the journal's report that a move is on disk. The app posts these messages
from them and handles them on its own message loop, where touching its widgets is safe.
One exception: told where no app's code runs, an idle app already showing the table's
screen shows the change in that same turn (``MissionApp._show_in_this_turn``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ParamSpec

from textual.message import Message
from textual.message_pump import MessagePump

from engine.records import GameSummary
from engine.rules import IllegalAction

P = ParamSpec("P")


class HubChanged(Message):
    """The session's table (or, away from any table, the lobby list) changed: re-read it.

    A burst of changes coalesces into one: a pending HubChanged replaces an older one.
    """

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, HubChanged)


class HubNotice(Message):
    """A line the hub wants this player to read (shown as a notification)."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text


class ShowSetup(Message):
    """Between games: show the table setup (True) or the last game's results (False)."""

    def __init__(self, setup: bool) -> None:
        super().__init__()
        self.setup = setup


class ShowResults(Message):
    """The last round's summary has been read: show the game's results."""


class OpenReplay(Message):
    """Watch a finished game again (the past games list asks the app, which reads it)."""

    def __init__(self, game: GameSummary) -> None:
        super().__init__()
        self.game = game


def attempt(node: MessagePump, command: Callable[P, object], *args: P.args,
            **kwargs: P.kwargs) -> bool:
    """Run one hub command for the player behind ``node``'s app.

    Returns whether the hub accepted it. A refusal (:class:`IllegalAction`) becomes a
    warning notification and nothing changes;
    either way the app is asked to re-read its view, because some commands (leaving a table,
    say) change what this session sees without the hub calling it back.
    """
    app = node.app
    try:
        command(*args, **kwargs)
    except IllegalAction as refusal:
        app.notify(str(refusal), severity="warning", markup=False)
        return False
    finally:
        app.post_message(HubChanged())
    return True
