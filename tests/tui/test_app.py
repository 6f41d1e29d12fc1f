"""MissionApp end to end with a real hub: table setup, the game's screens, help, size, exit.

Several apps run at once here, as they do on the server: each one is a player.
"""

from __future__ import annotations

import gc
import weakref
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest
from textual.pilot import Pilot
from textual.widgets import Input, Label, Static

from engine import rules
from engine.cards import load_deck
from engine.hub import Hub
from engine.identity import Player
from engine.session import Session
from engine.tables import TableOptions
from lean_textual.cached_lines import CachedLines
from tests.tui.game_host import screen_text
from tests.tui.pilots import read_the_question, settle
from tui import board_text
from tui.app import MissionApp
from tui.confirm import Choose, Confirm
from tui.end_screen import EndScreen
from tui.game_screen import GameScreen
from tui.help import HelpScreen
from tui.keybar import KeyBar
from tui.lobby_screen import LobbyScreen
from tui.options_form import OptionsForm
from tui.table_screen import SeatList, TableScreen
from tui.too_small import TooSmallScreen

NO_TIMER = TableOptions(turn_seconds=0)


@pytest.fixture
def hub() -> Hub:
    return Hub(deck=load_deck(), seed="test", settle_ms=0, bot_delay=0.0)


def player_app(hub: Hub, name: str, join_code: str | None = None) -> MissionApp:
    return MissionApp(hub, Player(f"key:{name.lower()}", name), join_code)


def text_of(app: MissionApp, selector: str) -> str:
    widget = app.screen.query_one(selector)
    return widget.plain if isinstance(widget, CachedLines) else str(widget.render())


def seat_names(app: MissionApp) -> list[str]:
    seats = app.screen.query_one(SeatList)
    return [seats.row_text(i)[1] for i in range(seats.row_count)]


def notes(app: MissionApp) -> list[str]:
    return [n.message for n in app._notifications]


def play(session: Session, action: rules.Action) -> None:
    """Send a bot-chosen move through the session."""
    session.play(action)


def simple_move(view: rules.View) -> rules.Action | None:
    """A predictable player: the lead picks down a diagonal; the agent on the lead's left
    shouts Stop! in odd rounds after two items; guesses follow the seat and round."""
    seat = view.seat
    assert seat is not None
    guess = (seat + view.round) % 4 + 1
    match view.phase:
        case rules.Phase.PICKING if view.can_pick():
            return rules.Pick(seat, len(view.picks), (len(view.picks) + view.round) % 4)
        case rules.Phase.PICKING if view.can_guess():
            return rules.Guess(seat, guess)
        case rules.Phase.GUESSING if view.can_guess():
            return rules.Guess(seat, guess)
        case rules.Phase.REVEALING:
            return rules.Reveal(seat, "")
        case rules.Phase.LEAD_REVEAL:
            return rules.LeadReveal(seat, "")
        case rules.Phase.BEST_PLAN:
            return rules.BestPlan(seat, view.guessers[-1])
        case rules.Phase.ROUND_OVER:
            return rules.NextRound(seat)
    return None


def play_game(hub: Hub, names: list[str], options: TableOptions) -> tuple[str, list[Session]]:
    """Seat ``names`` and play the whole game now, every seat moved by :func:`simple_move`.

    Runs with no event loop turning, so nothing else moves: the same game every time.
    """
    sessions = [hub.attach(Player(f"key:{n.lower()}", n)) for n in names]
    code = sessions[0].create_table(options)
    for s in sessions[1:]:
        s.join(code)
    sessions[0].start()
    for _ in range(500):
        view = sessions[0].view()
        assert view is not None
        if view.status == "finished":
            return code, sessions
        game = view.game
        assert game is not None
        if (game.phase is rules.Phase.PICKING and len(game.picks) == 2 and not game.stop
                and game.round % 2):
            sessions[(game.lead + 1) % len(names)].shout()
            continue
        if game.phase is rules.Phase.ROUND_OVER:  # everyone is ready for the next round
            for session in sessions:
                session.next_round()
            continue
        for seat in game.waiting_for:
            move = simple_move(sessions[seat].view().game)  # type: ignore[union-attr, arg-type]
            if move is not None:
                play(sessions[seat], move)
                break
    raise AssertionError("the game did not end")


# -- the table before the game ------------------------------------------------------------


def form_text(app: MissionApp) -> str:
    form = app.screen.query_one(OptionsForm)
    return "\n".join(form.render_line(y).text.rstrip() for y in range(form.size.height))


