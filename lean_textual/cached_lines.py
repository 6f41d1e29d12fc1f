"""A widget that draws each of its lines once and keeps it until that line changes.

The game screen changes many times a minute on every seat of every table. Textual redraws
a whole widget when it is refreshed, building every line again; this base class instead
takes the widget's lines as :class:`~textual.content.Content` (cheap to build and compare),
refreshes only the lines that differ from the ones shown, and keeps each line's rendered
:class:`~textual.strip.Strip` until its text, the widget's width or its styles change.

Subclasses build their lines from their data and call :meth:`CachedLines.show_contents`;
they never call ``refresh()`` themselves. A change of text never re-lays out the screen:
the widget's height comes from CSS. One sized by its lines (``height: auto``) is measured
only at a layout, so it must ask for one when its number of lines changes, as
:class:`~tui.row_list.RowList` does (without it, the lobby's list kept showing one table).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple, TypeVar

from textual.content import Content
from textual.geometry import Region, Size
from textual.strip import Strip
from textual.widget import Widget

from lean_textual import internals as door
from lean_textual.internals import DEFAULT_TERMINAL_THEME, StylesCache
from lean_textual.steady import PaintedInTurn, queue_rows
from lean_textual.styles import KeepsItsPlace, shared_component_style


def _key(content: Content) -> tuple[object, ...]:
    return (content.plain, tuple(content.spans))


V = TypeVar("V")


def keep_shared(cache: dict[Any, V], limit: int, key: object, value: V) -> V:
    """Store ``value`` in ``cache``, one of the process's caches that the seats at a table
    share, and return it. Such a cache is emptied whole when it holds ``limit`` entries:
    what is on screen is kept by the widgets meanwhile, and the rest is made again when
    next needed."""
    if len(cache) >= limit:
        cache.clear()
    cache[key] = value
    return value


SHARED_STRIPS_MAX = 4096
_shared_strips: dict[tuple[object, ...], Strip] = {}
"""Content lines drawn in the process, by what they show, their width and the widget's
style: the seats at a table draw the same grid rows and log lines, and only the first to
draw one does the work (a strip is immutable). Emptied whole when full (a few MB): the
lines on screen are kept by their widgets' finished rows meanwhile, and any other is
drawn again when next needed."""


SHARED_ROWS_MAX = 4096
_shared_rows: dict[tuple[object, ...], Strip] = {}
"""Finished content rows (a content line with its padding, border and background) drawn in
the process, by what they show and everything that finishes them: the seats at a table
finish the same grid rows and log lines, and only the first to finish one does the work.
Emptied whole when full, like :data:`_shared_strips`."""


def finish_key(widget: Widget, visual_style: object) -> tuple[object, ...] | None:
    """What finishing a content row of ``widget`` reads from its styles (besides its
    sizes, colours and opacity, which Textual hands over with each row): the visual style
    (a blank row's colours), the side borders, the padding, text opacity, tint and hatch.
    None with an outline, which is drawn per row, not per content."""
    styles = widget.styles
    if any(edge for edge, _colour in styles.outline):
        return None
    _top, right, _bottom, left = styles.border
    return (visual_style, left, right, styles.padding, styles.text_opacity, styles.tint,
            styles.hatch if styles.has_rule("hatch") else None)


class _LastDrawn(NamedTuple):
    """What Textual finished a widget's lines with (``StylesCache.render``'s arguments,
    content size and padding filled in, but not the widget's styles and line method,
    which lead back to the widget: kept here they would make widget and cache a cycle),
    and the widget's :func:`finish_key`."""

    size: Size
    content_size: Size
    padding: Any
    base_background: Any
    background: Any
    filters: Any
    border_title: Any
    border_subtitle: Any
    opacity: float
    ansi_theme: Any
    native_ansi: bool
    finish: tuple[object, ...] | None


