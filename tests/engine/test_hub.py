"""The hub: tables, seats, views and the Stop! race, without any terminal."""

from __future__ import annotations

import asyncio
import time
from types import SimpleNamespace

import pytest

from engine import rules
from engine.clock import now_ms
from engine.errors import BrokenRule, NotAllowed, NotSaved
from engine.hub import Hub
from engine.identity import Player
from engine.rules import IllegalAction, Phase
from engine.session import Session
from engine.tables import Table, TableOptions
from tests.waiting import until

NO_TIMER = TableOptions(turn_seconds=0)


class FirstRowBot:
    """A predictable stand-in bot: picks row 1, guesses 1, reveals, moves on."""

    def __init__(self, seed: str) -> None:
        self.seed = seed

    def act(self, view: rules.View, now_ms: int = 0) -> rules.Action | None:
        seat = view.seat
        assert seat is not None
        if view.phase is Phase.PICKING and view.can_pick():
            return rules.Pick(seat, len(view.picks), 0)
        if view.can_guess() and view.phase is Phase.GUESSING:
            return rules.Guess(seat, 1)
        if view.phase is Phase.REVEALING and view.waiting_for == (seat,):
            return rules.Reveal(seat, "beep")
        if view.phase is Phase.LEAD_REVEAL and view.is_lead:
            return rules.LeadReveal(seat, "boop")
        if view.phase is Phase.BEST_PLAN and view.is_lead:
            return rules.BestPlan(seat, view.guessers[0])
        if view.phase is Phase.ROUND_OVER:
            return rules.NextRound(seat)
        return None


def make_hub(plain_deck: SimpleNamespace, **kw: object) -> Hub:
    kw.setdefault("settle_ms", 0)
    kw.setdefault("bot_delay", 0.0)
    return Hub(deck=plain_deck, seed="test", bot_factory=FirstRowBot, **kw)  # type: ignore[arg-type]


def seat_table(hub: Hub, players: int, options: TableOptions = NO_TIMER) -> list[Session]:
    sessions = [hub.attach(Player(f"key:{i}", f"P{i}")) for i in range(players)]
    code = sessions[0].create_table(options)
    for s in sessions[1:]:
        s.join(code)
    return sessions


def by_seat(sessions: list[Session]) -> dict[int, Session]:
    return {s.seat: s for s in sessions if s.seat is not None}


def timed_table_at_guessing(plain_deck: SimpleNamespace, players: int
                            ) -> tuple[Hub, Table, dict[int, Session]]:
    """A hub and a table with a 15 s turn timer whose lead has put the four items down,
    with its sessions by seat (from a test with a running loop: the timer needs one)."""
    hub = make_hub(plain_deck)
    sessions = seat_table(hub, players, TableOptions(turn_seconds=15))
    sessions[0].start()
    table = sessions[0].table
    assert table is not None and table.state is not None
    seats = by_seat(sessions)
    for column in range(4):
        seats[table.state.lead].pick(column, 1)
    assert table.state.phase is Phase.GUESSING
    return hub, table, seats


def test_friends_sit_at_a_table_by_its_code(plain_deck: SimpleNamespace) -> None:
    hub = make_hub(plain_deck)
    ann, bob, _ = seat_table(hub, 3)
    view = bob.view()
    assert view is not None and len(view.code) == 4
    assert [s.name for s in view.seats] == ["P0", "P1", "P2"]
    assert view.seats[0].is_host and not view.is_host
    assert ann.lobby()[0].seated == 3


def test_an_unknown_code_is_refused_with_a_message(plain_deck: SimpleNamespace) -> None:
    hub = make_hub(plain_deck)
    s = hub.attach(Player("key:x", "X"))
    with pytest.raises(IllegalAction, match="no table has the code"):
        s.join("ZZZZ")
    assert s.table is None


def test_names_are_cleaned_and_unique_at_the_table(plain_deck: SimpleNamespace) -> None:
    hub = make_hub(plain_deck)
    a = hub.attach(Player("key:a", "Sam\x1b[31m\x07"))
    b = hub.attach(Player("key:b", "Sam"))
    code = a.create_table(NO_TIMER)
    b.join(code)
    assert [s.name for s in a.view().seats] == ["Sam", "Sam-2"]
    with pytest.raises(IllegalAction, match="visible character"):
        b.rename("\x1b[2J")


