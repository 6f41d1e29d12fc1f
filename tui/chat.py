"""The running log of the game and the table chat.

Both hold the hub's last lines (a bounded deque, handed over as a tuple). On every change
only the new lines are written: :func:`new_lines` finds them by matching the old tail with
the new head, so a full deque that drops its oldest line still appends just one line.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Input, RichLog

from engine.hub import ChatLine, LogLine
from engine.text import CHAT_MAX

T = TypeVar("T")

KIND_STYLES = {
    "stop": "bold red",
    "round": "bold",
    "score": "green",
    "task": "bold",
    "game_over": "bold",
    "timer": "yellow",
    "reveal": "",
    "plan": "italic",
}


def new_lines(old: Sequence[T], new: Sequence[T]) -> tuple[bool, Sequence[T]]:
    """``(reset, lines)``: the lines of ``new`` not yet shown when ``old`` was shown, or
    ``reset`` and all of ``new`` when ``new`` does not continue ``old`` (a new game)."""
    old, new = tuple(old), tuple(new)
    if new[: len(old)] == old:
        return False, new[len(old):]
    if len(new) < len(old):
        return True, new
    for dropped in range(1, len(old)):
        kept = len(old) - dropped
        if old[dropped:] == new[:kept]:
            return False, new[kept:]
    return True, new


class LinesLog(RichLog, can_focus=False):
    """A RichLog fed with the hub's whole tuple each time; writes only what is new. Not
    focusable: Tab goes from the board straight to the chat input (the wheel scrolls)."""

    def __init__(self, *, id: str | None = None, max_lines: int = 200) -> None:
        super().__init__(id=id, max_lines=max_lines, wrap=True, markup=False, highlight=False,
                         min_width=10, auto_scroll=True)
        self.shown: tuple[object, ...] = ()
        self._wrapped_at = 0

    def show_lines(self, lines: Sequence[object]) -> None:
        lines = tuple(lines)
        if lines == self.shown:
            return
        reset, fresh = new_lines(self.shown, lines)
        self.shown = lines
        if reset:
            self.clear()
        for line in fresh:
            self.write(self.format(line))

    def format(self, line: object) -> Text:
        return Text(str(line))

    def on_resize(self, event: events.Resize) -> None:
        # RichLog wraps lines as they are written, and does not follow the end when it
        # shrinks (the panel above grew): rewrap at a new width, and keep the end in view.
        if event.size.width != self._wrapped_at and self.shown:
            self.clear()
            for line in self.shown:
                self.write(self.format(line))
        self._wrapped_at = event.size.width
        self.scroll_end(animate=False, immediate=False, x_axis=False)


class GameLog(LinesLog):
    """What happened at the table; moves made by a bot are marked "(bot)"."""

    def format(self, line: object) -> Text:
        assert isinstance(line, LogLine)
        text = Text(line.text, style=KIND_STYLES.get(line.kind, ""))
        if line.by_bot:
            text.append(" (bot)", style="dim")
        return text


class ChatLog(LinesLog):
    def format(self, line: object) -> Text:
        assert isinstance(line, ChatLine)
        return Text.assemble((line.name, "bold"), ": ", line.text)


class ChatPanel(Vertical):
    """The table chat: messages above, one input below. The input takes focus only when
    the player asks for it (``c`` or Tab); Esc goes back to the board."""

    def compose(self) -> ComposeResult:
        yield ChatLog(id="chat-log", max_lines=100)
        chat = Input(placeholder="c to chat · Esc to leave", id="chat-input",
                     max_length=CHAT_MAX, compact=True)
        chat.cursor_blink = False
        yield chat
