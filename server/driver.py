"""The Textual driver for an app whose terminal is at the far end of an SSH channel.

A subclass of :class:`textual.driver.Driver`, not of the Linux driver: that one installs
process-wide signal handlers, touches the server's own terminal and starts threads. This
one does none of that: output goes to the session's :class:`~server.terminal.SessionTerminal`
one frame per flush, input comes from its pump on the loop, sizes from SSH window changes.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO, Literal, TextIO

from textual import events
from textual.driver import Driver
from textual.geometry import Size
from textual.message import Message
from textual.message_pump import MessagePump

from engine.clock import now_ms
from lean_textual import internals as door
from server.access_log import quoted
from server.colours import fit_pieces

if TYPE_CHECKING:
    from textual.app import App

    from server.terminal import SessionTerminal

log = logging.getLogger(__name__)


class SSHDriver(Driver):
    """Draws one app on one SSH session's terminal.

    Textual builds its driver itself, from ``app.driver_class``; bind the session's
    terminal with :func:`functools.partial`: ``partial(SSHDriver, terminal=terminal)``.
    """

    def __init__(
        self,
        app: App[Any],
        *,
        terminal: SessionTerminal,
        debug: bool = False,
        mouse: bool = True,
        size: tuple[int, int] | None = None,
    ) -> None:
        super().__init__(app, debug=False, mouse=mouse, size=terminal.size)
        self._terminal = terminal
        self._buffer: list[str] = []
        self._arrived_ms = 0.0
        self._in_app_mode = False

    # -- output ------------------------------------------------------------------------

    def write(self, data: str) -> None:
        """Buffer output until the frame is complete."""
        if self._in_app_mode:
            self._buffer.append(data)

    def flush(self) -> None:
        """Send the frame written since the last flush, as UTF-8, in one piece."""
        if self._buffer:
            frame = fit_pieces(self._buffer, self._terminal.colours)
            self._buffer.clear()
            self._terminal.send(frame.encode("utf-8", "replace"))

    def start_application_mode(self) -> None:
        """Take over the terminal, tell the app its size, start delivering input."""
        self._in_app_mode = True
        self._terminal.enter_app_mode(door.driver_mouse(self))
        self._terminal.attach(self)
        self.terminal_resized(self._terminal.size)
        self._terminal.pump.attach(self._deliver, self._queued)

    def disable_input(self) -> None:
        """No more input for the app."""
        self._terminal.detach()

    def stop_application_mode(self) -> None:
        """Give the terminal back as it was."""
        self.disable_input()
        self.flush()
        self._in_app_mode = False
        self._buffer.clear()
        self._terminal.restore()

    # -- input -------------------------------------------------------------------------

    def _input_path(self) -> list[MessagePump]:
        """Where input travels in the app: the focused widget and its ancestors up to the
        app (a key goes down to the focused widget, then bubbles back up to the app's
        bindings), or the screen and the app when nothing has focus."""
        app = door.driver_app(self)
        try:
            screen = app.screen
        except Exception:  # no screen yet, or none any more
            return [app]
        focused = screen.focused
        if focused is None:
            return [screen, app]
        return list(focused.ancestors_with_self)

    def _queued(self) -> int:
        """Messages waiting anywhere on the input's path through the app.

        A key goes from the app to the focused widget, and unless the widget uses it,
        back up through every parent to the app's bindings (Backspace and Enter in an
        ``Input`` are bindings). What it causes (``Input.Submitted``) takes the same way.
        While any of that waits, the next key could overtake it.
        """
        return sum(pump.message_queue_size for pump in self._input_path())

    def _deliver(self, event: Message, arrived_ms: float) -> None:
        self._arrived_ms = arrived_ms
        self.process_message(event)

    def send_message(self, message: Message) -> None:
        """Post to the app on this loop, stamped with when its bytes reached the server.

        ``arrived_at_ms`` (``time.monotonic() * 1000``) is what decides a Stop! race: a
        busy app that handles a key late still knows when it was pressed.
        """
        if not hasattr(message, "arrived_at_ms"):
            message.arrived_at_ms = self._arrived_ms  # type: ignore[attr-defined]
        door.driver_app(self).post_message(message)

    def terminal_resized(self, size: tuple[int, int]) -> None:
        """The client's window is now ``size`` (columns, rows)."""
        door.set_driver_size(self, size)
        textual_size = Size(*size)
        self._arrived_ms = now_ms()
        self.send_message(events.Resize(textual_size, textual_size))

    def repaint(self) -> None:
        """The client caught up after dropped frames: redraw every cell."""
        if self._in_app_mode:
            app = door.driver_app(self)
            app.call_later(app.refresh)

    # -- things a server must not do on a player's behalf ------------------------------

    def open_url(self, url: str, new_tab: bool = True) -> None:
        """Would open a browser on the server: ignored."""
        log.info("app asked to open a URL on the server; ignored: %s", quoted(url, 200))

    def deliver_binary(
        self,
        binary: BinaryIO | TextIO,
        *,
        delivery_key: str,
        save_path: Path,
        open_method: Literal["browser", "download"] = "download",
        encoding: str | None = None,
        mime_type: str | None = None,
        name: str | None = None,
    ) -> None:
        """Would write a file on the server: refused, and the app is told so."""
        binary.close()
        error = PermissionError("files cannot be delivered over SSH")
        door.driver_app(self).post_message(
            events.DeliveryFailed(key=delivery_key, exception=error, name=name)
        )
