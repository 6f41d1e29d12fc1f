"""The in-game screen, played with a real hub and one app per seat (Pilot)."""

from __future__ import annotations

import asyncio
import re
import time
from dataclasses import replace

import pytest
from textual import events
from textual.widgets import Input

from engine.cards import load_deck
from engine.hub import Hub
from engine.identity import Player
from engine.rules import Phase, view_for
from engine.tables import ChatLine, LogLine, TableOptions
from lean_textual.cached_lines import CachedLines
from tests.tui.game_host import (
    GameHost,
    make_table,
    notices,
    running,
    screen_text,
    settle,
)
from tests.tui.pilots import read_the_question
from tui import timing
from tui.board import ItemGrid, Lines
from tui.board_text import moment_line
from tui.chat import GameLog, new_lines
from tui.confirm import Confirm
from tui.countdown import Countdown, TableClock, countdown_text
from tui.game_screen import PLAN_MAX, GameScreen
from tui.keybar import KeyBar


def grid_cell(app: GameHost, column: int, row: int) -> tuple[int, int]:
    """Where to click (relative to the grid widget) to hit the item at column, row."""
    grid = app.screen.query_one(ItemGrid)
    content = grid.content_region.offset - grid.region.offset
    cell = (grid.content_size.width - ItemGrid.LABEL) // 4
    return (content.x + ItemGrid.LABEL + column * cell + 2,
            content.y + 1 + row + (grid.content_size.height - 5))


def apps_for(table) -> list[GameHost]:
    return [GameHost(session) for session in table.sessions]


# --- the lead agent -------------------------------------------------------------------------


async def test_lead_picks_items_column_by_column_with_arrows_numbers_and_a_click() -> None:
    table = make_table(3)
    apps = apps_for(table)
    lead = apps[table.lead]
    async with running([lead]) as pilots:
        await pilots[0].press("down", "enter")  # column 1: row 2
        await pilots[0].press("3")  # column 2: row 3
        await pilots[0].click(ItemGrid, offset=grid_cell(lead, 2, 0))  # column 3: row 1
        await pilots[0].press("up", "up", "enter")  # column 4: from row 1 up twice: row 3
        await settle(pilots)
        assert table.state().picks == (1, 2, 0, 2)
        assert table.state().phase is Phase.GUESSING
        text = screen_text(lead)
        assert "All four items are down" in text


async def test_keys_typed_in_one_burst_move_the_cursor_before_the_pick() -> None:
    table = make_table(3)
    apps = apps_for(table)
    lead = apps[table.lead]
    async with running([lead]) as pilots:
        for burst in (("down", "down", "enter"), ("up", "2")):  # each one packet
            for key in burst:
                lead.post_message(events.Key(key, None))
            await settle(pilots)
        assert table.state().picks == (2, 1)


async def test_lead_sees_their_secret_task_on_the_bar_and_in_their_panel() -> None:
    table = make_table(3)
    apps = apps_for(table)
    state = table.state()
    async with running([apps[table.lead]]):
        text = screen_text(apps[table.lead])
        task = state.tasks[state.secret - 1]
        assert f"Your secret task: #{state.secret} {task}" in text
        assert "◀ your task" in text


async def test_lead_cannot_pick_column_three_before_column_two() -> None:
    table = make_table(3)
    apps = apps_for(table)
    lead = apps[table.lead]
    async with running([lead]) as pilots:
        await pilots[0].press("1")
        before = table.state()
        await pilots[0].click(ItemGrid, offset=grid_cell(lead, 2, 1))
        await settle(pilots)
        assert table.state() is before
        assert "items are chosen left to right: pick from column 2" in notices(lead)
        # The keyboard cursor cannot leave the current column either.
        await pilots[0].press("right", "right", "enter")
        await settle(pilots)
        assert table.state().picks == (0, 0)


async def test_stop_key_blocks_the_lead_until_the_stopper_hides_a_guess() -> None:
    table = make_table(3)
    apps = apps_for(table)
    lead_seat = table.lead
    stopper_seat, other_seat = table.guessers()
    lead, stopper, other = apps[lead_seat], apps[stopper_seat], apps[other_seat]
    async with running([lead, stopper, other]) as pilots:
        p_lead, p_stop, _ = pilots
        await p_lead.press("1")
        await settle(pilots)
        await p_stop.press("s")
        await settle(pilots)
        assert table.state().stop == (stopper_seat,)
        stopper_name = table.state().players[stopper_seat]
        assert f"Wait: {stopper_name} shouted Stop!" in screen_text(lead)
        assert f"{stopper_name} holds the stop token" in screen_text(other)
        assert "STOP" in screen_text(other)
        assert "You shouted Stop!" in screen_text(stopper)

        await p_lead.press("2")
        await settle(pilots)
        assert table.state().picks == (0,)
        assert any("shouted Stop! and is hiding a guess" in n for n in notices(lead))

        await p_stop.press("3")
        await settle(pilots)
        assert table.state().guesses[stopper_seat] == 3
        await p_lead.press("2")
        await settle(pilots)
        assert table.state().picks == (0, 1)


async def test_exclamation_mark_also_shouts_but_escape_does_not() -> None:
    table = make_table(3)
    apps = apps_for(table)
    seat = table.guessers()[0]
    async with running([apps[seat]]) as pilots:
        await pilots[0].press("escape")
        await settle(pilots)
        assert table.state().stop == ()
        await pilots[0].press("exclamation_mark")
        await settle(pilots)
        assert table.state().stop == (seat,)


