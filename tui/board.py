"""Widgets of the game board: styled text panels and the 4x4 item grid (the countdown is
in :mod:`tui.countdown`).

Attributes down: the screen sets each widget's data (plain tuples from
:mod:`tui.board_text`); a widget repaints only when its data changed. Messages up: the grid
posts :class:`ItemGrid.Picked` to its screen when the lead chooses a cell. Looks are in
``game.tcss`` (component classes), not here.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import ClassVar

from textual import events
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.message import Message
from textual.reactive import reactive

from engine.clock import now_ms
from engine.rules import COLUMNS, ROWS, Phase, View
from lean_textual import internals as door
from lean_textual.cached_lines import CachedLines, keep_shared
from tui.board_text import Line
from tui.timing import arrival_ms

ROLES = ("title", "name", "me", "key", "card", "secret", "stop", "stop-key", "lead", "warn",
         "dim", "good", "bad", "plan")


class Lines(CachedLines):
    """A few lines of styled plain text. ``lines`` holds ``(text, role)`` spans; roles are
    component classes (``lines--key``...), so user text is never read as markup. Its
    height is set in CSS: more lines than fit are cut, and nothing else moves."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {f"lines--{role}" for role in ROLES}

    lines: reactive[tuple[Line, ...]] = reactive((), repaint=False, layout=False, init=False)
    MAX_MADE = 64

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._made: dict[Line, Content] = {}  # lines seen, as Content: most stay put

    def on_mount(self) -> None:
        self.watch_lines()

    def shown_lines(self) -> tuple[Line, ...]:
        """The lines to show: all of them (:class:`WrappedLines` may fit them)."""
        return self.lines

    def watch_lines(self) -> None:
        made = self._made
        if len(made) > self.MAX_MADE:
            made.clear()
        contents = []
        for line in self.shown_lines():
            content = made.get(line)
            if content is None:
                content = made[line] = self.content_of(line)
            contents.append(content)
        self.show_contents(contents)

    def content_of(self, line: Line) -> Content:
        parts: list[str | tuple[str, object]] = []
        for text, role in line:
            parts.append((text, self.component_style(f"lines--{role}")) if role else text)
        return Content.assemble(*parts)  # type: ignore[arg-type]

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._made.clear()  # their colours came from the styles


class WrappedLines(Lines):
    """:class:`Lines` wrapped to the widget's width, for text that must be read whole (a
    plan just revealed). When they need more rows than the widget has, the first rows are
    left out: the newest lines, and what to do now, come last."""

    MAX_WRAPPED = 64

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._wrapped: dict[tuple[object, ...], list[Content]] = {}
        self.fit: Callable[[tuple[Line, ...], int], tuple[Line, ...]] | None = None
        """Given the lines and the rows there are, the lines to show (set before the
        lines): for text whose first line must stay, such as the round's summary."""

    def shown_lines(self) -> tuple[Line, ...]:
        fit, height = self.fit, self.content_size.height
        return self.lines if fit is None or height <= 0 else fit(self.lines, height)

    def show_contents(self, contents: Sequence[Content]) -> None:
        width, height = self.content_size
        if width <= 0 or height <= 0:
            super().show_contents(contents)
            return
        wrapped = self._wrapped
        if len(wrapped) > self.MAX_WRAPPED:
            wrapped.clear()
        rows: list[Content] = []
        for content in contents:
            if content.cell_length <= width:
                rows.append(content)
                continue
            key = (content.plain, tuple(content.spans), width)  # (Content == compares text)
            lines = wrapped.get(key)
            if lines is None:
                lines = wrapped[key] = content.wrap(width) or [content]
            rows.extend(lines)
        super().show_contents(rows[-height:])

    def on_resize(self) -> None:
        self.watch_lines()


GRID_STYLES = ("header", "current", "label", "picked", "cursor", "spent")
"""The grid's component classes (``grid--header``...): what its lines are made with."""
MADE_GRIDS_MAX = 256
_made_grids: dict[tuple[object, ...], list[Content]] = {}
"""Grids' lines made in the process, by what they show and the styles they were made with
(:meth:`ItemGrid._shared_grid_lines`); emptied whole when full."""


