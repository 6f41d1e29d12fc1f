"""The light widgets that stand in for DataTable and the options' grid of Selects,
Switches and Inputs."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from typing import Any

from textual.app import App
from textual.message import Message
from textual.widget import Widget

from engine.cards import load_deck
from engine.hub import Hub
from engine.identity import Player
from engine.tables import TableOptions
from engine.tables import TableOptions as Options
from tests.tui.pilots import settle
from tui.app import MissionApp
from tui.lobby_screen import TableList
from tui.options_form import OptionsForm
from tui.row_list import RowList


class Lists(App[None]):
    def __init__(self) -> None:
        super().__init__()
        self.heard: list[Message] = []

    def compose(self) -> Iterator[Widget]:
        yield RowList((("Name", 6), ("Note", 0)), id="rows")
        yield OptionsForm(id="form")

    def on_row_list_highlighted(self, message: RowList.Highlighted) -> None:
        self.heard.append(message)

    def on_row_list_selected(self, message: RowList.Selected) -> None:
        self.heard.append(message)

    def on_options_form_changed(self, message: OptionsForm.Changed) -> None:
        self.heard.append(message)


def heard(app: Lists) -> list[tuple[str, Any]]:
    out: list[tuple[str, Any]] = []
    for m in app.heard:
        out.append((type(m).__name__, getattr(m, "key", getattr(m, "options", None))))
    app.heard.clear()
    return out


async def test_the_cursor_moves_by_key_and_click_and_stays_on_its_row_when_rows_change(
        ) -> None:
    app = Lists()
    async with app.run_test(size=(60, 16)) as pilot:
        rows = app.query_one(RowList)
        rows.set_rows([("a", ("Ann", "x")), ("b", ("Bob", "")), ("c", ("Cy", ("y", "dim")))])
        rows.focus()
        await pilot.pause()
        assert (rows.cursor_key, heard(app)) == ("a", [("Highlighted", "a")])
        await pilot.press("down", "down", "down")  # the last row stops it
        assert rows.cursor_key == "c"
        await pilot.press("home", "enter")
        await pilot.pause()
        assert heard(app) == [("Highlighted", "b"), ("Highlighted", "c"), ("Highlighted", "a"),
                              ("Selected", "a")]
        rows.set_rows([("z", ("Zed", "")), ("a", ("Ann", "x")), ("c", ("Cy", ""))])
        await pilot.pause()
        assert (rows.cursor_key, rows.cursor_row, heard(app)) == ("a", 1, [])  # same table
        rows.set_rows([("z", ("Zed", "")), ("c", ("Cy", ""))])
        await pilot.pause()
        assert (rows.cursor_row, heard(app)) == (1, [("Highlighted", "c")])  # same place
        await pilot.click(RowList, offset=(2, 1))  # the header is row 0
        await pilot.click(RowList, offset=(2, 1))
        await pilot.pause()
        assert heard(app) == [("Highlighted", "z"), ("Selected", "z")]
        rows.set_rows([])
        await pilot.press("enter")
        await pilot.pause()
        assert rows.cursor_key is None and heard(app) == [("Highlighted", None)]


async def test_rows_longer_than_the_list_scroll_to_keep_the_cursor_in_view() -> None:
    app = Lists()
    async with app.run_test(size=(60, 16)) as pilot:
        rows = app.query_one(RowList)
        rows.styles.height = 4  # a header and three rows
        rows.set_rows([(str(n), (f"r{n}", "")) for n in range(10)])
        rows.focus()
        await pilot.pause()
        await pilot.press("end")
        await pilot.pause()
        shown = [rows.render_line(y).text.strip() for y in range(4)]
        assert shown == ["Name    Note", "r7", "r8", "r9"]
        await pilot.press("pageup")
        await pilot.pause()
        assert rows.cursor_key == "6" and rows.render_line(1).text.strip() == "r6"


async def test_the_options_form_picks_and_steps_by_click_and_not_when_read_only() -> None:
    app = Lists()
    async with app.run_test(size=(60, 14)) as pilot:
        form = app.query_one(OptionsForm)
        form.show_options(Options(), locked=False)
        await pilot.click(OptionsForm, offset=(2, 3))  # Best plan: picked
        await pilot.click(OptionsForm, offset=(2, 3))  # and stepped
        await pilot.pause()
        assert heard(app) == [("Changed", Options(best_plan=True))]
        form.show_options(Options(), locked=True)  # the table refused, say; a guest now
        await pilot.click(OptionsForm, offset=(2, 3))
        await pilot.click(OptionsForm, offset=(2, 3))
        await pilot.pause()
        assert heard(app) == [] and form.options == Options() and form.disabled


async def test_refilling_the_lobby_s_list_leaves_no_garbage_for_the_cyclic_collector(
        ) -> None:
    hub = Hub(deck=load_deck(), seed="rows-gc", settle_ms=0, bot_delay=0.0)
    app = MissionApp(hub, Player("key:ann", "Ann"))
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        hosts = [hub.attach(Player(f"key:h{n}", f"H{n}")) for n in range(6)]
        hosts[0].create_table(TableOptions())
        await settle(pilot)
        gc.collect()
        gc.disable()
        gc.set_debug(gc.DEBUG_SAVEALL)
        try:
            for host in hosts[1:]:  # the list changes five times
                host.create_table(TableOptions())
                await settle(pilot)
            gc.collect()
            left = len(gc.garbage)
        finally:
            gc.set_debug(0)
            gc.garbage.clear()
            gc.enable()
        assert app.screen.query_one(TableList).row_count == 6
        assert left < 50  # DataTable left about 1,900 objects over these five refills
