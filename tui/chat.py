"""The running log of the game and the table chat.

Both hold the hub's last lines (a bounded deque, handed over as a tuple). On every change
only the new lines are added: :func:`new_lines` finds them by matching the old tail with
the new head, so a full deque that drops its oldest line still adds just one line.

:class:`TailLog` shows the newest lines at the bottom. It is not a RichLog on purpose: a
RichLog changes its virtual size with every line, which re-lays out and repaints the whole
screen; this widget only repaints itself (about a tenth of the cost per hub change). It
wraps only the lines it shows; the mouse wheel and PgUp / PgDn scroll it.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from typing import ClassVar, TypeVar

from textual import events
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.reactive import reactive

from engine.tables import ChatLine, LogLine
from engine.text import CHAT_MAX
from lean_textual.cached_lines import CachedLines, keep_shared
from tui.inputs import QuietInput

T = TypeVar("T")

LOG_KINDS = ("stop", "round", "score", "task", "game_over", "end", "timer", "plan")
SCROLL_STEP = 3
TAIL_STYLES = ("more", "name", "bot", *LOG_KINDS)
"""A log's component classes (``tail--name``...): what its lines are formatted with."""

CHAT_HINT = "c to chat · Esc to the board"
"""The chat field's hint where a seated player may chat (the game screen shows others)."""
SHARED_WRAPS_MAX = 2048
_shared_wraps: dict[tuple[object, ...], list[Content]] = {}
"""Entries formatted and wrapped in the process, by the kind of log, the entry, the width
and the styles: the seats at a table add the same new line, and only the first wraps it.
Emptied whole when full."""


def new_lines(old: Sequence[T], new: Sequence[T]) -> tuple[bool, bool, Sequence[T]]:
    """``(reset, grew, lines)``: the lines of ``new`` not yet shown when ``old`` was shown,
    with ``grew`` when the first of them replaces the newest line shown (moves folded into
    it, see :func:`engine.rules.moves_text`); or ``reset`` and all of ``new`` when ``new``
    does not continue ``old`` (a new game)."""
    old, new = tuple(old), tuple(new)
    if new[: len(old)] == old:
        return False, False, new[len(old):]
    if len(new) < len(old):
        return True, False, new
    for dropped in range(len(old)):  # how many of the oldest lines a full deque dropped
        kept = len(old) - dropped
        if dropped and old[dropped:] == new[:kept]:
            return False, False, new[kept:]
        # the newest line grew: what came before it is kept (at least one line of it, once
        # lines were dropped, or an empty match would read any new log as a growth)
        if (kept > 1 or not dropped) and old[dropped:-1] == new[:kept - 1]:
            return False, True, new[kept - 1:]
    return True, False, new