def test_only_the_host_starts_and_a_game_needs_three(plain_deck: SimpleNamespace) -> None:
    hub = make_hub(plain_deck)
    a, b = seat_table(hub, 2)
    with pytest.raises(NotAllowed, match="only the table's host"):
        b.start()
    with pytest.raises(BrokenRule, match="3 to"):
        a.start()
    a.add_bot()
    a.start()
    assert a.view().status == "playing"


def test_a_table_left_with_only_bots_before_a_game_is_closed(
        plain_deck: SimpleNamespace) -> None:
    hub = make_hub(plain_deck)
    host = hub.attach(Player("key:h", "H"))
    code = host.create_table(NO_TIMER)
    host.add_bot()
    host.leave()
    assert code not in hub.tables and host.lobby() == ()


def test_the_host_passes_on_when_the_host_leaves(plain_deck: SimpleNamespace) -> None:
    hub = make_hub(plain_deck)
    a, b, _ = seat_table(hub, 3)
    a.leave()
    assert b.view().is_host


def test_joining_a_running_game_makes_you_a_spectator(plain_deck: SimpleNamespace) -> None:
    hub = make_hub(plain_deck)
    sessions = seat_table(hub, 3)
    sessions[0].start()
    notes: list[str] = []
    late = hub.attach(Player("key:late", "Late"), on_notice=notes.append)
    late.join(sessions[0].view().code)
    view = late.view()
    assert view.my_seat is None and view.game is not None and view.spectators == 1
    assert notes and "watching" in notes[0]
    with pytest.raises(IllegalAction, match="spectators"):
        late.guess(1)


def test_no_view_ever_holds_another_seats_secret(plain_deck: SimpleNamespace) -> None:
    hub = make_hub(plain_deck)
    sessions = seat_table(hub, 4)
    sessions[0].start()
    seats = by_seat(sessions)
    watcher = hub.attach(Player("key:w", "W"))
    watcher.join(sessions[0].view().code, spectate=True)
    table = sessions[0].table
    state = table.state

    def assert_private() -> None:
        st = table.state
        for seat, s in seats.items():
            game = s.view().game
            if st.phase in (Phase.PICKING, Phase.GUESSING, Phase.REVEALING, Phase.LEAD_REVEAL):
                assert (game.secret is not None) == (seat == st.lead)
                for other, guess in enumerate(game.guesses):
                    if other != seat and other not in st.revealed:
                        assert guess is None
        assert watcher.view().game.secret is None or st.phase in (Phase.ROUND_OVER,
                                                                  Phase.BEST_PLAN)

    lead = seats[state.lead]
    for column in range(4):
        lead.pick(column, 1)
        assert_private()
    for seat in state.guessers:
        seats[seat].guess(seat % 4 + 1)
        assert_private()
    for seat in state.guessers:
        seats[seat].reveal("a plan")
        assert_private()
    lead.lead_reveal("the plan")
    assert sessions[0].view().game.phase is Phase.ROUND_OVER


def test_the_lead_cannot_chat_while_picking(plain_deck: SimpleNamespace) -> None:
    hub = make_hub(plain_deck)
    sessions = seat_table(hub, 3)
    sessions[0].start()
    seats = by_seat(sessions)
    lead = seats[sessions[0].table.state.lead]
    with pytest.raises(BrokenRule, match="silent"):
        lead.chat("it's the rope!")
    other = next(s for s in sessions if s is not lead)
    other.chat("hmm \x1b[5mblink")
    assert lead.view().chat[-1].text == "hmm blink"


def test_every_session_at_the_table_is_told_of_a_change(plain_deck: SimpleNamespace) -> None:
    hub = make_hub(plain_deck)
    calls: list[str] = []
    a = hub.attach(Player("key:a", "A"), on_change=lambda: calls.append("a"))
    b = hub.attach(Player("key:b", "B"), on_change=lambda: calls.append("b"))
    outsider = hub.attach(Player("key:o", "O"), on_change=lambda: calls.append("o"))
    code = a.create_table(NO_TIMER)
    calls.clear()
    b.join(code)
    assert "a" in calls and "b" in calls
    calls.clear()
    b.chat("hi")
    assert sorted(calls) == ["a", "b"]
    assert outsider.table is None


