"""A widget that draws each of its lines once and keeps it until that line changes.

The game screen changes many times a minute on every seat of every table. Textual redraws
a whole widget when it is refreshed, building every line again; this base class instead
takes the widget's lines as :class:`~textual.content.Content` (cheap to build and compare),
refreshes only the lines that differ from the ones shown, and keeps each line's rendered
:class:`~textual.strip.Strip` until its text, the widget's width or its styles change.

Subclasses build their lines from their data and call :meth:`CachedLines.show_contents`;
they never call ``refresh()`` themselves. The widget's size never depends on its lines:
its height comes from CSS, so a change of text never re-lays out the screen.
"""

from __future__ import annotations

from collections.abc import Sequence

from textual.content import Content
from textual.geometry import Region
from textual.strip import Strip
from textual.widget import Widget

from tui.styles import shared_component_style


def _key(content: Content) -> tuple[object, ...]:
    return (content.plain, tuple(content.spans))


class CachedLines(Widget):
    """Lines of :class:`Content`, top to bottom, each drawn once (Textual's line API).

    Strips are kept by what they show, not where: when a log scrolls by one line, every
    line moves but none is drawn again."""

    MAX_STRIPS = 256
    SHARED_COMPONENT_STYLES = True
    """Component classes are styled from the process's cache, not per widget
    (:func:`tui.styles.shared_component_style`)."""

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._keys: list[tuple[object, ...]] = []
        self._contents: list[Content] = []
        self._strips: dict[tuple[object, ...], Strip] = {}
        self._strip_width = -1
        self._role_styles: dict[str, object] = {}
        self._pass_width: int | None = None  # the content width, while lines are drawn

    def show_contents(self, contents: Sequence[Content]) -> None:
        """Show ``contents`` (one per line); repaint only the lines that changed."""
        old = self._keys
        self._contents = list(contents)
        self._keys = new = [_key(content) for content in self._contents]
        changed = [y for y in range(max(len(old), len(new)))
                   if y >= len(old) or y >= len(new) or old[y] != new[y]]
        if changed and self.is_mounted:
            self._refresh_lines(changed)

    def _refresh_lines(self, lines: list[int]) -> None:
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
        self._strips.clear()
        self._role_styles.clear()

    def component_style(self, name: str) -> object:
        """The style of component class ``name``, looked up once per style change in
        the styles every player's widgets share."""
        style = self._role_styles.get(name)
        if style is None:
            style = self._role_styles[name] = shared_component_style(self, name)
        return style

    def render_lines(self, crop: Region) -> list[Strip]:
        """Draw the lines in ``crop``, reading the content width once for all of them (it
        is a lookup in the screen's map, and Textual asks for a line at a time)."""
        self._pass_width = self.content_size.width
        try:
            return super().render_lines(crop)
        finally:
            self._pass_width = None

    def render_line(self, y: int) -> Strip:
        width = self._pass_width
        if width is None:
            width = self.content_size.width
        if width != self._strip_width:
            self._strips.clear()
            self._strip_width = width
        if y >= len(self._contents):
            return Strip.blank(width, self.visual_style.rich_style)
        key = self._keys[y]
        strip = self._strips.get(key)
        if strip is None:
            style = self.visual_style
            content = self._contents[y].truncate(width, ellipsis=True)
            strip = Strip(content.render_segments(style)).crop_extend(0, width,
                                                                     style.rich_style)
            if len(self._strips) >= self.MAX_STRIPS:
                self._strips.clear()
            self._strips[key] = strip
        return strip