async def test_the_stop_key_is_shown_prominently_only_while_stop_is_possible() -> None:
    table = make_table(3)
    apps = apps_for(table)
    first, second = table.guessers()
    async with running([apps[first], apps[second]]) as pilots:
        assert "[S] Stop!" in screen_text(apps[second])
        assert all("Stop!" in key_bar(apps[seat]) for seat in (first, second))
        table.seat_session(first).shout()
        await settle(pilots)
        assert "[S] Stop!" not in screen_text(apps[second])
        # the token is taken: a second s would be refused, by the shouter too
        assert all("Stop!" not in key_bar(apps[seat]) for seat in (first, second))


def key_bar(app: GameHost) -> list[str]:
    return [label for _, label, _ in app.screen.query_one(KeyBar).hints]


async def test_a_shout_carries_the_arrival_time_of_its_key() -> None:
    table = make_table(3)
    apps = apps_for(table)
    seat = table.guessers()[0]
    async with running([apps[seat]]) as pilots:
        key = events.Key("s", "s")
        key.arrived_at_ms = 12345.0  # type: ignore[attr-defined]  # what the SSH driver sets
        apps[seat].post_message(key)
        await settle(pilots)
        assert table.state().stop == (seat,)
        assert table.state().stop_at_ms == 12345


async def test_a_lead_pick_by_number_key_carries_its_arrival_time(monkeypatch) -> None:
    table = make_table(3)
    apps = apps_for(table)
    seen: list[float | None] = []
    session = table.seat_session(table.lead)
    original = session.pick

    def spy(column: int, row: int, at_ms: float | None = None) -> None:
        seen.append(at_ms)
        original(column, row, at_ms)

    monkeypatch.setattr(session, "pick", spy)
    async with running([apps[table.lead]]) as pilots:
        key = events.Key("2", "2")
        key.arrived_at_ms = 777.0  # type: ignore[attr-defined]
        apps[table.lead].post_message(key)
        await settle(pilots)
    assert seen == [777.0]
    assert table.state().picks == (1,)


def test_arrival_time_falls_back_to_the_hub_clock() -> None:
    stamped = events.Key("s", "s")
    stamped.arrived_at_ms = 42.5  # type: ignore[attr-defined]
    assert timing.arrival_ms(stamped) == 42.5
    before = timing.now_ms()
    assert before <= timing.arrival_ms(events.Key("s", "s")) <= timing.now_ms()


# --- guessers -------------------------------------------------------------------------------


async def test_guessing_keys_work_only_after_a_stop_or_all_four_items() -> None:
    table = make_table(3)
    apps = apps_for(table)
    seat = table.guessers()[1]
    lead = table.seat_session(table.lead)
    async with running([apps[seat]]) as pilots:
        await pilots[0].press("2")
        await settle(pilots)
        assert table.state().guesses[seat] is None
        assert any("wait until all four items are down" in n for n in notices(apps[seat]))
        for column in range(4):
            lead.pick(column, 0)
        await settle(pilots)
        assert "Hide your guess" in screen_text(apps[seat])
        await pilots[0].press("2")
        await settle(pilots)
        assert table.state().guesses[seat] == 2
        text = screen_text(apps[seat])
        assert "you hid 2" in text
        await pilots[0].press("3")  # cannot change it
        await settle(pilots)
        assert table.state().guesses[seat] == 2


# --- reveal, lead reveal, best plan, round over ---------------------------------------------


def play_to_reveal(table) -> tuple[int, ...]:
    """Lead picks four items, every guesser hides a guess (card = position + 1)."""
    lead = table.seat_session(table.lead)
    for column in range(4):
        lead.pick(column, column % 4)
    guessers = table.guessers()
    for k, seat in enumerate(guessers):
        table.seat_session(seat).guess(k + 1)
    return guessers


async def test_guessers_reveal_in_order_from_the_leads_left_with_optional_plans() -> None:
    table = make_table(4)
    apps = apps_for(table)
    first, second, third = play_to_reveal(table)
    async with running([apps[first], apps[second], apps[third]]) as pilots:
        p1, p2, p3 = pilots
        plan = apps[first].screen.query_one("#plan", Input)
        assert not plan.disabled and plan.has_focus
        assert "Enter reveals card 1" in plan.placeholder
        await p1.press(*"zip", "enter")
        await settle(pilots)
        assert table.state().revealed == (first,)
        name = table.state().players[first]
        for app in (apps[second], apps[third]):
            text = screen_text(app)
            assert f"{name} reveals 1:" in text
            # the newest plan whole in the panel, for everyone, and in the log (PgUp)
            assert text.count(f"{name}'s plan: zip") == 2
            assert f"{name} reveals 1: Calm a Crying Baby  · plan below" in text
        assert apps[second].screen.query_one("#plan", Input).has_focus

        await p2.press("enter")  # an empty plan is fine
        await settle(pilots)
        assert table.state().revealed == (first, second)
        await p3.press(*"[b]x", "enter")
        await settle(pilots)
        assert table.state().phase is Phase.LEAD_REVEAL
        assert "plan: [b]x" in screen_text(apps[first])  # literally: no markup


