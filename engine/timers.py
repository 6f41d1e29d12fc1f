"""Everything at a table that happens because time passed: the Stop! settle window, the
grace before a bot takes an absent player's seat, the sweep of abandoned tables, turn timers
and the bots' pace.

:class:`Timers` decides *when*; what happens then goes back through the hub's own door
(:class:`TimedHost`: a move is submitted, a table has changed), so a timer's move is
journaled and told like any player's. Every timer runs on the hub's loop in a context of
its own (:func:`later`), and none is set without a running loop (a hub built in a plain
test, or replaying, sets none).
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
from collections.abc import Callable, Iterable
from typing import Any, Protocol

from engine import rules
from engine.clock import now_ms
from engine.commands import Command, Move
from engine.errors import IllegalAction
from engine.rules import Action, Phase
from engine.tables import PRESENCE, Occupant, Seat, Table

log = logging.getLogger(__name__)

ROUND_OVER_SECONDS = 30  # the round's points stay up this long at most
SWEEP_SECONDS = 60  # how often abandoned games are looked for
DEFAULT_THINK_SECONDS = 1.2  # at human pace, for a bot that cannot say how long it thinks


class TimedHost(Protocol):
    """What the timers need of the hub."""

    def submit(self, table: Table, action: Action, session: Occupant | None = None,
               at_ms: float | None = None, by_bot: bool = False) -> None: ...

    def command(self, table: Table, command: Command) -> None: ...

    def changed(self, table: Table) -> None: ...

    def expire_abandoned(self, now: float | None = None) -> list[str]: ...


class BotFactory(Protocol):
    def __call__(self, seed: str) -> Any: ...  # an object with act(view, now_ms) -> Action


class Timers:
    """The hub's timers. ``settle_ms`` is the Stop! settle window; ``bot_delay`` None (the
    server) lets bots move at human pace, each move after the time the bot says a person
    would think; a number of seconds makes them move one at a time that far apart (tests:
    0 for at once)."""

    def __init__(self, host: TimedHost, *, deck: Any, bot_factory: BotFactory | None,
                 settle_ms: float, bot_delay: float | None, grace_seconds: float) -> None:
        self.host = host
        self.deck = deck
        self.bot_factory = bot_factory
        self.settle_ms = settle_ms
        self.bot_delay = bot_delay
        self.grace_seconds = grace_seconds
        self._sweep_timer: asyncio.TimerHandle | None = None

    # -- the Stop! settle window -------------------------------------------------------------

    def hold(self, table: Table, action: Action, session: Occupant | None, at: float) -> bool:
        """Whether ``action`` (its key's arrival stamp ``at``, hub clock) waits for the
        settle window: a shout opens one, every move arriving while it is open waits with
        it, and when it closes they are applied in the order of their stamps. The window
        closes ``settle_ms`` after the earliest held shout's stamp (not after the hub heard
        of it), at once if that moment has passed: see "The Stop! race" in
        docs/architecture.md."""
        shout = isinstance(action, rules.Shout)
        if table.settle is None:
            if not (shout and self.settle_ms > 0 and table.state is not None
                    and table.state.phase is Phase.PICKING):
                return False
            rules.apply(table.state, action)  # refuse at once what can never succeed
            table.settle = []
            self._settle_at(table, at)
        elif shout and at < min(h[0] for h in table.settle if isinstance(h[3], rules.Shout)):
            self._settle_at(table, at)  # an earlier stamp: the window closes sooner
        table.settle.append((at, len(table.settle), session, action))
        return True

    def _settle_at(self, table: Table, anchor: float) -> None:
        _cancel(table.settle_timer)
        delay = max(0.0, (anchor + self.settle_ms - now_ms()) / 1000)
        table.settle_timer = later(loop(), delay, self._settle, table)

    def _settle(self, table: Table) -> None:
        held, table.settle, table.settle_timer = table.settle or [], None, None
        for _at, _n, session, action in sorted(held, key=lambda h: (h[0], h[1])):
            try:
                self.host.command(table, Move(action, session is None))
            except IllegalAction as refusal:
                if session is not None:
                    session.on_notice(str(refusal))

    # -- presence ------------------------------------------------------------------------

    def grace(self, table: Table, seat: Seat) -> None:
        """``seat``'s player went away: a bot takes over if they are not back in time."""
        running = loop_or_none()
        if running is not None:
            later(running, self.grace_seconds, self._grace_over, table, seat)

    def _grace_over(self, table: Table, seat: Seat) -> None:
        if seat in table.seats and not seat.connected and table.status == "playing":
            seat.botted = True
            table.note(f"a bot plays for {seat.name} until they return", PRESENCE)
            self.host.changed(table)

    def sweep(self) -> None:
        """Look for abandoned games now and every :data:`SWEEP_SECONDS`."""
        self.host.expire_abandoned()
        self._sweep_timer = later(loop(), SWEEP_SECONDS, self.sweep)

    # -- turn timers and bots --------------------------------------------------------------

    def schedule(self, table: Table) -> None:
        """After a change at ``table``: arm its turn timer and its bots' next move."""
        running = loop_or_none()
        if (running is None or table.status != "playing" or table.state is None
                or not table.sessions or not table.people_here()):
            # no person plays here now: the table waits for them (spectators watch it
            # wait; bots never play for them alone); whoever comes back gets the turn's
            # whole time (a turn stopped but still marked armed had no clock at all)
            stop(table)
            table.deadline_ms, table.timer_key = None, None
            return
        if any(s.bot_plays for s in table.seats):
            if self.bot_delay is None:
                self._plan_bots(table, running)
            elif table.bot_tick is None:
                table.bot_tick = later(running, self.bot_delay, self._bots_act, table)
        if not table.options.turn_seconds:
            return
        state = table.state
        # One clock per turn: a new phase, pick or player to wait for starts it again; a
        # player who moves while others still think (hiding a guess) leaves it running,
        # or the last guesser would get a fresh 90 s each time another one hid theirs.
        turn = (state.round, state.phase, len(state.picks))
        waiting = frozenset(state.waiting_for())
        armed = table.timer_key
        if armed is None or armed[0] != turn or not waiting <= armed[1]:
            _cancel(table.timer)
            table.timer_key = (turn, waiting)
            seconds = table.options.turn_seconds
            if state.phase is Phase.ROUND_OVER:
                seconds = min(seconds, ROUND_OVER_SECONDS)
            table.deadline_ms = now_ms() + seconds * 1000
            table.timer = later(running, seconds, self.timeout, table)

    def _bot_for(self, table: Table, seat: int) -> Any:
        bot = table.bots.get(seat)
        if bot is None:
            seed = f"{table.seed}/{table.games}/bot{seat}"
            if self.bot_factory is not None:
                bot = self.bot_factory(seed)
            else:
                from engine.bots import Bot

                bot = Bot(self.deck, seed, table.seats[seat].level)
            table.bots[seat] = bot
        return bot

    def _plan_bots(self, table: Table, running: asyncio.AbstractEventLoop) -> None:
        """Human pace: each bot seat with a move now decides when it will make it (as long
        as a person would think, from the moment the game last changed for it), and the
        bot tick is set for the first of them."""
        moment, now = _moment(table), now_ms()
        for seat, s in enumerate(table.seats):
            plan = table.bot_plans.get(seat)
            if not s.bot_plays or (plan is not None and plan[0] == moment):
                continue
            assert table.state is not None
            view = rules.view_for(table.state, seat)
            bot = self._bot_for(table, seat)
            action = bot.act(view, int(now))
            if action is None:
                table.bot_plans.pop(seat, None)
                continue
            think = getattr(bot, "think_seconds", None)
            seconds = think(view, action) if think is not None else DEFAULT_THINK_SECONDS
            table.bot_plans[seat] = (moment, now + seconds * 1000)
        due = [at for key, at in table.bot_plans.values() if key == moment]
        _cancel(table.bot_tick)
        table.bot_tick = None
        if due:
            table.bot_tick = later(running, max(0.0, (min(due) - now) / 1000),
                                   self._bots_act, table)

    def _bot_move(self, table: Table, seat: int) -> Action | None:
        assert table.state is not None
        action: Action | None = self._bot_for(table, seat).act(
            rules.view_for(table.state, seat), int(now_ms()))
        return action

    def _bots_act(self, table: Table) -> None:
        """One bot move per tick, so humans can follow what the bots do."""
        table.bot_tick = None
        state = table.state
        if table.status != "playing" or state is None or table.settle is not None:
            return
        humans_here = any(not s.bot_plays for s in table.seats)
        seats: Iterable[int] = range(len(table.seats))
        if self.bot_delay is None:  # human pace: only the bots whose think time is up
            moment, now = _moment(table), now_ms() + 1
            ready = [(at, seat) for seat, (key, at) in table.bot_plans.items()
                     if key == moment and at <= now]
            seats = [seat for _, seat in sorted(ready)]
            if not ready:
                self.schedule(table)
                return
        for seat in seats:
            s = table.seats[seat]
            if not s.bot_plays:
                continue
            if state.phase is Phase.ROUND_OVER and humans_here:
                return  # the humans read the round's points and move on (or the timer does)
            action = self._bot_move(table, seat)
            if action is None:
                continue
            try:
                self.host.submit(table, action, None, by_bot=True)
            except IllegalAction as error:
                log.warning("bot at %s seat %d refused: %s", table.code, seat, error)
                continue
            return
        for seat in seats:  # nothing to do after all: think again when the game moves
            table.bot_plans.pop(seat, None)

    def timeout(self, table: Table) -> None:
        """A turn timer ran out: a bot moves for every seat the table is waiting for."""
        table.timer, table.timer_key = None, None
        if table.state is None or table.status != "playing":
            return
        for seat in table.state.waiting_for():
            if table.state is None or seat not in table.state.waiting_for():
                continue
            action = self._bot_move(table, seat)
            if action is None:
                continue
            if not isinstance(action, rules.NextRound):
                table.note(f"time is up for {table.seats[seat].name}: "
                           "a bot moves for them", "timer")
            try:
                self.host.submit(table, action, None, by_bot=True)
            except IllegalAction as error:
                log.warning("timeout move refused at %s: %s", table.code, error)
            if isinstance(action, rules.NextRound):
                break
        self.schedule(table)

    def close(self, tables: Iterable[Table]) -> None:
        if self._sweep_timer is not None:
            self._sweep_timer.cancel()
        for table in tables:
            stop(table)


