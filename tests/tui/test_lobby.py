"""The lobby, driven with Pilot: names, the live list of tables, and ways to sit down."""

from __future__ import annotations

import pytest
from textual.widgets import Input, Label, Static

from engine.cards import load_deck
from engine.hub import Hub
from engine.identity import Player
from engine.tables import TableOptions
from lean_textual.cached_lines import CachedLines
from tests.tui.game_host import screen_text
from tests.tui.pilots import settle
from tui.app import MissionApp
from tui.form_row import FormRow
from tui.game_screen import GameScreen
from tui.inputs import QuietInput
from tui.lobby_screen import LobbyScreen, TableList
from tui.table_screen import SeatList, TableScreen

NO_TIMER = TableOptions(turn_seconds=0)


@pytest.fixture
def hub() -> Hub:
    return Hub(deck=load_deck(), seed="test", settle_ms=0, bot_delay=0.0)


def ann(hub: Hub, join_code: str | None = None) -> MissionApp:
    return MissionApp(hub, Player("key:ann", "Ann"), join_code)


def rows(app: MissionApp) -> list[list[str]]:
    table = app.lobby_screen.query_one(TableList)  # type: ignore[union-attr]
    return [table.row_text(i) for i in range(table.row_count)]


def seat_names(app: MissionApp) -> list[str]:
    seats = app.screen.query_one(SeatList)
    return [seats.row_text(i)[1] for i in range(seats.row_count)]


async def test_the_lobby_lists_open_tables_with_code_host_seats_and_status(hub: Hub) -> None:
    bob = hub.attach(Player("key:bob", "Bob"))
    code = bob.create_table(NO_TIMER)
    cy = hub.attach(Player("key:cy", "Cy"))
    cy.join(code)
    app = ann(hub)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, LobbyScreen)
        assert rows(app) == [[code, "Bob", "2/5", "waiting", "Bob, Cy"]]


async def test_a_new_table_appears_in_another_players_lobby_at_once(hub: Hub) -> None:
    first, second = ann(hub), MissionApp(hub, Player("key:bob", "Bob"))
    async with first.run_test(size=(80, 24)) as p1, second.run_test(size=(80, 24)) as p2:
        await settle(p1, p2)
        assert rows(second) == []
        await p1.press("c")
        await settle(p1, p2)
        assert isinstance(first.screen, TableScreen)
        code = first.session.view().code  # type: ignore[union-attr]
        assert rows(second) == [[code, "Ann", "1/5", "waiting", "Ann"]]


@pytest.mark.parametrize("size", [(80, 24), (100, 30), (120, 40)])
async def test_the_empty_lobby_s_hint_is_whole_beside_the_past_games(hub: Hub, size) -> None:
    """Found over SSH: at 120x40 the hint was cut ("...tell your friends its cod…")."""
    app = ann(hub)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        assert "press c to create one, then give friends its code." in screen_text(app)


async def test_every_table_created_while_a_player_looks_is_on_their_screen(hub: Hub) -> None:
    app = ann(hub)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert "No tables yet" in screen_text(app)
        codes, hosts = [], []
        for name in ("Bob", "Cy", "Dee"):
            hosts.append(hub.attach(Player(f"key:{name.lower()}", name)))
            codes.append(hosts[-1].create_table(NO_TIMER))
            await settle(pilot)
            shown = screen_text(app)
            assert all(code in shown for code in codes), shown
            assert "No tables yet" not in shown
        for host in hosts:
            host.leave()
        await settle(pilot)
        shown = screen_text(app)
        assert "No tables yet" in shown
        assert not any(code in shown for code in codes)