async def test_a_plan_typed_ahead_of_the_turn_stays_in_the_plan_and_is_revealed_in_turn(
) -> None:
    """A guesser whose guess is hidden types a plan while the others reveal: its letters
    (c is the chat's key on the board) go into the plan, Enter keeps it until the turn
    comes, and Enter then reveals it."""
    table = make_table(4)
    apps = apps_for(table)
    first, second, _third = play_to_reveal(table)
    async with running([apps[first], apps[second], apps[table.lead]]) as pilots:
        p1, p2, p_lead = pilots
        ahead = apps[second].screen.query_one("#plan", Input)
        assert not ahead.disabled and ahead.has_focus
        assert ahead.placeholder.startswith("Write your plan ahead")
        await p2.press(*"ring the cowbell", "enter")  # not their turn: kept, not revealed
        await settle(pilots)
        assert table.state().revealed == ()
        assert ahead.value == "ring the cowbell"
        assert not apps[first].session.view().chat  # nothing went to the table's chat
        assert "cowbell" not in screen_text(apps[first])
        assert any("Enter reveals it when your turn comes" in n for n in notices(apps[second]))
        assert "reveal" not in dict((d, k) for k, d, _ in apps[second].screen.key_hints())

        lead_plan = apps[table.lead].screen.query_one("#plan", Input)
        assert lead_plan.has_focus and "ahead" in lead_plan.placeholder
        await p_lead.press("escape", "c", *"go", "enter")  # Esc: the board and its keys
        await settle(pilots)
        assert [line.text for line in table.seat_session(first).view().chat] == ["go"]
        chat = apps[table.lead].screen.query_one("#chat-input", Input)
        assert chat.has_focus  # a chat line sent: the chat keeps the keys until Esc
        await p_lead.press("escape")
        assert ("Tab", "your plan", "") in apps[table.lead].screen.key_hints()
        await p_lead.press("tab", *"wear it")  # the lead writes ahead too

        await p1.press("enter")
        await settle(pilots)
        assert ahead.has_focus and ahead.value == "ring the cowbell"
        assert "Enter reveals card 2" in ahead.placeholder
        await p2.press("enter")
        await settle(pilots)
        assert table.state().plans[second] == "ring the cowbell"
        assert ahead.disabled and ahead.value == ""
        assert lead_plan.value == "wear it"


async def test_the_plan_is_closed_until_the_guess_is_hidden() -> None:
    table = make_table(4)
    apps = apps_for(table)
    lead = table.seat_session(table.lead)
    for column in range(4):
        lead.pick(column, 0)
    guesser = table.guessers()[0]
    async with running([apps[guesser]]) as pilots:
        plan = apps[guesser].screen.query_one("#plan", Input)
        assert plan.disabled
        assert plan.placeholder == "your plan goes here once your guess is hidden"
        await pilots[0].press("3")
        await settle(pilots)
        assert table.state().guesses[guesser] == 3
        assert not plan.disabled and plan.has_focus


async def test_lead_reveals_the_task_with_a_plan_and_the_round_is_scored() -> None:
    table = make_table(3)
    apps = apps_for(table)
    guessers = play_to_reveal(table)
    for seat in guessers:
        table.seat_session(seat).reveal("")
    lead = apps[table.lead]
    async with running([lead, apps[guessers[0]]]) as pilots:
        assert lead.screen.query_one("#plan", Input).has_focus
        # one line that reads as a sentence (it was "...used? (optional) Enter")
        assert ("Your turn: type how the items were meant to be used (optional), then Enter"
                in screen_text(lead))
        await pilots[0].press(*"wear", "enter")
        await settle(pilots)
        state = table.state()
        assert state.phase is Phase.ROUND_OVER
        text = screen_text(apps[guessers[0]])
        assert f"The task was #{state.secret}" in text
        assert "wear" in text


async def test_lead_names_the_best_plan_with_a_number_key() -> None:
    table = make_table(4, TableOptions(turn_seconds=0, best_plan=True))
    apps = apps_for(table)
    guessers = play_to_reveal(table)
    for seat in guessers:
        table.seat_session(seat).reveal("a plan")
    table.seat_session(table.lead).lead_reveal("")
    lead = apps[table.lead]
    async with running([lead]) as pilots:
        text = screen_text(lead)
        assert "Name the best plan:" in text
        await pilots[0].press("2")
        await settle(pilots)
        state = table.state()
        assert state.phase is Phase.ROUND_OVER
        assert state.history[-1].best_plan == guessers[1]
        assert "best plan" in screen_text(lead)


async def test_a_lead_who_reveals_in_the_field_names_the_best_plan_with_the_next_key() -> None:
    """Played over OpenSSH by a tester: the lead typed the intended use, Enter, then "2"
    for the best plan, and the "2" went into the chat. The lead's one move left is a
    number, so the keys go back to the board (a word typed on reaches no move but a
    best-plan number)."""
    table = make_table(4, TableOptions(turn_seconds=0, best_plan=True))
    apps = apps_for(table)
    guessers = play_to_reveal(table)
    for seat in guessers:
        table.seat_session(seat).reveal("a plan")
    lead = apps[table.lead]
    async with running([lead]) as pilots:
        await pilots[0].press(*"wear", "enter")
        await settle(pilots)
        assert "Name the best plan:" in screen_text(lead)
        await pilots[0].press("2")
        await settle(pilots)
        state = table.state()
        assert state.phase is Phase.ROUND_OVER and state.history[-1].best_plan == guessers[1]
        assert lead.screen.query_one("#chat-input", Input).value == ""