def abandoned(tables: Iterable[Table], now: float, seconds: float) -> list[Table]:
    """The games at ``tables`` no person has played at for ``seconds`` (everyone left or
    lost connection; bots do not play on alone, spectators or not)."""
    found = []
    for table in tables:
        if table.status != "playing" or table.people_here():
            continue
        people = [s for s in table.seats if not s.is_bot]
        last_seen = max((s.away_since or 0 for s in people), default=0)
        if now - last_seen >= seconds * 1000:
            log.info("table %s ended: no person has played there for %.0f min",
                     table.code, (now - last_seen) / 60_000)
            found.append(table)
    return found


def stop(table: Table) -> None:
    """``table``'s turn timer and bot tick are cancelled."""
    _cancel(table.timer)
    _cancel(table.bot_tick)
    table.timer = table.bot_tick = None


def _cancel(handle: asyncio.TimerHandle | None) -> None:
    if handle is not None:
        handle.cancel()


def _moment(table: Table) -> tuple[Any, ...]:
    """What a bot's next move depends on: when it changes, the bot thinks again."""
    state = table.state
    assert state is not None
    return (table.games, state.round, state.phase, len(state.picks), state.stop,
            tuple(g is not None for g in state.guesses), len(state.revealed))


def later(running: asyncio.AbstractEventLoop, delay: float, callback: Callable[..., None],
          *args: Any) -> asyncio.TimerHandle:
    """``loop.call_later`` in a context of its own: a timer set while one player's app
    handles a key must neither run as that app nor keep it alive after the player left."""
    return running.call_later(delay, callback, *args, context=contextvars.Context())


def loop() -> asyncio.AbstractEventLoop:
    return asyncio.get_running_loop()


def loop_or_none() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None
