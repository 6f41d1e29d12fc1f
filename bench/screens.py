"""Screens: what the real game's screens cost, in one process, with nothing but the screens.

The real :class:`tui.app.MissionApp`, on a real hub (journaled in a temporary directory,
committing on its writer's thread, as the server's), on this loop, drawn through a driver
that does everything the SSH driver does with a frame except send it (it counts frames and
bytes). No SSH, no network: the figures are the screens' own CPU, which is what decides how
many tables one server holds (``bench.play`` measures the whole server over SSH).

It prints, for a table of four at 100x30:

- a new app (after three that fill the process's caches): CPU from start to its first
  full lobby screen, and that screen's bytes;
- a pick: CPU for the whole table (four apps) and per screen update, layout reflows;
- a key typed into the plan input and into the chat: CPU and reflows;
- a chat line seen by the table;
- the turn passing to the reveals (the last guess hidden): CPU for the whole table;
- a step of the turn's countdown on every seat (in its last minute: a step a second);
- a seated player who does nothing, with a turn timer running: CPU per second, early in
  the turn and in its last minute (where the countdown ticks every second);
- a replay of the game just played (:mod:`tui.replay_screen`): the loop's CPU to open it
  (the rebuild itself runs on a worker thread: its CPU is given apart) and one step (a
  down key), to set beside a screen update of the game.

Frames are fitted to a 256-colour terminal, as the server fits them for most clients.

    python -m bench.screens [--repeat 20]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from textual import events
from textual.app import App
from textual.driver import Driver
from textual.screen import Screen

from engine.hub import Hub
from engine.identity import Player
from engine.rules import Phase
from engine.tables import Table, TableOptions
from server.colours import COLOURS_256, fit_pieces

SIZE = (100, 30)
TARGETS = {
    "new app CPU (ms)": 40.0,
    "first screen (KB)": 10.0,
    "screen update CPU, median (ms)": 2.0,
    "pick at a table of four, CPU (ms)": 8.0,
    "idle seated player (ms CPU/s)": 0.2,
    "idle seated player, the turn's last minute (ms CPU/s)": 0.2,
}


class CountingDriver(Driver):
    """A terminal at the end of a perfect wire: frames are encoded as the SSH driver encodes
    them, counted, and dropped."""

    def __init__(self, app: App[Any], *, debug: bool = False, mouse: bool = True,
                 size: tuple[int, int] | None = None) -> None:
        super().__init__(app, debug=False, mouse=mouse, size=size or SIZE)
        self._buffer: list[str] = []
        self.frames = 0
        self.bytes = 0

    def write(self, data: str) -> None:
        self._buffer.append(data)

    def flush(self) -> None:
        if self._buffer:
            frame = fit_pieces(self._buffer, COLOURS_256)
            self.bytes += len(frame.encode("utf-8", "replace"))
            self._buffer.clear()
            self.frames += 1

    def start_application_mode(self) -> None:
        size = self._size or SIZE
        from textual.geometry import Size

        self.send_message(events.Resize(Size(*size), Size(*size)))

    def disable_input(self) -> None:
        pass

    def stop_application_mode(self) -> None:
        self.flush()

    def key(self, key: str, character: str | None = None) -> None:
        """A key as the driver would deliver it from the wire."""
        self.send_message(events.Key(key, character))

    def send_message(self, message: Any) -> None:
        message.arrived_at_ms = time.monotonic() * 1000
        self._app.post_message(message)


class Reflows:
    """Counts full layout passes of every screen in the process."""

    def __init__(self) -> None:
        self.count = 0
        self._original: Callable[..., Any] | None = None

    def __enter__(self) -> Reflows:
        original = Screen._refresh_layout
        self._original = original

        def counted(screen: Screen[Any], *args: Any, **kwargs: Any) -> Any:
            self.count += 1
            return original(screen, *args, **kwargs)

        Screen._refresh_layout = counted  # type: ignore[method-assign]
        return self

    def __exit__(self, *exc: object) -> None:
        Screen._refresh_layout = self._original  # type: ignore[method-assign]


class Seat:
    """One player's app, running on this loop."""

    def __init__(self, hub: Hub, name: str, join_code: str | None = None) -> None:
        from tui.app import MissionApp

        self.app = MissionApp(hub, Player(id=f"key:{name}", name=name), join_code=join_code)
        self.app.driver_class = CountingDriver  # type: ignore[assignment]
        self.app._capture_stdout = sys.stdout  # type: ignore[assignment]  (as the server does)
        self.app._capture_stderr = sys.stderr  # type: ignore[assignment]
        self.task: asyncio.Task[Any] | None = None

    def start(self) -> None:
        self.task = asyncio.get_running_loop().create_task(
            self.app.run_async(size=SIZE, mouse=True))

    @property
    def driver(self) -> CountingDriver:
        driver = self.app._driver
        assert isinstance(driver, CountingDriver)
        return driver

    async def stop(self) -> None:
        self.app.exit()
        if self.task is not None:
            await self.task