async def test_a_click_on_a_table_in_the_boxed_list_picks_it_and_a_second_joins(
        hub: Hub) -> None:
    codes = [hub.attach(Player(f"key:{name}", name)).create_table(NO_TIMER)
             for name in ("Bob", "Cy")]
    app = ann(hub)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        tables = app.screen.query_one(TableList)
        assert tables.cursor_key == codes[0]
        second = (3, 3)  # the box's top edge, the header, the first table, the second
        await pilot.click(TableList, offset=second)
        assert tables.cursor_key == codes[1]
        await pilot.click(TableList, offset=second)
        await settle(pilot)
        assert isinstance(app.screen, TableScreen)
        assert app.session.view().code == codes[1]  # type: ignore[union-attr]


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_each_field_s_label_ends_one_cell_before_it_with_no_label_widgets(
        hub: Hub, size: tuple[int, int]) -> None:
    app = ann(hub)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        rows = list(app.screen.query(FormRow))
        assert [row.labels for row in rows] == [
            ["Your agent name"], ["Table code", "Guest's seat code"]]
        assert not app.screen.query(Label)
        shown = screen_text(app).splitlines()
        for row in rows:
            for label, field in zip(row.labels, row.query(QuietInput), strict=True):
                x, y = field.region.x, field.region.y
                assert shown[y][x - len(label) - 1:x] == label + " "
                assert shown[y][x - len(label) - 2] == " "  # not run into anything


async def test_a_name_with_escape_codes_and_markup_is_cleaned_and_shown_literally(
        hub: Hub) -> None:
    app = ann(hub)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("n")
        name = app.screen.query_one("#name", Input)
        assert name.has_focus
        name.value = "\x1b[31m[b]x[/b]\x07[@click=quit]"
        await pilot.press("enter")
        await settle(pilot)
        assert app.session.player.name == "[b]x[/b] [@click"  # type: ignore[union-attr]
        assert name.value == app.session.player.name  # type: ignore[union-attr]
        await pilot.press("c")
        await settle(pilot)
        assert seat_names(app)[0] == "[b]x[/b] [@click"
        assert app.is_running


async def test_a_blank_name_is_refused_and_the_old_name_comes_back(hub: Hub) -> None:
    app = ann(hub)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("n")
        app.screen.query_one("#name", Input).value = "   "
        await pilot.press("enter")
        await settle(pilot)
        assert app.session.player.name == "Ann"  # type: ignore[union-attr]
        assert app.screen.query_one("#name", Input).value == "Ann"
        assert any("visible character" in n.message for n in app._notifications)


async def test_enter_on_a_table_in_the_list_sits_the_player_down(hub: Hub) -> None:
    code = hub.attach(Player("key:bob", "Bob")).create_table(NO_TIMER)
    app = ann(hub)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, TableScreen)
        view = app.session.view()  # type: ignore[union-attr]
        assert view is not None and view.code == code and view.my_seat == 1


async def test_typing_a_table_code_joins_that_table(hub: Hub) -> None:
    hub.attach(Player("key:bob", "Bob")).create_table(NO_TIMER)
    code = hub.attach(Player("key:cy", "Cy")).create_table(NO_TIMER)
    app = ann(hub)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("j", *code.lower(), "enter")
        await settle(pilot)
        view = app.session.view()  # type: ignore[union-attr]
        assert view is not None and view.code == code
        assert seat_names(app)[:2] == ["Cy", "Ann"]


async def test_an_unknown_code_leaves_the_player_in_the_lobby_with_a_warning(hub: Hub) -> None:
    app = ann(hub)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("j", "z", "z", "z", "z", "enter")
        await settle(pilot)
        assert isinstance(app.screen, LobbyScreen)
        assert any("no table has the code" in n.message for n in app._notifications)


async def test_a_join_code_given_at_connection_lands_at_that_table(hub: Hub) -> None:
    code = hub.attach(Player("key:bob", "Bob")).create_table(NO_TIMER)
    app = ann(hub, join_code=code.lower())
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, TableScreen)
        assert seat_names(app)[:2] == ["Bob", "Ann"]


