"""Widgets of the game board: styled text panels, the countdown, and the 4x4 item grid.

Attributes down: the screen sets each widget's data (plain tuples from
:mod:`tui.board_text`); a widget repaints only when its data changed. Messages up: the grid
posts :class:`ItemGrid.Picked` when the lead chooses a cell. Looks are in ``game.tcss``
(component classes), not here.
"""

from __future__ import annotations

import math
from typing import ClassVar

from textual import events
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.message import Message
from textual.reactive import reactive
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Static

from engine import hub
from engine.rules import COLUMNS, ROWS, Phase, View
from tui.board_text import Line
from tui.timing import arrival_ms

ROLES = ("title", "name", "me", "key", "card", "secret", "stop", "stop-key", "lead", "warn",
         "dim", "good", "bad", "plan")


class Lines(Widget):
    """A few lines of styled plain text. ``lines`` holds ``(text, role)`` spans; roles are
    component classes (``lines--key``...), so user text is never read as markup."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {f"lines--{role}" for role in ROLES}
    DEFAULT_CSS = """
    Lines { height: auto; }
    """

    lines: reactive[tuple[Line, ...]] = reactive((), repaint=False, layout=False, init=False)

    def on_mount(self) -> None:
        self.display = bool(self.lines)

    def watch_lines(self, old: tuple[Line, ...], new: tuple[Line, ...]) -> None:
        # Only a change in the number of lines can change the widget's height.
        if bool(old) != bool(new):
            self.display = bool(new)
        self.refresh(layout=len(old) != len(new))

    def render(self) -> Content:
        parts: list[str | tuple[str, object]] = []
        for index, line in enumerate(self.lines):
            if index:
                parts.append("\n")
            for text, role in line:
                if role:
                    parts.append((text, self.get_visual_style(f"lines--{role}")))
                else:
                    parts.append(text)
        return Content.assemble(*parts)  # type: ignore[arg-type]


class Countdown(Static):
    """Seconds left on the turn timer. Ticks once a second, only while a deadline exists."""

    deadline: reactive[float | None] = reactive(None, init=False)

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("", id=id)
        self._ticker: Timer | None = None

    def watch_deadline(self, deadline: float | None) -> None:
        if deadline is None:
            if self._ticker is not None:
                self._ticker.stop()
                self._ticker = None
            self.update("", layout=False)
            return
        if self._ticker is None:
            self._ticker = self.set_interval(1.0, self.tick)
        self.tick()

    def tick(self) -> None:
        if self.deadline is None:
            return
        left = max(0, math.ceil((self.deadline - hub.now_ms()) / 1000))
        self.update(f"⏱ {left // 60}:{left % 60:02d}", layout=False)
        self.set_class(left <= 10, "-urgent")


class ItemGrid(Widget, can_focus=True):
    """The 4x4 grid of items with the lead's tokens. For the lead while picking, a cursor
    lives in the current column only (items are chosen left to right)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up,k", "cursor(-1)", "Move the cursor up the column (lead)"),
        Binding("down,j", "cursor(1)", "Move the cursor down the column (lead)"),
        Binding("enter", "pick", "Pick the highlighted item (lead)"),
    ]
    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "grid--header", "grid--current", "grid--label", "grid--picked", "grid--cursor",
        "grid--spent",
    }
    LABEL = 2

    class Picked(Message):
        """The lead chose the item at ``column``, ``row`` (0-based); ``at_ms``: when the
        key or click reached the server."""

        def __init__(self, grid: ItemGrid, column: int, row: int, at_ms: float) -> None:
            super().__init__()
            self.grid = grid
            self.column = column
            self.row = row
            self.at_ms = at_ms

        @property
        def control(self) -> ItemGrid:
            return self.grid

    view: reactive[View | None] = reactive(None, init=False, repaint=False)
    """The seat's game view; only the fields the grid draws are compared (see watch)."""
    cursor_row: reactive[int] = reactive(0, init=False)

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._drawn: tuple[object, ...] | None = None

    @staticmethod
    def drawn_fields(view: View | None) -> tuple[object, ...] | None:
        if view is None:
            return None
        return (view.grid, view.picks, view.phase, view.can_pick(), view.is_lead)

    def watch_view(self, view: View | None) -> None:
        drawn = self.drawn_fields(view)
        if drawn != self._drawn:
            self._drawn = drawn
            self.refresh()

    @property
    def can_pick(self) -> bool:
        return self.view is not None and self.view.can_pick()

    @property
    def column(self) -> int:
        return 0 if self.view is None else len(self.view.picks)

    def action_cursor(self, step: int) -> None:
        if self.can_pick:
            self.cursor_row = (self.cursor_row + step) % ROWS

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("pick", "cursor"):
            return self.can_pick
        return True

    def action_pick(self) -> None:
        self._post_pick(self.column, self.cursor_row, hub.now_ms())

    CURSOR_KEYS: ClassVar[dict[str, int]] = {"up": -1, "k": -1, "down": 1, "j": 1}

    def on_key(self, event: events.Key) -> None:
        # Handled here rather than by the bindings (which serve the help screen): a pick
        # carries its key's arrival time, and "down, enter" typed in one burst must move
        # the cursor before picking (bindings run later, once the key has bubbled up).
        if not self.can_pick:
            return
        if event.key == "enter":
            event.stop()
            event.prevent_default()
            self._post_pick(self.column, self.cursor_row, arrival_ms(event))
        elif event.key in self.CURSOR_KEYS:
            event.stop()
            event.prevent_default()
            self.action_cursor(self.CURSOR_KEYS[event.key])
        elif event.key in ("1", "2", "3", "4"):  # the row in the current column
            event.stop()
            event.prevent_default()
            self.cursor_row = int(event.key) - 1
            self._post_pick(self.column, self.cursor_row, arrival_ms(event))

    def on_mouse_down(self, event: events.MouseDown) -> None:
        view = self.view
        if view is None or not view.is_lead or event.button != 1 or self._compact:
            return
        offset = event.get_content_offset(self)
        if offset is None or offset.y < 1:
            return
        cell = self._cell_width()
        column = (offset.x - self.LABEL) // cell if offset.x >= self.LABEL else -1
        row = offset.y - 1
        if 0 <= column < COLUMNS and 0 <= row < ROWS:
            if column == self.column:
                self.cursor_row = row
            self._post_pick(column, row, arrival_ms(event))

    def _post_pick(self, column: int, row: int, at_ms: float) -> None:
        self.post_message(self.Picked(self, column, row, at_ms))

    @property
    def _compact(self) -> bool:
        return self.content_size.height < ROWS + 1

    def _cell_width(self) -> int:
        return max(4, (self.content_size.width - self.LABEL) // COLUMNS)

    def render(self) -> Content:
        view = self.view
        if view is None:
            return Content("")
        if self._compact:
            return self._render_chosen(view)
        return self._render_grid(view)

    def _style(self, name: str) -> object:
        return self.get_visual_style(f"grid--{name}")

    def _render_chosen(self, view: View) -> Content:
        parts: list[object] = [("Chosen: ", self._style("header"))]
        for column, item in enumerate(view.picked_items()):
            if column:
                parts.append(" · ")
            parts.append((item, self._style("picked")))
        return Content.assemble(*parts)  # type: ignore[arg-type]

    def _render_grid(self, view: View) -> Content:
        cell = self._cell_width()
        current = len(view.picks) if view.phase is Phase.PICKING else -1
        cursor = self.cursor_row if view.can_pick() else -1
        parts: list[object] = [" " * self.LABEL]
        for column in range(COLUMNS):
            here = column == current
            title = f"{'▼' if here else ' '} Column {column + 1}"
            if column < len(view.picks):
                title += " ✓"
            parts.append((_fit(title, cell), self._style("current" if here else "header")))
        for row in range(ROWS):
            parts.append("\n")
            parts.append((f"{row + 1} ", self._style("label")))
            for column in range(COLUMNS):
                item = view.grid[column][row]
                picked = column < len(view.picks) and view.picks[column] == row
                if picked:
                    text, style = "●" + item, "picked"
                elif column == current and row == cursor:
                    text, style = "▶" + item, "cursor"
                elif column < len(view.picks) or view.phase is not Phase.PICKING:
                    text, style = " " + item, "spent"
                elif column == current:
                    text, style = " " + item, "current"
                else:
                    text, style = " " + item, ""
                # No gap between cells: the next cell's marker column is the gap.
                fitted = _fit(text, cell)
                parts.append((fitted, self._style(style)) if style else fitted)
        return Content.assemble(*parts)  # type: ignore[arg-type]

    def watch_cursor_row(self) -> None:
        self.refresh()


def _fit(text: str, width: int) -> str:
    """``text`` cut with an ellipsis or padded to exactly ``width`` cells."""
    content = Content(text).truncate(width, ellipsis=True, pad=True)
    return content.plain
