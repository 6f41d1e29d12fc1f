"""The table screen: the host sets each bot seat's level with one key."""

from __future__ import annotations

from engine.hub import Hub
from tests.tui.game_host import screen_text
from tests.tui.pilots import settle
from tests.tui.test_app import hub, notes, player_app  # noqa: F401 (hub is a fixture)
from tui.table_screen import SeatList


def seat_marks(app: object) -> list[str]:
    seats = app.screen.query_one(SeatList)  # type: ignore[attr-defined]
    return [seats.row_text(i)[2] for i in range(seats.row_count)]


async def test_the_host_cycles_a_bots_level_with_d_and_the_seat_list_shows_it(
        hub: Hub) -> None:  # noqa: F811
    app = player_app(hub, "Ann")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("c", "b")
        await settle(pilot)
        assert seat_marks(app)[1] == "normal bot"
        assert "Bot Ada           normal bot" in screen_text(app)  # whole, not cut
        await pilot.press("down", "d")
        await settle(pilot)
        assert seat_marks(app)[1] == "sharp bot"
        await pilot.press("d")
        await settle(pilot)
        assert seat_marks(app)[1] == "easy bot"
        assert app.session.view().seats[1].level == "easy"  # type: ignore[union-attr]


async def test_d_on_a_persons_seat_says_to_move_to_a_bot_and_changes_nothing(
        hub: Hub) -> None:  # noqa: F811
    app = player_app(hub, "Ann")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("c", "b", "d")  # the cursor is on the host's own seat
        await settle(pilot)
        assert any("move to a bot's seat" in n for n in notes(app))
        assert seat_marks(app)[1] == "normal bot"
