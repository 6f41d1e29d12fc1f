"""A list of rows with a cursor: the lobby's tables and a table's seats.

Textual's ``DataTable`` did this job before. Each one carried ten component-class nodes,
two scroll bars and a row object, a key and a render cache per row, and refilling it
(which the lobby does on every change to any table) left the old rows as cyclic garbage
that only a full collection frees: in a lobby watching tables fill up, about 30,000
objects per player. A :class:`RowList` is one :class:`~lean_textual.cached_lines.CachedLines`
widget: a row is a line of plain text, drawn once and kept until it changes, and its
styles come from the process's shared component styles.

Keys (letters are left to the screen): up and down, Home, End, PageUp and PageDown move
the cursor; Enter selects the row under it. A click moves the cursor to a row, and a click
on the cursor's row selects it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from rich.cells import cell_len
from textual import events
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.message import Message

from lean_textual.cached_lines import CachedLines

Cell = str | tuple[str, str]
"""A cell's text, or ``(text, role)`` with role ``"dim"`` or ``"strong"``."""


def _fit(text: str, width: int) -> str:
    """``text`` cut or padded to ``width`` cells (0: as it is)."""
    if width <= 0:
        return text
    if cell_len(text) > width:
        text = Content(text).truncate(width, ellipsis=True).plain
    return text + " " * (width - cell_len(text))