def test_a_seat_is_kept_when_its_player_drops_and_resumed_on_return(
        plain_deck: SimpleNamespace) -> None:
    hub = make_hub(plain_deck)
    sessions = seat_table(hub, 3)
    sessions[0].start()
    code = sessions[0].view().code
    seat = sessions[1].seat
    sessions[1].detach()
    assert not sessions[0].view().seats[seat].connected
    again = hub.attach(Player("key:1", "P1"))
    again.join(code)
    assert again.seat == seat and again.view().seats[seat].connected


def guest_in_a_game(plain_deck: SimpleNamespace) -> tuple[Hub, Session, Session, str, str]:
    """A host, a keyless guest and a bot in a started game: the hub, the host's and the
    guest's sessions, the table's code and the guest's seat code."""
    hub = make_hub(plain_deck)
    host = hub.attach(Player("key:h", "H"))
    guest = hub.attach(Player("guest:abc", "G"))
    code = host.create_table(NO_TIMER)
    guest.join(code)
    host.add_bot()
    host.start()
    return hub, host, guest, code, guest.view().seat_code


def test_a_keyless_guest_reclaims_their_seat_with_the_seat_code(
        plain_deck: SimpleNamespace) -> None:
    hub, _host, guest, code, seat_code = guest_in_a_game(plain_deck)
    guest.detach()
    back = hub.attach(Player("guest:new-token", "G"))
    with pytest.raises(IllegalAction, match="seat code"):
        back.reclaim(code, "WRONG1")
    back.reclaim(code, seat_code)
    assert back.seat == 1 and back.view().seats[1].connected
    assert [line.text for line in back.view().log[-2:]] == [
        "G lost connection: their seat is kept", "G is back"]  # the table is told both


def test_the_table_reads_who_went_to_the_lobby_and_who_lost_connection(
        plain_deck: SimpleNamespace) -> None:
    _hub, host, guest, code, _seat_code = guest_in_a_game(plain_deck)
    guest.leave()
    guest.join(code)
    host.detach()
    assert [line.text for line in guest.view().log[-3:]] == [  # type: ignore[union-attr]
        "G went to the lobby: their seat is kept", "G is back",
        f"{host.player.name} lost connection: their seat is kept"]


async def test_a_bot_plays_for_a_player_who_stays_away(plain_deck: SimpleNamespace) -> None:
    hub = make_hub(plain_deck, grace_seconds=0.05)
    sessions = seat_table(hub, 3)
    sessions[0].start()
    table = sessions[0].table
    lead = table.state.lead
    by_seat(sessions)[lead].detach()
    await until(lambda: len(table.state.picks) == 4, "the bot's four picks")
    assert table.seats[lead].botted
    assert len(table.state.picks) == 4  # the bot picked for the absent lead
    assert any(line.by_bot for line in table.log)


async def test_a_turn_timer_never_leaves_the_table_frozen(plain_deck: SimpleNamespace) -> None:
    hub = make_hub(plain_deck)
    sessions = seat_table(hub, 3, TableOptions(turn_seconds=15))
    sessions[0].start()
    table = sessions[0].table
    assert table.deadline_ms is not None and table.deadline_ms > now_ms()
    hub.timers.timeout(table)  # as if fifteen seconds went by
    assert len(table.state.picks) == 1
    assert any("time is up" in line.text for line in table.log)


async def test_the_turn_clock_runs_on_while_guessers_hide_and_restarts_for_each_revealer(
        plain_deck: SimpleNamespace) -> None:
    """One clock for the guessers: the last to hide a guess does not get a fresh one each
    time another hides theirs (the countdown jumped back up to the full time)."""
    _hub, table, seats = timed_table_at_guessing(plain_deck, 4)
    state = table.state
    guessing = table.deadline_ms
    first, *others = state.guessers
    await asyncio.sleep(0.01)
    seats[first].guess(1)
    assert table.deadline_ms == guessing
    for seat in others:
        seats[seat].guess(1)
    assert table.state.phase is Phase.REVEALING
    revealing = table.deadline_ms
    assert revealing is not None and guessing is not None and revealing > guessing
    await asyncio.sleep(0.01)
    seats[table.state.next_revealer].reveal("")
    assert table.deadline_ms is not None and table.deadline_ms > revealing  # the next one's


