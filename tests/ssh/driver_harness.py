"""One app on the real driver, fed bytes as an SSH channel would, with no network at all.

:class:`DriverHarness` builds the same :class:`~server.terminal.SessionTerminal` and
:class:`~server.driver.SSHDriver` a session does, over a channel that only counts what is
written. Tests type into its one text field and compare the field with what a player
would expect.
"""

from __future__ import annotations

import asyncio
from typing import Any

from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.widgets import Input, Label

from server.app_guard import guard_app, run_app
from server.limits import SessionLimits
from server.terminal import SessionTerminal

MARK = "\x1b[24~"
"""F12: the field app notes that every key typed before it has been handled."""


class NullChannel:
    """The part of an SSH channel a session terminal uses; output is only counted."""

    def __init__(self) -> None:
        self.written = 0
        self.paused = False

    def write(self, data: bytes) -> None:
        self.written += len(data)

    def get_write_buffer_size(self) -> int:
        return 0

    def is_closing(self) -> bool:
        return False

    def get_extra_info(self, name: str, default: object = None) -> object:
        return default

    def pause_reading(self) -> None:
        self.paused = True

    def resume_reading(self) -> None:
        self.paused = False


class FieldApp(App[None]):
    """A text field; Enter sends its line (kept in ``sent``) and empties it, as chat does."""

    BINDINGS = [Binding("f12", "mark", "Mark")]  # noqa: RUF012 (Textual's own style)
    ENABLE_COMMAND_PALETTE = False

    async def action_quit(self) -> None:
        """Junk typed by a fuzzer may press Ctrl+Q: this app stays (a test ends it)."""

    def __init__(self) -> None:
        super().__init__()
        self.sent: list[str] = []
        self.marks = 0
        self.marked = asyncio.Event()

    def compose(self) -> ComposeResult:
        yield Label("type here")
        yield Input(id="field")

    def on_mount(self) -> None:
        field = self.query_one(Input)
        field.cursor_blink = False
        field.focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.sent.append(event.value)
        event.input.value = ""

    def action_mark(self) -> None:
        self.marks += 1
        self.marked.set()

    @property
    def field(self) -> Input:
        return self.query_one(Input)


class DriverHarness:
    """A :class:`FieldApp` running on the real driver; :meth:`type` feeds it bytes."""

    def __init__(self, app: App[Any], terminal: SessionTerminal, task: asyncio.Task[None]):
        self.app = app
        self.terminal = terminal
        self.task = task

    @classmethod
    async def start(
        cls, app: App[Any] | None = None, size: tuple[int, int] = (80, 24), **limits: Any
    ) -> DriverHarness:
        app = app or FieldApp()
        terminal = SessionTerminal(NullChannel(), size, SessionLimits(**limits), lambda: None)
        guard_app(app, terminal)
        loop = asyncio.get_running_loop()
        task = loop.create_task(run_app(app, loop.get_task_factory()))
        for _ in range(500):
            if app.is_running and app.screen.focused is not None:
                break
            await asyncio.sleep(0.01)
        return cls(app, terminal, task)

    def feed(self, *chunks: bytes) -> None:
        """Bytes as they come off the channel, each chunk one read."""
        for chunk in chunks:
            self.terminal.received(chunk)

    async def settled(self, timeout: float = 10.0) -> None:
        """Type F12 and wait until the app has handled it (and so, in order, all before)."""
        app = self.app
        assert isinstance(app, FieldApp)
        app.marked.clear()
        self.feed(MARK.encode())
        await asyncio.wait_for(app.marked.wait(), timeout)

    async def stop(self) -> None:
        self.app.exit()
        await asyncio.wait_for(self.task, 10)
        self.terminal.close()