class RowList(CachedLines, can_focus=True):
    """Rows of cells in columns of set widths (the last may be 0: the rest of the line),
    under an optional header; each row has a key."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {"rows--header", "rows--cursor", "rows--dim",
                                             "rows--strong", "rows--even"}
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "cursor(-1)", "Up", show=False),
        Binding("down", "cursor(1)", "Down", show=False),
        Binding("pageup", "page(-1)", "Page up", show=False),
        Binding("pagedown", "page(1)", "Page down", show=False),
        Binding("home", "cursor_to(0)", "First", show=False),
        Binding("end", "cursor_to(-1)", "Last", show=False),
        Binding("enter", "select", "Select", show=False),
    ]
    DEFAULT_CSS = """
    RowList { height: auto; }
    RowList > .rows--header { color: $text-muted; text-style: bold; }
    RowList > .rows--dim { color: $text-muted; }
    RowList > .rows--strong { text-style: bold; }
    RowList > .rows--even { background: $surface-lighten-1 50%; }
    RowList > .rows--cursor { background: $block-cursor-blurred-background; }
    RowList:focus > .rows--cursor {
        background: $block-cursor-background;
        color: $block-cursor-foreground;
        text-style: $block-cursor-text-style;
    }
    """

    class RowMessage(Message):
        def __init__(self, rows: RowList, key: str | None) -> None:
            super().__init__()
            self.rows = rows
            self.key = key

        @property
        def control(self) -> RowList:
            return self.rows

    class Highlighted(RowMessage):
        """The cursor moved to another row (``key`` None: no rows)."""

    class Selected(RowMessage):
        """Enter (or a click) on the row with ``key``."""

    def __init__(self, columns: Sequence[tuple[str, int]], *, header: bool = True,
                 zebra: bool = False, empty: str = "", id: str | None = None,
                 classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.columns = tuple(columns)
        self.header = header
        self.zebra = zebra
        self.empty = empty
        """What the list says when it has no rows (in place of the header)."""
        self._rows: list[tuple[str, tuple[Cell, ...]]] = []
        self._cursor = 0
        self._top = 0  # the first row in view
        self._measured: int | None = None  # the lines it asked of the last layout (auto)

    # -- what it holds ------------------------------------------------------------------------

    @property
    def row_count(self) -> int:
        return len(self._rows)

    @property
    def keys(self) -> list[str]:
        return [key for key, _ in self._rows]

    @property
    def cursor_row(self) -> int:
        return self._cursor

    @property
    def cursor_key(self) -> str | None:
        return self._rows[self._cursor][0] if self._rows else None

    def row_text(self, row: int) -> list[str]:
        """The cells of ``row`` as text."""
        return [cell if isinstance(cell, str) else cell[0] for cell in self._rows[row][1]]

    def set_rows(self, rows: Sequence[tuple[str, Sequence[Cell]]]) -> None:
        """Show ``rows`` (key, cells); the cursor stays on the same key if it is still
        there, else on the same place."""
        was = self.cursor_key
        self._rows = [(key, tuple(cells)) for key, cells in rows]
        keys = self.keys
        cursor = keys.index(was) if was in keys else min(self._cursor, len(keys) - 1)
        self._move(max(cursor, 0), announce=False)
        if self.cursor_key != was:
            self.post_message(self.Highlighted(self, self.cursor_key))

    def move_cursor(self, *, row: int) -> None:
        self._move(row)

    # -- drawing ---------------------------------------------------------------------------

    def get_content_height(self, container: object, viewport: object, width: int) -> int:
        self._measured = self._lines_wanted
        return self._measured

    @property
    def _lines_wanted(self) -> int:
        if not self._rows and self.empty:
            return 1
        return len(self._rows) + (1 if self.header else 0)

    @property
    def _visible_rows(self) -> int:
        return max(1, self.content_size.height - (1 if self.header else 0))

    def _move(self, row: int, *, announce: bool = True) -> None:
        """Put the cursor on ``row`` (kept in range and in view); a move is announced
        with :class:`Highlighted` unless ``announce`` is False."""
        count = len(self._rows)
        row = 0 if count == 0 else max(0, min(row, count - 1))
        moved = row != self._cursor
        self._cursor = row
        visible = self._visible_rows
        if row < self._top:
            self._top = row
        elif row >= self._top + visible:
            self._top = row - visible + 1
        self._top = max(0, min(self._top, max(0, count - visible)))
        self._show()
        if moved and announce:
            self.post_message(self.Highlighted(self, self.cursor_key))

    def _show(self) -> None:
        if not self.is_mounted:
            return
        if self._measured is not None and self._measured != self._lines_wanted:
            self.refresh(layout=True)  # a list as tall as its rows gained or lost one
        lines: list[Content] = []
        if not self._rows and self.empty:
            lines.append(Content(self.empty))
        elif self.header:
            titles = "".join(f" {_fit(title, width)} " for title, width in self.columns)
            lines.append(Content.styled(titles.rstrip(), self.component_style("rows--header")))
        end = self._top + self._visible_rows
        for index in range(self._top, min(end, len(self._rows))):
            lines.append(self._line(index))
        self.show_contents(lines)

    def _line(self, index: int) -> Content:
        parts: list[str | tuple[str, object]] = []
        for (_, width), cell in zip(self.columns, self._rows[index][1], strict=False):
            text, role = (cell, "") if isinstance(cell, str) else cell
            fitted = f" {_fit(text, width)} "  # a cell's padding, as DataTable had
            parts.append((fitted, self.component_style(f"rows--{role}")) if role else fitted)
        line = Content.assemble(*parts)  # type: ignore[arg-type]
        if index == self._cursor or (self.zebra and index % 2):
            line = line.pad_right(max(0, self.content_size.width - line.cell_length))
        if index == self._cursor:
            return line.stylize(self.component_style("rows--cursor"))  # type: ignore[arg-type]
        if self.zebra and index % 2:
            return line.stylize_before(self.component_style("rows--even"))  # type: ignore[arg-type]
        return line

    def on_mount(self) -> None:
        self._show()

    def on_resize(self) -> None:
        self._move(self._cursor, announce=False)

    def notify_style_update(self) -> None:
        super().notify_style_update()
        if self.is_mounted:
            self.call_later(self._show)  # the cursor's colour follows the focus

    # -- keys and clicks ---------------------------------------------------------------------

    def action_cursor(self, step: int) -> None:
        self._move(self._cursor + step)

    def action_page(self, step: int) -> None:
        self._move(self._cursor + step * self._visible_rows)

    def action_cursor_to(self, row: int) -> None:
        self._move(row if row >= 0 else len(self._rows) - 1)

    def action_select(self) -> None:
        key = self.cursor_key
        if key is not None:
            self.post_message(self.Selected(self, key))

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)  # inside the border and padding, if any
        if offset is None:
            return
        header = 1 if self.header else 0
        row = self._top + offset.y - header
        if not 0 <= row < len(self._rows) or offset.y < header:
            return
        if row == self._cursor:
            self.action_select()
        else:
            self._move(row)