async def test_bots_play_a_whole_game_to_the_end(plain_deck: SimpleNamespace) -> None:
    hub = make_hub(plain_deck)
    host = hub.attach(Player("key:h", "H"))
    host.create_table(NO_TIMER)
    for _ in range(3):
        host.add_bot()
    host.start()
    table = host.table
    seat = host.seat
    for _ in range(400):
        if table.status == "finished":
            break
        state = table.state
        if seat in state.waiting_for() or state.phase is Phase.ROUND_OVER:
            move = FirstRowBot("me").act(rules.view_for(state, seat))
            if move is not None:
                hub.submit(table, move, host)
        await asyncio.sleep(0)
    assert table.status == "finished"
    assert len(table.state.history) == 8


# --- Stop! races -----------------------------------------------------------------------


async def test_fifty_simultaneous_shouts_give_one_holder_per_table(
        plain_deck: SimpleNamespace) -> None:
    hub = make_hub(plain_deck, settle_ms=30)
    tables = []
    for t in range(10):
        sessions = [hub.attach(Player(f"key:{t}:{i}", f"P{i}")) for i in range(6)]
        code = sessions[0].create_table(TableOptions(turn_seconds=0, max_seats=6))
        for s in sessions[1:]:
            s.join(code)
        sessions[0].start()
        tables.append(sessions)
    shouters = [s for sessions in tables for s in sessions if not s.view().game.is_lead]
    assert len(shouters) == 50
    refusals: list[str] = []
    for i, s in enumerate(shouters):
        s.on_notice = refusals.append
        s.shout(at_ms=1000.0 + i)  # all within one settle window
    await asyncio.sleep(0.1)
    for sessions in tables:
        assert len(sessions[0].table.state.stop) == 1
    assert len(refusals) == 40


async def test_shouts_in_the_same_millisecond_share_the_token(
        plain_deck: SimpleNamespace) -> None:
    hub = make_hub(plain_deck, settle_ms=30)
    sessions = seat_table(hub, 5)
    sessions[0].start()
    guessers = [s for s in sessions if not s.view().game.is_lead]
    for s in guessers:
        s.shout(at_ms=5000.0)
    await asyncio.sleep(0.1)
    assert sorted(sessions[0].table.state.stop) == sorted(s.seat for s in guessers)


async def test_a_busy_session_still_wins_the_race_its_bytes_won(
        plain_deck: SimpleNamespace) -> None:
    hub = make_hub(plain_deck, settle_ms=60)
    sessions = seat_table(hub, 4)
    sessions[0].start()
    table = sessions[0].table
    quick, busy, _ = (by_seat(sessions)[s] for s in table.state.guessers)
    t0 = now_ms()
    quick.shout(at_ms=t0 + 5)  # handled first, but its bytes came later
    await asyncio.sleep(0.02)  # the busy session's UI gets round to its key late
    busy.shout(at_ms=t0)
    await asyncio.sleep(0.1)
    assert table.state.stop == (busy.seat,)


async def test_a_pick_whose_bytes_came_after_a_shout_waits_for_the_stopper(
        plain_deck: SimpleNamespace) -> None:
    hub = make_hub(plain_deck, settle_ms=50)
    sessions = seat_table(hub, 4)
    sessions[0].start()
    table = sessions[0].table
    seats = by_seat(sessions)
    lead = seats[table.state.lead]
    shouter = seats[table.state.guessers[0]]
    notes: list[str] = []
    lead.on_notice = notes.append
    t0 = now_ms()
    shouter.shout(at_ms=t0)
    lead.pick(0, 0, at_ms=t0 + 1)
    await asyncio.sleep(0.12)
    assert table.state.stop == (shouter.seat,) and table.state.picks == ()
    assert notes and "Stop" in notes[0]