async def test_the_host_edits_options_and_the_others_see_them_read_only(hub: Hub) -> None:
    host, guest = player_app(hub, "Ann"), player_app(hub, "Bob")
    async with host.run_test(size=(80, 24)) as p1, guest.run_test(size=(80, 24)) as p2:
        await p1.press("c")
        await settle(p1, p2)
        code = host.session.view().code  # type: ignore[union-attr]
        guest.session.join(code)  # type: ignore[union-attr]
        await settle(p1, p2)
        assert isinstance(guest.screen, TableScreen)
        assert not host.screen.query_one(OptionsForm).disabled
        assert guest.screen.query_one(OptionsForm).disabled  # no focus, no keys
        assert "Only the host" in form_text(guest)
        assert "Only the host" not in form_text(host)

        host.screen.query_one(OptionsForm).focus()
        await p1.press("right")  # rounds: by player count -> endless
        await p1.press("down", "right")  # best plan: on
        await p1.press("down", "4", "5", "enter")  # turn timer: typed
        await settle(p1, p2)
        options = hub.tables[code].options
        assert (options.rounds, options.best_plan, options.turn_seconds) == (0, True, 45)
        shown = form_text(guest)
        assert "endless" in shown and "on: lead awards +1" in shown and "45" in shown
        assert "endless" in text_of(guest, "#table-status")
        await p1.press("down", "left", "left")  # the tie window: 0 -> 2000 -> 1500
        await p1.press("down", "down", "right")  # max seats: 5 -> 6 (house rule)
        await settle(p1, p2)
        options = hub.tables[code].options
        assert (options.stop_tie_window_ms, options.max_seats) == (1500, 6)
        for app in (host, guest):  # the sixth seat is on the screen, not only in the list
            assert [line.split()[:2] for line in screen_text(app).splitlines()
                    if "(empty)" in line][-1] == ["6", "(empty)"]


async def test_esc_in_the_options_goes_back_to_the_seats_before_it_leaves(hub: Hub) -> None:
    """Found over SSH: the host typed a timer, Enter, then Esc to be done with the
    field, and left the table (someone else became its host)."""
    app = player_app(hub, "Ann")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("c")
        await settle(pilot)
        await pilot.press("tab", "down", "down", "6", "0", "enter")
        await settle(pilot)
        assert app.session.view().options.turn_seconds == 60  # type: ignore[union-attr]
        assert "esc Back to the seats" in screen_text(app)
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, TableScreen)
        assert isinstance(app.screen.focused, SeatList)
        assert "esc Leave table" in screen_text(app)
        await pilot.press("escape")  # and now out of the table
        await settle(pilot)
        assert isinstance(app.screen, LobbyScreen)


async def test_an_out_of_range_timer_is_refused_and_the_form_shows_the_table_again(
        hub: Hub) -> None:
    app = player_app(hub, "Ann")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("c")
        await settle(pilot)
        app.screen.query_one(OptionsForm).focus()
        await pilot.press("down", "down", "5")
        assert "5▏" in form_text(app)
        await pilot.press("z")  # not a digit: left to the screen
        await pilot.press("enter")
        await settle(pilot)
        assert any("15 to 600" in n for n in notes(app))
        assert "Turn timer  ‹ 90 ›" in form_text(app)
        assert app.session.view().options.turn_seconds == 90  # type: ignore[union-attr]
        await pilot.press("1", "2", "escape")  # Esc puts the table's value back
        assert "Turn timer  ‹ 90 ›" in form_text(app)
        await pilot.press("enter")  # nothing typed: Enter on a number changes nothing
        assert "Turn timer  ‹ 90 ›" in form_text(app)
        assert isinstance(app.screen, TableScreen)  # and does not leave the table


async def test_the_host_adds_a_bot_and_removes_a_seat(hub: Hub) -> None:
    app = player_app(hub, "Ann")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("c", "b", "b")
        await settle(pilot)
        assert seat_names(app)[:4] == ["Ann", "Bot Ada", "Bot Bix", "(empty)"]
        await pilot.press("down", "x")
        await settle(pilot)
        assert seat_names(app)[:3] == ["Ann", "Bot Bix", "(empty)"]
        await pilot.press("up", "x")  # the host's own seat: refused, nothing changes
        await settle(pilot)
        assert seat_names(app)[:2] == ["Ann", "Bot Bix"]
        assert any("leave the table instead" in n for n in notes(app))


