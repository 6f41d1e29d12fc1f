"""The key bar: one line at the bottom of a screen saying which keys do what, right now.

Textual's stock ``Footer`` builds a widget per key, each with reactive watchers, and
rebuilds them all whenever the bindings change: a large share of the cost of a new
connection on a server with hundreds of sessions. This is one widget that draws one line.

What it shows: the screen's :meth:`key_hints` if the screen has one (the game screen knows
which keys matter in each phase and role), else the active bindings marked ``show``. It
redraws only when that list changes, as a :class:`~lean_textual.cached_lines.CachedLines`
line; a click on a key runs its action.
"""

from __future__ import annotations

from typing import Any, ClassVar, Protocol, runtime_checkable

from rich.cells import cell_len
from textual import events
from textual.content import Content
from textual.screen import Screen

from lean_textual import internals as door
from lean_textual.cached_lines import CachedLines

Hint = tuple[str, str, str]
"""``(key as shown, what it does, action to run on a click)``; the action may be ""."""


def binding_hints(screen: Screen[Any]) -> list[Hint]:
    """The screen's active bindings marked ``show`` whose action is enabled now (a
    disabled key is left out: the bar never offers a key that would do nothing)."""
    seen: set[str] = set()
    hints: list[Hint] = []
    for active in screen.active_bindings.values():
        binding = active.binding
        if not binding.show or not active.enabled or binding.action in seen:
            continue
        seen.add(binding.action)
        hints.append((screen.app.get_key_display(binding), binding.description,
                      binding.action))
    return hints


@runtime_checkable
class HasKeyHints(Protocol):
    def key_hints(self) -> list[Hint]: ...


class KeyBar(CachedLines):
    """The keys of the screen it is on, as ``key label`` pairs on one line."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {"keybar--key", "keybar--label"}
    DEFAULT_CSS = """
    KeyBar {
        dock: bottom;
        height: 1;
        background: $footer-background;
        color: $footer-foreground;
    }
    KeyBar > .keybar--key { color: $footer-key-foreground; text-style: bold; }
    KeyBar > .keybar--label { color: $footer-description-foreground; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.hints: tuple[Hint, ...] = ()
        self._spans: list[tuple[int, int, str]] = []  # x from, x to, action

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self._bindings_changed,
                                                      immediate=True)
        self._bindings_changed(self.screen)

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def _bindings_changed(self, _screen: Any) -> None:
        # Read as they change (Textual's default posts each change to the bar's queue:
        # drawn a turn later, in a frame of its own). While the app holds its output back
        # (a new screen being built) they change at every mount and focus: read once when
        # it lets go (the app's batch_ended publishes them again), not six times.
        if not door.in_batch(self.app):
            self.update_hints()

    def update_hints(self) -> None:
        """Read the keys again; repaint only if they changed."""
        screen = self.screen
        if isinstance(screen, HasKeyHints):
            hints = tuple(screen.key_hints())
        else:
            hints = tuple(binding_hints(screen))
        if hints != self.hints:
            self.hints = hints
            self._show()

    def _show(self) -> None:
        key_style = self.component_style("keybar--key")
        label_style = self.component_style("keybar--label")
        parts: list[Any] = []
        spans: list[tuple[int, int, str]] = []
        x = 0
        for key, label, action in self.hints:
            start = x
            if key:
                piece = f" {key} "
                parts.append((piece, key_style))
                x += cell_len(piece)
            if label:
                parts.append((label + " ", label_style))
                x += cell_len(label) + 1
            spans.append((start, x, action))
        self._spans = spans
        self.show_contents([Content.assemble(*parts)])

    def on_click(self, event: events.Click) -> None:
        for start, end, action in self._spans:
            if start <= event.x < end and action:
                event.stop()
                self.app.call_later(self.screen.run_action, action)
                return