def test_leaving_tells_the_leaver_too(plain_deck: SimpleNamespace) -> None:
    hub = make_hub(plain_deck)
    calls: list[str] = []
    a = hub.attach(Player("key:a", "A"), on_change=lambda: calls.append("a"))
    a.create_table(NO_TIMER)
    calls.clear()
    a.leave()
    assert "a" in calls


def test_a_removed_player_is_told_and_watches(plain_deck: SimpleNamespace) -> None:
    hub = make_hub(plain_deck)
    notes: list[str] = []
    host = hub.attach(Player("key:h", "H"))
    guest = hub.attach(Player("key:g", "G"), on_notice=notes.append)
    guest.join(host.create_table(NO_TIMER))
    host.remove_seat(1)
    assert guest.seat is None and guest.table is host.table
    assert notes and "gave your seat away" in notes[0]


def test_the_host_hands_a_disruptive_players_seat_to_a_bot_mid_game(
        plain_deck: SimpleNamespace) -> None:
    hub = make_hub(plain_deck)
    notes: list[str] = []
    host = hub.attach(Player("key:h", "Alice"))
    bob = hub.attach(Player("key:b", "Bob"), on_notice=notes.append)
    cy = hub.attach(Player("key:c", "Cy"))
    code = host.create_table(NO_TIMER)
    bob.join(code)
    cy.join(code)
    host.start()
    table = host.table
    with pytest.raises(IllegalAction, match="only the table's host"):
        cy.remove_seat(1)
    with pytest.raises(IllegalAction, match="removing yourself"):
        host.remove_seat(0)
    state = table.state
    host.remove_seat(1)
    # the seat plays on as a bot, with its name, points and hand; the game goes on
    assert table.seats[1].is_bot and table.seats[1].name == "Bob"
    assert table.seats[1].seat_code == ""
    assert table.state == state  # the rules see the same game: points, cards, turn
    assert "Alice removed Bob: a bot plays their seat" in [line.text for line in table.log]
    # Bob is back in the lobby, told why in one line, and may not come back
    assert bob.table is None and bob not in table.sessions
    assert notes == [f"Alice removed you from table {code}: a bot plays your seat"]
    with pytest.raises(IllegalAction, match="removed you"):
        bob.join(code)
    again = hub.attach(Player("key:b", "Bob"))  # reconnecting with the same key
    assert again.resume() is None
    with pytest.raises(IllegalAction, match="removed you"):
        again.join(code)
    with pytest.raises(IllegalAction, match="only people"):
        host.remove_seat(1)  # a bot's seat stays


def test_a_removed_guest_cannot_reclaim_the_seat_with_its_code(
        plain_deck: SimpleNamespace) -> None:
    hub, host, guest, code, seat_code = guest_in_a_game(plain_deck)
    guest.detach()  # gone, seat kept...
    host.remove_seat(1)  # ...until the host hands it to a bot
    back = hub.attach(Player("guest:new-token", "G"))
    assert not back.may_reclaim(code)
    with pytest.raises(IllegalAction, match="seat code"):
        back.reclaim(code, seat_code)


HOME = "203.0.113.7"  # one household's address: friends behind one router share it


def test_a_removed_guest_cannot_come_back_as_a_new_guest_from_their_address(
        plain_deck: SimpleNamespace) -> None:
    hub = make_hub(plain_deck)
    host = hub.attach(Player("key:h", "Alice"))
    mallory = hub.attach(Player("guest:m", "Mallory", address=HOME))
    friend = hub.attach(Player("guest:f", "Fay", address=HOME))
    code = host.create_table(NO_TIMER)
    mallory.join(code)
    friend.join(code)
    host.start()
    table = host.table
    friend_code = friend.view().seat_code
    host.remove_seat(1)
    assert table.removed_from == {HOME}

    back = hub.attach(Player("guest:new", "M", address=HOME))
    for spectate in (False, True):
        with pytest.raises(IllegalAction, match="host removed a player from your address"):
            back.join(code, spectate=spectate)
        assert back.table is None and back not in table.sessions
    # the friend who sits there keeps the seat, and takes it back with its code
    assert friend.seat == 2
    friend.detach()
    again = hub.attach(Player("guest:again", "Fay", address=HOME))
    again.reclaim(code, friend_code)
    assert again.seat == 2 and table.seats[2].connected
    # a guest from elsewhere, and a player with a key from the same address, may watch
    for other in (Player("guest:x", "X", address="198.51.100.1"), Player("key:k", "K", HOME)):
        watcher = hub.attach(other)
        watcher.join(code, spectate=True)
        assert watcher.table is table and watcher.seat is None


