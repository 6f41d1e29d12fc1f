"""Who is at a table, and what that changes: players hear who watches; a table where no
person plays any more ends; a name and a half-written plan outlast a dropped connection."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

from engine import rules
from engine.hub import Hub
from engine.identity import Player
from engine.journal import open_journal
from engine.session import Session
from engine.tables import Table, TableOptions
from tests.engine.test_hub import (
    NO_TIMER,
    FirstRowBot,
    guest_in_a_game,
    make_hub,
    seat_table,
    started_table_of_four,
)
from tests.waiting import until


def test_players_hear_when_someone_starts_watching_and_see_how_many_watch(
        plain_deck: SimpleNamespace) -> None:
    hub = make_hub(plain_deck)
    sessions = seat_table(hub, 3)
    sessions[0].start()
    code = sessions[0].view().code
    dee = hub.attach(Player("key:dee", "Dee"))
    dee.join(code)
    dee.leave()
    dee.join(code)  # back again: one line, not two
    hub.attach(Player("key:eve", "Eve")).join(code, spectate=True)

    view = sessions[1].view()
    lines = [line.text for line in view.log]
    assert lines.count("Dee is watching") == 1 and "Eve is watching" in lines
    assert view.spectators == 2  # the game screen's status row says it (tests/tui)


def bots_and_one_person(plain_deck: SimpleNamespace, **kw: object
                        ) -> tuple[Hub, Session, Table]:
    """A game of one person (the host) and two bots, begun."""
    hub = make_hub(plain_deck, abandoned_seconds=300, **kw)
    host = hub.attach(Player("key:host", "Host"))
    host.create_table(NO_TIMER)
    host.add_bot()
    host.add_bot()
    host.start()
    table = host.table
    assert table is not None and table.status == "playing"
    return hub, host, table


def test_a_game_its_only_person_left_ends_after_the_grace_watched_or_not(
        plain_deck: SimpleNamespace, tmp_path: Path) -> None:
    hub, host, table = bots_and_one_person(plain_deck, journal=open_journal(tmp_path))
    code = table.code
    notes: list[str] = []
    watcher = hub.attach(Player("key:w", "Wes"), on_notice=notes.append)
    watcher.join(code)  # watching: no player
    host.leave()  # back to the lobby: their seat is kept, and nobody plays here
    left = table.seats[0].away_since
    assert left is not None

    assert hub.expire_abandoned(now=left + 299_000) == []  # a fake clock: 4:59 later
    assert hub.expire_abandoned(now=left + 300_000) == [code]

    assert code not in hub.tables and host.resume() is None
    assert watcher.table is None and notes[-1] == f"table {code} ended: its players left"
    hub.close()
    again = Hub(deck=plain_deck, journal=open_journal(tmp_path))
    again.replay(again.journal.records())  # type: ignore[union-attr]
    assert code not in again.tables  # the end was journaled: it stays ended
    again.close()


def test_a_person_back_in_time_keeps_the_game(plain_deck: SimpleNamespace) -> None:
    hub, host, table = bots_and_one_person(plain_deck)
    host.leave()
    left = table.seats[0].away_since
    assert left is not None
    host.join(table.code)
    assert hub.expire_abandoned(now=left + 3_600_000) == []


async def test_a_spectator_does_not_wake_the_bots_of_a_table_nobody_plays_at(
        plain_deck: SimpleNamespace) -> None:
    hub, host, table = bots_and_one_person(plain_deck, grace_seconds=0.02)
    await asyncio.sleep(0.05)  # with its person here, the bots play
    host.leave()
    await until(lambda: table.seats[0].botted, "the grace to pass")  # a bot plays it
    moves = table.seq
    watcher = hub.attach(Player("key:w", "Wes"))
    watcher.join(table.code)
    await asyncio.sleep(0.2)
    assert table.seq == moves  # nothing moved while only a spectator looked
    assert table.bot_tick is None and table.timer is None
    host.join(table.code)  # the person is back: the game goes on
    me = FirstRowBot("me")
    for _ in range(20):
        state = table.state
        assert state is not None
        if 0 in state.waiting_for():  # the host's own move first, if the table waits for it
            action = me.act(rules.view_for(state, 0))
            if action is not None:
                host.play(action)
        await asyncio.sleep(0.02)
    assert table.seq > moves + 2  # and the bots' after it
    hub.close()


def test_a_name_chosen_in_the_lobby_outlasts_a_reconnect(plain_deck: SimpleNamespace) -> None:
    hub = make_hub(plain_deck)
    alice = hub.attach(Player("key:alice", "alice"))
    alice.rename("Alice")
    alice.detach()
    again = hub.attach(Player("key:alice", "alice"))  # the SSH user name again
    assert again.player.name == "Alice"
    assert hub.attach(Player("key:bob", "bob")).player.name == "bob"  # nobody else's


def test_after_a_restart_a_player_is_called_what_their_seat_is(
        plain_deck: SimpleNamespace, tmp_path: Path) -> None:
    hub = make_hub(plain_deck, journal=open_journal(tmp_path))
    sessions = seat_table(hub, 3)
    sessions[1].rename("Bea")
    hub.close()
    again = make_hub(plain_deck, journal=open_journal(tmp_path))
    again.replay(again.journal.records())  # type: ignore[union-attr]
    assert again.attach(Player("key:1", "P1")).player.name == "Bea"
    again.close()


def test_a_guest_back_in_their_seat_takes_its_name_again(plain_deck: SimpleNamespace) -> None:
    hub, _host, guest, code, seat_code = guest_in_a_game(plain_deck)
    guest.rename("Gus")
    guest.detach()
    back = hub.attach(Player("guest:new-token", "guest"))
    back.reclaim(code, seat_code)
    assert back.player.name == "Gus"


def test_a_half_written_plan_is_kept_for_the_seat_until_the_round_ends(
        plain_deck: SimpleNamespace) -> None:
    hub, table, seats = started_table_of_four(plain_deck)
    assert table.state is not None
    guesser = seats[table.state.guessers[0]]
    guesser.keep_draft("First the ladder, then")
    guesser.detach()
    back = hub.attach(Player(guesser.player.id, "again"))
    back.join(table.code)
    assert back.draft() == "First the ladder, then"
    assert hub.attach(Player("key:w", "W")).draft() == ""  # nobody else reads it
    table.state = replace(table.state, round=table.state.round + 1)  # the round is over
    assert back.draft() == ""


async def test_a_person_back_at_a_table_that_waited_for_them_has_a_turn_clock_again(
        plain_deck: SimpleNamespace) -> None:
    hub = make_hub(plain_deck)
    host = hub.attach(Player("key:host", "Host"))
    host.create_table(TableOptions(turn_seconds=60))
    host.add_bot()
    host.add_bot()
    host.start()
    table = host.table
    assert table is not None and table.deadline_ms is not None
    host.leave()
    assert table.deadline_ms is None and table.timer is None  # the table waits
    host.join(table.code)
    assert table.deadline_ms is not None and table.timer is not None
    hub.close()