async def test_round_over_explains_every_point_and_enter_starts_the_next_round() -> None:
    table = make_table(3)
    apps = apps_for(table)
    first, second = table.guessers()
    table.seat_session(first).shout()
    table.seat_session(first).guess(table.state().secret)  # right, with the stop token
    lead = table.seat_session(table.lead)
    for column in range(4):
        lead.pick(column, 0)
    table.seat_session(second).guess(table.state().secret % 4 + 1)  # wrong
    for seat in (first, second):
        table.seat_session(seat).reveal("")
    lead.lead_reveal("")
    app = apps[second]
    async with running([app]) as pilots:
        text = screen_text(app)
        assert "correct guess" in text
        assert "stop token bonus" in text
        assert "lead agent: 1 correct guess" in text
        assert "wrong guess" in text
        assert "Press Enter when you are ready for the next round" in text
        new_lead = table.state().players[(table.lead + 1) % 3]
        assert f"Next lead agent: {new_lead}" in text
        await pilots[0].press("enter")
        await settle(pilots)
        # one player's Enter does not take the points away from the others
        assert table.state().round == 1
        others = [s for s in range(3) if s != second]
        names = table.state().players
        assert "You are ready" in screen_text(app)
        assert f"Waiting for {names[others[0]]} and {names[others[1]]}" in screen_text(app)
        table.seat_session(others[0]).next_round()
        await settle(pilots)
        assert table.state().round == 1
        assert f"Waiting for {names[others[1]]}." in screen_text(app)
        table.seat_session(others[1]).next_round()
        await settle(pilots)
        assert table.state().round == 2
        assert f"Waiting for {new_lead} to pick" in screen_text(app)
        assert "Round 2 of 6" in screen_text(app)


async def test_n_also_says_ready_and_the_last_one_ready_starts_the_next_round() -> None:
    table = make_table(3)
    apps = apps_for(table)
    for seat in play_to_reveal(table):
        table.seat_session(seat).reveal("")
    table.seat_session(table.lead).lead_reveal("")
    me = table.guessers()[0]
    for seat in range(3):
        if seat != me:
            table.seat_session(seat).next_round()
    assert table.state().round == 1
    async with running([apps[me]]) as pilots:
        await pilots[0].press("n")
        await settle(pilots)
        assert table.state().round == 2


async def test_the_next_round_starts_when_the_last_person_it_waited_for_drops() -> None:
    table = make_table(3)
    for seat in play_to_reveal(table):
        table.seat_session(seat).reveal("")
    table.seat_session(table.lead).lead_reveal("")
    ready, gone = table.guessers()
    table.seat_session(ready).next_round()
    table.seat_session(table.lead).next_round()
    assert table.state().round == 1
    table.hub.away(table.hub.tables[table.code], gone)
    assert table.state().round == 2


# --- chat -----------------------------------------------------------------------------------


async def test_chat_is_focused_with_c_sends_with_enter_and_esc_returns_to_the_board() -> None:
    table = make_table(3)
    apps = apps_for(table)
    talker, listener = table.guessers()
    async with running([apps[talker], apps[listener]]) as pilots:
        p = pilots[0]
        await p.press("c")
        assert apps[talker].focused is apps[talker].screen.query_one("#chat-input")
        await p.press(*"s1[@click=app.quit]", "enter")  # keys typed here are just text
        await settle(pilots)
        state = table.state()
        assert state.stop == () and state.guesses[talker] is None
        assert "s1[@click=app.quit]" in screen_text(apps[listener])
        await p.press("escape")
        assert isinstance(apps[talker].focused, ItemGrid)
        await p.press("s")
        await settle(pilots)
        assert table.state().stop == (talker,)


async def test_tab_reaches_the_chat_input() -> None:
    table = make_table(3)
    apps = apps_for(table)
    app = apps[table.guessers()[0]]
    async with running([app]) as pilots:
        await pilots[0].press("tab")
        assert app.focused is app.screen.query_one("#chat-input")


async def test_the_lead_is_told_they_are_muted_before_typing_and_the_refused_line_is_cleared(
) -> None:
    table = make_table(3)
    apps = apps_for(table)
    lead = apps[table.lead]
    async with running([lead]) as pilots:
        await pilots[0].press("c")
        await settle(pilots)
        assert any("muted while you pick" in note for note in notices(lead))
        chat = lead.screen.query_one("#chat-input", Input)
        assert "muted" in chat.placeholder
        await pilots[0].press(*"it's 3", "enter")
        await settle(pilots)
        assert "the lead agent stays silent while picking items" in notices(lead)
        assert table.hub.tables[table.code].chat == type(table.hub.tables[table.code].chat)()
        assert table.state().picks == ()  # the "3" went to the chat box, not the grid
        assert chat.value == ""
        assert chat.has_focus  # still typing: Esc gives the keys back to the board
        assert ("Esc", "back to the board to play", "board") in lead.screen.key_hints()


async def test_after_a_chat_line_the_keys_stay_in_the_chat_until_esc() -> None:
    table = make_table(3)
    apps = apps_for(table)
    guesser_seat = table.guessers()[0]
    guesser = apps[guesser_seat]
    async with running([guesser]) as pilots:
        await pilots[0].press("c", *"hi all", "enter", "s")
        await settle(pilots)
        assert [line.text for line in table.hub.tables[table.code].chat] == ["hi all"]
        assert table.state().stop == ()  # "s" after Enter is text, never Stop!
        chat = guesser.screen.query_one("#chat-input", Input)
        assert chat.value == "s"
        assert ("", " typing in chat:", "") in guesser.screen.key_hints()
        await pilots[0].press("backspace", "escape", "s")  # Esc: the board, and its keys
        await settle(pilots)
        assert table.state().stop == (guesser_seat,)