async def test_only_the_host_can_add_bots_or_start(hub: Hub) -> None:
    host, guest = player_app(hub, "Ann"), player_app(hub, "Bob")
    async with host.run_test(size=(80, 24)) as p1, guest.run_test(size=(80, 24)) as p2:
        await p1.press("c", "b")
        await settle(p1, p2)
        await p2.press("enter")
        await settle(p1, p2)
        assert isinstance(guest.screen, TableScreen)
        await p2.press("b", "g", "x")
        await settle(p1, p2)
        assert len(host.session.view().seats) == 3  # type: ignore[union-attr]
        assert isinstance(guest.screen, TableScreen)
        assert "Waiting for Ann" in text_of(guest, "#table-status")


async def test_a_guest_sees_their_seat_code_to_come_back_with(hub: Hub) -> None:
    app = MissionApp(hub, Player("guest:x1", "Gus"))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("c")
        await settle(pilot)
        seat_code = app.session.view().seat_code  # type: ignore[union-attr]
        assert text_of(app, "#seat-code") == (
            f"Seat code {seat_code}: use it to come back to this seat")


async def test_leaving_the_table_goes_back_to_the_lobby(hub: Hub) -> None:
    app = player_app(hub, "Ann")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("c")
        await settle(pilot)
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, LobbyScreen)
        assert app.session.view() is None  # type: ignore[union-attr]


async def test_a_player_at_a_table_holds_no_lobby_and_gets_a_new_one_saying_why(
        hub: Hub) -> None:
    """The lobby's widgets are freed while the player sits at a table (memory per player),
    and the lobby built again says why the player was sent back."""
    host, guest = player_app(hub, "Ann"), player_app(hub, "Bob")
    async with host.run_test(size=(100, 30)) as p1, guest.run_test(size=(100, 30)) as p2:
        await p1.press("c", "b")
        await settle(p1, p2)
        lobby = weakref.ref(guest.screen)
        assert isinstance(lobby(), LobbyScreen)
        guest.session.join(host.session.view().code)  # type: ignore[union-attr]
        host.session.start()  # type: ignore[union-attr]
        await settle(p1, p2)
        assert isinstance(guest.screen, GameScreen)
        assert not [s for s in guest.screen_stack if isinstance(s, LobbyScreen)]
        gc.collect()
        assert lobby() is None and guest.lobby_screen is None
        host.session.remove_seat(guest.session.seat)  # type: ignore[union-attr,arg-type]
        await settle(p1, p2)
        assert isinstance(guest.screen, LobbyScreen)
        assert "Ann removed you from table" in text_of(guest, "#lobby-message")


# -- the game and its end -------------------------------------------------------------------


async def test_starting_the_game_takes_every_player_to_the_game_screen(hub: Hub) -> None:
    apps = [player_app(hub, "Ann"), player_app(hub, "Bob")]
    async with apps[0].run_test(size=(80, 24)) as p1, apps[1].run_test(size=(80, 24)) as p2:
        await p1.press("c", "b")
        await settle(p1, p2)
        apps[1].session.join(apps[0].session.view().code)  # type: ignore[union-attr]
        await settle(p1, p2)
        assert isinstance(apps[1].screen, TableScreen)
        await p1.press("g")
        await settle(p1, p2)
        assert all(isinstance(app.screen, GameScreen) for app in apps)
        assert all(app.session.view().status == "playing" for app in apps)  # type: ignore[union-attr]


async def test_a_latecomer_to_a_game_in_progress_watches_it(hub: Hub) -> None:
    ann = hub.attach(Player("key:ann", "Ann"))
    code = ann.create_table(NO_TIMER)
    ann.add_bot()
    ann.add_bot()
    ann.start()
    app = player_app(hub, "Dee", join_code=code)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, GameScreen)
        assert app.session.view().my_seat is None  # type: ignore[union-attr]
        assert any("you are watching" in n for n in notes(app))