class _RowsByContent(StylesCache):
    """Textual's cache of a widget's finished lines (content with its padding, border and
    background), which also keeps each content row's finished line by what it shows.

    Textual keeps finished lines by row: when a log scrolls by one line, every row is
    dirty and each is finished again, border and padding re-read from the styles, though
    only one shows anything new. Here a row whose content was finished before (at any row,
    by any widget that finishes it alike) is handed back as it was, from
    :data:`_shared_rows`: the key is the content line, the widget's sizes, colours,
    opacity and theme (Textual's arguments) and :func:`finish_key` (its styles)."""

    def __init__(self) -> None:
        super().__init__()
        self.keys: list[tuple[object, ...]] | None = None
        """The widget's line keys while it draws (set by :meth:`CachedLines.render_lines`;
        the cache holds no reference to its widget, which would make the two a cycle)."""
        self.finish: tuple[object, ...] | None = None
        """The widget's :func:`finish_key` while it draws (None: rows are not shared)."""
        self.last: _LastDrawn | None = None
        """How the widget's lines were last finished, kept until a whole refresh empties
        the cache (a style, a size or a colour changed): what :meth:`finished_row`
        finishes a changed row with, without Textual's reading of the widget."""

    def render(self, styles: Any, size: Any, base_background: Any, background: Any,
               render_content_line: Callable[[int], Strip], filters: Any,
               border_title: Any, border_subtitle: Any, content_size: Any = None,
               padding: Any = None, crop: Region | None = None, opacity: float = 1.0,
               ansi_theme: Any = DEFAULT_TERMINAL_THEME, native_ansi: bool = False,
               ) -> list[Strip]:
        strips = super().render(styles, size, base_background, background,
                                render_content_line, filters, border_title,
                                border_subtitle, content_size=content_size, padding=padding,
                                crop=crop, opacity=opacity, ansi_theme=ansi_theme,
                                native_ansi=native_ansi)
        self.last = _LastDrawn(  # after: a new width empties the cache as it draws
            size, size if content_size is None else content_size,
            styles.padding if padding is None else padding, base_background, background,
            filters, border_title, border_subtitle, opacity, ansi_theme, native_ansi,
            self.finish)
        return strips

    def clear(self) -> None:
        super().clear()
        self.last = None

    def finished_row(self, widget: CachedLines, row: int) -> Strip | None:
        """Content row ``row`` of ``widget`` (this cache's widget) finished as its last
        drawing finished its lines, and kept as Textual's own cache keeps it; None when
        there is no such drawing to follow (nothing drawn since the cache was emptied).
        The row is returned with the widget's line filters applied (Textual keeps it
        without: they are applied as it is drawn, and each strip keeps what a filter
        made of it)."""
        finished = self.finished_row_kept(widget, row)
        return None if finished is None else finished[1]

    def finished_row_kept(self, widget: CachedLines, row: int) -> tuple[Strip, Strip] | None:
        """:meth:`finished_row`, with the strip kept (before the line filters) first."""
        last = self.last
        if last is None:
            return None
        styles = widget.styles
        y = row + styles.gutter.top
        title, subtitle = last.border_title, last.border_subtitle
        if not 0 <= row < last.content_size.height:  # a border row: its title may be new
            title, subtitle = door.border_titles(widget, last.base_background)
        self.keys, self.finish = widget._keys, last.finish
        try:
            strip = self.render_line(styles, y, last.size, last.content_size,
                                     last.padding, last.base_background, last.background,
                                     widget.render_line, title, subtitle, last.opacity,
                                     last.ansi_theme, last.native_ansi)
        finally:
            self.keys = self.finish = None
        door.keep_finished_line(self, y, strip)
        kept = strip
        for line_filter in last.filters:
            strip = strip.apply_filter(line_filter, last.background)
        return kept, strip

    def render_line(self, styles: Any, y: int, size: Any, content_size: Any, padding: Any,
                    base_background: Any, background: Any,
                    render_content_line: Callable[[int], Strip], *rest: Any) -> Strip:
        # rest: the border's titles (drawn on border rows only), opacity, ANSI theme, native
        keys, finish = self.keys, self.finish
        row = y - styles.gutter.top
        if keys is None or finish is None or not 0 <= row < content_size.height:
            return super().render_line(styles, y, size, content_size, padding,
                                       base_background, background, render_content_line,
                                       *rest)
        key = (keys[row] if row < len(keys) else None,  # None: a blank row
               size, content_size, base_background, background, *rest[2:], finish)
        strip = _shared_rows.get(key)
        if strip is None:
            strip = super().render_line(styles, y, size, content_size, padding,
                                        base_background, background, render_content_line,
                                        *rest)
            keep_shared(_shared_rows, SHARED_ROWS_MAX, key, strip)
        return strip


