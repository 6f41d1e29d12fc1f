"""A partial repaint asks only the widgets on the changed lines to draw.

When something on a screen changes, Textual's compositor repaints the lines it covers. It
finds those lines, takes the rectangle around all of them, and asks every widget inside
that rectangle for its lines, then keeps only the changed ones. A pick changes a square of
the grid near the top and a line of the log near the bottom: the rectangle is the whole
screen, and every widget on it (13 of them on the game screen) was asked to draw, to keep
the lines of three or four. A widget that is asked re-checks its line cache, applies its
filters and crops every line: about 0.2 ms each, most of a screen update.

:func:`install` makes the compositor ask only the widgets that have at least one changed
line in view. What is sent is the same, byte for byte: a widget with no changed line in
view contributed nothing to the update (``tests/tui/test_screen_costs.py`` compares the
screens a player sees with full repaints). Installed once per process, before the first
app starts.
"""

from __future__ import annotations

from typing import Any

from textual._compositor import Compositor
from textual.geometry import Region

_ORIGINAL = Compositor.render_partial_update
_installed = False


def _render_partial_update(self: Compositor) -> Any:
    dirty = self._dirty_regions
    if not dirty:
        return _ORIGINAL(self)
    visible = self.visible_widgets
    self.cuts  # noqa: B018  (computed, and kept, from every visible widget)
    lines: set[int] = set()
    for region in dirty:
        lines.update(region.line_range)
    intersection = Region.intersection
    touching = {widget: (region, clip) for widget, (region, clip) in visible.items()
                if not lines.isdisjoint(intersection(region, clip).line_range)}
    if len(touching) == len(visible):
        return _ORIGINAL(self)
    self._visible_widgets = touching
    try:
        return _ORIGINAL(self)
    finally:
        self._visible_widgets = visible


def install() -> bool:
    """Patch Textual's compositor (once); False when it does not look as expected."""
    global _installed
    if _installed:
        return True
    probe = Compositor()
    if not all(hasattr(probe, name) for name in ("_dirty_regions", "_visible_widgets",
                                                  "_cuts", "visible_widgets", "cuts")):
        return False
    Compositor.render_partial_update = _render_partial_update  # type: ignore[method-assign]
    _installed = True
    return True