async def test_an_unknown_join_code_shows_the_lobby_with_a_clear_message(hub: Hub) -> None:
    app = ann(hub, join_code="QQQQ")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, LobbyScreen)
        message = app.screen.query_one("#lobby-message", Static)
        assert "No table has the code 'QQQQ'" in str(message.render())
        assert message.region.height >= 1  # and on screen (it was laid out as empty)
        app.screen.say("")  # type: ignore[attr-defined]
        await settle(pilot)
        assert message.region.height == 0  # no line kept for no message


async def test_a_message_line_is_built_when_first_said_and_shown_at_once(hub: Hub) -> None:
    app = ann(hub)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert not app.screen.query("#lobby-message")  # most players never get one
        app.screen.say("Table QQQQ is full")  # type: ignore[attr-defined]
        await settle(pilot)
        assert "Table QQQQ is full" in screen_text(app)
        app.screen.say("")  # type: ignore[attr-defined]
        await settle(pilot)
        assert app.screen.query_one("#lobby-message").region.height == 0


async def test_w_watches_the_selected_table_as_a_spectator(hub: Hub) -> None:
    code = hub.attach(Player("key:bob", "Bob")).create_table(NO_TIMER)
    app = ann(hub)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("w")
        await settle(pilot)
        view = app.session.view()  # type: ignore[union-attr]
        assert view is not None and view.code == code and view.my_seat is None
        assert isinstance(app.screen, TableScreen)
        assert "watching" in app.screen.query_one("#table-status", CachedLines).plain
        await pilot.press("s")  # take a seat after all
        await settle(pilot)
        assert app.session.view().my_seat == 1  # type: ignore[union-attr]


async def test_a_guest_comes_back_to_their_seat_with_the_seat_code(hub: Hub) -> None:
    guest = hub.attach(Player("guest:1", "Gus"))
    code = guest.create_table(NO_TIMER)
    seat_code = guest.view().seat_code  # type: ignore[union-attr]
    assert seat_code
    hub.attach(Player("key:bob", "Bob")).join(code)
    guest.add_bot()
    guest.start()
    guest.detach()  # the connection dropped: the seat waits in the game
    app = MissionApp(hub, Player("guest:2", "Gus again"))
    async with app.run_test(size=(80, 24)) as pilot:
        lobby = app.screen
        lobby.query_one("#code", Input).value = code
        lobby.query_one("#seat-code", Input).value = seat_code.lower()
        lobby.query_one("#seat-code", Input).focus()
        await pilot.press("enter")
        await settle(pilot)
        view = app.session.view()  # type: ignore[union-attr]
        assert view is not None and view.code == code and view.my_seat == 0
        assert view.seats[0].name == "Gus" and view.seats[0].connected
        assert isinstance(app.screen, GameScreen)


async def test_q_in_the_lobby_quits_the_app(hub: Hub) -> None:
    app = ann(hub)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("q")
        await pilot.pause()
    assert not app.is_running
    assert app.return_value is None


async def test_user_text_in_the_list_is_plain_text_not_markup(hub: Hub) -> None:
    hub.attach(Player("key:bob", "[red]Bob[/red]")).create_table(NO_TIMER)
    app = ann(hub)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        table = app.screen.query_one(TableList)
        assert table.row_text(0)[1] == "[red]Bob[/red]"
        assert "[red]Bob[/red]" in str(table.render_line(1))  # drawn as typed


async def test_b_in_the_lobby_turns_the_turn_bell_off_and_on() -> None:
    hub = Hub(deck=load_deck(), seed="bell", settle_ms=0, bot_delay=0.0)
    app = MissionApp(hub, Player("key:ann", "Ann"))
    async with app.run_test(size=(100, 30)) as pilot:
        assert app.bell_on
        await pilot.press("b")
        await pilot.pause()
        assert not app.bell_on
        assert "bell when it is your turn is off" in str(
            app.screen.query_one("#lobby-message").render())
        await pilot.press("b")
        await pilot.pause()
        assert app.bell_on
