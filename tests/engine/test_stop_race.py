"""The Stop! race is decided by when each key's bytes reached the server (its arrival
stamp), however late a busy app hands the shout to the hub (docs/architecture.md, "The
Stop! race"). Each test delivers a shout to the hub as a busy app would: stamped at t0,
handed on hundreds of milliseconds later."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

import pytest

from engine.clock import now_ms
from engine.errors import IllegalAction
from engine.session import Session
from engine.tables import Table, TableOptions
from tests.engine.test_hub import by_seat, make_hub, seat_table

LATE_S = 0.3  # how late the busy app hands its shout to the hub


def race(plain_deck: SimpleNamespace, tie_window_ms: int = 0
         ) -> tuple[Table, Session, Session, dict[Session, list[str]]]:
    """A started table of four on the server's settle window (150 ms), its first two
    guessers (one busy, one quick) and what each session was told."""
    hub = make_hub(plain_deck, settle_ms=150)
    sessions = seat_table(hub, 4, TableOptions(turn_seconds=0,
                                               stop_tie_window_ms=tie_window_ms))
    sessions[0].start()
    table = sessions[0].table
    assert table is not None and table.state is not None
    busy, quick, _ = (by_seat(sessions)[s] for s in table.state.guessers)
    told: dict[Session, list[str]] = {s: [] for s in sessions}
    for s in sessions:
        s.on_notice = told[s].append
    return table, busy, quick, told


async def until(t0: float, seconds: float) -> None:
    await asyncio.sleep(max(0.0, t0 / 1000 + seconds - now_ms() / 1000))


def name(table: Table, session: Session) -> str:
    assert table.state is not None and session.seat is not None
    return table.state.players[session.seat]


async def test_a_shout_stamped_first_but_delivered_300_ms_late_wins(
        plain_deck: SimpleNamespace) -> None:
    table, busy, quick, told = race(plain_deck)
    t0 = now_ms()
    quick.shout(at_ms=t0 + 40)  # its bytes came 40 ms later; its app was quick
    await until(t0, LATE_S)
    busy.shout(at_ms=t0)  # its app was busy: the hub hears of it 300 ms late
    await asyncio.sleep(0.05)
    assert table.state is not None and table.state.stop == (busy.seat,)
    assert told[quick] == [f"{name(table, busy)} shouted Stop! first"]
    assert told[busy] == []


async def test_two_shouts_within_the_tie_window_share_the_token_whoever_came_late(
        plain_deck: SimpleNamespace) -> None:
    table, busy, quick, told = race(plain_deck, tie_window_ms=50)
    t0 = now_ms()
    quick.shout(at_ms=t0 + 30)
    await until(t0, LATE_S)
    busy.shout(at_ms=t0)
    await asyncio.sleep(0.05)
    assert table.state is not None and table.state.stop == (busy.seat, quick.seat)
    assert told[quick] == told[busy] == []


async def test_a_shout_stamped_after_the_tie_window_closes_is_refused_naming_who_was_first(
        plain_deck: SimpleNamespace) -> None:
    table, busy, quick, told = race(plain_deck, tie_window_ms=50)
    t0 = now_ms()
    quick.shout(at_ms=t0 + 60)  # 60 ms after the busy one: outside its 50 ms window
    await until(t0, LATE_S)
    busy.shout(at_ms=t0)
    await asyncio.sleep(0.05)
    assert table.state is not None and table.state.stop == (busy.seat,)
    first = f"{name(table, busy)} shouted Stop! first"
    assert told[quick] == [first]
    third = next(s for s in table.sessions
                 if s.seat in table.state.guessers and s not in (busy, quick))
    with pytest.raises(IllegalAction, match=f"^{first}$"):
        third.shout(at_ms=t0 + 70)


async def test_the_settle_window_closes_150_ms_after_the_shouts_stamp_not_its_delivery(
        plain_deck: SimpleNamespace) -> None:
    table, busy, _quick, _told = race(plain_deck)
    t0 = now_ms()
    busy.shout(at_ms=t0 - 120)  # 120 ms late already: 30 ms of the window are left
    await asyncio.sleep(0.09)
    assert table.state is not None and table.state.stop == (busy.seat,)
