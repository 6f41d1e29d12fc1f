"""Small Textual apps the SSH tests run, and the shared board they play on.

:class:`CounterApp` shows a counter that every session shares (Enter bumps it), the size
it was told, and an input line; each app learns of the board's changes by a message posted
to it, never by one app touching another's widgets.
"""

from __future__ import annotations

import random
import weakref
from typing import Any

from textual import events
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.message import Message
from textual.timer import Timer
from textual.widgets import Input, Label, Static

from server.context import AppFactory, SessionContext


class Board:
    """State shared by every session in the process (like the hub, much smaller)."""

    def __init__(self) -> None:
        self.count = 0
        self.apps: weakref.WeakSet[CounterApp] = weakref.WeakSet()
        self.started: list[weakref.ref[App[Any]]] = []
        self.contexts: list[SessionContext] = []
        self.key_stamps: list[float | None] = []
        self.keys: list[str] = []
        self.resizes = 0
        self.spam: list[str] = []
        self.screenshot_dir = "."

    def bump(self) -> None:
        self.count += 1
        for app in list(self.apps):
            app.post_message(CounterApp.BoardChanged())


BOARD = Board()


class CounterApp(App[None]):
    """Counter shared by everyone, own size, own input line."""

    CSS = """
    Label { height: 1; }
    Input { width: 60; }
    """
    BINDINGS = [  # noqa: RUF012 (Textual's own style)
        Binding("ctrl+q", "quit", "Quit", priority=True),
        Binding("ctrl+z", "suspend_process", "Suspend", priority=True),
        Binding("ctrl+o", "open_link", "Open a URL", priority=True),
        Binding("ctrl+s", "shoot", "Screenshot", priority=True),
        Binding("ctrl+x", "crash", "Crash", priority=True),
        Binding("ctrl+e", "leave", "Exit with a message", priority=True),
        Binding("ctrl+b", "spam", "Start or stop redrawing a block of noise", priority=True),
    ]

    class BoardChanged(Message):
        """The shared board changed."""

    def __init__(self, context: SessionContext) -> None:
        super().__init__()
        self.context = context
        self._spam_timer: Timer | None = None
        self._spam_rng = random.Random(context.player.name)

    def compose(self) -> ComposeResult:
        yield Label(f"MISSION TEST player={self.context.player.name}", id="title")
        yield Label(f"code: {self.context.join_code}", id="code")
        yield Label(f"count: {BOARD.count}", id="count")
        yield Label("size: ?", id="size")
        yield Label("len: 0", id="len")
        yield Input(id="entry")
        yield Static(id="spam")

    def on_mount(self) -> None:
        BOARD.apps.add(self)
        self.query_one(Input).cursor_blink = False

    def on_unmount(self) -> None:
        BOARD.apps.discard(self)

    def on_resize(self, event: events.Resize) -> None:
        BOARD.resizes += 1
        self.query_one("#size", Label).update(f"size: {event.size.width}x{event.size.height}")

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, events.Key):
            BOARD.key_stamps.append(getattr(event, "arrived_at_ms", None))
            BOARD.keys.append(event.key)
        await super().on_event(event)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        BOARD.bump()

    def on_input_changed(self, event: Input.Changed) -> None:
        self.query_one("#len", Label).update(f"len: {len(event.value)}")

    def on_counter_app_board_changed(self, message: BoardChanged) -> None:
        self.query_one("#count", Label).update(f"count: {BOARD.count}")

    def action_open_link(self) -> None:
        self.open_url("https://example.invalid/")

    def action_shoot(self) -> None:
        self.save_screenshot(filename="screenshot.svg", path=BOARD.screenshot_dir)

    def action_crash(self) -> None:
        raise RuntimeError("the test app fell over")

    def action_spam(self) -> None:
        if self._spam_timer is None:
            self._spam_timer = self.set_interval(0.02, self._spam)
        else:
            self._spam_timer.stop()
            self._spam_timer = None

    def _spam(self) -> None:
        letters = "abcdefghijklmnopqrstuvwxyz"
        lines = ["".join(self._spam_rng.choices(letters, k=90)) for _ in range(18)]
        BOARD.spam = lines
        self.query_one("#spam", Static).update("\n".join(lines))

    def action_leave(self) -> None:
        self.exit(message="Goodbye from the test app.")


def counter_factory(context: SessionContext) -> CounterApp:
    """An :data:`~server.context.AppFactory` for :class:`CounterApp`."""
    BOARD.contexts.append(context)
    app = CounterApp(context)
    BOARD.started.append(weakref.ref(app))
    return app


def make_counter_factory(hub: object) -> AppFactory:
    """For ``mission-impractical serve --app-factory tests.ssh.apps:make_counter_factory``."""
    return counter_factory