async def test_a_game_ended_before_any_round_says_so_and_offers_a_rematch(hub: Hub) -> None:
    host, guest = player_app(hub, "Ann"), player_app(hub, "Bob")
    async with host.run_test(size=(80, 24)) as p1, guest.run_test(size=(80, 24)) as p2:
        await p1.press("c")
        await settle(p1, p2)
        code = host.session.view().code  # type: ignore[union-attr]
        guest.session.join(code)  # type: ignore[union-attr]
        hub.attach(Player("key:cy", "Cy")).join(code)
        host.session.start()  # type: ignore[union-attr]
        host.session.end_game()  # type: ignore[union-attr]  # before any round was played
        await settle(p1, p2)
        assert isinstance(host.screen, EndScreen) and isinstance(guest.screen, EndScreen)
        verdict = text_of(host, "#verdict")
        assert "ended early, before any round was finished" in verdict
        assert "share the victory" not in verdict
        assert text_of(host, "#ranking").splitlines()[1].startswith("1. Bob")
        assert "Waiting for the host (Ann)" in text_of(guest, "#end-status")
        # no round scored, no game kept: nothing to watch again (the line would fail)
        assert "Watch it again" not in screen_text(host)
        # a long verdict (an early end, a shared victory) takes two rows, not cut
        long = ("The game was ended early after 1 round. Alice and Bob share the victory "
                "with 2 points!")
        host.screen.query_one("#verdict", Static).update(long)
        await settle(p1, p2)
        assert host.screen.query_one("#verdict").content_size.height == 2
        assert "share the victory" in screen_text(host) and "2 points!" in screen_text(host)

        await p2.press("r")  # only the host starts a rematch
        await settle(p1, p2)
        assert isinstance(guest.screen, EndScreen)
        await p1.press("r")
        await settle(p1, p2)
        assert isinstance(host.screen, GameScreen) and isinstance(guest.screen, GameScreen)


def back_after_a_game(hub: Hub, name: str, options: TableOptions) -> MissionApp:
    """The app of ``name``, back at the table of a game Ann, Bob and Cy have played."""
    code, _ = play_game(hub, ["Ann", "Bob", "Cy"], options)
    return player_app(hub, name, join_code=code)


def play_until(sessions: list[Session], phase: rules.Phase) -> None:
    """Move every seat by :func:`simple_move` until the game reaches ``phase``."""
    for _ in range(200):
        game = sessions[0].view().game  # type: ignore[union-attr]
        assert game is not None
        if game.phase is phase:
            return
        seat = game.waiting_for[0]
        move = simple_move(sessions[seat].view().game)  # type: ignore[union-attr, arg-type]
        assert move is not None
        play(sessions[seat], move)
    raise AssertionError(f"the game never reached {phase}")


async def test_the_last_round_is_summed_up_on_the_game_screen_before_the_results(
        hub: Hub) -> None:
    """Every round's end shows its task and points on the game screen; so does the last
    (it used to jump to the results, hiding the last reveal): Enter, there or from the
    chat, then shows the results. A spectator gets the same."""
    apps = [player_app(hub, name) for name in ("Ann", "Bob", "Dee")]
    async with (apps[0].run_test(size=(100, 30)) as p1, apps[1].run_test(size=(100, 30)) as p2,
                apps[2].run_test(size=(100, 30)) as p3):
        ann, bob, dee = (app.session for app in apps)
        cy = hub.attach(Player("key:cy", "Cy"))
        code = ann.create_table(TableOptions(turn_seconds=0, rounds=1))  # type: ignore[union-attr]
        bob.join(code)  # type: ignore[union-attr]
        cy.join(code)
        ann.start()  # type: ignore[union-attr]
        dee.join(code)  # type: ignore[union-attr]  # the table is full: Dee watches
        sessions: list[Session] = [ann, bob, cy]  # type: ignore[list-item]
        play_until(sessions, rules.Phase.LEAD_REVEAL)
        await settle(p1, p2, p3)
        lead = sessions[sessions[0].view().game.lead]  # type: ignore[union-attr]
        play(lead, rules.LeadReveal(lead.seat, ""))  # type: ignore[arg-type]
        await settle(p1, p2, p3)
        game = ann.view().game  # type: ignore[union-attr]
        assert game is not None and game.phase is rules.Phase.GAME_OVER
        for app in apps:
            assert isinstance(app.screen, GameScreen)
            shown = screen_text(app)
            assert f"Round 1 over, the last. The task was #{game.secret}" in shown
            assert "Press Enter for the final results" in shown
            keys = app.screen.query_one(KeyBar).plain  # at the board, or in the chat
            assert "Enter final results" in keys or "Enter send (empty: results)" in keys
            assert "end game" not in app.screen.query_one(KeyBar).plain
        await p1.press("enter")
        await settle(p1, p2, p3)
        assert isinstance(apps[0].screen, EndScreen)
        assert all(isinstance(app.screen, GameScreen) for app in apps[1:])  # at their pace
        await p3.press("enter")
        await settle(p1, p2, p3)
        assert isinstance(apps[2].screen, EndScreen)
        # Bob still reads the last round, typing in the chat (since his reveal), when Ann
        # starts a rematch. Pulled into it at once, keys he meant for the summary were moves
        # ("3" hid a guess, Enter picked an item, "lol yes" left the table): the summary
        # stays, says the new game waits for his Enter, and what he types stays text
        reading = apps[1].screen
        assert apps[1].focused is reading.query_one("#chat-input")
        await p2.press(*"nice")
        await p1.press("r")
        await settle(p1, p2, p3)
        assert isinstance(apps[0].screen, GameScreen) and apps[1].screen is reading
        assert "A rematch has begun: game 2. Press Enter to play it" in screen_text(apps[1])
        assert any(f"A rematch has begun: game 2. Game 1's results: ssh -t host replay "
                   f"{code} 1" in note for note in notes(apps[1]))
        new_game = ann.view().game  # type: ignore[union-attr]
        await p2.press(*" one", "enter")  # a chat line, not a move
        await settle(p1, p2, p3)
        assert [line.text for line in ann.view().chat][-1] == "nice one"  # type: ignore[union-attr]
        assert "nice one" in screen_text(apps[1])  # his own line, in his chat panel
        assert "waits for you" not in screen_text(apps[1])  # Ann picks first
        for column in range(4):
            ann.pick(column, 0)  # type: ignore[union-attr]
        await settle(p1, p2, p3)
        assert "A rematch has begun: game 2, and the table waits for you" in screen_text(
            apps[1])  # to hide a guess
        new_game = ann.view().game  # type: ignore[union-attr]
        await p2.press("escape", "3", "s", "l")  # at the board: no move, no question
        await settle(p1, p2, p3)
        assert ann.view().game == new_game  # type: ignore[union-attr]
        assert apps[1].screen is reading and not isinstance(apps[1].screen, Confirm)
        await p2.press("escape", "enter")  # on to the new game
        await settle(p1, p2, p3)
        assert isinstance(apps[1].screen, GameScreen) and apps[1].screen is not reading
        assert not any("rematch" in n for n in notes(apps[0]))