# --- spectators, host, bots -----------------------------------------------------------------


async def test_a_spectator_sees_the_public_board_but_no_hand_and_no_actions() -> None:
    table = make_table(3, spectators=1)
    watcher = GameHost(table.sessions[-1])
    lead = table.seat_session(table.lead)
    lead.pick(0, 2)
    async with running([watcher]) as pilots:
        text = screen_text(watcher)
        assert "You are watching" in text
        assert "Your cards" not in text and "secret" not in text
        assert "Waiting for" in text
        await pilots[0].press("s", "1", "c")
        await settle(pilots)
        state = table.state()
        assert state.stop == () and state.picks == (2,)
        assert not isinstance(watcher.focused, Input)


async def test_host_ends_the_game_with_ctrl_e_after_confirming() -> None:
    table = make_table(3, TableOptions(turn_seconds=0, rounds=0))
    apps = apps_for(table)
    host, guest = apps[0], apps[1]
    async with running([host, guest]) as pilots:
        assert "Round 1 (endless)" in screen_text(host)
        await pilots[1].press("ctrl+e")
        await settle(pilots)
        assert not isinstance(guest.screen, Confirm)
        await pilots[0].press("ctrl+e")
        assert isinstance(host.screen, Confirm)
        await read_the_question()
        await pilots[0].press("n")
        assert table.hub.tables[table.code].status == "playing"
        await pilots[0].press("ctrl+e")
        await read_the_question()
        await pilots[0].press("y")
        await settle(pilots)
        assert table.hub.tables[table.code].status == "finished"


async def test_a_word_typed_at_the_board_does_not_answer_the_question_it_asks() -> None:
    """ "fly" typed at the board asks with l whether to leave and would answer with y: a
    question ignores the keys typed before it could be read, then takes its answer."""
    table = make_table(3)
    apps = apps_for(table)
    guesser = apps[(table.lead + 1) % 3]
    async with running([guesser]) as pilots:
        await pilots[0].press("f", "l", "y", "enter")
        await settle(pilots)
        assert isinstance(guesser.screen, Confirm)
        await read_the_question()
        await pilots[0].press("y")
        await settle(pilots)
        assert guesser.session.view() is None  # back in the lobby


async def test_scoreboard_marks_bots_away_players_and_hidden_guesses() -> None:
    table = make_table(3, bots=1)
    apps = apps_for(table)
    seat = next(s for s in table.guessers() if table.sessions[0].hub.tables[
        table.code].seats[s].player_id.startswith("key:"))
    app = apps[seat]
    async with running([app]) as pilots:
        table.seat_session(seat).shout()
        table.seat_session(seat).guess(1)
        away = next(s for s, info in enumerate(table.hub.tables[table.code].seats)
                    if not info.is_bot and s != seat)
        table.hub.away(table.hub.tables[table.code], away)
        await settle(pilots)
        players = app.screen.query_one("#players", Lines)
        text = "\n".join("".join(t for t, _ in line) for line in players.lines)
        assert " bot" in text
        assert " away" in text
        assert "STOP hid" in text


async def test_bot_moves_are_marked_in_the_log() -> None:
    table = make_table(3)
    app = apps_for(table)[0]
    async with running([app]) as pilots:
        view = table.sessions[0].view()
        bot_line = LogLine("Bot Ada hides a guess", "guess", by_bot=True)
        app.game_screen.show(replace(view, log=(*view.log, bot_line)))
        await settle(pilots)
        # a no-break space: "(bot)" stays on its line
        assert "Bot Ada hides a guess\u00a0(bot)" in screen_text(app)


def test_log_writes_only_lines_it_has_not_shown() -> None:
    a, b, c, d = (LogLine(x) for x in "abcd")
    c2 = LogLine("c, and more")
    assert new_lines((a, b), (a, b, c)) == (False, False, (c,))
    assert new_lines((a, b, c), (b, c, d)) == (False, False, (d,))  # the deque dropped its oldest
    assert new_lines((a, b), (c,)) == (True, False, (c,))  # a new game cleared the log
    assert new_lines((), (ChatLine("Ann", "hi"),)) == (False, False, (ChatLine("Ann", "hi"),))
    # the newest line grew (moves folded into it), alone or with lines after it
    assert new_lines((a, b, c), (a, b, c2)) == (False, True, (c2,))
    assert new_lines((a, b, c), (a, b, c2, d)) == (False, True, (c2, d))
    assert new_lines((a, b, c), (b, c2, d)) == (False, True, (c2, d))  # and the deque dropped
    assert new_lines((c,), (c2,)) == (False, True, (c2,))


async def test_a_player_scrolled_back_keeps_their_lines_when_the_newest_grows() -> None:
    table = make_table(3)
    app = apps_for(table)[0]
    async with running([app]) as pilots:
        view = table.sessions[0].view()
        lines = tuple(LogLine(f"line {n}") for n in range(40))
        pick = LogLine("Ann marks Fork", "pick", parts=("Fork",))
        app.game_screen.show(replace(view, log=(*lines, pick)))
        await settle(pilots)
        log = app.game_screen.query_one(GameLog)
        log.back = 6
        await settle(pilots)
        before = log.plain
        assert "line 39" not in before and "Fork" not in before
        grown = LogLine("Ann marks Fork · A Long Rope For Climbing · Three Rubber Ducks · "
                        "A Very Small Umbrella", "pick", parts=("Fork", "A", "B", "C"))
        app.game_screen.show(replace(view, log=(*lines, grown, LogLine("All four down"))))
        await settle(pilots)
        # the same lines, though the newest grew and one came (only "N more below" counts)
        assert log.plain.splitlines()[:-1] == before.splitlines()[:-1]
        log.back = 0
        await settle(pilots)
        assert "All four down" in log.plain and "Small Umbrella" in log.plain
        assert "Ann marks Fork\n" not in log.plain + "\n"  # the old, short line is gone


