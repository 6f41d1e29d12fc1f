"""A hub change's changed rows go straight to the terminal, skipping the compositor, and
the terminal shows what a whole repaint would, colours included.

When a move reaches a seat, its line widgets know which of their rows changed
(:class:`~lean_textual.cached_lines.CachedLines`); a widget shown whole, with nothing over it,
draws those rows itself and the screen sends them (``SteadyScreen.paint_now``). Anything
else (a widget under a notification, one whose styles just changed, a screen under a
dialog) is left to Textual's compositor. These tests compare, cell by cell, the terminal
the frames were played into with one the whole screen was drawn into.
"""

from __future__ import annotations

import asyncio
import re
import sys
from typing import Any

import pyte
import pytest
from textual import events
from textual.dom import DOMNode

from lean_textual.cached_lines import CachedLines, DirectRow, _RowsByContent
from lean_textual.partial_paint import shown_whole
from lean_textual.steady import SteadyScreen
from tests.tui.test_screen_costs import (
    a_guesser_in_the_chat,
    a_guesser_on_the_clock,
    compositor_updates,
    picks_and_chat,
    rows_drawn,
    settled_after,
    table_of_three,
)
from tui.app import MissionApp
from tui.board import ItemGrid
from tui.countdown import Countdown
from tui.game_screen import GameScreen

Cell = tuple[str, str, str, bool, bool]


def cells(frames: str, size: tuple[int, int] = (100, 30)) -> list[list[Cell]]:
    """Every cell of a terminal ``frames`` were played into: its text and colours."""
    screen = pyte.Screen(*size)
    pyte.Stream(screen).feed(frames)
    return [[(char.data, char.fg, char.bg, char.bold, char.reverse)
             for char in (screen.buffer[y][x] for x in range(size[0]))]
            for y in range(size[1])]


def terminal_cells(app: MissionApp) -> list[list[Cell]]:
    return cells("".join(app._driver.frames))  # type: ignore[attr-defined]


def whole_repaint_cells(app: MissionApp) -> list[list[Cell]]:
    """The cells of a terminal that was sent the whole screen, drawn now."""
    screen = app.screen
    update = screen._compositor.render_full_update()
    return cells("\x1b[2J" + update.render_segments(app.console))