@asynccontextmanager
async def ann_hosting_a_game(hub: Hub, rounds: int) -> AsyncIterator[
        tuple[MissionApp, Pilot[object], list[Session]]]:
    """Ann's app at a game of ``rounds`` with Bob and Cy (sessions), started and shown:
    the app, its pilot, and the three sessions to play the game with."""
    app = player_app(hub, "Ann")
    async with app.run_test(size=(100, 30)) as pilot:
        ann = app.session
        assert ann is not None
        others = [hub.attach(Player(f"key:{n}", n)) for n in ("bob", "cy")]
        code = ann.create_table(TableOptions(turn_seconds=0, rounds=rounds))
        for other in others:
            other.join(code)
        ann.start()
        await settle(pilot)
        yield app, pilot, [ann, *others]


async def test_an_empty_chat_line_at_the_last_round_s_summary_shows_the_results(
        hub: Hub) -> None:
    async with ann_hosting_a_game(hub, rounds=1) as (app, pilot, sessions):
        play_until(sessions, rules.Phase.GAME_OVER)
        await settle(pilot)
        assert isinstance(app.screen, GameScreen)
        await pilot.press("c")
        assert app.focused is app.screen.query_one("#chat-input")
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, EndScreen)


async def test_from_the_last_round_s_summary_l_goes_to_the_lobby_without_asking(
        hub: Hub) -> None:
    """No seat is kept after a game: nothing to confirm (and no end game, no removal)."""
    async with ann_hosting_a_game(hub, rounds=1) as (app, pilot, sessions):
        play_until(sessions, rules.Phase.GAME_OVER)
        await settle(pilot)
        await pilot.press("escape")  # to the board, wherever the reveal left the keys
        assert isinstance(app.screen, GameScreen)
        keys = app.screen.query_one(KeyBar).plain
        assert "Enter final results" in keys and "end game" not in keys
        await pilot.press("l")
        await settle(pilot)
        assert isinstance(app.screen, LobbyScreen)


async def test_a_game_ended_between_rounds_goes_straight_to_the_results(hub: Hub) -> None:
    """The round's summary was read already: the results, at once."""
    async with ann_hosting_a_game(hub, rounds=3) as (app, pilot, sessions):
        play_until(sessions, rules.Phase.ROUND_OVER)
        await settle(pilot)
        assert isinstance(app.screen, GameScreen)
        sessions[0].end_game()
        await settle(pilot)
        assert isinstance(app.screen, EndScreen)