async def test_a_log_line_wrapped_before_a_theme_change_is_wrapped_again_in_its_colours(
        ) -> None:
    table = make_table(3)
    app = apps_for(table)[0]
    async with running([app]) as pilots:
        view = table.sessions[0].view()
        stop = LogLine("Bob shouts Stop!", "stop")
        app.game_screen.show(replace(view, log=(stop,)))
        await settle(pilots)
        log = app.game_screen.query_one(GameLog)
        before = log._contents[-1].spans[0].style.foreground  # type: ignore[union-attr]
        app.theme = "textual-light" if app.theme != "textual-light" else "nord"
        await settle(pilots)
        app.game_screen.show(replace(view, log=(stop, LogLine("Ann hides a guess"))))
        await settle(pilots)
        assert log._contents[-2].plain == "Bob shouts Stop!"
        assert log._contents[-2].spans[0].style.foreground != before  # type: ignore[union-attr]


# --- errors, countdown, repaint economy ---------------------------------------------------


async def test_a_refused_move_shows_the_hubs_message_and_changes_nothing() -> None:
    table = make_table(3)
    apps = apps_for(table)
    lead = apps[table.lead]
    async with running([lead]) as pilots:
        before = table.state()
        shown = lead.shows
        await pilots[0].press("s")
        await settle(pilots)
        assert "the lead agent cannot shout Stop!" in notices(lead)
        assert table.state() is before
        assert lead.shows == shown


async def test_the_countdown_wakes_only_while_a_turn_timer_runs() -> None:
    table = make_table(3, TableOptions(turn_seconds=30))
    apps = apps_for(table)
    app = apps[table.guessers()[0]]
    async with running([app]) as pilots:
        table.hub.changed(table.hub.tables[table.code])  # the hub arms its timer on a loop
        await settle(pilots)
        countdown = app.screen.query_one(Countdown)
        assert countdown._clock is not None and countdown._clock._handle is not None
        assert re.search("⏱ 0:[23][0-9]", screen_text(app))  # it ticks every second
        screen = app.game_screen
        screen.show(replace(table.seat_session(table.guessers()[0]).view(), deadline_ms=None))
        await settle(pilots)
        assert countdown._clock is None and not TableClock._clocks
        assert "⏱" not in screen_text(app)
        table.hub.close()


def test_the_countdown_ticks_every_second_in_its_last_minute_and_in_minutes_before() -> None:
    assert countdown_text(125_000) == ("⏱ 3 min", 30)
    assert countdown_text(120_000) == ("⏱ 2 min", 30)
    assert countdown_text(90_500) == ("⏱ 2 min", 30)
    assert countdown_text(90_000) == ("⏱ 90 s", 30)  # the default turn reads as set
    assert countdown_text(60_500) == ("⏱ 90 s", 30)
    assert countdown_text(60_000) == ("⏱ 1:00", 1)
    assert [countdown_text(ms)[0] for ms in (59_000, 58_000, 57_000)] == [
        "⏱ 0:59", "⏱ 0:58", "⏱ 0:57"]  # a second, a step: it never looks frozen
    assert countdown_text(9_200) == ("⏱ 0:10", 1)
    assert countdown_text(0) == ("⏱ 0:00", 1)


async def test_the_countdown_is_drawn_again_each_second_of_its_last_minute() -> None:
    table = make_table(3, TableOptions(turn_seconds=30))
    apps = apps_for(table)
    app = apps[table.guessers()[0]]
    async with running([app]) as pilots:
        table.hub.changed(table.hub.tables[table.code])
        await settle(pilots)
        countdown = app.screen.query_one(Countdown)
        seen = {countdown.plain}
        for _ in range(5):
            await asyncio.sleep(0.5)
            seen.add(countdown.plain)
        assert len(seen) >= 3  # 0:30, 0:29, 0:28 at least, in 2.5 s
        table.hub.close()


async def test_a_pick_repaints_the_grid_but_not_the_task_bar(monkeypatch) -> None:
    table = make_table(3)
    apps = apps_for(table)
    lead = apps[table.lead]
    async with running([lead]) as pilots:
        renders: list[str] = []
        original = CachedLines._refresh_lines

        def counting(self, lines, _original=original):  # type: ignore[no-untyped-def]
            renders.append(self.id or "")
            return _original(self, lines)

        monkeypatch.setattr(CachedLines, "_refresh_lines", counting)
        await pilots[0].press("1")
        await settle(pilots)
        assert "grid" in renders
        assert "tasks" not in renders and "players" not in renders


