"""One value out of a few, changed in place: the table's rounds and seats.

Textual's ``Select`` is seven widgets (the current value, an overlay with an option list, an
option object per choice) and ten component-class nodes; every player at a table had two
of them, and dropped them all as cyclic garbage when the game began. A :class:`Choice` is
one line: ``‹ 5 seats ›``. Left and right step through the values, Enter and space step
forward, and a click steps forward too.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import ClassVar

from textual import events
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.message import Message

from tui.cached_lines import CachedLines


class Choice(CachedLines, can_focus=True):
    """``(label, value)`` choices, one shown; :class:`Changed` when the value changes."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {"choice--arrow"}
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left", "step(-1)", "Previous", show=False),
        Binding("right,enter,space", "step(1)", "Next", show=False),
    ]
    DEFAULT_CSS = """
    Choice { height: 1; background: $surface; }
    Choice:focus { background: $block-cursor-background; color: $block-cursor-foreground; }
    Choice > .choice--arrow { color: $text-accent; text-style: bold; }
    Choice:disabled { color: $text-disabled; }
    Choice:disabled > .choice--arrow { color: $text-disabled; }
    """

    class Changed(Message):
        def __init__(self, choice: Choice, value: Hashable) -> None:
            super().__init__()
            self.choice = choice
            self.value = value

        @property
        def control(self) -> Choice:
            return self.choice

    def __init__(self, choices: Sequence[tuple[str, Hashable]], value: Hashable, *,
                 id: str | None = None) -> None:
        super().__init__(id=id)
        self._choices = list(choices)
        self._value = value

    @property
    def value(self) -> Hashable:
        return self._value

    @value.setter
    def value(self, value: Hashable) -> None:
        if value == self._value:
            return
        if value not in [v for _, v in self._choices]:
            raise ValueError(f"{value!r} is not one of the choices")
        self._value = value
        self._show()
        self.post_message(self.Changed(self, value))

    def set_options(self, choices: Sequence[tuple[str, Hashable]]) -> None:
        """Offer ``choices`` instead (the value must be among them, or be set next)."""
        self._choices = list(choices)
        self._show()

    @property
    def label(self) -> str:
        return next((label for label, v in self._choices if v == self._value), "")

    def _show(self) -> None:
        if self.is_mounted:
            arrow = self.component_style("choice--arrow")
            self.show_contents([Content.assemble(("‹ ", arrow), self.label,  # type: ignore[arg-type]
                                                 (" ›", arrow))])

    def on_mount(self) -> None:
        self._show()

    def notify_style_update(self) -> None:
        super().notify_style_update()
        if self.is_mounted:
            self.call_later(self._show)  # the arrows' colour follows the focus

    def action_step(self, step: int) -> None:
        values = [v for _, v in self._choices]
        if not values:
            return
        at = values.index(self._value) if self._value in values else 0
        self.value = values[(at + step) % len(values)]

    def on_click(self, event: events.Click) -> None:
        if not self.disabled:
            self.action_step(1)
