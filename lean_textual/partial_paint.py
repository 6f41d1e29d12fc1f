"""A partial repaint asks only the widgets whose cells it will send to draw.

When something on a screen changes, Textual's compositor repaints the cells it covers. It
takes the rectangle around all changed regions and asks every widget inside that rectangle
for its lines, then keeps, cell by cell, what the front-most widget drew on the changed
lines. A pick changes a square of the grid near the top and a line of the log near the
bottom: the rectangle is the whole screen, and every widget on it (17 on the game screen,
counting the screen itself and the containers hidden under their children) was asked to
draw, to keep the cells of three or four. A widget that is asked re-checks its line cache,
applies its filters and crops every line: about 0.2 ms each, most of a screen update.

:func:`install` makes the compositor ask only the widgets that own a changed cell: the
front-most widget on each stretch of a changed line (the compositor's "chops"). Who owns
which stretch depends only on the layout, so it is worked out once per layout, and a fixed
layout while playing means once per screen. What is sent is the same, byte for byte: a
widget that owns no changed cell contributed nothing to the update
(``tests/tui/test_screen_costs.py`` compares the screens players see with full repaints).
Installed once per process, before the first app starts.
"""

from __future__ import annotations

from itertools import pairwise
from typing import Any

from textual.geometry import Region
from textual.widget import Widget

from lean_textual import internals as door
from lean_textual.internals import Compositor

_ORIGINAL = Compositor.render_partial_update
_installed = False

Owners = list[list[tuple[int, int, Widget]]]
"""Per screen line: ``(x from, x to, widget)`` for each chop, the widget drawn there."""


def chop_owners(compositor: Compositor) -> Owners:
    """Which widget the compositor draws on each chop of each line, for its current layout
    (front to back, the first widget to cover a chop has it, as in ``_render_chops``).

    Kept on the compositor itself: a weak-keyed table would keep every screen alive, since
    the widgets it holds lead back to their compositor."""
    visible = compositor.visible_widgets
    cached: tuple[dict[Widget, Any], Owners] | None = getattr(compositor, "_chop_owners",
                                                              None)
    if cached is not None and cached[0] is visible:
        return cached[1]
    cuts = compositor.cuts
    taken: list[dict[int, Widget]] = [{} for _ in cuts]
    intersection = Region.intersection
    for widget, (region, clip) in visible.items():
        shown = intersection(region, clip)
        first, last = shown.column_span
        for y in shown.line_range:
            if y >= len(cuts):
                break
            line = taken[y]
            for cut in cuts[y]:
                if first <= cut < last and cut not in line:
                    line[cut] = widget
    owners: Owners = []
    for y, line_cuts in enumerate(cuts):
        line = taken[y]
        owners.append([(start, end, line[start])
                       for start, end in pairwise(line_cuts) if start in line])
    # mypy: our own attribute, kept on the compositor (see the docstring)
    compositor._chop_owners = (visible, owners)  # type: ignore[attr-defined]
    return owners


def forget_owners(compositor: Compositor) -> None:
    """Drop what :func:`chop_owners` and :func:`shown_whole` kept on ``compositor`` (its
    screen has closed)."""
    compositor.__dict__.pop("_chop_owners", None)
    compositor.__dict__.pop("_shown_whole", None)


def shown_whole(compositor: Compositor, widget: Widget) -> bool:
    """Whether ``widget`` is drawn whole, with nothing over any of its cells: inside its
    clip, and the front-most widget on every chop of its lines. Then what the compositor
    sends for a line of it is that line as the widget draws it. Worked out once per
    layout, like :func:`chop_owners`."""
    visible = compositor.visible_widgets
    cached: tuple[dict[Widget, Any], dict[Widget, bool]] | None = getattr(
        compositor, "_shown_whole", None)
    if cached is None or cached[0] is not visible:
        cached = (visible, {})
        # mypy: our own attribute, kept on the compositor (see chop_owners)
        compositor._shown_whole = cached  # type: ignore[attr-defined]
    known = cached[1]
    answer = known.get(widget)
    if answer is None:
        answer = known[widget] = _is_shown_whole(compositor, widget, visible)
    return answer


def _is_shown_whole(compositor: Compositor, widget: Widget,
                    visible: dict[Widget, Any]) -> bool:
    geometry = visible.get(widget)
    if geometry is None:
        return False
    region, clip = geometry
    if Region.intersection(region, clip) != region:
        return False
    owners = chop_owners(compositor)
    left, right = region.column_span
    for y in region.line_range:
        if y >= len(owners):
            return False
        if any(owner is not widget for start, end, owner in owners[y]
               if start < right and end > left):
            return False
    return True


def _render_partial_update(self: Compositor) -> Any:
    dirty = door.dirty_regions(self)
    if not dirty:
        return _ORIGINAL(self)
    visible = self.visible_widgets
    owners = chop_owners(self)
    drawing: set[Widget] = set()
    for x, y, width, height in dirty:
        right = x + width
        for line in owners[max(0, y):y + height]:
            drawing.update(widget for start, end, widget in line
                           if start < right and end > x)
    if len(drawing) == len(visible):
        return _ORIGINAL(self)
    return door.render_partial_update_of(
        self, {widget: visible[widget] for widget in visible if widget in drawing}, _ORIGINAL)


def install() -> None:
    """Patch Textual's compositor (once); raises when it does not look as expected.

    Works around ``Compositor.render_partial_update`` asking every widget inside the
    rectangle around the changed regions to draw; retire when Textual asks only the
    widgets that own a changed cell."""
    global _installed
    if _installed:
        return
    door.check_compositor()
    # mypy: a patch of Textual's class is an assignment to a method
    Compositor.render_partial_update = _render_partial_update  # type: ignore[method-assign]
    _installed = True