async def test_show_timing_for_a_full_first_render_and_a_one_pick_change() -> None:
    """Measured, not asserted (run with -s to see it): the CPU time of show() itself, and
    of show() plus the repaint it causes, for a one-pick change and for a whole new screen.
    CPU time, not wall time, so other work on the machine does not count."""
    table = make_table(5)
    seat = table.guessers()[0]
    session = table.seat_session(seat)
    app = apps_for(table)[seat]
    lead = table.seat_session(table.lead)
    async with running([app], size=(120, 40)) as pilots:
        pilot = pilots[0]
        idle = time.process_time()
        await pilot.pause()
        idle = time.process_time() - idle  # what a pause costs with nothing to do

        start = time.process_time()
        await app.push_screen(GameScreen(session))
        await pilot.pause()
        first_paint = time.process_time() - start - idle
        fresh = app.game_screen
        fresh.view = None  # as if never shown: every widget gets its data anew
        for widget in fresh.query(Lines):
            widget.lines = ()
        fresh.query_one(ItemGrid).view = None
        await pilot.pause()
        start = time.process_time()
        fresh.show(session.view())
        full_show = time.process_time() - start
        await pilot.pause()
        full_paint = time.process_time() - start - idle

        picks, paints = [], []
        for column in range(3):
            lead.pick(column, 1)  # the app's own HubChanged waits in its queue meanwhile
            view = session.view()
            start = time.process_time()
            app.game_screen.show(view)
            picks.append(time.process_time() - start)
            await pilot.pause()
            paints.append(time.process_time() - start - idle)
        ms = 1000
        print(f"\nshow() CPU at 120x40: whole view {full_show * ms:.2f} ms "
              f"(+repaint {full_paint * ms:.1f} ms; a new screen from push to paint "
              f"{first_paint * ms:.0f} ms); one pick {min(picks) * ms:.2f}-"
              f"{max(picks) * ms:.2f} ms (+repaint {min(paints) * ms:.1f}-"
              f"{max(paints) * ms:.1f} ms)")


# --- the big moments ---------------------------------------------------------------------


async def test_a_stop_gets_a_banner_on_every_screen_and_the_status_comes_back_after() -> None:
    table = make_table(3)
    apps = apps_for(table)
    shouter, other = table.guessers()
    async with running([apps[table.lead], apps[other]]) as pilots:
        for app in (apps[table.lead], apps[other]):
            app.game_screen.BANNER_SECONDS = 0.3
        table.seat_session(shouter).shout()
        await settle(pilots)
        name = table.state().players[shouter]
        for app in (apps[table.lead], apps[other]):
            assert f"STOP!  {name} shouts Stop!" in screen_text(app).splitlines()[0]
        shouted = table.state()
        seen = view_for(shouted, shouter)
        before = view_for(replace(shouted, stop=()), shouter)
        assert "You shout Stop!" in "".join(text for text, _ in moment_line(before, seen) or ())
        await pilots[0].pause(0.5)
        await settle(pilots)
        assert "STOP!  " not in screen_text(apps[other]).splitlines()[0]


async def test_the_player_whose_turn_it_becomes_hears_the_bell_once() -> None:
    table = make_table(3)
    apps = apps_for(table)
    guesser = table.guessers()[0]
    app = apps[guesser]
    rings: list[int] = []
    app.bell = lambda: rings.append(1)  # type: ignore[method-assign]
    lead = table.seat_session(table.lead)
    async with running([app]) as pilots:
        for column in range(3):
            lead.pick(column, 0)
            await settle(pilots)
        assert rings == []
        lead.pick(3, 0)  # four items down: every guesser must hide a guess now
        await settle(pilots)
        assert rings == [1]
        table.seat_session(table.guessers()[1]).guess(1)
        await settle(pilots)
        assert rings == [1]  # once, not on every change while it is still my turn


async def test_a_pasted_plan_keeps_all_its_lines_joined_and_no_escape_sequences() -> None:
    table = make_table(4)
    apps = apps_for(table)
    first, _, _ = play_to_reveal(table)
    app = apps[first]
    async with running([app]) as pilots:
        plan = app.screen.query_one("#plan", Input)
        assert plan.has_focus
        app.screen.query_one("#plan").post_message(
            events.Paste("we ride the pigeon\nthen \x1b[31msaw\x1b[0m our way out\n"))
        await settle(pilots)
        assert plan.value == "we ride the pigeon then saw our way out"
        plan.cursor_position = len("we ride the")
        plan.post_message(events.Paste(" \x1b[1mgiant\x07\x1b[0m"))  # between two words
        await settle(pilots)
        assert plan.value == "we ride the giant pigeon then saw our way out"
        await pilots[0].press("enter")
        await settle(pilots)
        assert table.state().plans[first] == "we ride the giant pigeon then saw our way out"


async def test_a_paste_over_the_limit_is_kept_up_to_the_limit_with_a_note() -> None:
    table = make_table(4)
    apps = apps_for(table)
    first, _, _ = play_to_reveal(table)
    app = apps[first]
    async with running([app]) as pilots:
        plan = app.screen.query_one("#plan", Input)
        long = "we ride the pigeon over the wall " * 8  # 264 characters
        plan.post_message(events.Paste(long))
        await settle(pilots)
        assert plan.value == long[:PLAN_MAX]  # not dropped whole, as Textual would
        assert any("cut to fit" in note for note in notices(app))
        assert ("", " 0 characters left", "") in app.screen.key_hints()  # the counter
        await pilots[0].press("enter")
        await settle(pilots)
        assert table.state().plans[first] == long[:PLAN_MAX].strip()


