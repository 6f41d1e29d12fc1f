"""What the shell's screens look like, at the smallest size we support and a roomy one.

Update with ``pytest tests/tui/test_app_snapshots.py --snapshot-update`` and look at the SVGs.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from textual.pilot import Pilot

from engine.cards import load_deck
from engine.hub import Hub
from engine.identity import Player
from engine.tables import TableOptions
from tests.tui.test_app import play_game
from tui.app import MissionApp

SIZES = [pytest.param((80, 24), id="80x24"), pytest.param((100, 30), id="100x30"),
         pytest.param((120, 40), id="120x40")]
Snap = Callable[..., bool]


def quiet_hub() -> Hub:
    """Seeded codes, and bots that never get round to moving while the picture is taken."""
    return Hub(deck=load_deck(), seed="snap", settle_ms=0, bot_delay=3600.0)


def two_tables(hub: Hub) -> None:
    bob = hub.attach(Player("key:bob", "Bob"))
    code = bob.create_table(TableOptions(turn_seconds=0))
    hub.attach(Player("key:dee", "Dee [the spy]")).join(code)
    cy = hub.attach(Player("key:cy", "Cy"))
    cy.create_table(TableOptions(turn_seconds=0, max_seats=4))
    cy.add_bot()
    cy.add_bot()
    cy.start()


@pytest.mark.parametrize("size", SIZES)
def test_lobby_with_two_tables(snap_compare: Snap, size: tuple[int, int]) -> None:
    hub = quiet_hub()
    two_tables(hub)
    assert snap_compare(MissionApp(hub, Player("key:ann", "Ann")), terminal_size=size)


@pytest.mark.parametrize("size", SIZES)
def test_table_screen_as_host(snap_compare: Snap, size: tuple[int, int]) -> None:
    hub = quiet_hub()
    app = MissionApp(hub, Player("guest:ann", "Ann"))

    async def set_up(pilot: Pilot[object]) -> None:
        await pilot.press("c", "b")
        await pilot.pause()
        session = app.session
        assert session is not None
        session.set_options(TableOptions(turn_seconds=60, best_plan=True))
        hub.attach(Player("key:bob", "Bob")).join(session.view().code)  # type: ignore[union-attr]
        hub.attach(Player("key:eve", "Eve")).join(session.view().code,  # type: ignore[union-attr]
                                                  spectate=True)
        await pilot.pause()

    assert snap_compare(app, terminal_size=size, run_before=set_up)


@pytest.mark.parametrize("size", SIZES)
def test_end_screen(snap_compare: Snap, size: tuple[int, int]) -> None:
    hub = quiet_hub()
    code, _ = play_game(hub, ["Ann", "Bob", "Cy"],
                        TableOptions(turn_seconds=0, rounds=2, best_plan=True))
    assert snap_compare(MissionApp(hub, Player("key:bob", "Bob"), code), terminal_size=size)


@pytest.mark.parametrize("size", SIZES)
def test_help_over_the_lobby(snap_compare: Snap, size: tuple[int, int]) -> None:
    hub = quiet_hub()
    two_tables(hub)
    assert snap_compare(MissionApp(hub, Player("key:ann", "Ann")), terminal_size=size,
                        press=["question_mark"])