def test_removing_the_last_player_the_round_waits_for_starts_the_next_round(
        plain_deck: SimpleNamespace) -> None:
    hub = make_hub(plain_deck)
    sessions = seat_table(hub, 3)
    sessions[0].start()
    table = sessions[0].table
    play_round(sessions)
    assert table.state.phase is Phase.ROUND_OVER
    sessions[0].next_round()
    sessions[1].next_round()
    assert table.state.round == 1  # waiting for P2
    sessions[0].remove_seat(sessions[2].seat)
    assert table.state.round == 2


class FailingJournal:
    """Keeps records in memory; refuses writes while ``broken``."""

    def __init__(self) -> None:
        self.rows: list[tuple[str, int, str, dict[str, object]]] = []
        self.broken = False

    def record(self, code: str, seq: int, kind: str, payload: dict[str, object]) -> None:
        if self.broken:
            raise OSError("disk full")
        self.rows.append((code, seq, kind, payload))

    def game_over(self, *args: object) -> None:
        pass

    def table_records(self, code: str) -> list[tuple[str, int, str, dict[str, object]]]:
        return [row for row in self.rows if row[0] == code]


def test_a_move_the_disk_refused_is_refused_and_undone(plain_deck: SimpleNamespace) -> None:
    journal = FailingJournal()
    hub = make_hub(plain_deck, journal=journal)
    sessions = seat_table(hub, 3)
    sessions[0].start()
    table = sessions[0].table
    lead = by_seat(sessions)[table.state.lead]
    lead.pick(0, 0)
    journal.broken = True
    with pytest.raises(NotSaved, match="could not save"):
        lead.pick(1, 0)
    assert table.state.picks == (0,)
    journal.broken = False
    lead.pick(1, 2)
    assert table.state.picks == (0, 2)
    again = make_hub(plain_deck)
    again.replay(journal.rows)
    assert again.tables[table.code].state == table.state


def play_round(sessions: list[Session]) -> None:
    table = sessions[0].table
    state = table.state
    seats = by_seat(sessions)
    for column in range(4):
        seats[state.lead].pick(column, column)
    for seat in state.guessers:
        seats[seat].guess(state.secret if seat % 2 else state.secret % 4 + 1)
    for seat in state.guessers:
        seats[seat].reveal("my plan")
    seats[state.lead].lead_reveal("the plan")


def test_a_restarted_hub_finds_every_table_where_it_was(plain_deck: SimpleNamespace,
                                                        tmp_path: object) -> None:
    hub = Hub.open(tmp_path, deck=plain_deck, seed="r", settle_ms=0, bot_delay=0.0)
    sessions = seat_table(hub, 4)
    sessions[0].start()
    play_round(sessions)
    for session in sessions:  # everyone is ready for the next round
        session.next_round()
    table = sessions[0].table
    seats = by_seat(sessions)
    seats[table.state.lead].pick(0, 2)
    shouter = seats[table.state.guessers[1]]
    shouter.shout(at_ms=now_ms())
    shouter.guess(3)
    before = table.state
    hub.close()

    again = Hub.open(tmp_path, deck=plain_deck, seed="r", settle_ms=0, bot_delay=0.0)
    restored = again.tables[table.code]
    assert restored.state == before
    assert [s.name for s in restored.seats] == [s.name for s in table.seats]
    assert not any(s.connected for s in restored.seats)
    back = again.attach(Player(shouter.player.id, "back"))
    back.join(table.code)
    assert back.view().game.my_guess == 3 and back.view().seats[back.seat].connected
    again.close()