class ItemGrid(CachedLines, can_focus=True):
    """The 4x4 grid of items with the lead's tokens. For the lead while picking, a cursor
    lives in the current column only (items are chosen left to right)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up,k", "cursor(-1)", "Move the cursor up the column (lead)"),
        Binding("down,j", "cursor(1)", "Move the cursor down the column (lead)"),
        Binding("enter", "pick", "Pick the highlighted item (lead)"),
    ]
    COMPONENT_CLASSES: ClassVar[set[str]] = {f"grid--{name}" for name in GRID_STYLES}
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
    cursor_row: reactive[int] = reactive(0, init=False, repaint=False)
    """The lead's cursor row; its watcher repaints just the rows that change."""

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
            self._show()

    def show_title(self, title: str) -> None:
        """Set the border title, repainting only the border's row (assigning
        ``border_title`` repaints the whole grid, and it changes with every pick)."""
        current = door.border_title(self)
        if current is not None and current.plain == title:
            return
        door.set_border_title(self, Content(title))
        if self.is_mounted:
            self._refresh_lines([-self.styles.gutter.top])  # the border's row
        else:
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
        self._post_pick(self.column, self.cursor_row, now_ms())

    CURSOR_KEYS: ClassVar[dict[str, int]] = {"up": -1, "k": -1, "down": 1, "j": 1}
    PLAY_KEYS: ClassVar[frozenset[str]] = frozenset({"enter", "1", "2", "3", "4",
                                                     *CURSOR_KEYS})

    def take_key(self, event: events.Key) -> bool:
        """Play ``event`` now, from the app's own turn, if the grid would play it when it
        reached the grid's queue; False (nothing done) otherwise. The app calls this so a
        lead's pick waits in one queue fewer. Only while nothing waits in the grid's queue:
        keys of a burst keep their order."""
        if (event.key not in self.PLAY_KEYS or not self.can_pick
                or self.message_queue_size):
            return False
        self.on_key(event)
        return True

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
        header = 1 if self._has_header else 0
        if offset is None or offset.y < header:
            return
        cell = self._cell_width()
        column = (offset.x - self.LABEL) // cell if offset.x >= self.LABEL else -1
        row = offset.y - header
        if 0 <= column < COLUMNS and 0 <= row < ROWS:
            if column == self.column:
                self.cursor_row = row
            self._post_pick(column, row, arrival_ms(event))

    def _post_pick(self, column: int, row: int, at_ms: float) -> None:
        # Straight to the screen, which plays it: posted to the grid, the message would
        # wait its turn on the grid's queue first, then bubble up to the screen's (each
        # queue is one more turn of a busy server's loop before every seat sees the pick).
        self.screen.post_message(self.Picked(self, column, row, at_ms))

    @property
    def _compact(self) -> bool:
        return self.content_size.height < ROWS

    @property
    def _has_header(self) -> bool:
        """Column titles above the rows, when there is room (the border title says it
        otherwise)."""
        return self.content_size.height > ROWS

    def _cell_width(self) -> int:
        return max(4, (self.content_size.width - self.LABEL) // COLUMNS)

    def _show(self) -> None:
        view = self.view
        if view is None or self.content_size.width <= 0:
            self.show_contents(())
        elif self._compact:
            self.show_contents([self._chosen_line(view)])
        else:
            self.show_contents(self._shared_grid_lines(view))

    def on_resize(self) -> None:
        self._show()

    def _style(self, name: str) -> object:
        return self.component_style(f"grid--{name}")

    def _chosen_line(self, view: View) -> Content:
        parts: list[object] = [("Chosen: ", self._style("header"))]
        for column, item in enumerate(view.picked_items()):
            if column:
                parts.append(" · ")
            parts.append((item, self._style("picked")))
        return Content.assemble(*parts)  # type: ignore[arg-type]

    def _shared_grid_lines(self, view: View) -> list[Content]:
        """The grid's lines, made once per process for everything they show: the guessers
        at a table see the same grid, and only the first of them makes it."""
        cursor = self.cursor_row if view.can_pick() else -1
        key = (view.grid, view.picks, view.phase, cursor, self._cell_width(),
               self._has_header, *(self._style(name) for name in GRID_STYLES))
        lines = _made_grids.get(key)
        if lines is None:
            lines = keep_shared(_made_grids, MADE_GRIDS_MAX, key, self._grid_lines(view))
        return lines

    def _grid_lines(self, view: View) -> list[Content]:
        cell = self._cell_width()
        current = len(view.picks) if view.phase is Phase.PICKING else -1
        cursor = self.cursor_row if view.can_pick() else -1
        lines: list[Content] = []
        if self._has_header:
            parts: list[object] = [" " * self.LABEL]
            for column in range(COLUMNS):
                here = column == current
                title = f"{'▼' if here else ' '} Column {column + 1}"
                if column < len(view.picks):
                    title += " ✓"
                parts.append((_fit(title, cell),
                              self._style("current" if here else "header")))
            lines.append(Content.assemble(*parts))  # type: ignore[arg-type]
        for row in range(ROWS):
            parts = [(f"{row + 1} ", self._style("label"))]
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
                # A cell is the marker's column, the item and a gap before the next
                # cell's marker (an item that filled its cell touched a picked one's ●).
                fitted = _fit(text, cell) if column == COLUMNS - 1 else _fit(text, cell - 1) + " "
                parts.append((fitted, self._style(style)) if style else fitted)
            lines.append(Content.assemble(*parts))  # type: ignore[arg-type]
        return lines

    def watch_cursor_row(self) -> None:
        self._show()


@lru_cache(maxsize=2048)
def _fit(text: str, width: int) -> str:
    """``text`` cut with an ellipsis or padded to exactly ``width`` cells."""
    content = Content(text).truncate(width, ellipsis=True, pad=True)
    return content.plain