async def test_rows_under_a_notification_are_left_to_the_compositor(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A notification covers the bottom right of the screen: the widgets it covers do not
    draw their rows over it (the compositor draws what shows), the others still do."""
    async with table_of_three("rows-under-toast") as (table, apps):
        for app in apps:
            app.notify("A long note that covers the corner of the screen for a while",
                       timeout=30)
        def covered() -> dict[MissionApp, list[CachedLines]]:
            return {app: [widget for widget in app.screen.query(CachedLines)
                          if widget.region and not shown_whole(app.screen._compositor,
                                                               widget)]
                    for app in apps}

        for _ in range(100):  # the toasts are laid out within 0.3 s, later on a busy machine
            await asyncio.sleep(0.05)
            if all(covered().values()):
                break
        assert all(covered().values())  # the toast is over some line widget on each screen
        updates = compositor_updates(monkeypatch)
        for column in range(3):
            by_seat = {app.session.seat: app for app in apps}  # type: ignore[union-attr]
            by_seat[table.state.lead].session.pick(column, 1)  # type: ignore[union-attr]
            await settled_after(0.2)
            by_seat[table.state.guessers[0]].session.chat(f"so {column}")  # type: ignore[union-attr]
            await settled_after(0.2)
        assert sum(updates.values()) > 0
        for app in apps:
            assert "A long note" in "".join(row[0] for line in terminal_cells(app)
                                            for row in line)
            assert terminal_cells(app) == whole_repaint_cells(app)


async def test_rows_follow_a_change_of_colours_and_wait_under_a_dialog(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """After the colours change (the theme; a widget's background just before a pick), a
    widget draws no row before Textual has drawn it again with the new ones; under a
    dialog the rows wait for the compositor."""
    async with table_of_three("rows-restyled") as (table, apps):
        by_seat = {app.session.seat: app for app in apps}  # type: ignore[union-attr]
        watcher = by_seat[table.state.guessers[0]]
        watcher.theme = "textual-light" if watcher.theme != "textual-light" else "nord"
        await settled_after(0.3)
        by_seat[table.state.lead].session.pick(0, 0)  # type: ignore[union-attr]
        await settled_after(0.3)
        assert terminal_cells(watcher) == whole_repaint_cells(watcher)
        grid = watcher.screen.query_one(ItemGrid)
        with watcher._context():
            grid.styles.background = "darkred"  # then a pick in the same turn
        by_seat[table.state.lead].session.pick(1, 3)  # type: ignore[union-attr]
        await settled_after(0.3)
        assert terminal_cells(watcher) == whole_repaint_cells(watcher)
        watcher.call_later(watcher.action_help)
        await settled_after(0.3)
        assert type(watcher.screen).__name__ == "HelpScreen"
        drawn = rows_drawn(monkeypatch)
        by_seat[table.state.lead].session.pick(2, 0)  # type: ignore[union-attr]
        await settled_after(0.3)
        assert drawn[id(watcher)] == 0
        assert all(drawn[id(app)] > 0 for app in apps if app is not watcher)
        watcher.call_later(watcher.pop_screen)
        await settled_after(0.3)
        assert terminal_cells(watcher) == whole_repaint_cells(watcher)


async def test_a_character_typed_at_the_end_is_drawn_by_the_field_in_its_colours(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A character typed after the text reaches the terminal as the two cells it changes,
    drawn by the field itself (no compositor), and the terminal shows what a whole
    repaint would, the cursor's colours included."""
    async with a_guesser_in_the_chat("typed-cells") as (guesser, chat):
        guesser.post_message(events.Key("a", "a"))  # the first: the placeholder goes
        await settled_after(0.1)
        updates = compositor_updates(monkeypatch)
        for char in "bcd":
            guesser.post_message(events.Key(char, char))
            await asyncio.sleep(0.05)
        assert chat.value == "abcd"
        assert updates[id(guesser.screen._compositor)] == 0
        assert terminal_cells(guesser) == whole_repaint_cells(guesser)


async def test_a_widget_s_own_repaints_are_drawn_by_the_widget_in_its_colours(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The focus moving (to the chat field and back to the board: both restyled, the key
    bar's keys changed), the first character in a field, a Backspace: each widget that
    asked for a repaint, shown whole, draws what it asked for itself, with no compositor
    update, and the terminal shows what a whole repaint would, colours included."""
    async with table_of_three("own-repaints") as (table, apps):
        guesser = next(app for app in apps
                       if app.session.seat == table.state.guessers[0])  # type: ignore[union-attr]
        updates = compositor_updates(monkeypatch)
        for key, char in (("c", "c"), ("h", "h"), ("i", "i"), ("backspace", None),
                          ("backspace", None), ("escape", None)):
            guesser.post_message(events.Key(key, char))
            await settled_after(0.15)
            assert terminal_cells(guesser) == whole_repaint_cells(guesser), key
        assert guesser.screen.query_one("#chat-input").has_focus is False
        assert updates[id(guesser.screen._compositor)] == 0


async def test_the_countdown_draws_its_own_steps_and_turns_red_for_the_last_ten(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A new deadline, and each step of the turn's countdown, is one row the countdown
    draws itself, with no compositor update (at 400 players the steps were about half of
    the compositor's work); from ten seconds left it is drawn in the colour of a warning."""
    monkeypatch.setattr(GameScreen, "BANNER_SECONDS", 0.2)
    async with a_guesser_on_the_clock("countdown-rows") as (_table, apps, guesser):
        guesser.post_message(events.Key("s", "s"))  # Stop!: the guessers' timer runs
        await settled_after(0.6)  # the banner has come and gone
        countdown = guesser.screen.query_one(Countdown)
        assert re.fullmatch("⏱ 0:1[12]", countdown.plain.strip())  # a tick a second
        x = countdown.region.x + countdown.plain.index("⏱")
        calm = terminal_cells(guesser)[0][x]
        updates, drawn = compositor_updates(monkeypatch), rows_drawn(monkeypatch)
        written = direct_rows_written(monkeypatch)
        deadline = countdown.deadline
        assert deadline is not None
        with guesser._context():  # a new deadline, as a hub change brings one
            guesser.screen.update_then_paint(
                lambda: setattr(countdown, "deadline", deadline + 30_000))
        assert countdown.plain.strip().startswith("⏱ 0:4") and drawn["Countdown"] == 1
        with guesser._context():
            guesser.screen.update_then_paint(lambda: setattr(countdown, "deadline", deadline))
        await asyncio.sleep(2.6)  # from 0:12 through 0:10 to 0:09
        assert re.fullmatch("⏱ 0:0[789]", countdown.plain.strip())
        # each app's countdown, each step: drawn by the widget, or written by the clock
        assert drawn["Countdown"] + written[0] >= 2 * len(apps)
        assert sum(updates.values()) == 0
        urgent = terminal_cells(guesser)[0][x]
        assert urgent[0] == calm[0] == "⏱" and urgent[1] != calm[1]  # red now
        for app in apps:
            assert terminal_cells(app) == whole_repaint_cells(app)


def direct_rows_written(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many rows were written straight to a terminal (:class:`DirectRow`)."""
    written = [0]
    write = DirectRow.write

    def counting(row: DirectRow, *args: Any) -> bool:
        done = write(row, *args)
        written[0] += done
        return done

    monkeypatch.setattr(DirectRow, "write", counting)
    return written


async def test_a_countdown_step_is_its_row_alone_finished_once_for_the_table(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Each second of the turn's last minute, one clock steps the table's countdowns: the
    row is finished once for the seats that finish it alike, and each seat's terminal is
    sent that row and nothing else, with no widget refresh, no screen update, no
    compositor and no message through a queue (0.33 ms a seat a second before, 0.2 the
    target: ``docs/performance.md``)."""
    monkeypatch.setattr(GameScreen, "BANNER_SECONDS", 0.2)
    async with a_guesser_on_the_clock("countdown-direct") as (_table, apps, guesser):
        guesser.post_message(events.Key("s", "s"))  # Stop!: the guessers' timer runs
        await asyncio.sleep(1.6)  # the banner has gone; a step has drawn each seat's row
        countdowns = [app.screen.query_one(Countdown) for app in apps]
        clocks = {id(countdown._clock) for countdown in countdowns}
        assert len(clocks) == 1 and None not in (c._clock for c in countdowns)  # one a table
        updates = compositor_updates(monkeypatch)
        painted: list[object] = []
        refreshed: list[object] = []
        handled: list[object] = []
        monkeypatch.setattr(SteadyScreen, "update_then_paint",
                            lambda screen, update: painted.append(screen))
        refresh_rows = CachedLines.refresh_rows
        monkeypatch.setattr(CachedLines, "refresh_rows",
                            lambda widget, rows: (refreshed.append(widget),
                                                  refresh_rows(widget, rows)))
        monkeypatch.setattr(Countdown, "_tick_in_turn", lambda widget: handled.append(widget))
        finished: list[object] = []
        finished_row_kept = _RowsByContent.finished_row_kept
        monkeypatch.setattr(_RowsByContent, "finished_row_kept",
                            lambda cache, widget, row: (finished.append(widget),
                                                        finished_row_kept(cache, widget, row))[1])
        frames_before = [len(app._driver.frames) for app in apps]  # type: ignore[attr-defined]
        shown = [countdown.plain for countdown in countdowns]
        await asyncio.sleep(1.05)  # one step (a second), or two
        steps = len(finished)
        assert steps in (1, 2) and painted == refreshed == handled == []
        assert sum(updates.values()) == 0
        for app, countdown, before, old in zip(apps, countdowns, frames_before, shown,
                                               strict=True):
            assert countdown.plain != old and re.fullmatch("⏱ 0:[01][0-9]", countdown.plain.strip())
            frames = app._driver.frames[before:]  # type: ignore[attr-defined]
            assert len(frames) == steps
            region = countdown.region
            for frame in frames:  # the countdown's cells, then the cursor put back
                moves = re.findall(r"\x1b\[(\d+);(\d+)H", frame)
                assert moves[0] == (str(region.y + 1), str(region.x + 1)) and len(moves) == 2
                assert countdown.plain.strip() in frame or steps == 2
                assert len(re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", frame)) == Countdown.WIDTH
            assert terminal_cells(app) == whole_repaint_cells(app)


async def test_a_paint_walks_the_screen_once_per_layout(monkeypatch: pytest.MonkeyPatch
                                                        ) -> None:
    """Which widgets asked for a repaint is read from a list of the screen's widgets made
    once per layout (a walk of the screen on every paint was 2-3% of the loop at 400
    players); a widget mounted since (a notification's toast) is still drawn."""
    walks: list[object] = []
    walk_children = DOMNode.walk_children

    def counted(node: DOMNode, *args: Any, **kwargs: Any) -> Any:
        if sys._getframe(1).f_code.co_name in ("paint_now", "_widgets"):
            walks.append(node)
        return walk_children(node, *args, **kwargs)

    async with table_of_three("walks") as (table, apps):
        monkeypatch.setattr(DOMNode, "walk_children", counted)
        await picks_and_chat(table, apps)
        assert len(walks) <= len(apps)  # at most once each, the first paint after a layout
        for app in apps:
            app.notify("Someone left the lobby", timeout=30)
        await settled_after(0.3)
        by_seat = {app.session.seat: app for app in apps}  # type: ignore[union-attr]
        by_seat[table.state.lead].session.pick(3, 2)  # type: ignore[union-attr]
        await settled_after(0.3)
        for app in apps:
            assert "Someone left" in "".join(row[0] for line in terminal_cells(app)
                                             for row in line)
            assert terminal_cells(app) == whole_repaint_cells(app)