def test_finished_games_show_in_everyones_history(plain_deck: SimpleNamespace,
                                                  tmp_path: object) -> None:
    hub = Hub.open(tmp_path, deck=plain_deck, seed="h", settle_ms=0, bot_delay=0.0)
    sessions = seat_table(hub, 3, TableOptions(turn_seconds=0, rounds=1))
    assert sessions[0].history().mine is None
    sessions[0].start()
    play_round(sessions)
    assert sessions[0].table.status == "finished"
    history = sessions[1].history()
    assert history.mine is not None and history.mine.games_played == 1
    assert len(history.recent) == 1 and history.recent[0].code == sessions[0].table.code
    best = history.hall_of_fame[0]
    assert best.games_won == 1
    assert best.total_points == max(sessions[0].table.state.scores)
    hub.close()


def test_a_player_with_a_key_resumes_their_running_game(plain_deck: SimpleNamespace) -> None:
    hub = make_hub(plain_deck)
    sessions = seat_table(hub, 3)
    sessions[0].start()
    seat = sessions[2].seat
    sessions[2].detach()
    back = hub.attach(Player("key:2", "P2"))
    assert back.resume() == sessions[0].table.code
    assert back.seat == seat
    stranger = hub.attach(Player("key:new", "N"))
    assert stranger.resume() is None and stranger.table is None


def test_a_player_with_seats_in_two_games_resumes_the_one_they_were_at_last(
        plain_deck: SimpleNamespace) -> None:
    """They left the first game for the lobby (the seat is kept), sat down at a new one,
    and lost the connection there: they come back to the new one."""
    hub = make_hub(plain_deck)
    first = seat_table(hub, 3)
    first[0].start()
    first[2].leave()
    time.sleep(0.005)  # seats are ordered by when their player went away
    second = [first[2], *(hub.attach(Player(f"key:{i}", f"P{i}")) for i in (3, 4))]
    code = second[1].create_table(NO_TIMER)
    second[0].join(code)
    second[2].join(code)
    second[1].start()
    second[0].detach()
    back = hub.attach(Player("key:2", "P2"))
    assert back.resume() == code
    assert back.table is not None and back.table.code == code


def test_a_session_plays_only_for_its_own_seat(plain_deck: SimpleNamespace) -> None:
    hub = make_hub(plain_deck)
    sessions = seat_table(hub, 3)
    sessions[0].start()
    state = sessions[0].table.state
    lead = by_seat(sessions)[state.lead]
    other = by_seat(sessions)[state.guessers[0]]
    with pytest.raises(IllegalAction, match="another seat"):
        other.play(rules.Pick(state.lead, 0, 0))
    lead.play(rules.Pick(state.lead, 0, 3))
    assert sessions[0].table.state.picks == (3,)


def test_a_guest_host_who_reclaims_is_still_the_host(plain_deck: SimpleNamespace) -> None:
    hub = make_hub(plain_deck)
    host = hub.attach(Player("guest:first", "G"))
    code = host.create_table(NO_TIMER)
    for i in range(2):
        hub.attach(Player(f"key:{i}", f"P{i}")).join(code)
    host.start()
    seat_code = host.view().seat_code
    host.detach()
    back = hub.attach(Player("guest:second", "G"))
    back.reclaim(code, seat_code)
    assert back.view().is_host and back.view().seats[0].is_host
    back.end_game()  # Ctrl+E: only the host may
    assert back.table is not None and back.table.status == "finished"
    game = back.view().game
    assert game is not None and game.seat == 0  # the results are still theirs ("you")


async def test_a_round_started_by_the_timer_is_not_tagged_as_a_bot_move(
        plain_deck: SimpleNamespace) -> None:
    """Nobody pressed Enter at round over: the timer starts the next round, and the log's
    "Round 2: P1 is the lead agent" carries no "(bot)" (P1 is a person)."""
    hub, table, seats = timed_table_at_guessing(plain_deck, 3)
    state = table.state
    for seat in state.guessers:
        seats[seat].guess(1)
    for seat in state.guessers:
        seats[seat].reveal("")
    seats[state.lead].lead_reveal("")
    assert table.state.phase is Phase.ROUND_OVER
    hub.timers.timeout(table)  # thirty seconds of reading the points went by
    assert table.state.round == 2
    [start] = [line for line in table.log if line.text.startswith("Round 2")]
    assert not start.by_bot