class TailLog(CachedLines):
    """Lines of plain text, newest at the bottom; the wheel scrolls back. Subclasses say
    how an entry looks (:meth:`format`), with styles from component classes."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {f"tail--{name}" for name in TAIL_STYLES}
    back: reactive[int] = reactive(0, init=False)
    """How many wrapped lines the view is scrolled back from the end."""

    def __init__(self, *, id: str | None = None, max_lines: int = 200) -> None:
        super().__init__(id=id)
        self.shown: tuple[object, ...] = ()
        self.entries: deque[object] = deque(maxlen=max_lines)
        self._wrapped: dict[object, list[Content]] = {}
        self._wrapped_width = 0
        self._styles_key: tuple[object, ...] | None = None  # the styles lines are made with

    def show_lines(self, lines: Sequence[object]) -> None:
        """Show the hub's whole tuple of lines; only the new ones are added."""
        lines = tuple(lines)
        if lines == self.shown:
            return
        reset, grew, fresh = new_lines(self.shown, lines)
        self.shown = lines
        if reset:
            self.entries.clear()
            self._wrapped.clear()
            self.back = 0
        else:
            gone = self.entries.pop() if grew and self.entries else None
            if self.back and self._wrapped_width:
                # Keep a player who scrolled back looking at the same lines.
                width = self._wrapped_width
                self.back += sum(len(self._wrap(entry, width)) for entry in fresh) \
                    - (len(self._wrap(gone, width)) if gone is not None else 0)
        self.entries.extend(fresh)
        self._show()

    def format(self, entry: object) -> Content:
        return Content(str(entry))

    def style(self, name: str) -> object:
        return self.component_style(f"tail--{name}")

    def _wrap(self, entry: object, width: int) -> list[Content]:
        if width != self._wrapped_width:
            self._wrapped.clear()
            self._wrapped_width = width
        lines = self._wrapped.get(entry)
        if lines is None:
            if self._styles_key is None:
                self._styles_key = tuple(self.style(name) for name in TAIL_STYLES)
            shared = (type(self), entry, width, self._styles_key)
            lines = _shared_wraps.get(shared)
            if lines is None:
                lines = keep_shared(_shared_wraps, SHARED_WRAPS_MAX, shared,
                                    self.format(entry).wrap(width) or [Content("")])
            if len(self._wrapped) > 4 * (self.entries.maxlen or 200):
                self._wrapped.clear()
            self._wrapped[entry] = lines
        return lines

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._styles_key = None
        self._wrapped.clear()  # made with the old styles

    def _show(self) -> None:
        """Hand the lines in view to :class:`CachedLines`, which repaints the changed ones."""
        width, height = self.content_size
        if width <= 0 or height <= 0 or not self.entries:
            self.show_contents(())
            return
        want = height + self.back
        chunks: list[list[Content]] = []
        count = 0
        for entry in reversed(self.entries):
            lines = self._wrap(entry, width)
            chunks.append(lines)
            count += len(lines)
            if count >= want:
                break
        flat = [line for lines in reversed(chunks) for line in lines]
        back = min(self.back, max(0, len(flat) - height))
        end = len(flat) - back
        visible = flat[max(0, end - height):end]
        if back:
            visible[-1] = Content.styled(f"▼ {back} more below: PgDn",
                                         self.style("more"))  # type: ignore[arg-type]
        self.show_contents(visible)

    def scroll_page(self, direction: int) -> None:
        """A page back (-1) or forward (1), a line of the last page kept; never past the
        oldest line."""
        width, height = self.content_size
        if width <= 0 or height <= 0:
            return
        total = sum(len(self._wrap(entry, width)) for entry in self.entries)
        page = max(1, height - 1)
        self.back = min(max(0, total - height), max(0, self.back - direction * page))

    def on_resize(self) -> None:
        self._show()

    def on_mouse_scroll_up(self, event: events.MouseScrollUp) -> None:
        event.stop()
        self.back += SCROLL_STEP

    def on_mouse_scroll_down(self, event: events.MouseScrollDown) -> None:
        event.stop()
        self.back = max(0, self.back - SCROLL_STEP)

    def watch_back(self) -> None:
        self._show()


class GameLog(TailLog):
    """What happened at the table; moves made by a bot are marked "(bot)"."""

    def format(self, entry: object) -> Content:
        assert isinstance(entry, LogLine)
        parts: list[object] = []
        if entry.kind in LOG_KINDS:
            parts.append((entry.text, self.style(entry.kind)))
        else:
            parts.append(entry.text)
        if entry.by_bot:  # a no-break space: "(bot)" never wraps onto a line of its own
            parts.append(("\u00a0(bot)", self.style("bot")))
        return Content.assemble(*parts)  # type: ignore[arg-type]


class ChatLog(TailLog):
    def format(self, entry: object) -> Content:
        assert isinstance(entry, ChatLine)
        return Content.assemble((entry.name, self.style("name")),  # type: ignore[arg-type]
                                ": ", entry.text)


class ChatPanel(Vertical):
    """The table chat: messages above, one input below. The input takes focus only when
    the player asks for it (``c`` or Tab); Esc goes back to the board."""

    def compose(self) -> ComposeResult:
        yield ChatLog(id="chat-log", max_lines=100)
        yield QuietInput(placeholder=CHAT_HINT, id="chat-input",
                         max_length=CHAT_MAX)