async def quiet(seconds: float = 0.25) -> None:
    """Let every app finish what it was doing (screens refresh on a 60 Hz timer)."""
    await asyncio.sleep(seconds)


@contextmanager
def cpu_ms(into: list[float]) -> Iterator[None]:
    """CPU spent running the loop's callbacks (every app's work) while inside, not waiting
    between them: on this kind of VM a bare ``asyncio.sleep(5)`` costs 5-10 ms of CPU in
    ``epoll_wait``, which was most of what an idle player measured, and a fraction of a
    millisecond of every other figure here (each waits a quarter second to settle)."""
    original = asyncio.events.Handle._run
    spent = [0.0]

    def timed(handle: asyncio.events.Handle) -> None:
        start = time.thread_time()
        try:
            original(handle)
        finally:
            spent[0] += time.thread_time() - start

    asyncio.events.Handle._run = timed  # type: ignore[method-assign]
    try:
        yield
    finally:
        asyncio.events.Handle._run = original  # type: ignore[method-assign]
        into.append(spent[0] * 1000)


async def until(condition: Callable[[], bool], timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError("the screens never got there")
        await asyncio.sleep(0.01)


async def new_apps(hub: Hub, repeat: int) -> tuple[list[float], list[float]]:
    """CPU to start an app and show the lobby, and the bytes of that first screen."""
    cpu: list[float] = []
    sizes: list[float] = []
    for k in range(repeat):
        seat = Seat(hub, f"new{k}")
        with cpu_ms(cpu):
            seat.start()
            await until(lambda s=seat: s.app._driver is not None and s.driver.frames > 0)
            await quiet(0.3)
        sizes.append(seat.driver.bytes / 1024)
        await seat.stop()
    return cpu, sizes


async def table_of_four(hub: Hub, turn_seconds: int = 0) -> tuple[list[Seat], Table]:
    host = Seat(hub, "ann")
    host.start()
    await until(lambda: host.app.session is not None and host.app._driver is not None)
    await quiet()
    code = host.app.session.create_table(TableOptions(turn_seconds=turn_seconds))
    seats = [host] + [Seat(hub, name, code) for name in ("bob", "cy", "dee")]
    for seat in seats[1:]:
        seat.start()
    await until(lambda: len(hub.tables[code].seats) == 4)
    await quiet()
    host.app.session.start()
    await quiet(0.5)
    return seats, hub.tables[code]


async def measure(repeat: int) -> dict[str, float]:
    """The figures, on a hub as the server runs it: journaled, its commits on the
    writer's thread, every move told once it is on disk (the loop's CPU is measured, not
    the writer's)."""
    with tempfile.TemporaryDirectory(prefix="mi-screens-") as data:
        hub = Hub.open(Path(data), seed="bench", settle_ms=0, bot_delay=0.0)
        try:
            hub.write_behind()
            return await _measure(hub, repeat)
        finally:
            hub.close()


async def _measure(hub: Hub, repeat: int) -> dict[str, float]:
    try:
        from tui.countdown import Countdown
    except ImportError:  # a checkout from before it had a module of its own (side by side)
        from tui.board import Countdown  # type: ignore[attr-defined,no-redef]

    figures: dict[str, float] = {}
    # The first apps of a process fill the process's shared caches (parsed stylesheets,
    # rule matches, stored rule values); a server has filled them with its first players.
    await new_apps(hub, 3)
    cpu, sizes = await new_apps(hub, repeat)
    figures["new app CPU (ms)"] = statistics.median(cpu)
    figures["first screen (KB)"] = statistics.median(sizes)

    seats, table = await table_of_four(hub)
    by_seat = {seat.app.session.seat: seat for seat in seats}

    def state() -> Any:
        assert table.state is not None
        return table.state

    def frames() -> int:
        return sum(seat.driver.frames for seat in seats)

    pick_cpu: list[float] = []
    update_cpu: list[float] = []
    pick_reflows: list[float] = []
    key_cpu: list[float] = []
    key_reflows: list[float] = []
    chat_cpu: list[float] = []
    turn_cpu: list[float] = []
    for _round in range(repeat):
        if state().phase is Phase.GAME_OVER:
            break
        lead = by_seat[state().lead]
        for column in range(4):
            gc.collect()
            before = frames()
            with Reflows() as reflows, cpu_ms(pick_cpu):
                lead.driver.key(str(1 + column % 4), str(1 + column % 4))
                await until(lambda c=column: len(state().picks) == c + 1)
                await quiet()
            pick_reflows.append(reflows.count)
            updates = max(1, frames() - before)
            update_cpu.append(pick_cpu[-1] / updates)
        *first, last = state().guessers
        for seat in first:
            by_seat[seat].driver.key("1", "1")
        await quiet()
        with cpu_ms(turn_cpu):  # the last guess hidden: the table turns to the reveals
            by_seat[last].driver.key("1", "1")
            await until(lambda: state().phase is Phase.REVEALING)
            await quiet()
        for seat in state().guessers:
            await until(lambda s=seat: state().next_revealer == s)
            await quiet()
            typist = by_seat[seat]
            for char in "a silly plan":
                key = "space" if char == " " else char
                with Reflows() as reflows, cpu_ms(key_cpu):
                    typist.driver.key(key, char)
                    await quiet(0.05)
                key_reflows.append(reflows.count)
            typist.driver.key("enter", "\r")
            await quiet()
        await until(lambda: state().phase is Phase.LEAD_REVEAL)
        lead.driver.key("enter", "\r")
        await until(lambda: state().phase in (Phase.BEST_PLAN, Phase.ROUND_OVER,
                                              Phase.GAME_OVER))
        if state().phase is Phase.BEST_PLAN:
            lead.driver.key("1", "1")
        await until(lambda: state().phase in (Phase.ROUND_OVER, Phase.GAME_OVER))
        await quiet()
        talker = by_seat[state().guessers[0]]
        talker.driver.key("c", "c")  # keys at a typist's pace: one burst is another bench
        await quiet(0.05)
        for char in "hi":
            talker.driver.key(char, char)
            await quiet(0.05)
        with cpu_ms(chat_cpu):
            talker.driver.key("enter", "\r")
            await quiet()
        talker.driver.key("escape")
        await quiet(0.05)
        round_no = state().round
        for seat in by_seat.values():  # everyone says they are ready, until the round moves
            if state().round != round_no or state().phase is Phase.GAME_OVER:
                break
            seat.driver.key("enter", "\r")
            await quiet(0.1)
        await until(lambda r=round_no: state().round != r or state().phase is Phase.GAME_OVER)
        await quiet()
    figures["pick at a table of four, CPU (ms)"] = statistics.median(pick_cpu)
    # Picks are of two kinds: those that scroll the log (a round's first, and its fourth)
    # and those that grow its newest line. The median falls between them and moves from
    # run to run; the mean is the steadier figure to compare.
    figures["pick at a table of four, mean CPU (ms)"] = statistics.mean(pick_cpu)
    figures["screen update CPU, median (ms)"] = statistics.median(update_cpu)
    figures["layout reflows per pick (4 screens)"] = statistics.mean(pick_reflows)
    figures["key in the plan input, CPU (ms)"] = statistics.median(key_cpu)
    figures["layout reflows per key"] = statistics.mean(key_reflows)
    figures["chat line to the table, CPU (ms)"] = statistics.median(chat_cpu)
    figures["turn to the reveals, table of four (ms)"] = statistics.median(turn_cpu)
    if state().phase is not Phase.GAME_OVER:
        seats[0].app.session.end_game()  # or bots would play on for the seats that leave
    for seat in seats:
        await seat.stop()
    figures.update(await replay_figures(hub, table.code, repeat))

    seats, table = await table_of_four(hub, turn_seconds=120)
    await quiet(1.0)
    idle: list[float] = []
    with cpu_ms(idle):
        await asyncio.sleep(5.0)
    figures["idle seated player (ms CPU/s)"] = idle[0] / 5.0 / len(seats)
    deadline = time.monotonic() * 1000 + 50_000  # the table's: the same on every seat
    for seat in seats:  # the turn's last minute, where the countdown ticks every second
        screen = seat.app.screen
        countdown = screen.query_one(Countdown)
        with seat.app._context():  # a new deadline, as a hub change brings one
            screen.update_then_paint(  # type: ignore[attr-defined]
                lambda c=countdown, d=deadline: setattr(c, "deadline", d))
    await quiet(1.5)  # a first step
    last_minute: list[float] = []
    frames = sum(seat.driver.frames for seat in seats)
    seconds = max(5.0, float(repeat))
    with cpu_ms(last_minute):
        await asyncio.sleep(seconds)
    steps = (sum(seat.driver.frames for seat in seats) - frames) / len(seats)
    figures["idle seated player, the turn's last minute (ms CPU/s)"] = (
        last_minute[0] / seconds / len(seats))
    figures["countdown step, table of four (ms)"] = last_minute[0] / max(1.0, steps)
    for seat in seats:
        await seat.stop()
    return figures


async def replay_figures(hub: Hub, code: str, repeat: int) -> dict[str, float]:
    """Opening the replay of the game just played, and stepping through it."""
    from engine.replay import find_game, read_replay
    from tui.replay_screen import ReplayScreen

    records = hub.records
    assert records is not None and hub.journal is not None
    await until(lambda: records.game(code) is not None)  # on disk once the writer's done
    game = records.game(code)
    assert game is not None
    data_dir = Path(hub.journal.path).parent  # type: ignore[attr-defined]
    rebuild: list[float] = []
    for _ in range(repeat):  # what the worker thread spends (here on this thread)
        start = time.thread_time()
        read_replay(data_dir, game)
        rebuild.append((time.thread_time() - start) * 1000)
    viewer = Seat(hub, "vic")
    viewer.start()
    await until(lambda: viewer.app.lobby_screen is not None and viewer.driver.frames > 0)
    await quiet()
    open_cpu: list[float] = []
    step_cpu: list[float] = []
    for _ in range(max(3, repeat // 4)):
        gc.collect()
        with cpu_ms(open_cpu):
            viewer.app.open_replay(find_game(records, code))
            await until(lambda: isinstance(viewer.app.screen, ReplayScreen))
            await quiet()
        screen = viewer.app.screen
        assert isinstance(screen, ReplayScreen)
        for _step in range(repeat):
            with cpu_ms(step_cpu):
                viewer.driver.key("down")
                await quiet(0.05)
        viewer.driver.key("escape")
        await until(lambda: not isinstance(viewer.app.screen, ReplayScreen))
        await quiet()
    await viewer.stop()
    return {"replay: rebuilt on the worker (ms, off the loop)": statistics.median(rebuild),
            "replay: opened, the loop's CPU (ms)": statistics.median(open_cpu),
            "replay: one step, CPU (ms)": statistics.median(step_cpu)}


def report(figures: dict[str, float]) -> list[str]:
    lines = []
    missed = []
    for name, value in figures.items():
        target = TARGETS.get(name)
        verdict = ""
        if target is not None:
            verdict = f"target <= {target:g}: " + ("met" if value <= target else "MISSED")
            if value > target:
                missed.append(name)
        lines.append(f"  {name:<40} {value:9.2f}   {verdict}")
    if missed:
        lines.append("  missed: " + "; ".join(missed))
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.screens", description=__doc__)
    parser.add_argument("--repeat", type=int, default=12)
    options = parser.parse_args(argv)
    from server.app_guard import configure_process

    configure_process()
    figures = asyncio.run(measure(options.repeat))
    print(f"the real screens at {SIZE[0]}x{SIZE[1]}, in one process ({options.repeat} rounds):")
    for line in report(figures):
        print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

