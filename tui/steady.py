"""Screens that lay themselves out once per terminal size.

When an app starts, Textual lays the first screen out when it is shown, then again for
each ``Resize`` that reaches it while it settles (the driver's opening size, the app's,
the screen's own): three more full layouts and full repaints of a screen that has not
changed size. Over SSH each full repaint of the lobby is about 8 KB. A
:class:`SteadyScreen` remembers the size it was last laid out at and lets a resize to that
same size pass without another layout. It also starts with the notifications rack hidden
(Textual shows it until it is first told there is nothing to show, a layout of its own).

Moving the focus does not repaint the whole screen either. Textual's ``Screen.focused``
repaints every line of the screen when it changes, though the two widgets that lose and
gain the focus repaint themselves (their ``:focus`` styles change): at 400 players, opening
and sending chat lines made about 20 whole-screen repaints a second on the one event loop.
"""

from __future__ import annotations

from typing import TypeVar

from textual.geometry import Size
from textual.reactive import Reactive
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets._toast import ToastRack

ResultType = TypeVar("ResultType")


class SteadyScreen(Screen[ResultType]):
    """A screen that re-lays itself out on a resize only when its size really changed."""

    _laid_out_at: Size | None = None
    focused: Reactive[Widget | None] = Reactive(None, repaint=False)

    def _on_mount(self) -> None:
        for rack in self.query_children(ToastRack):
            rack.display = False

    def _refresh_layout(self, size: Size | None = None, scroll: bool = False) -> None:
        self._laid_out_at = self.outer_size if size is None else size
        super()._refresh_layout(size, scroll)

    def _screen_resized(self, size: Size) -> None:
        if size == self._laid_out_at:
            return
        super()._screen_resized(size)
