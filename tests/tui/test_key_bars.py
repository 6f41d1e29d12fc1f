"""The key bar of every screen offers only keys that would do what it says, now."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

import pytest
from textual.pilot import Pilot

from engine.cards import load_deck
from engine.hub import Hub
from engine.identity import Player
from engine.tables import TableOptions
from tests.tui.pilots import settle
from tui.app import MissionApp
from tui.end_screen import EndScreen
from tui.keybar import KeyBar
from tui.lobby_screen import LobbyScreen, TableList
from tui.table_screen import TableScreen

NO_TIMER = TableOptions(turn_seconds=0)


@pytest.fixture
def hub() -> Hub:
    return Hub(deck=load_deck(), seed="test", settle_ms=0, bot_delay=0.0)


@contextlib.asynccontextmanager
async def ann_hosts(hub: Hub) -> AsyncIterator[tuple[MissionApp, Pilot[None], str]]:
    """Ann's app at a new table she hosts: the app, its pilot and the table's code."""
    app = MissionApp(hub, Player("key:ann", "Ann"))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("c")
        await settle(pilot)
        assert isinstance(app.screen, TableScreen)
        yield app, pilot, app.session.view().code  # type: ignore[union-attr, misc]


def keys(app: MissionApp) -> dict[str, str]:
    """What the bar on the current screen says: label by key."""
    return {label: key for key, label, _ in app.screen.query_one(KeyBar).hints}


async def test_the_lobby_offers_join_and_watch_only_when_there_is_a_table(hub: Hub) -> None:
    app = MissionApp(hub, Player("key:ann", "Ann"))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, LobbyScreen)
        assert "Join" not in keys(app) and "Watch" not in keys(app)
        assert keys(app)["Create table"] == "c"
        await pilot.press("enter", "w")  # nothing to join or watch: nothing happens
        await settle(pilot)
        assert isinstance(app.screen, LobbyScreen) and not app._notifications
        bob = hub.attach(Player("key:bob", "Bob"))
        code = bob.create_table(NO_TIMER)
        await settle(pilot)
        assert keys(app)["Join"] == "⏎" and keys(app)["Watch"] == "w"
        bob.leave()  # the table goes away again
        await settle(pilot)
        assert "Join" not in keys(app) and "Watch" not in keys(app)
        assert code not in app.screen.query_one(TableList).keys


async def test_in_a_lobby_text_field_the_bar_says_what_enter_and_esc_do(hub: Hub) -> None:
    app = MissionApp(hub, Player("guest:ann", "Ann"))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("n")  # letters typed here are letters, not keys
        await settle(pilot)
        assert keys(app) == {"keep this name": "⏎", "back to the list": "esc"}
        await pilot.press("escape", "j")
        await settle(pilot)
        assert keys(app) == {"go to that table": "⏎", "back to the list": "esc"}
        await pilot.press("tab", "A", "B")  # a seat code: Enter takes the seat back
        await settle(pilot)
        assert keys(app)["take your seat back"] == "⏎"


async def test_table_setup_offers_no_key_that_would_be_refused(hub: Hub) -> None:
    async with ann_hosts(hub) as (app, pilot, code):
        assert "Remove" not in keys(app)  # only the host sits here
        assert "Start game" not in keys(app)  # too few seats
        hub.attach(Player("key:bob", "Bob")).join(code)
        await settle(pilot)
        assert keys(app)["Remove"] == "x"
        await pilot.press("b", "b", "b")  # five seats: the table is full
        await settle(pilot)
        assert "Add bot" not in keys(app) and keys(app)["Start game"] == "g"

        watcher = MissionApp(hub, Player("key:cy", "Cy"))
        async with watcher.run_test(size=(80, 24)) as p2:
            watcher.session.join(code, spectate=True)  # type: ignore[union-attr]
            await settle(pilot, p2)
            assert isinstance(watcher.screen, TableScreen)
            assert "Take a seat" not in keys(watcher)  # the table is full
            app.screen.query_one("#seats").move_cursor(row=4)  # type: ignore[attr-defined]
            await pilot.press("x")  # a bot goes at once: a seat is free
            await settle(pilot, p2)
            assert keys(watcher)["Take a seat"] == "s"


async def test_a_rematch_is_offered_only_with_enough_seats(hub: Hub) -> None:
    async with ann_hosts(hub) as (app, pilot, code):
        bob, cy = (hub.attach(Player(f"key:{n}", n)) for n in ("bob", "cy"))
        bob.join(code)
        cy.join(code)
        app.session.start()  # type: ignore[union-attr]
        app.session.end_game()  # type: ignore[union-attr]
        await settle(pilot)
        assert isinstance(app.screen, EndScreen)
        assert keys(app)["Rematch"] == "r"
        cy.leave()  # two seats left: no game
        await settle(pilot)
        assert "Rematch" not in keys(app)
        status = str(app.screen.query_one("#end-status").render())
        assert "Too few seats left for a rematch (2 of 3)" in status
        assert "Press r" not in status


async def test_the_waiting_room_after_a_game_shows_its_whole_key_bar_at_80_columns(
        hub: Hub) -> None:
    async with ann_hosts(hub) as (app, pilot, code):
        bob, cy = (hub.attach(Player(f"key:{n}", n)) for n in ("bob", "cy"))
        bob.join(code)
        cy.join(code)
        app.session.start()  # type: ignore[union-attr]
        app.session.end_game()  # type: ignore[union-attr]
        await settle(pilot)
        await pilot.press("o")  # the table's setup, from the results
        await settle(pilot)
        assert isinstance(app.screen, TableScreen)
        bar = app.screen.query_one(KeyBar)
        assert keys(app)["Results"] == "esc" and "? Help" in bar.plain
        assert len(bar.plain.rstrip()) <= 80, bar.plain  # nothing cut ("esc Back to the...")


async def test_enter_on_a_table_where_it_would_only_watch_is_not_called_join(hub: Hub) -> None:
    bob = hub.attach(Player("key:bob", "Bob"))
    code = bob.create_table(TableOptions(turn_seconds=0, bots_fill=True))
    app = MissionApp(hub, Player("key:ann", "Ann"))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert keys(app)["Join"] == "⏎"
        bob.start()  # a game runs there now: Enter would make Ann a spectator
        await settle(pilot)
        assert "Join" not in keys(app) and keys(app)["Watch"] == "w"
        other = hub.attach(Player("key:cy", "Cy")).create_table(NO_TIMER)
        await settle(pilot)
        rows = app.screen.query_one("#tables")
        rows.move_cursor(row=[t.code for t in app.session.lobby()].index(other))  # type: ignore[attr-defined, union-attr]
        await settle(pilot)
        assert keys(app)["Join"] == "⏎"
        assert code != other