def test_after_a_game_each_player_keeps_the_seat_they_played_when_seats_move(
        hub: Hub) -> None:
    """Bob leaves the finished table, so Cy moves up to the table's second seat: the game's
    views still put each player in the seat they played ("(you)" on Bob's row for Cy,
    none for Bob when he sat down again, at the end)."""
    code, (_, bob, cy) = play_game(hub, ["Ann", "Bob", "Cy"],
                                   TableOptions(turn_seconds=0, rounds=1))
    bob.leave()
    view = cy.view()
    assert view is not None and view.my_seat == 1 and view.game is not None
    assert view.game.seat == 2
    mine = [line for line in board_text.score_lines(view) if (" (you)", "dim") in line]
    assert len(mine) == 1 and mine[0][1][0].strip() == "Cy"
    bob.join(code)
    back = bob.view()
    assert back is not None and back.my_seat == 2 and back.game is not None
    assert back.game.seat == 1
    bob.rename("Bobby")
    assert cy.view().game.players == ("Ann", "Bobby", "Cy")  # type: ignore[union-attr]


async def test_the_end_screen_tells_every_round(hub: Hub) -> None:
    app = back_after_a_game(hub, "Ann", TableOptions(turn_seconds=0, rounds=2, best_plan=True))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, EndScreen)
        game = app.session.view().game  # type: ignore[union-attr]
        story = text_of(app, "#round-list")
        for result in game.history:
            assert f"Round {result.round} · lead {game.players[result.lead]}" in story
            assert result.task in story
            assert " · ".join(result.items) in story
        assert "Best plan:" in story and "Points:" in story


async def test_the_end_screen_s_rounds_scroll_with_the_keys_at_80x24(hub: Hub) -> None:
    app = back_after_a_game(hub, "Ann", TableOptions(turn_seconds=0, rounds=3, best_plan=True))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        rounds = app.screen.query_one("#rounds")
        assert app.focused is rounds and rounds.max_scroll_y > 0
        await pilot.press("pagedown")
        await settle(pilot)
        assert rounds.scroll_y > 0


async def test_from_the_end_screen_the_host_can_change_the_table_then_start(hub: Hub) -> None:
    app = player_app(hub, "Ann")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("c", "b", "b")
        await settle(pilot)
        app.session.start()  # type: ignore[union-attr]
        app.session.end_game()  # type: ignore[union-attr]
        await settle(pilot)
        assert isinstance(app.screen, EndScreen)
        await pilot.press("o")
        await settle(pilot)
        assert isinstance(app.screen, TableScreen)
        await pilot.press("x")  # the cursor is on the host: refused
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, EndScreen)
        await pilot.press("o", "g")
        await settle(pilot)
        assert isinstance(app.screen, GameScreen)


async def test_back_to_the_lobby_after_the_game(hub: Hub) -> None:
    app = back_after_a_game(hub, "Bob", TableOptions(turn_seconds=0, rounds=1))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, EndScreen)
        await pilot.press("l")
        await settle(pilot)
        assert isinstance(app.screen, LobbyScreen)


# -- help, size, notices, exit ------------------------------------------------------------


async def test_help_shows_the_rules_and_the_keys_of_the_current_screen(hub: Hub) -> None:
    app = player_app(hub, "Ann")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("c")
        await settle(pilot)
        await pilot.press("question_mark")
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)
        keys = text_of(app, "#help-keys")
        assert "Add bot" in keys and "Remove" in keys and "Leave table" in keys
        rules_text = text_of(app, "#help-rules")
        for words in ("Stop!", "Best plan", "share the victory", "3 agents play 6 rounds",
                      "starting on the lead's left"):
            assert words in rules_text
        await pilot.press("escape")
        await pilot.press("f1")
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, TableScreen)


async def test_help_over_the_lobby_stays_open_while_the_tables_change(hub: Hub) -> None:
    """Found: the help closed under the reader whenever someone opened, filled or closed
    a table (the lobby's list changed); it stays, and the lobby shows the change after."""
    app = player_app(hub, "Ann")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("question_mark")
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)
        bob = hub.attach(Player("key:bob", "Bob"))
        code = bob.create_table()
        await settle(pilot)
        hub.attach(Player("key:cy", "Cy")).join(code)
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, LobbyScreen)
        assert code in screen_text(app)


async def test_help_in_the_game_lists_the_game_keys(hub: Hub) -> None:
    app = player_app(hub, "Ann")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("c", "b", "b", "g")
        await settle(pilot)
        assert isinstance(app.screen, GameScreen)
        keys = app.keys_of(app.screen)
        await pilot.press("f1")
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)
        shown = text_of(app, "#help-keys")
        assert keys and all(description in shown for _, description in keys)


