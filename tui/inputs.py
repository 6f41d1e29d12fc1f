"""One-line text inputs that cost nothing while idle and never move the screen around.

Textual's ``Input`` sets its virtual size on every change of its value, and the virtual
size is a layout reactive: each key typed re-laid out the whole screen (about 13 ms on the
game screen, against under 1 ms for a repaint). A one-line input's size never depends on
its text, so :class:`QuietInput` keeps the virtual size as data (horizontal scrolling still
follows the cursor) and only repaints. Its cursor does not blink: a blinking cursor costs
CPU on every idle session.
"""

from __future__ import annotations

from typing import Any

from textual.geometry import Size
from textual.reactive import Reactive
from textual.widgets import Input


class QuietInput(Input):
    """A compact one-line Input: no blink, no select-on-focus, no re-layout per key."""

    virtual_size: Reactive[Size] = Reactive(Size(0, 0), layout=False)

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("compact", True)
        kwargs.setdefault("select_on_focus", False)
        super().__init__(**kwargs)
        self.cursor_blink = False