class CachedLines(KeepsItsPlace, PaintedInTurn):
    """Lines of :class:`Content`, top to bottom, each drawn once (Textual's line API).

    Strips are kept by what they show, not where: when a log scrolls by one line, every
    line moves but none is drawn again."""

    SHARED_COMPONENT_STYLES = True
    """Component classes are styled from the process's cache, not per widget
    (:func:`lean_textual.styles.shared_component_style`)."""

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._keys: list[tuple[object, ...]] = []
        self._contents: list[Content] = []
        self._role_styles: dict[str, object] = {}
        self._pass_width: int | None = None  # the content width, while lines are drawn
        self._pass_style: Any = None  # the widget's visual style, while lines are drawn
        self._rows_cache = _RowsByContent()
        door.give_styles_cache(self, self._rows_cache)

    @property
    def plain(self) -> str:
        """The lines shown, as plain text (one per line)."""
        return "\n".join(content.plain for content in self._contents)

    def show_contents(self, contents: Sequence[Content]) -> None:
        """Show ``contents`` (one per line); repaint only the lines that changed."""
        old = self._keys
        self._contents = list(contents)
        self._keys = new = [_key(content) for content in self._contents]
        changed = [y for y in range(max(len(old), len(new)))
                   if y >= len(old) or y >= len(new) or old[y] != new[y]]
        if changed and self.is_mounted:
            self._refresh_lines(changed)

    def keep_line(self, y: int, content: Content) -> None:
        """Show ``content`` as line ``y`` (an existing line) without a repaint: the caller
        draws it (:class:`DirectRow`)."""
        self._contents[y] = content
        self._keys[y] = _key(content)

    def _refresh_lines(self, lines: list[int]) -> None:
        """Have content rows ``lines`` drawn again: by :meth:`paint_rows` when the screen
        is being brought up to date and painted in one go (it takes them), else by
        Textual (:meth:`refresh_rows`)."""
        if not queue_rows(self, lines):
            self.refresh_rows(lines)

    def paint_rows(self, rows: list[int], region: Region) -> list[str] | None:
        """What draws content rows ``rows`` on the terminal, the widget being shown whole
        at ``region`` (screen cells) with nothing over it: each row finished as Textual
        would finish it, and kept in Textual's cache as if Textual had drawn it. None
        (and nothing done) when the widget has not been drawn since its cache was
        emptied: then Textual draws them (:meth:`refresh_rows`)."""
        cache = self._rows_cache
        last = cache.last
        if last is None or last.size != region.size:
            return None
        if self.auto_links and self.hover_style._link_id:
            return None  # a link under the mouse: Textual styles it as it draws
        height = last.content_size.height
        top = region.y + self.styles.gutter.top + 1  # the terminal counts from 1
        left = region.x + 1
        console = self.app.console
        drawn: list[str] = []
        for row in rows:
            if row >= height:
                break
            strip = cache.finished_row(self, row)
            if strip is None:
                return None
            drawn.append(f"\x1b[{top + row};{left}H")
            drawn.append(strip.render(console))  # kept on the strip: seats share it
        return drawn

    def refresh_rows(self, lines: list[int]) -> None:
        """Repaint ``lines`` (content rows), one region per run of adjacent lines.

        Each region spans the widget's whole width, border and padding included. Regions
        are relative to the content area (Textual adds the gutter), hence the negative x.
        A region of the content's width only would make the compositor crop every changed
        line short of the border on its way to the terminal: a new strip per line, about
        a tenth of a screen update, to save sending one or two border cells."""
        height = self.content_size.height
        left = self.content_offset.x
        width = self.outer_size.width
        runs: list[list[int]] = []
        for y in lines:
            if y >= height:
                break
            if runs and runs[-1][1] == y:
                runs[-1][1] = y + 1
            else:
                runs.append([y, y + 1])
        for start, end in runs:
            self.refresh(Region(-left, start, width, end - start))

    def notify_style_update(self) -> None:
        """Colours come from CSS: a style change (theme, a class) redraws every line."""
        super().notify_style_update()
        self._role_styles.clear()
        self._rows_cache.last = None

    def component_style(self, name: str) -> object:
        """The style of component class ``name``, looked up once per style change in
        the styles every player's widgets share. The widget's place is read once per
        style change for all its names (a focus moving restyles the grid: it read its
        path from the app down for each of its six component classes)."""
        style = self._role_styles.get(name)
        if style is None:
            style = self._role_styles[name] = shared_component_style(
                self, name, self.kept_place_match())
        return style

    def render_lines(self, crop: Region) -> list[Strip]:
        """Draw the lines in ``crop``, reading the content width and the visual style once
        for all of them (a lookup in the screen's map, a check of the styles), as Textual
        asks for a line at a time."""
        self._pass_width = self.content_size.width
        self._pass_style = style = self.visual_style
        cache = self._rows_cache
        cache.keys, cache.finish = self._keys, finish_key(self, style)
        try:
            return super().render_lines(crop)
        finally:
            self._pass_width = self._pass_style = None
            cache.keys = cache.finish = None

    def render_line(self, y: int) -> Strip:
        width = self._pass_width
        if width is None:
            width = self.content_size.width
        style = self._pass_style
        if style is None:
            style = self.visual_style
        if y >= len(self._contents):
            return Strip.blank(width, style.rich_style)
        key = (self._keys[y], width, style)
        strip = _shared_strips.get(key)
        if strip is None:
            content = self._contents[y].truncate(width, ellipsis=True)
            strip = Strip(content.render_segments(style)).crop_extend(0, width,
                                                                     style.rich_style)
            keep_shared(_shared_strips, SHARED_STRIPS_MAX, key, strip)
        return strip