async def test_a_small_terminal_is_asked_to_grow_and_the_game_comes_back(hub: Hub) -> None:
    app = player_app(hub, "Ann")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("c")
        await settle(pilot)
        await pilot.resize_terminal(79, 24)
        await settle(pilot)
        assert isinstance(app.screen, TooSmallScreen)
        assert text_of(app, "#too-small") == (
            "Terminal too small: make it at least 80x24 (now 79x24)")
        app.session.add_bot()  # type: ignore[union-attr]  # news arrives meanwhile
        await pilot.resize_terminal(100, 20)
        await settle(pilot)
        assert text_of(app, "#too-small").endswith("(now 100x20)")
        await pilot.resize_terminal(80, 24)
        await settle(pilot)
        assert isinstance(app.screen, TableScreen)
        assert seat_names(app)[:2] == ["Ann", "Bot Ada"]


async def test_a_terminal_too_small_from_the_start_shows_the_notice(hub: Hub) -> None:
    app = player_app(hub, "Ann")
    async with app.run_test(size=(60, 20)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, TooSmallScreen)
        await pilot.resize_terminal(80, 24)
        await settle(pilot)
        assert isinstance(app.screen, LobbyScreen)


async def test_hub_notices_and_refusals_show_as_notifications(hub: Hub) -> None:
    app = player_app(hub, "Ann")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("c")
        await settle(pilot)
        app.session.on_notice("[b]hello[/b] from the hub")  # type: ignore[union-attr]
        await pilot.press("b", "x")  # the cursor is on the host's own seat: refused
        await settle(pilot)
        assert "[b]hello[/b] from the hub" in notes(app)
        assert any("leave the table instead" in n for n in notes(app))
        assert isinstance(app.screen, TableScreen)


async def test_leaving_the_app_detaches_once_and_keeps_the_seat_in_a_game(hub: Hub) -> None:
    app = player_app(hub, "Ann")
    calls: list[str] = []
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("c", "b", "b", "g")
        await settle(pilot)
        session = app.session
        assert session is not None
        detach = session.detach
        session.detach = lambda: (calls.append("detach"), detach())[1]  # type: ignore[method-assign]
        code = session.view().code  # type: ignore[union-attr]
        await pilot.press("ctrl+q")
        await pilot.pause()
    assert calls == ["detach"]
    seat = hub.tables[code].seats[0]
    assert seat.name == "Ann" and not seat.connected
    assert session not in hub.sessions


async def test_the_server_can_close_the_app_with_a_message(hub: Hub) -> None:
    app = player_app(hub, "Ann")
    async with app.run_test(size=(80, 24)) as pilot:
        app.exit_with_message("The server is restarting: come back in a minute")
        await pilot.pause()
    assert app.return_value == "The server is restarting: come back in a minute"
    assert not app.ENABLE_COMMAND_PALETTE


async def test_a_player_who_drops_comes_back_to_their_game_with_the_same_key(hub: Hub) -> None:
    app = player_app(hub, "Ann")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("c", "b", "b", "g")
        await settle(pilot)
        assert isinstance(app.screen, GameScreen)
    again = player_app(hub, "Ann")  # same key, no table code typed
    async with again.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert isinstance(again.screen, GameScreen)
        assert again.session is not None and again.session.seat == 0


async def test_a_guest_back_with_the_table_code_is_offered_their_seat_back(hub: Hub) -> None:
    host = hub.attach(Player("key:ann", "Ann"))
    code = host.create_table(NO_TIMER)
    hub.attach(Player("key:bob", "Bob")).join(code)
    guest = hub.attach(Player("guest:1", "Cy"))
    guest.join(code)
    host.start()
    seat_code = guest.view().seat_code  # type: ignore[union-attr]
    assert seat_code
    guest.detach()  # dropped
    back = MissionApp(hub, Player("guest:2", "Cy"), join_code=code.lower())
    async with back.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert isinstance(back.screen, LobbyScreen)  # not a spectator with no way out
        assert "Type its seat code" in text_of(back, "#lobby-message")
        assert back.screen.query_one("#lobby-message").region.height >= 1  # on screen
        assert back.screen.query_one("#seat-code", Input).has_focus
        await pilot.press(*seat_code, "enter")
        await settle(pilot)
        assert isinstance(back.screen, GameScreen)
        assert back.session is not None and back.session.seat is not None
        assert f"your seat code {seat_code}" in str(back.screen.query_one("#tasks").border_title)


