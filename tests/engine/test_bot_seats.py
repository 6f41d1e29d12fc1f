"""Bot seats at a live table: the host picks each bot's level, and bots keep a human pace."""

from __future__ import annotations

import asyncio

import pytest

from engine import rules
from engine.cards import load_deck
from engine.hub import Hub
from engine.identity import Player
from engine.rules import IllegalAction, Phase
from engine.session import Session
from engine.tables import TableOptions

NO_TIMER = TableOptions(turn_seconds=0)


def host_with_bots(hub: Hub, *levels: str) -> Session:
    host = hub.attach(Player("key:host", "Host"))
    host.create_table(NO_TIMER)
    for level in levels:
        host.add_bot(level)
    return host


def test_the_host_seats_bots_at_a_level_and_normal_is_the_default() -> None:
    host = host_with_bots(Hub(deck=load_deck(), seed="lv", bot_delay=0.0), "sharp")
    host.add_bot()
    view = host.view()
    assert view is not None
    assert [(s.is_bot, s.level) for s in view.seats[1:]] == [(True, "sharp"), (True, "normal")]
    assert "a sharp bot" in " ".join(line.text for line in view.log)


def test_the_host_changes_a_bots_level_between_games() -> None:
    host = host_with_bots(Hub(deck=load_deck(), seed="lv", bot_delay=0.0), "normal")
    host.set_bot_level(1, "easy")
    view = host.view()
    assert view is not None and view.seats[1].level == "easy"


@pytest.mark.parametrize(("change", "message"), [
    (lambda host: host.add_bot("godlike"), "bots play easy, normal, sharp, not 'godlike'"),
    (lambda host: host.set_bot_level(1, "godlike"), "not 'godlike'"),
    (lambda host: host.set_bot_level(0, "easy"), "that seat is not a bot"),
])
def test_a_wrong_level_or_seat_is_refused_with_a_message_and_changes_nothing(
        change: object, message: str) -> None:
    host = host_with_bots(Hub(deck=load_deck(), seed="lv", bot_delay=0.0), "normal")
    before = host.view()
    with pytest.raises(IllegalAction, match=message):
        change(host)  # type: ignore[operator]
    after = host.view()
    assert after is not None and before is not None and after.seats == before.seats


def test_a_bots_level_comes_back_after_a_restart(tmp_path: object) -> None:
    from pathlib import Path

    hub = Hub.open(Path(str(tmp_path)), deck=load_deck(), seed="lv", bot_delay=0.0)
    host = host_with_bots(hub, "sharp", "easy")
    code = host.view().code  # type: ignore[union-attr]
    hub.close()
    again = Hub.open(Path(str(tmp_path)), deck=load_deck(), seed="lv", bot_delay=0.0)
    assert [s.level for s in again.tables[code].seats[1:]] == ["sharp", "easy"]
    again.close()


async def test_at_human_pace_a_bot_lead_takes_its_time_over_the_first_item() -> None:
    hub = Hub(deck=load_deck(), seed="pace", settle_ms=0)  # the server's default: human pace
    host = host_with_bots(hub, "normal", "normal")
    host.start()
    table = hub.tables[host.view().code]  # type: ignore[union-attr]
    assert table.state is not None
    if table.state.lead == 0:  # the human leads: put an item down for the bots to read
        host.play(rules.Pick(0, 0, 0))
    await asyncio.sleep(0.3)
    state = table.state
    assert state.phase is Phase.PICKING and len(state.picks) <= 1  # nobody moved yet
    assert table.bot_tick is not None  # but a bot is thinking
    hub.close()


class QuickThinker:
    """The real bot, thinking for a hundredth of a second: the paced path, made fast."""

    def __init__(self, seed: str) -> None:
        from engine.bots import Bot

        self.bot = Bot(load_deck(), seed)

    def act(self, view: rules.View, now_ms: int = 0) -> rules.Action | None:
        return self.bot.act(view, now_ms)

    def think_seconds(self, view: rules.View, action: rules.Action) -> float:
        return 0.01


async def test_paced_bots_play_a_round_through_with_a_person() -> None:
    hub = Hub(deck=load_deck(), seed="pace", settle_ms=0, bot_factory=QuickThinker)
    host = host_with_bots(hub, "normal", "normal", "normal")
    host.start()
    table = hub.tables[host.view().code]  # type: ignore[union-attr]
    me = QuickThinker("me")
    for _ in range(1000):
        state = table.state
        assert state is not None
        if state.history:
            break
        if 0 in state.waiting_for() and state.phase is not Phase.ROUND_OVER:
            action = me.act(rules.view_for(state, 0))
            assert action is not None
            host.play(action)
        await asyncio.sleep(0.005)
    assert table.state is not None and table.state.history
    assert not any(line.by_bot for line in table.log)  # the bots' own moves: no "(bot)"
    hub.close()


def test_only_a_move_a_bot_made_for_a_person_is_marked_bot_in_the_log() -> None:
    """"Bot Ada hides a guess", never "Bot Ada hides a guess (bot)"; when time ran out for
    the host, "Host hides a guess (bot)"."""
    from engine.bots import Bot

    hub = Hub(deck=load_deck(), seed="mark", settle_ms=0)
    host = host_with_bots(hub, "normal", "normal")
    host.start()
    table = hub.tables[host.view().code]  # type: ignore[union-attr]
    bots = {seat: Bot(hub.deck, f"b{seat}") for seat in range(3)}
    while (state := table.state) is not None and not state.history:
        seat = state.waiting_for()[0]
        action = bots[seat].act(rules.view_for(state, seat), 0)
        assert action is not None
        hub.submit(table, action, None, by_bot=True)  # every seat's move made by a bot
    moves = [line for line in table.log if line.kind in ("pick", "guess", "reveal")]
    mine = [line for line in moves if line.text.startswith("Host ")]
    theirs = [line for line in moves if line.text.startswith("Bot ")]
    assert mine and theirs
    assert all(line.by_bot for line in mine)
    assert not any(line.by_bot for line in theirs)
