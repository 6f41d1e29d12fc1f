"""Tables as the hub keeps them, and what a session may see of them.

A :class:`Table` is the hub's own record of one table: seats, options, the game state and
the timers. Sessions never hold one: they get a :class:`TableView` (their seat's view of the
game, secrets removed) or, in the lobby, a :class:`TableSummary`.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from engine import rules
from engine.errors import BrokenRule
from engine.identity import Player
from engine.rules import Action, State, View

MAX_SEATS = 8
LOG_LINES = 200
CHAT_LINES = 100
PRESENCE = "presence"  # the log's kind for who comes and goes (not journaled)


@dataclass(frozen=True)
class TableOptions:
    """What the host may set. ``rounds``: None = by player count, 0 = endless."""

    rounds: int | None = None
    best_plan: bool = False
    stop_tie_window_ms: int = 0
    turn_seconds: int = 90  # 0: no turn timer
    bots_fill: bool = False  # fill empty seats with bots up to three players at start
    max_seats: int = 5

    def rules_options(self) -> rules.Options:
        return rules.Options(rounds=self.rounds, best_plan=self.best_plan,
                             stop_tie_window_ms=self.stop_tie_window_ms)

    def checked(self) -> TableOptions:
        if self.rounds is not None and not 0 <= self.rounds <= 99:
            raise BrokenRule("rounds must be between 1 and 99, or endless")
        if not 0 <= self.stop_tie_window_ms <= 2000:
            raise BrokenRule("the stop tie window is 0 to 2000 ms")
        if not (self.turn_seconds == 0 or 15 <= self.turn_seconds <= 600):
            raise BrokenRule("a turn timer is off (0) or 15 to 600 seconds")
        if not rules.MIN_PLAYERS <= self.max_seats <= MAX_SEATS:
            raise BrokenRule(f"a table seats {rules.MIN_PLAYERS} to {MAX_SEATS}")
        return self


@dataclass
class Seat:
    player_id: str  # "bot:<n>" for a bot
    name: str
    seat_code: str  # lets a keyless guest reclaim the seat
    connected: bool = True
    away_since: float | None = None
    botted: bool = False  # a bot plays for an absent human
    level: str = "normal"  # a bot seat's level (engine.bots.LEVELS), chosen by the host
    draft: tuple[tuple[int, int], str] | None = None
    """A plan half-written for (game, round): kept for the seat across a dropped
    connection, in memory only (never journaled: it is not a move)."""

    @property
    def is_bot(self) -> bool:
        return self.player_id.startswith("bot:")

    @property
    def bot_plays(self) -> bool:
        return self.is_bot or self.botted


@dataclass(frozen=True)
class LogLine:
    text: str
    kind: str = "info"
    by_bot: bool = False
    parts: tuple[str, ...] = ()
    """A line of folded moves (:func:`engine.rules.moves_text`): what each move added."""


@dataclass(frozen=True)
class ChatLine:
    name: str
    text: str


@dataclass(frozen=True)
class SeatInfo:
    name: str
    is_bot: bool
    connected: bool
    botted: bool
    is_host: bool
    level: str = "normal"  # a bot seat's level


@dataclass(frozen=True)
class TableView:
    """Everything one session may see of its table."""

    code: str
    status: str  # "lobby" | "playing" | "finished"
    options: TableOptions
    seats: tuple[SeatInfo, ...]
    my_seat: int | None  # None: spectator
    is_host: bool
    spectators: int
    game: View | None
    log: tuple[LogLine, ...]
    chat: tuple[ChatLine, ...]
    deadline_ms: float | None  # when the current turn timer runs out (hub clock)
    seat_code: str | None  # shown to a keyless guest so they can come back
    version: int
    ready: tuple[int, ...] = ()  # round over: seats that pressed Enter for the next round
    waiting_ready: tuple[int, ...] = ()  # ...and the connected people the table waits for
    game_no: int = 0  # the table's game number (its games so far, this one included)


@dataclass(frozen=True)
class TableSummary:
    code: str
    host: str
    status: str
    seated: int
    max_seats: int
    names: tuple[str, ...]


@dataclass(frozen=True)
class PlayerHistory:
    """What the lobby shows of past games (types from :mod:`engine.records`)."""

    hall_of_fame: tuple[Any, ...]  # PlayerRecord, best first
    mine: Any | None  # PlayerRecord of this player, None before their first game
    recent: tuple[Any, ...]  # GameSummary, newest first


class Occupant(Protocol):
    """What a table knows of someone at it: a seated player or a spectator
    (:class:`engine.session.Session` is one)."""

    player: Player
    table: Table | None
    on_change: Callable[[], None]  # their view changed: ask for it again
    on_notice: Callable[[str], None]  # a line for them alone

    @property
    def seat(self) -> int | None: ...

    def leave(self) -> None: ...


@dataclass
class Table:
    code: str
    seed: str
    options: TableOptions
    host_id: str | None = None
    seats: list[Seat] = field(default_factory=list)
    state: State | None = None
    played_by: tuple[str, ...] = ()
    """Who held each seat of the game in ``state`` (a finished game's seats may have been
    left and taken since: its results say "you" only to those who played it)."""
    status: str = "lobby"  # "playing", "finished"; "closed" once served no more
    games: int = 0
    seq: int = 0
    version: int = 0
    log: deque[LogLine] = field(default_factory=lambda: deque(maxlen=LOG_LINES))
    chat: deque[ChatLine] = field(default_factory=lambda: deque(maxlen=CHAT_LINES))
    sessions: set[Occupant] = field(default_factory=set)
    deadline_ms: float | None = None
    timer: asyncio.TimerHandle | None = None
    bot_tick: asyncio.TimerHandle | None = None
    # the Stop! settle window, while open: the moves held (arrival stamp, order, who, move)
    settle: list[tuple[float, int, Occupant | None, Action]] | None = None
    settle_timer: asyncio.TimerHandle | None = None
    bots: dict[int, Any] = field(default_factory=dict)
    # at human pace: per bot seat, the moment of the game it is thinking about and when
    # (hub clock, ms) it will move
    bot_plans: dict[int, tuple[tuple[Any, ...], float]] = field(default_factory=dict)
    timer_key: tuple[Any, ...] | None = None
    # round over: the seats whose player pressed Enter; the next round starts when every
    # connected person has (or the round-over timer runs out)
    ready: set[int] = field(default_factory=set)
    # the people the host removed from a game here: they may not come back to this table
    removed: set[str] = field(default_factory=set)
    # the addresses they were connected from: a new guest from one may not come in either
    removed_from: set[str] = field(default_factory=set)

    def people_here(self) -> bool:
        """Whether a person sits here and is connected (a spectator is no player: a
        table of bots that only spectators look at waits, and in time ends)."""
        return any(not s.is_bot and s.connected for s in self.seats)

    def waiting_ready(self) -> tuple[int, ...]:
        """The connected people who have not said they are ready for the next round."""
        return tuple(i for i, s in enumerate(self.seats)
                     if not s.bot_plays and s.connected and i not in self.ready)

    def __hash__(self) -> int:
        return hash(self.code)

    def seat_of(self, player_id: str) -> int | None:
        for i, seat in enumerate(self.seats):
            if seat.player_id == player_id:
                return i
        return None

    def name_of(self, player_id: str) -> str:
        seat = self.seat_of(player_id)
        return "-" if seat is None else self.seats[seat].name

    def game_seat(self, player: str, seat: int | None) -> int | None:
        """``player``'s seat in the table's game: their table seat while it plays; once it
        is over, the seat they played it in (the table's seats move up when someone
        leaves, and a player who left and sat down again is at the end), or None if they
        did not play it."""
        if seat is None or self.status != "finished":
            return seat
        return self.played_by.index(player) if player in self.played_by else None

    def note(self, text: str, kind: str = "info", by_bot: bool = False) -> None:
        """A line in the table's log."""
        self.log.append(LogLine(text, kind, by_bot))

    def note_move(self, event: rules.Event, by_bot: bool) -> None:
        """A pick or a hidden guess joins the line of the moves of its kind before it ("Bob
        marks Fork · Rope"): the board shows each move as it is made, and a line per move
        scrolled the plans out of a small log, and scrolled every seat's log (a quarter of
        the cost of drawing a pick). A bot's move for an absent player keeps a line of its
        own, marked "(bot)". Picks in one line are always one lead's: a new round logs a
        line first.

        Lines about who is here (:data:`PRESENCE`) are not journaled: the fold reaches past
        them and the folded line moves below them, so that a replay, which has none, logs
        the same."""
        log = self.log
        at = len(log) - 1
        while at >= 0 and log[at].kind == PRESENCE:
            at -= 1
        last = log[at] if at >= 0 else None
        if last is not None and last.kind == event.kind and last.parts \
                and last.by_bot == by_bot:
            parts = (*last.parts, event.part)
            who = "" if event.seat is None or self.state is None \
                else self.state.players[event.seat]
            del log[at]
            log.append(LogLine(rules.moves_text(event.kind, who, parts), event.kind,
                               by_bot, parts))
        else:
            log.append(LogLine(event.text, event.kind, by_bot, (event.part,)))

    def view_for(self, player_id: str) -> TableView:
        """Everything ``player_id`` may see of this table (their seat's view of the game;
        a spectator's when they have no seat)."""
        seat = self.seat_of(player_id)
        game = None if self.state is None else rules.view_for(
            self.state, self.game_seat(player_id, seat))
        return TableView(
            code=self.code,
            status=self.status,
            options=self.options,
            seats=tuple(SeatInfo(s.name, s.is_bot, s.connected or s.is_bot, s.botted,
                                 s.player_id == self.host_id, s.level) for s in self.seats),
            my_seat=seat,
            is_host=self.host_id == player_id,
            spectators=sum(1 for s in self.sessions if s.seat is None),
            game=game,
            log=tuple(self.log),
            chat=tuple(self.chat),
            deadline_ms=self.deadline_ms,
            seat_code=self.seats[seat].seat_code if seat is not None else None,
            version=self.version,
            ready=tuple(sorted(self.ready)),
            waiting_ready=self.waiting_ready(),
            game_no=self.games,
        )

    def summary(self) -> TableSummary:
        host = next((s.name for s in self.seats if s.player_id == self.host_id), "-")
        return TableSummary(self.code, host, self.status, len(self.seats),
                            self.options.max_seats, tuple(s.name for s in self.seats))


def unique_name(table: Table, name: str, skip: int | None = None) -> str:
    taken = {s.name for i, s in enumerate(table.seats) if i != skip}
    if name not in taken:
        return name
    n = 2
    while f"{name[:13]}-{n}" in taken:
        n += 1
    return f"{name[:13]}-{n}"