async def test_the_host_is_asked_before_a_person_is_removed_from_the_table(hub: Hub) -> None:
    app = player_app(hub, "Ann")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("c")
        await settle(pilot)
        code = app.session.view().code  # type: ignore[union-attr]
        hub.attach(Player("key:bob", "Bob")).join(code)
        await settle(pilot)
        await pilot.press("down", "x")
        await settle(pilot)
        assert isinstance(app.screen, Confirm)
        await read_the_question()
        await pilot.press("n")
        await settle(pilot)
        assert seat_names(app)[:2] == ["Ann", "Bob"]
        await pilot.press("x")
        await read_the_question()
        await pilot.press("y")
        await settle(pilot)
        assert seat_names(app)[:2] == ["Ann", "(empty)"]


async def test_the_question_before_leaving_a_game_is_shown_whole_at_80_columns(
        hub: Hub) -> None:
    """It was cut after one line: "Leave the game for the lobby? Your seat is k"."""
    app = player_app(hub, "Ann")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("c", "b", "b", "g")
        await settle(pilot)
        assert isinstance(app.screen, GameScreen)
        await pilot.press("l")
        await settle(pilot)
        assert isinstance(app.screen, Confirm)
        question = app.screen.query_one(Label)
        box = app.screen.query_one("#confirm-box")
        assert "while you are away" in str(question.render())
        # the whole question inside its box: wrapped over lines, not running off its edge
        assert question.region.right <= box.content_region.right
        assert question.region.height >= 2


async def test_the_host_removes_a_person_mid_game_and_a_bot_plays_their_seat(hub: Hub) -> None:
    ann = player_app(hub, "Ann")
    async with ann.run_test(size=(80, 24)) as pilot:
        await pilot.press("c", "b")
        await settle(pilot)
        code = ann.session.view().code  # type: ignore[union-attr]
        bob = player_app(hub, "Bob", code)
        async with bob.run_test(size=(80, 24)) as bob_pilot:
            await settle(pilot, bob_pilot)
            await pilot.press("g")
            await settle(pilot, bob_pilot)
            assert isinstance(ann.screen, GameScreen) and isinstance(bob.screen, GameScreen)
            # only the host is offered the key, in the key bar and in help
            assert ("x", "remove", "remove_player") in ann.screen.key_hints()
            assert not any(hint[0] == "x" for hint in bob.screen.key_hints())
            assert any("Remove a person" in d for _, d in ann.keys_of(ann.screen))
            assert not any("Remove a person" in d for _, d in bob.keys_of(bob.screen))

            async def press(who: Pilot[str | None], *keys: str) -> None:
                await who.press(*keys)
                await settle(pilot, bob_pilot)

            await press(bob_pilot, "x")
            assert isinstance(bob.screen, GameScreen)
            # the host chooses Bob (the only other person), then is asked
            async def answer(who: Pilot[str | None], key: str) -> None:
                await read_the_question()
                await press(who, key)

            await press(pilot, "x")
            assert isinstance(ann.screen, Choose)
            await answer(pilot, "1")
            assert isinstance(ann.screen, Confirm)
            await answer(pilot, "n")
            assert isinstance(bob.screen, GameScreen)
            await press(pilot, "x")
            await answer(pilot, "1")
            await answer(pilot, "y")
            table = hub.tables[code]
            (bobs,) = [s for s in table.seats if s.name == "Bob"]
            assert table.status == "playing" and bobs.is_bot
            assert isinstance(ann.screen, GameScreen)
            assert "Ann removed Bob: a bot plays their seat" in [line.text for line in table.log]
            # Bob is back in the lobby, told why on its message line
            assert isinstance(bob.screen, LobbyScreen)
            assert "Ann removed you from table" in text_of(bob, "#lobby-message")
            with pytest.raises(rules.IllegalAction, match="removed you"):
                bob.session.join(code)  # type: ignore[union-attr]


async def test_textuals_help_panel_opens_our_help_instead(hub: Hub) -> None:
    app = player_app(hub, "Ann")
    async with app.run_test(size=(80, 24)) as pilot:
        await app.run_action("show_help_panel")  # Textual's "Keys" command
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)
        assert not app.query("HelpPanel") and not app.screen.query("HelpPanel")


def test_the_app_finds_themes_as_textual_does_without_copying_them() -> None:
    from textual.app import App

    ours = MissionApp(Hub(deck=load_deck(), seed="themes"), Player("key:t", "T"))
    textual = App()
    for name in ("textual-dark", "textual-light", "nope, textual-light", " nord ,x", "nope",
                 ""):
        assert ours.get_theme(name) == textual.get_theme(name), name
    assert ours.ansi_theme == textual.ansi_theme
