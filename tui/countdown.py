"""The turn's countdown: a widget on every seat, stepped by one clock per table.

Every seat of a table shows the same deadline, so the time left is worked out, put into
words and finished into terminal text once per step for the whole table
(:class:`TableClock`, one loop timer), and each seat's terminal is sent that row
(:class:`~lean_textual.cached_lines.DirectRow`): no widget refresh, no screen update, no
message through any queue. Only a seat where that cannot be done (its screen under a
dialog, laid out again since, restyled) takes the usual way, a screen update painted in
the clock's turn (:meth:`SteadyScreen.update_then_paint`), which makes the seat's direct
row again for the next step.
"""

from __future__ import annotations

import asyncio
import contextvars
import math
from typing import ClassVar

from textual.content import Content
from textual.geometry import Region
from textual.reactive import reactive
from textual.strip import Strip

from engine.clock import now_ms
from lean_textual.cached_lines import DirectRow
from lean_textual.steady import SteadyScreen
from tui.board import Lines
from tui.board_text import Line


def countdown_text(left_ms: float) -> tuple[str, int]:
    """What the countdown shows with ``left_ms`` to go, and how many seconds one step of
    that display is (it changes at multiples of it)."""
    left = math.ceil(left_ms / 1000)
    if left > 90:  # "2 min" from 1:31 to 2:00: a display in minutes is not expected to tick
        return f"⏱ {math.ceil(left / 60)} min", 30
    if left > 60:  # "90 s" from 1:01: the default turn (90 s) read "2 min" at its start,
        return "⏱ 90 s", 30  # which players took for a wrong clock
    return f"⏱ {left // 60}:{left % 60:02d}", 1


def countdown_line(left_ms: float, width: int) -> tuple[Line, int]:
    """The countdown's line with ``left_ms`` to go in ``width`` cells (right-aligned, a
    cell spare; a warning's colour for the last ten seconds), and its step in seconds."""
    text, step_s = countdown_text(left_ms)
    role = "stop" if left_ms <= 10_000 else ""
    return ((text.rjust(width - 1) + " ", role),), step_s


class Countdown(Lines):
    """Time left on the turn timer, drawn only when what it shows changes: whole minutes
    while more than 90 seconds are left, ``90 s`` down to a minute, then every second of
    the last minute (``0:59``,
    ``0:58``...), in the colour of a warning for the last ten. (Steps of ten seconds
    looked frozen: ``1:30`` stood for ten seconds. A once-a-second tick all turn long on
    every seat of every table was most of the cost of an idle player.) Its steps come
    from its table's :class:`TableClock`."""

    WIDTH = 8
    """Cells the countdown fills (its width in ``game.tcss``): right-aligned, a cell spare."""

    deadline: reactive[float | None] = reactive(None, repaint=False, init=False)

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._clock: TableClock | None = None
        self._direct: DirectRow | None = None

    def on_unmount(self) -> None:
        self._leave_clock()

    def _leave_clock(self) -> None:
        self._direct = None
        if self._clock is not None:
            self._clock.leave(self)
            self._clock = None

    def watch_deadline(self, deadline: float | None) -> None:
        self._leave_clock()
        if deadline is None:
            self.lines = ()
            return
        self.tick()
        if deadline > now_ms():
            self._clock = TableClock.join(deadline, self)

    def tick(self) -> None:
        """Show the time left now."""
        if self.deadline is None:
            return
        self.lines = (countdown_line(max(0.0, self.deadline - now_ms()), self.WIDTH)[0],)

    def paint_rows(self, rows: list[int], region: Region) -> list[str] | None:
        drawn = super().paint_rows(rows, region)
        # drawn itself: the clock's next step can be written straight to the terminal
        self._direct = DirectRow(self, 0, region) if drawn is not None else None
        return drawn

    def step(self, line: Line, shared: dict[tuple[int, int], tuple[Strip, str]],
             contents: dict[object, Content]) -> None:
        """The clock's step: show ``line``, written straight to the terminal when the
        widget's direct row still holds, else by a screen update painted now (or, with
        the app busy, through the widget's queue). ``shared`` and ``contents``: what the
        seats of the table share during the step (finished rows; the line's content by
        style)."""
        direct = self._direct
        if direct is not None:
            role = line[0][1]
            style = self.component_style(f"lines--{role}") if role else None
            content = contents.get(style)  # (a style keeps its hash)
            if content is None:
                content = contents[style] = self.content_of(line)
            if direct.write(content, shared):
                self._lines_shown(line)
                return
            self._direct = None
        if not self.is_attached:
            self._leave_clock()
            return
        app = self.ancestors_with_self[-1]
        run = getattr(app, "run_in_this_turn", None)
        if run is None or not run(self._tick_in_turn):
            self.call_later(self._tick_in_turn)

    def _lines_shown(self, line: Line) -> None:
        """``line`` is on the terminal already: the reactive says so, with no repaint."""
        self.set_reactive(Countdown.lines, (line,))

    def _tick_in_turn(self) -> None:
        """The shown time is due to change: change it and paint it in this turn."""
        screen = self.screen
        if isinstance(screen, SteadyScreen):
            screen.update_then_paint(self.tick)
        else:
            self.tick()


class TableClock:
    """The countdowns that show one deadline (the seats of a table) and the one timer
    that steps them all when the text they show next changes."""

    _clocks: ClassVar[dict[float, TableClock]] = {}
    """The clocks running, by deadline."""

    def __init__(self, deadline: float) -> None:
        self.deadline = deadline
        self.countdowns: dict[Countdown, None] = {}
        self._handle: asyncio.TimerHandle | None = None

    @classmethod
    def join(cls, deadline: float, countdown: Countdown) -> TableClock:
        clock = cls._clocks.get(deadline)
        if clock is None:
            clock = cls._clocks[deadline] = cls(deadline)
        clock.countdowns[countdown] = None
        if clock._handle is None:
            clock._schedule()
        return clock

    def leave(self, countdown: Countdown) -> None:
        self.countdowns.pop(countdown, None)
        if not self.countdowns:
            self._stop()

    def _stop(self) -> None:
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None
        if self._clocks.get(self.deadline) is self:
            del self._clocks[self.deadline]

    def _schedule(self) -> None:
        left_ms = self.deadline - now_ms()
        if left_ms <= 0:
            self._stop()
            return
        step_s = countdown_text(left_ms)[1]
        # wake when the shown text next changes
        wait_ms = left_ms - (math.ceil(left_ms / 1000 / step_s) - 1) * step_s * 1000
        # In a context of its own: a cancelled timer keeps no app alive
        # (:func:`lean_textual.wake.wake_later`).
        self._handle = asyncio.get_running_loop().call_later(
            max(0.05, wait_ms / 1000), self.step, context=contextvars.Context())

    def step(self) -> None:
        """Show every countdown the time left now: the line made once, each seat's row
        finished once per way of finishing it."""
        self._handle = None
        line, _step_s = countdown_line(max(0.0, self.deadline - now_ms()), Countdown.WIDTH)
        shared: dict[tuple[int, int], tuple[Strip, str]] = {}
        contents: dict[object, Content] = {}
        for countdown in list(self.countdowns):
            countdown.step(line, shared, contents)
        if self.countdowns:
            self._schedule()
        else:
            self._stop()