async def test_the_points_of_a_wrong_stop_fit_one_line_at_80_columns() -> None:
    """The stopper's line (wrong guess and the stop token's penalty) was cut with "…" at
    80x24: "-1 wrong guess (2: Fix Mom's Teapot Before She Sees); stop token pen…"."""
    names = ("Annabelle Longname"[:16], "Bartholomew Jone", "Cyrilla Smithers", "Dee")
    table = make_table(4, names=names)
    state = table.state()
    lead = table.seat_session(table.lead)
    stopper = table.seat_session(state.guessers[0])
    lead.pick(0, 0)
    stopper.shout()
    stopper.guess(state.secret % 4 + 1)  # wrong
    for column in range(1, 4):
        lead.pick(column, 0)
    for seat in state.guessers[1:]:
        table.seat_session(seat).guess(state.secret)
    for seat in state.guessers:
        table.seat_session(seat).reveal("")
    lead.lead_reveal("")
    assert table.state().phase is Phase.ROUND_OVER
    app = GameHost(stopper)
    async with running([app], size=(80, 24)):
        text = screen_text(app)
        assert "stop token penalty" in text and "wrong guess" in text
        assert "…" not in "".join(line for line in text.splitlines() if "wrong" in line)



async def test_a_marked_item_never_touches_the_item_before_it() -> None:
    """A cell is the marker's column, then the item: an item that filled the rest of its
    cell ran into the next cell's marker ("Bottomless Cup of Slime●Extension Cord"). Each
    item now ends a cell before the next marker, at 80 and at 100 columns."""
    def longest(grid: tuple[tuple[str, ...], ...]) -> int:
        return max(len(item) for column in grid[:3] for item in column)

    seed = next(f"long-{n}" for n in range(200)
                if longest(make_table(3, seed=f"long-{n}").state().grid) >= 22)
    for size in ((80, 24), (100, 30)):  # a cell of 19 and of 24
        table = make_table(3, seed=seed)
        lead = table.seat_session(table.lead)
        grid = table.state().grid
        lead.pick(0, 0)
        for column in range(1, 4):  # each pick beside the longest item of the column before
            lead.pick(column, max(range(4), key=lambda row: len(grid[column - 1][row])))
        app = GameHost(table.seat_session(table.lead))
        async with running([app], size=size):
            rows = [line for line in screen_text(app).splitlines()
                    if line[:3].strip() in ("1", "2", "3", "4") and ("●" in line or "▶" in line)]
            assert len(rows) >= 3
            for line in rows:
                assert re.search(r"\S[●▶]", line) is None, line


# --- guests coming back ------------------------------------------------------------------------


async def test_a_guest_watching_a_game_where_their_seat_waits_types_the_seat_code_at_once(
) -> None:
    hub = Hub(deck=load_deck(), seed="guest", settle_ms=0, bot_delay=3600.0)
    ann = hub.attach(Player(id="guest:ann", name="Ann"))
    code = ann.create_table(TableOptions(turn_seconds=0))
    for name in ("Bob", "Cy"):
        hub.attach(Player(id=f"key:{name}", name=name)).join(code)
    ann.start()
    seat_code = ann.view().seat_code
    assert seat_code
    ann.detach()  # the guest's connection dropped
    back = hub.attach(Player(id="guest:ann-again", name="Ann"))
    back.join(code)  # a playing table: they land as a spectator
    assert back.view().my_seat is None
    app = GameHost(back)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        text = screen_text(app)
        assert "Had a seat here? Type your seat code below" in text
        field = app.screen.query_one("#plan", Input)
        assert field.has_focus and "seat code" in field.placeholder  # one step: just type
        assert ("", " typing your seat code:", "") in app.screen.key_hints()
        await pilot.press(*seat_code.lower(), "enter")
        await pilot.pause()
        assert back.view().my_seat == 0
        assert "You are watching" not in screen_text(app)
        assert f"your seat code {seat_code}" in screen_text(app)  # in the tasks' title


@pytest.mark.parametrize("size", [(80, 24), (100, 30), (120, 40)])
async def test_a_guest_finds_their_seat_code_in_the_round_summary(size) -> None:
    """At every size: the summary's header (it was cut at 80x24), the seat code in the
    plan's row (idle then), and in the tasks' title."""
    hub = Hub(deck=load_deck(), seed="guest", settle_ms=0, bot_delay=3600.0)
    ann = hub.attach(Player(id="guest:ann", name="Ann"))
    code = ann.create_table(TableOptions(turn_seconds=0))
    others = [hub.attach(Player(id=f"key:{n}", name=n)) for n in ("Bob", "Cy")]
    for other in others:
        other.join(code)
    ann.start()
    sessions = [ann, *others]
    table = hub.tables[code]
    state = table.state
    lead = sessions[state.lead]
    for column in range(4):
        lead.pick(column, 0)
    for seat in state.guessers:
        sessions[seat].guess(1)
    for seat in state.guessers:
        sessions[seat].reveal("")
    lead.lead_reveal("")
    app = GameHost(ann)
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        text = screen_text(app)
        seat_code = ann.view().seat_code
        assert f"Your seat code: {seat_code}" in text
        assert f"your seat code {seat_code}" in text
        assert "Round 1 over. The task was" in text


async def test_the_hosts_key_bar_fits_80_columns_in_every_role() -> None:
    for seed in ("a", "b", "c"):  # the host leads in some games, guesses in others
        table = make_table(3, seed=seed)
        host = GameHost(table.sessions[0])
        async with host.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            bar = host.screen.query_one(KeyBar).plain.rstrip()
            assert len(bar) <= 80 and "…" not in bar, bar
            assert bar.endswith("l lobby"), bar
