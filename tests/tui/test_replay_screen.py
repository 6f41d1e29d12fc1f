"""Finished games watched again on screen: the lobby's list, and the replay step by step,
of a game played for real through a hub with a journal (``tests/engine/test_replay.py``).

Update the snapshots with ``pytest tests/tui/test_replay_screen.py --snapshot-update`` and
look at the SVGs.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from textual.pilot import Pilot

from engine.hub import Hub
from engine.identity import Player
from engine.replay import Place, find_game
from engine.tables import Table, TableOptions
from engine.text import plural
from tests.engine.test_replay import journaled_hub, play_to_the_end, seat_people
from tests.tui.game_host import notices, screen_text
from tests.tui.pilots import settle
from tests.tui.test_screen_costs import counting_reflows
from tui.app import MissionApp
from tui.lobby_screen import LobbyScreen
from tui.replay_screen import GameList, PastGamesScreen, ReplayScreen

Snap = Callable[..., bool]


@pytest.fixture
def played(tmp_path: Path) -> Iterator[tuple[Hub, Table]]:
    """Ann and Bob with two bots played three rounds; then everyone left the table."""
    hub = journaled_hub(tmp_path)
    table, people = seat_people(hub, ["Ann", "Bob"], bots=("normal", "sharp"))
    asyncio.run(play_to_the_end(table, people, "g1"))
    for session in people.values():
        session.leave()
    yield hub, table
    hub.close()


async def until_replay(app: MissionApp, pilot: Pilot[object]) -> ReplayScreen:
    """The replay is read on a worker thread: wait for its screen."""
    for _ in range(200):
        await settle(pilot)
        if isinstance(app.screen, ReplayScreen):
            return app.screen
        await asyncio.sleep(0.01)
    raise AssertionError(f"no replay on screen: {screen_text(app)}")


async def test_r_in_the_lobby_lists_my_games_first_and_enter_opens_one_step_by_step(
        played: tuple[Hub, Table]) -> None:
    hub, table = played
    other = hub.attach(Player("key:cy", "Cy"))  # a game Ann was not in, played after hers
    other_table, others = seat_people(hub, ["Cy"], bots=("normal", "normal"),
                                      options=TableOptions(turn_seconds=0, rounds=1))
    await play_to_the_end(other_table, others, "g2")
    other.detach()
    app = MissionApp(hub, Player("key:ann", "Ann"))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert "r Replays" in screen_text(app)  # on the lobby's key bar
        await pilot.press("r")
        await settle(pilot)
        assert isinstance(app.screen, PastGamesScreen)
        games = app.screen.query_one(GameList)
        listed = [games.row_text(i) for i in range(games.row_count)]
        assert [row[1] for row in listed] == [table.code, other_table.code]  # mine first
        state = table.state
        assert state is not None
        names = state.players
        winner = names[state.scores.index(max(state.scores))]
        assert listed[0][2:4] == ["3 rounds", winner]
        assert listed[0][4] == "Ann, Bob, Bot Ada, Bot Bix"
        await pilot.press("enter")
        replay_screen = await until_replay(app, pilot)
        text = screen_text(app)
        first = state.history[0]
        lead = names[first.lead]
        steps = len(replay_screen.replay.rounds[0].steps)
        assert f"Replay  ·  table {table.code}, game 1" in text
        assert f"Round 1 of 3  ·  step 1 of {steps}: the deal" in text
        secret = replay_screen.replay.rounds[0].task
        assert f"{secret}  ◆ secret" in text  # shown, marked, from the first step
        assert f"Round 1: {lead} is the lead agent" in text
        await pilot.press("down", "down")
        await settle(pilot)
        text = screen_text(app)
        assert f"step 3 of {steps}: an item picked" in text
        assert f"{lead} marks {first.items[0]}" in text
        assert f"▶ {lead} marks {first.items[1]}" in text
        assert "2 picks" in text and f"✓{first.items[0]}" in text
        await pilot.press("space")  # Space steps too
        await settle(pilot)
        assert "step 4 of" in screen_text(app)
        kinds = [step.kind for step in replay_screen.replay.rounds[0].steps]
        assert first.stop, "the seeded game's first round has a Stop!"
        replay_screen.go(Place(0, kinds.index("stop")))
        await settle(pilot)
        text = screen_text(app)
        assert f"▶ {names[first.stop[0]]} shouts STOP!" in text and "s in" in text
        assert "Stop!" in text.split("Scores")[1]  # the stopper's seat is marked
        await pilot.press("right")
        await settle(pilot)
        assert replay_screen.place == Place(1, 0)
        assert "Round 2 of 3  ·  step 1 of" in screen_text(app)
        await pilot.press("left", "left")
        await settle(pilot)
        assert replay_screen.place == Place()
        await pilot.press("end")
        await settle(pilot)
        text = screen_text(app)
        assert "Round 3 of 3" in text and "the points" in text
        assert "◆ secret, shown" in text
        assert f"Game over: {winner} wins with {plural(max(state.scores), 'point')}" in text
        last = state.history[-1]
        right = sum(g == last.secret for g in last.guesses if g is not None)
        assert "★ won" in text and f"+{right} (lead agent" in text
        await pilot.press("up")
        await settle(pilot)
        assert "the lead's task" in screen_text(app)
        assert f"{names[last.lead]}'s plan: " in screen_text(app)  # the lead's plan, whole
        await pilot.press("home")
        await settle(pilot)
        assert replay_screen.place == Place()
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, PastGamesScreen)
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, LobbyScreen)


async def test_every_plan_of_a_round_is_shown_whole_as_its_guess_is_revealed(
        played: tuple[Hub, Table]) -> None:
    hub, table = played
    app = MissionApp(hub, Player("key:ann", "Ann"), replay=(table.code, None))
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await until_replay(app, pilot)
        first = screen.replay.rounds[0]
        reveals = [n for n, step in enumerate(first.steps) if step.kind == "reveal"]
        screen.go(Place(0, reveals[-1]))
        await settle(pilot)
        text = screen_text(app).replace("\n", " ")
        result = first.result
        assert result is not None
        for seat, name in ((0, "Ann"), (1, "Bob")):
            guess = result.guesses[seat]
            if seat != result.lead and guess is not None:
                mark = "right" if guess == result.secret else "wrong"
                assert f"{name} reveals {guess}: {result.tasks[guess - 1]}  {mark}" in text
        for seat in (s for s in range(4) if s != result.lead):
            words = result.plans[seat].split()
            assert all(word in text for word in words)  # wrapped, but whole


async def test_a_table_changing_in_the_lobby_leaves_the_replay_open(
        played: tuple[Hub, Table]) -> None:
    hub, table = played
    app = MissionApp(hub, Player("key:ann", "Ann"), replay=(table.code, None))
    async with app.run_test(size=(80, 24)) as pilot:
        await until_replay(app, pilot)
        hub.attach(Player("key:dee", "Dee")).create_table(TableOptions(turn_seconds=0))
        await settle(pilot)
        assert isinstance(app.screen, ReplayScreen)
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, LobbyScreen)  # straight in: Esc is the lobby


async def test_replay_with_an_unknown_code_says_so_in_the_lobby(
        played: tuple[Hub, Table]) -> None:
    hub, table = played
    app = MissionApp(hub, Player("key:ann", "Ann"), replay=(table.code, 7))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, LobbyScreen)
        assert f"No replay: the journal holds no finished game 7 of table {table.code}" in (
            screen_text(app))


async def test_a_pruned_game_is_listed_but_says_it_cannot_be_replayed(
        played: tuple[Hub, Table]) -> None:
    hub, _table = played
    hub.journal.connection.execute("DELETE FROM records")  # type: ignore[union-attr]
    app = MissionApp(hub, Player("key:ann", "Ann"))
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press("r")
        await settle(pilot)
        assert "pruned, no replay: Ann, Bob" in screen_text(app)
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, PastGamesScreen)
        assert any("cannot be replayed" in notice for notice in notices(app))


async def test_the_end_screen_says_how_to_watch_the_game_again(tmp_path: Path) -> None:
    hub = journaled_hub(tmp_path)
    table, people = seat_people(hub, ["Ann", "Bob"], bots=("normal",),
                                options=TableOptions(turn_seconds=0, rounds=1))
    app = MissionApp(hub, Player("key:ann", "Ann"), invite="ssh -t -p 2222 game.example")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        app.session.join(table.code)  # type: ignore[union-attr]
        await play_to_the_end(table, people, "g3")
        await settle(pilot)
        await pilot.press("enter")  # from the last round's summary to the results
        await settle(pilot)
        line = f"Watch it again: ssh -t -p 2222 game.example replay {table.code}"
        assert line in screen_text(app)
        assert f"{line} 1" not in screen_text(app)  # the table's only game: no number
        await play_to_the_end(table, people, "g4")  # a rematch
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        assert f"{line} 2" in screen_text(app)  # a table's last game is a later one's soon
        assert hub.records is not None
        assert find_game(hub.records, table.code, 2).game_no == 2
    hub.close()


# -- snapshots ------------------------------------------------------------------------------


@pytest.mark.parametrize("size", [pytest.param((80, 24), id="80x24"),
                                  pytest.param((120, 40), id="120x40")])
def test_snapshot_replay_mid_round(snap_compare: Snap, played: tuple[Hub, Table],
                                   size: tuple[int, int]) -> None:
    hub, table = played
    app = MissionApp(hub, Player("key:ann", "Ann"), replay=(table.code, None))

    async def set_up(pilot: Pilot[object]) -> None:
        screen = await until_replay(app, pilot)
        first = screen.replay.rounds[0]
        screen.go(Place(0, next(n for n, s in enumerate(first.steps)
                                if s.kind == "reveal") + 1))
        await settle(pilot)

    assert snap_compare(app, terminal_size=size, run_before=set_up)


def test_snapshot_past_games(snap_compare: Snap, played: tuple[Hub, Table]) -> None:
    hub, _table = played
    app = MissionApp(hub, Player("key:ann", "Ann"))

    async def set_up(pilot: Pilot[object]) -> None:
        await settle(pilot)
        await pilot.press("r")
        await settle(pilot)

    assert snap_compare(app, terminal_size=(80, 24), run_before=set_up)


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_stepping_through_a_replay_never_re_lays_out_the_screen(
        played: tuple[Hub, Table], monkeypatch: pytest.MonkeyPatch,
        size: tuple[int, int]) -> None:
    hub, table = played
    app = MissionApp(hub, Player("key:ann", "Ann"), replay=(table.code, None))
    async with app.run_test(size=size) as pilot:
        await until_replay(app, pilot)
        before = screen_text(app)
        with counting_reflows(monkeypatch) as reflows:
            for key in ("down", "down", "space", "right", "up", "end", "home"):
                await pilot.press(key)
                await settle(pilot)
        assert reflows == [0]  # fixed heights: a step changes lines, never a size
        assert screen_text(app) == before  # and Home is the deal again
