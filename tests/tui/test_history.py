"""Past games in the lobby: the hall of fame, the player's own record, the last games.

The hub is journaled (``Hub.open``) so finished games are recorded; games are played through
Session calls before the app starts. Update the snapshots with
``pytest tests/tui/test_history.py --snapshot-update`` and look at the SVGs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from textual.app import App, ComposeResult
from textual.widgets import Static

from engine.cards import load_deck
from engine.hub import Hub
from engine.identity import Player
from engine.records import GamePlayer, GameSummary, PlayerRecord
from engine.tables import PlayerHistory, TableOptions
from tests.tui.pilots import settle
from tests.tui.test_app import play_game
from tui import history_panel
from tui.app import MissionApp
from tui.history_panel import HistoryPanel, ago, game_text
from tui.lobby_screen import LobbyScreen, TableList
from tui.table_screen import TableScreen

ONE_ROUND = TableOptions(turn_seconds=0, rounds=1)
Snap = Callable[..., bool]


@pytest.fixture
def hub(tmp_path: Path) -> Iterator[Hub]:
    hub = Hub.open(tmp_path, deck=load_deck(), seed="t", settle_ms=0, bot_delay=0.0)
    yield hub
    hub.close()  # releases the data directory's lock


def played(hub: Hub) -> str:
    """One short game of Ann, a player with markup in her name, and Cy (Ann wins 3-1-2);
    returns its table code."""
    code, _ = play_game(hub, ["Ann", "[b]x[/b]", "Cy"], ONE_ROUND)
    return code


def frozen_clock(hub: Hub, monkeypatch: pytest.MonkeyPatch) -> None:
    """Date the games from five minutes after the last one finished."""
    recent = hub.attach(Player("key:clock", "clock")).history().recent
    now = recent[0].finished_at + timedelta(minutes=5)
    monkeypatch.setattr(history_panel, "utc_now", lambda: now)


def text(app: MissionApp, selector: str) -> str:
    return str(app.screen.query_one(selector, Static).render())


async def test_a_player_sees_the_hall_of_fame_their_record_and_the_last_game(
        hub: Hub, monkeypatch: pytest.MonkeyPatch) -> None:
    code = played(hub)
    frozen_clock(hub, monkeypatch)
    app = MissionApp(hub, Player("key:ann", "Ann"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, LobbyScreen)
        assert app.screen.query_one(HistoryPanel).display
        assert text(app, "#history-mine") == "1 game played, 1 won, 3 points\nas Ann"
        fame = text(app, "#history-fame").splitlines()
        assert fame[1].split() == ["1.", "Ann", "1", "1", "3"]
        assert fame[2].split() == ["2.", "Cy", "0", "1", "2"]
        assert fame[3].split() == ["3.", "[b]x[/b]", "0", "1", "1"]
        assert text(app, "#history-recent") == (
            f"5 min ago  table {code}\n★ Ann 3  Cy 2  [b]x[/b] 1")


async def test_a_new_player_sees_no_games_yet_beside_the_others_games(hub: Hub) -> None:
    played(hub)
    app = MissionApp(hub, Player("key:dee", "Dee"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert text(app, "#history-mine").startswith("No games yet")
        assert "Ann" in text(app, "#history-fame")
        assert "★ Ann 3" in text(app, "#history-recent")


async def test_a_name_with_markup_is_shown_literally_in_every_part(hub: Hub) -> None:
    played(hub)
    app = MissionApp(hub, Player("key:[b]x[/b]", "[b]x[/b]"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert text(app, "#history-mine").endswith("as [b]x[/b]")
        assert "[b]x[/b]" in text(app, "#history-fame")
        assert "[b]x[/b] 1" in text(app, "#history-recent")


async def test_at_80_columns_h_shows_past_games_in_place_of_the_tables_and_back(
        hub: Hub) -> None:
    played(hub)
    app = MissionApp(hub, Player("key:ann", "Ann"))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        lobby = app.screen
        panel, tables = lobby.query_one(HistoryPanel), lobby.query_one(TableList)
        assert not panel.display and tables.has_focus
        assert not panel.children  # behind h: built when first shown, not with the lobby
        await pilot.press("h")
        assert panel.display and panel.has_focus
        assert not tables.display
        assert "1 won" in text(app, "#history-mine")
        await pilot.press("escape")
        assert not panel.display and tables.has_focus
        await pilot.press("h", "h")
        assert not panel.display and tables.has_focus
        await pilot.resize_terminal(120, 40)
        await settle(pilot)
        assert panel.display and tables.display and tables.has_focus
        await pilot.press("h")  # a column that can be put away
        assert not panel.display and tables.has_focus


async def test_past_games_that_come_into_view_on_a_resize_are_read(hub: Hub) -> None:
    """Connected at 80 columns (past games behind h), then the window grows: the column
    that appears shows the games (it said "Nobody has finished a game here yet")."""
    played(hub)
    app = MissionApp(hub, Player("key:ann", "Ann"))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.resize_terminal(120, 40)
        await settle(pilot)
        assert app.screen.query_one(HistoryPanel).display
        assert "1 won" in text(app, "#history-mine")
        assert "Ann" in text(app, "#history-fame")


async def test_history_is_read_when_it_is_shown_not_on_every_lobby_change(
        hub: Hub) -> None:
    app = MissionApp(hub, Player("key:ann", "Ann"))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        session = app.session
        assert session is not None
        asked: list[PlayerHistory] = []
        real = session.history

        def counted(limit: int = 8) -> PlayerHistory:
            asked.append(history := real(limit))
            return history

        session.history = counted  # type: ignore[method-assign]
        for name in ("Bob", "Cy", "Dee"):  # the list of tables changes three times
            hub.attach(Player(f"key:{name.lower()}", name)).create_table(ONE_ROUND)
            await settle(pilot)
        assert app.screen.query_one(TableList).row_count == 3
        assert asked == []
        await pilot.press("c")
        await settle(pilot)
        assert isinstance(app.screen, TableScreen)
        code, _ = play_game(hub, ["Gil", "Hal", "Ivy"], ONE_ROUND)  # while Ann sits
        session.leave()
        await settle(pilot)
        assert isinstance(app.screen, LobbyScreen)
        assert asked == []  # at 80 columns past games are behind h: read when shown
        await pilot.press("h")
        await settle(pilot)
        assert len(asked) == 1
        assert f"table {code}" in text(app, "#history-recent")


class PanelApp(App[None]):
    def compose(self) -> ComposeResult:
        yield HistoryPanel()


async def test_showing_the_same_history_again_repaints_nothing() -> None:
    app = PanelApp()
    async with app.run_test(size=(80, 24)):
        panel = app.query_one(HistoryPanel)
        mine = PlayerRecord("key:ann", "Ann", ("Ann",), 1, 1, 3, datetime(2025, 5, 1, tzinfo=UTC))
        first = PlayerHistory((mine,), mine, ())
        panel.show(first)
        repainted: list[object] = []
        for part in panel.query(Static):
            part.update = repainted.append  # type: ignore[method-assign]
        panel.show(PlayerHistory((mine,), mine, ()))  # equal data
        assert panel.shown is first and repainted == []


def test_a_shared_victory_stars_every_winner_and_says_it_is_shared() -> None:
    when = datetime(2025, 5, 1, 20, 0, tzinfo=UTC)
    game = GameSummary("QXZW", 2, when, (
        GamePlayer(0, "key:ann", "Ann", 4, True),
        GamePlayer(1, "bot:1", "Bot Ada", 2, False),
        GamePlayer(2, "key:bob", "Bob", 4, True),
    ), rounds=6)
    assert str(game_text(game, when + timedelta(hours=3))) == (
        "3 h ago  table QXZW (game 2)\n★ Ann 4  ★ Bob 4  Bot Ada 2  (shared)")


@pytest.mark.parametrize(("seconds", "words"), [
    (20, "just now"), (125, "2 min ago"), (3 * 3600 + 5, "3 h ago"), (30 * 3600, "yesterday"),
    (3 * 86400, "3 days ago"), (30 * 86400, "01 May 2025"),
])
def test_games_are_dated_in_words_a_player_reads_at_a_glance(seconds: int, words: str) -> None:
    when = datetime(2025, 5, 1, 20, 0, tzinfo=UTC)
    assert ago(when, when + timedelta(seconds=seconds)) == words


def test_a_record_lists_every_name_the_player_used() -> None:
    when = datetime(2025, 5, 1, tzinfo=UTC)
    mine = PlayerRecord("key:ann", "Annie", ("Annie", "Ann"), 3, 2, 11, when)
    assert str(history_panel.record_text(mine)) == (
        "3 games played, 2 won, 11 points\nas Annie, Ann")


# -- pictures ---------------------------------------------------------------------------------


def test_past_games_beside_the_tables_at_120x40(snap_compare: Snap, hub: Hub,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    played(hub)
    play_game(hub, ["Dee", "Ann", "Eve"], ONE_ROUND)
    frozen_clock(hub, monkeypatch)
    assert snap_compare(MissionApp(hub, Player("key:ann", "Ann")), terminal_size=(120, 40))


def test_past_games_in_place_of_the_tables_at_80x24(snap_compare: Snap, hub: Hub,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    played(hub)
    play_game(hub, ["Dee", "Ann", "Eve"], ONE_ROUND)
    frozen_clock(hub, monkeypatch)
    assert snap_compare(MissionApp(hub, Player("key:ann", "Ann")), terminal_size=(80, 24),
                        press=["h"])


async def test_the_ago_times_grow_while_the_lobby_stays_open(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(HistoryPanel, "AGO_REFRESH_S", 0.05)  # its own timer, sooner
    finished = datetime(2025, 5, 1, 20, 0, tzinfo=UTC)
    now = [finished + timedelta(minutes=2)]
    game = GameSummary("QXZW", 1, finished, (GamePlayer(0, "key:ann", "Ann", 4, True),),
                       rounds=6)

    class ClockApp(App[None]):
        def compose(self) -> ComposeResult:
            yield HistoryPanel(clock=lambda: now[0])

    app = ClockApp()
    async with app.run_test(size=(80, 24)) as pilot:
        panel = app.query_one(HistoryPanel)
        panel.show(PlayerHistory((), None, (game,)))
        await pilot.pause()
        recent = app.query_one("#history-recent", Static)
        assert "2 min ago" in str(recent.render())
        for minutes in (12, 13):  # the timer fires, and fires again
            now[0] = finished + timedelta(minutes=minutes)
            await pilot.pause(0.2)
            await pilot.pause()
            assert f"{minutes} min ago" in str(recent.render())


def test_guests_are_marked_in_the_hall_of_fame() -> None:
    """Two visits of a keyless guest called cy are two people to the server: marked, so
    the two lines do not read as one person counted twice."""
    when = datetime(2025, 5, 1, tzinfo=UTC)
    fame = [PlayerRecord("guest:a", "cy", ("cy",), 1, 1, 5, when),
            PlayerRecord("key:b", "bob", ("bob",), 2, 0, 8, when),
            PlayerRecord("guest:c", "cy", ("cy",), 1, 1, 5, when)]
    rows = str(history_panel.fame_text(fame)).splitlines()
    assert rows[1:4] == [" 1. cy*                1     1    5",
                         " 2. bob                0     2    8",
                         " 3. cy*                1     1    5"]
    assert rows[4] == "* a guest: no key, no lasting record"
    assert "guest" not in str(history_panel.fame_text(fame[1:2]))