def test_a_finished_game_is_only_yours_if_you_played_it(plain_deck: SimpleNamespace) -> None:
    """After a game, P2 leaves and a newcomer takes the free seat: the results do not call
    the newcomer "you", and the newcomer's new name does not go into the old game."""
    hub = make_hub(plain_deck)
    sessions = seat_table(hub, 3, TableOptions(turn_seconds=0, rounds=1))
    sessions[0].start()
    play_round(sessions)
    table = sessions[0].table
    assert table.status == "finished"
    seat = sessions[2].seat
    sessions[2].leave()
    newcomer = hub.attach(Player("key:new", "Newt"))
    newcomer.join(table.code)
    assert newcomer.seat == seat
    view = newcomer.view()
    assert view is not None and view.my_seat == seat
    assert view.game is not None and view.game.seat is None  # not "you" in P2's results
    newcomer.rename("Nora")
    assert table.state.players[seat] == "P2"
    sessions[1].rename("Bea")  # a player of the game: their results follow their name
    assert table.state.players[sessions[1].seat] == "Bea"
    mine = sessions[0].view()
    assert mine is not None and mine.game is not None and mine.game.seat == sessions[0].seat


def started_table_of_four(plain_deck: SimpleNamespace) -> tuple[Hub, Table, dict[int, Session]]:
    """A hub and a table of four whose game has begun, with its sessions by seat."""
    hub = make_hub(plain_deck)
    sessions = seat_table(hub, 4)
    sessions[0].start()
    table = sessions[0].table
    assert table is not None and table.state is not None
    return hub, table, by_seat(sessions)


def test_a_leads_picks_and_the_hidden_guesses_each_share_a_line_of_the_log(
        plain_deck: SimpleNamespace) -> None:
    """The board shows every pick and hidden guess as it is made: the log gives each run
    of them one line, which grows, and a Stop! between two picks starts a new one."""
    hub, table, seats = started_table_of_four(plain_deck)
    state = table.state
    assert state is not None
    lead = seats[state.lead]
    first, second, third = (seats[g] for g in state.guessers)
    names = [state.players[g] for g in state.guessers]
    items = [state.grid[column][0] for column in range(4)]
    lead.pick(0, 0)
    lead.pick(1, 0)
    first.shout()
    first.guess(1)
    lead.pick(2, 0)
    hub.away(table, second.seat, "went to the lobby")  # who comes and goes is passed over
    hub.reconnect(table, second.seat)
    lead.pick(3, 0)
    second.guess(2)
    hub.submit(table, rules.Guess(third.seat, 3), None, by_bot=True)  # a bot for third
    moves = [(line.text, line.by_bot) for line in table.log
             if line.kind in ("pick", "guess")]
    who = state.players[state.lead]
    assert moves == [(f"{who} marks {items[0]} · {items[1]}", False),
                     (f"{names[0]} hides a guess", False),
                     (f"{who} marks {items[2]} · {items[3]}", False),
                     (f"{names[1]} hides a guess", False),
                     (f"{names[2]} hides a guess", True)]
    texts = [line.text for line in table.log]
    back = texts.index(f"{names[1]} is back")
    assert texts.index(f"{who} marks {items[2]} · {items[3]}") > back  # moved below
    assert table.log[texts.index(moves[2][0])].parts == tuple(items[2:])


def test_guessers_hiding_one_after_another_are_named_in_one_line(
        plain_deck: SimpleNamespace) -> None:
    _hub, table, seats = started_table_of_four(plain_deck)
    state = table.state
    assert state is not None
    for column in range(4):
        seats[state.lead].pick(column, 1)
    for card, guesser in enumerate(state.guessers, 1):
        seats[guesser].guess(card)
    a, b, c = (state.players[g] for g in state.guessers)
    texts = [line.text for line in table.log]
    assert f"{a}, {b} and {c} hide their guesses" in texts
    assert texts[-1].startswith("All guesses are hidden")
