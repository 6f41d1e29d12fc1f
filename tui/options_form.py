"""The table's options as one widget: a row per option, the host moves and changes them.

Built from Textual's widgets (labels, selects, switches, text fields, their hints and
rows) the form would be over twenty widgets that every player at a table holds while
waiting and drops as cyclic garbage when the game begins. This is one
:class:`~lean_textual.cached_lines.CachedLines` widget.

Keys, for the host: up and down pick an option; left and right step through its values,
and so do Enter and space except on a number. On a number, digits type a new one,
Backspace takes one back, Enter or moving away sets it, and Esc puts the table's value
back. A click on an option picks it, a click on the picked one steps it. Other players
see the same rows, read only.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, replace
from typing import ClassVar

from textual import events
from textual.content import Content
from textual.message import Message

from engine.rules import MIN_PLAYERS
from engine.tables import MAX_SEATS, TableOptions
from engine.text import plural
from lean_textual.cached_lines import CachedLines

LABEL_WIDTH = 12
DIGITS = "0123456789"
TOP = 2  # the title and a blank line come before the first option


@dataclass(frozen=True)
class Option:
    """One row: the ``TableOptions`` field it sets, its label, its values ``(shown,
    value)`` in order (a number may also be typed), a hint after the value, and how a
    value that is none of the choices is shown (a typed number, a longer game)."""

    field: str
    label: str
    choices: tuple[tuple[str, Hashable], ...]
    hint: str = ""
    typed: bool = False  # a number the host may type
    other: str = "{}"

    def shown(self, value: Hashable) -> str:
        for text, known in self.choices:
            if known == value:
                return text
        return self.other.format(value)

    def step(self, value: Hashable, by: int) -> Hashable:
        values = [v for _, v in self.choices]
        if value in values:
            return values[(values.index(value) + by) % len(values)]
        if isinstance(value, int):  # typed, between the presets: to the next one
            ahead = [v for v in values if isinstance(v, int) and (v > value) == (by > 0)]
            if ahead:
                return min(ahead, key=lambda v: abs(v - value))  # type: ignore[operator]
        return values[0]


OPTIONS: tuple[Option, ...] = (
    Option("rounds", "Rounds", (("by player count", None), ("endless", 0),
                                *((plural(n, "round"), n) for n in range(1, 31))),
           other="{} rounds"),  # more than 30
    Option("best_plan", "Best plan", (("off", False), ("on: lead awards +1", True))),
    Option("turn_seconds", "Turn timer",
           tuple((str(n), n) for n in (0, 15, 20, 30, 45, 60, 90, 120, 180, 300, 600)),
           hint="s (0 off, 15-600)", typed=True),
    Option("stop_tie_window_ms", "Stop! tie",
           tuple((str(n), n) for n in (0, 100, 200, 300, 500, 750, 1000, 1500, 2000)),
           hint="ms (0-2000)", typed=True),
    Option("bots_fill", "Bots fill", (("off: b adds a bot", False),
                                      ("on: bots make it 3", True))),
    Option("max_seats", "Max seats",
           tuple((f"{n} seats" + (" (house rule)" if n > 5 else ""), n)
                 for n in range(MIN_PLAYERS, MAX_SEATS + 1))),
)


class OptionsForm(CachedLines, can_focus=True):
    """The table's options; :class:`Changed` when the host changes one."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {"form--title", "form--label", "form--value",
                                             "form--picked", "form--hint", "form--note"}
    DEFAULT_CSS = """
    OptionsForm { height: 10; }
    OptionsForm > .form--title { text-style: bold; }
    OptionsForm > .form--label { color: $text-muted; }
    OptionsForm > .form--value { color: $text; }
    OptionsForm > .form--hint { color: $text-muted; text-style: italic; }
    OptionsForm > .form--note { color: $text-muted; }
    OptionsForm > .form--picked { color: $text-muted; }
    OptionsForm:focus > .form--picked {
        background: $block-cursor-background;
        color: $block-cursor-foreground;
        text-style: bold;
    }
    """

    class Changed(Message):
        """The host set ``options`` (the table still has to accept them)."""

        def __init__(self, form: OptionsForm, options: TableOptions) -> None:
            super().__init__()
            self.form = form
            self.options = options

        @property
        def control(self) -> OptionsForm:
            return self.form

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.options = TableOptions()
        self.row = 0
        self.typing: str | None = None  # digits typed into the picked number, not yet set
        self.locked = False

    # -- attributes down ------------------------------------------------------------------

    def show_options(self, options: TableOptions, *, locked: bool) -> None:
        """Show the table's ``options``; a number being typed is kept."""
        self.options = options
        if locked != self.locked:
            self.locked = locked
            self.disabled = locked
            self.typing = None
        self._show()

    def value_of(self, field: str) -> Hashable:
        return getattr(self.options, field)  # type: ignore[no-any-return]

    # -- drawing ---------------------------------------------------------------------------

    def _show(self) -> None:
        if not self.is_mounted:
            return
        style = self.component_style
        title: list[tuple[str, object]] = [("Options", style("form--title"))]
        if self.has_focus:
            title.append(("   ↑↓ pick  ←→ change", style("form--hint")))
        lines = [Content.assemble(*title), Content("")]  # type: ignore[arg-type]
        for index, option in enumerate(OPTIONS):
            picked = index == self.row and not self.locked
            if picked and self.typing is not None:
                value = f"{self.typing}▏"
            else:
                value = option.shown(self.value_of(option.field))
                if not self.locked:
                    value = f"‹ {value} ›"
            label = option.label.ljust(LABEL_WIDTH)
            parts: list[tuple[str, object] | str] = [
                (label, style("form--picked" if picked else "form--label")),
                (value, style("form--value")),
            ]
            if option.hint:
                parts.append((f"  {option.hint}", style("form--hint")))
            lines.append(Content.assemble(*parts))  # type: ignore[arg-type]
        lines.append(Content(""))
        if self.locked:
            lines.append(Content.styled("Only the host changes these.",
                                        style("form--note")))  # type: ignore[arg-type]
        self.show_contents(lines)

    def on_mount(self) -> None:
        self._show()

    def notify_style_update(self) -> None:
        super().notify_style_update()
        if self.is_mounted:
            self.call_later(self._show)  # the picked row's colour follows the focus

    # -- keys and clicks ---------------------------------------------------------------------

    def on_key(self, event: events.Key) -> None:
        if self.locked:
            return
        option = OPTIONS[self.row]
        key = event.key
        if key in ("up", "down"):
            self._set_typed()
            self.row = (self.row + (1 if key == "down" else -1)) % len(OPTIONS)
        elif key in ("left", "right", "space") or (key == "enter" and not option.typed):
            self.typing = None
            self._change(option, option.step(self.value_of(option.field),
                                             -1 if key == "left" else 1))
        elif option.typed and event.character is not None and event.character in DIGITS:
            if len(self.typing or "") < 4:
                self.typing = (self.typing or "") + event.character
        elif option.typed and key == "backspace" and self.typing:
            self.typing = self.typing[:-1]
        elif key == "enter":
            self._set_typed()
        elif key == "escape" and self.typing is not None:
            self.typing = None  # the table's value again
        else:
            return  # not the form's: the screen's keys (g, b, Esc...) still work
        event.stop()
        event.prevent_default()
        self._show()

    def on_focus(self) -> None:
        self._show()

    def on_blur(self) -> None:
        self._set_typed()
        self._show()

    def on_click(self, event: events.Click) -> None:
        row = event.y - TOP
        if self.locked or not 0 <= row < len(OPTIONS):
            return
        if row == self.row:
            option = OPTIONS[row]
            self._change(option, option.step(self.value_of(option.field), 1))
        else:
            self._set_typed()
            self.row = row
        self._show()

    def _set_typed(self) -> None:
        if self.typing is None:
            return
        typed, self.typing = self.typing, None
        self._change(OPTIONS[self.row], int(typed or "0"))

    def _change(self, option: Option, value: Hashable) -> None:
        if value == self.value_of(option.field):
            return
        self.options = replace(self.options, **{option.field: value})
        self.post_message(self.Changed(self, self.options))
