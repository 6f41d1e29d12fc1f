"""One client's terminal as the server holds it: the channel, its size, input and output.

:class:`SessionTerminal` outlives the app that draws on it: it exists from the moment the
session starts, keeps input that arrives before the app is ready, and is still there after
the app has gone (or crashed) to put the client's terminal back the way it was and say
goodbye.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Protocol

from textual import constants

from server.colours import TRUE_COLOUR
from server.input import InputPump
from server.limits import SessionLimits
from server.output import FrameChannel, FrameGate

# Kitty keyboard protocol: disambiguate escapes, report all keys and their text, as Textual's
# Linux driver asks for. Terminals that do not know it ignore the request.
_KITTY_FLAGS = 0b00001 | 0b01000 | 0b10000

_MOUSE_ON = "\x1b[?1000h\x1b[?1002h\x1b[?1006h"  # clicks, drags (not every motion), SGR
_MOUSE_OFF = "\x1b[?1006l\x1b[?1002l\x1b[?1000l"


def enter_sequence(mouse: bool) -> str:
    """What the terminal is sent when an app takes it over."""
    parts = [
        "\x1b[?1049h",  # alternate screen
        _MOUSE_ON if mouse else "",
        "\x1b[?25l",  # hide cursor
        "\x1b[?1004h",  # focus in / out
        "" if constants.DISABLE_KITTY_KEY else f"\x1b[>{_KITTY_FLAGS}u",
        "\x1b[?2026$p",  # does the terminal support synchronized output?
        "\x1b[?2004h",  # bracketed paste
        "\x1b[?7l",  # no line wrap
    ]
    return "".join(parts)


LEAVE_SEQUENCE = "".join(
    [
        "\x1b[?2026l",  # end any synchronized update left open
        "\x1b[0m",  # plain text attributes
        "\x1b[?2004l",
        "\x1b[?7h",
        _MOUSE_OFF,
        "" if constants.DISABLE_KITTY_KEY else "\x1b[<u",
        "\x1b[?1004l",
        "\x1b[?1049l",  # back to the main screen
        "\x1b[?25h",  # show cursor
    ]
)
"""What the terminal is sent when an app lets it go, normally or not."""


class TerminalChannel(FrameChannel, Protocol):
    """The part of an SSH channel a session terminal uses."""

    def pause_reading(self) -> None: ...

    def resume_reading(self) -> None: ...


class SizeListener(Protocol):
    """Told about window changes (the driver, while an app runs)."""

    def terminal_resized(self, size: tuple[int, int]) -> None: ...

    def repaint(self) -> None: ...


class SessionTerminal:
    """The client's terminal: size, input pump, frame gate, and the modes to restore."""

    def __init__(
        self,
        chan: TerminalChannel,
        size: tuple[int, int],
        limits: SessionLimits,
        on_stuck: Callable[[], None],
        on_resize_flood: Callable[[], None] = lambda: None,
    ) -> None:
        self.limits = limits
        self.size = self._clamp(size)
        self.gate = FrameGate(chan, limits, on_caught_up=self._caught_up, on_stuck=on_stuck)
        self.pump = InputPump(limits, chan.pause_reading, chan.resume_reading)
        self._listener: SizeListener | None = None
        self._resize_handle: asyncio.TimerHandle | None = None
        self._modes_on = False
        self.colours = TRUE_COLOUR
        """What its frames' colours are brought down to (:func:`server.colours.colour_depth`:
        16 or 256 colours, none for a terminal without any or a player's NO_COLOR)."""
        self._told_at = float("-inf")
        self._on_drawn: Callable[[], None] | None = None
        self._on_resize_flood = on_resize_flood
        self._resizes_since = float("-inf")
        self._resizes = 0

    def when_drawn(self, callback: Callable[[], None]) -> None:
        """Call ``callback`` once, when the app's first frame is drawn (sent or not)."""
        self._on_drawn = callback

    def _clamp(self, size: tuple[int, int]) -> tuple[int, int]:
        width, height = size
        width = min(max(width, 1), self.limits.max_columns) if width else 80
        height = min(max(height, 1), self.limits.max_rows) if height else 24
        return width, height

    def received(self, data: bytes) -> None:
        """Bytes from the client."""
        self.pump.feed(data)

    def resized(self, width: int, height: int) -> None:
        """The client's window changed; bursts of changes reach the app as one, and no
        more often than once per ``resize_interval_s`` (a storm costs one layout each)."""
        self.size = self._clamp((width, height))
        loop = asyncio.get_running_loop()
        if loop.time() - self._resizes_since >= 1.0:
            self._resizes_since, self._resizes = loop.time(), 0
        self._resizes += 1
        if self._resizes == self.limits.max_resizes_per_s + 1:  # no terminal does this
            self._on_resize_flood()
        if self._resize_handle is None:
            next_at = self._told_at + self.limits.resize_interval_s
            self._resize_handle = loop.call_at(max(loop.time() + 0.02, next_at), self._tell_size)

    def _tell_size(self) -> None:
        self._resize_handle = None
        self._told_at = asyncio.get_running_loop().time()
        if self._listener is not None:
            self._listener.terminal_resized(self.size)

    def _caught_up(self) -> None:
        if self._listener is not None:
            self._listener.repaint()

    def attach(self, listener: SizeListener) -> None:
        """An app's driver starts using the terminal."""
        self._listener = listener

    def detach(self) -> None:
        """The driver is done: no more input or size changes for it."""
        self._listener = None
        self.pump.detach()

    def enter_app_mode(self, mouse: bool) -> None:
        """Alternate screen, mouse, paste and focus reporting on."""
        self._modes_on = True
        self.send(enter_sequence(mouse).encode(), essential=True)

    def restore(self) -> None:
        """Put the client's terminal back as it was, if an app changed it."""
        if self._modes_on:
            self._modes_on = False
            self.send(LEAVE_SEQUENCE.encode(), essential=True)

    def send(self, data: bytes, *, essential: bool = False) -> bool:
        """One frame of output; returns False if it was dropped (client behind)."""
        if not essential and self._on_drawn is not None:
            drawn, self._on_drawn = self._on_drawn, None
            drawn()
        return self.gate.send(data, essential=essential)

    def say(self, text: str) -> None:
        """A message on the plain terminal (no line discipline here: newlines need CR)."""
        if text:
            lines = text.rstrip("\n").split("\n")
            self.send(("\r\n".join(lines) + "\r\n").encode("utf-8", "replace"), essential=True)

    def close(self) -> None:
        """The session is over: stop input, output and timers."""
        self.detach()
        self.gate.close()
        if self._resize_handle is not None:
            self._resize_handle.cancel()
            self._resize_handle = None