_looks: dict[tuple[object, ...], int] = {}
"""Each way a row is finished (:meth:`DirectRow.look_of`), by a number of its own: what
the seats that finish a row alike share the row's terminal text by."""
_look_numbers = itertools.count()
LOOKS_MAX = 1024


class DirectRow:
    """How to write content row ``row`` of a :class:`CachedLines` widget straight to its
    terminal with nothing but a few identity checks (:meth:`holds`). Made just after the
    widget drew the row itself (:meth:`CachedLines.paint_rows`: its screen on top, the
    widget shown whole with nothing over it), it holds while nothing that decided that
    has changed: the same screen on top, the same layout (the compositor's map), the same
    finishing of the widget's lines (a restyle or a resize makes a new one), and the app
    neither in a batch nor closing.

    For a line that changes on a timer on many seats at once (the turn's countdown,
    every second of its last minute): :meth:`write` sets the widget's line, keeps the
    finished row in Textual's cache (a later repaint draws the same), and writes the row
    to the terminal, with no widget refresh, no screen update and no message. Seats that
    finish the row alike share one finished row and its terminal text (``shared``)."""

    __slots__ = ("app", "at", "last", "look", "row", "screen", "visible", "widget", "y")

    def __init__(self, widget: CachedLines, row: int, region: Region) -> None:
        self.widget = widget
        self.app = widget.app  # made as it paints: the app running now is its own
        self.screen = screen = widget.screen
        self.visible = door.compositor_of(screen).visible_widgets
        self.last = last = widget._rows_cache.last
        self.row = row
        self.y = y = row + widget.styles.gutter.top
        self.at = f"\x1b[{region.y + y + 1};{region.x + 1}H"  # the terminal counts from 1
        self.look = self.look_of(last)

    @staticmethod
    def look_of(last: _LastDrawn | None) -> int:
        """A number for the way ``last`` finishes a row, the same for every widget that
        finishes rows alike (a new number when it cannot be compared)."""
        if last is None:
            return next(_look_numbers)
        key = (*last[:5], *last[6:],
               tuple((type(line_filter), line_filter.enabled) for line_filter in last.filters))
        try:
            look = _looks.get(key)
        except TypeError:  # something in it cannot be hashed: shared with nobody
            return next(_look_numbers)
        if look is None:
            look = keep_shared(_looks, LOOKS_MAX, key, next(_look_numbers))
        return look

    def holds(self) -> bool:
        """Whether the row may still be written straight to the terminal."""
        app, screen = self.app, self.screen
        return (not door.in_batch(app) and door.writes_to_a_terminal(app)
                and not door.is_exiting(app) and door.top_screen(app) is screen
                and not door.layout_asked(screen)
                and door.compositor_of(screen).visible_widgets is self.visible
                and self.widget._rows_cache.last is self.last)

    def write(self, content: Content, shared: dict[tuple[int, int], tuple[Strip, str]]
              ) -> bool:
        """Show ``content`` as the row and write it to the terminal, now; False (nothing
        written) when that is no longer possible (:meth:`holds`), and the caller shows
        it the usual way. ``shared``: rows finished during this change, by their look
        and ``id(content)`` (the caller keeps each content alive while it is used)."""
        if not self.holds():
            return False
        widget, app = self.widget, self.app
        widget.keep_line(self.row, content)
        cache = widget._rows_cache
        key = (self.look, id(content))
        made = shared.get(key)
        if made is None:
            finished = cache.finished_row_kept(widget, self.row)
            if finished is None:
                return False
            kept, drawn = finished
            made = shared[key] = (kept, drawn.render(app.console))
        else:
            door.keep_finished_line(cache, self.y, made[0])
        door.write_in_update(app, (self.at, made[1]),
                             self.screen.outer_size.clamp_offset(app.cursor_position))
        door.flush_driver(app)
        return True
