"""One connected person's handle on the hub, and what it needs of the hub
(:class:`SessionHost`: the hub is one, and a test may pass another)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import replace
from typing import Any, Protocol

from engine import rules
from engine.clock import now_ms
from engine.commands import (
    AddBot,
    BotLevel,
    Chat,
    Command,
    Join,
    Leave,
    Reclaim,
    Remove,
    Rename,
    SetOptions,
)
from engine.errors import BrokenRule, NotAllowed, TooFast
from engine.identity import ChosenNames, Player
from engine.rules import Action, Phase
from engine.tables import (
    PRESENCE,
    PlayerHistory,
    Table,
    TableOptions,
    TableSummary,
    TableView,
)
from engine.text import CHAT_MAX, PLAN_MAX, clean_name, clean_text

log = logging.getLogger(__name__)

CHAT_BURST = 5  # chat lines one person may send at once...
CHAT_INTERVAL_MS = 2000  # ...and then one per this long
RENAME_BURST = 3  # new names one person may take at once...
RENAME_INTERVAL_MS = 5000  # ...and then one per this long


class Budget:
    """``burst`` at once, then one per ``interval_ms``: what one person may send of a
    kind of thing every seat at their table is told of (chat lines, new names)."""

    def __init__(self, burst: int, interval_ms: float) -> None:
        self.burst, self.interval_ms = burst, interval_ms
        self._tokens, self._at = float(burst), now_ms()

    def spend(self) -> bool:
        """Take one, if there is one to take."""
        now = now_ms()
        self._tokens = min(self.burst, self._tokens + (now - self._at) / self.interval_ms)
        self._at = now
        if self._tokens < 1:
            return False
        self._tokens -= 1
        return True


class SessionHost(Protocol):
    """What a session needs of the hub (:class:`engine.hub.Hub`)."""

    tables: dict[str, Table]  # by code
    sessions: set[Session]  # every attached session
    names: ChosenNames  # the name each person chose last
    records: Any | None  # engine.records.Records, when games are kept

    def find(self, code: str) -> Table: ...

    def create_table(self, options: TableOptions, host: Player) -> Table: ...

    def new_seat_code(self) -> str: ...

    # a table changes only through these
    def command(self, table: Table, command: Command) -> None: ...

    def start(self, table: Table) -> None: ...

    def submit(self, table: Table, action: Action, session: Session | None = None,
               at_ms: float | None = None) -> None: ...

    # who is here
    def reconnect(self, table: Table, seat: int) -> None: ...

    def away(self, table: Table, seat: int, why: str) -> None: ...

    def changed(self, table: Table) -> None: ...

    def forget_if_empty(self, table: Table) -> None: ...


class Session:
    """One connected person's handle on the hub. All methods run on the hub's loop."""

    def __init__(self, hub: SessionHost, player: Player, on_change: Callable[[], None],
                 on_notice: Callable[[str], None]) -> None:
        self.hub = hub
        self.player = replace(player, name=self._kept_name(hub, player)
                              or clean_name(player.name) or "agent")
        self.on_change = on_change
        self.on_notice = on_notice
        self.table: Table | None = None
        self._chat_budget = Budget(CHAT_BURST, CHAT_INTERVAL_MS)
        self._rename_budget = Budget(RENAME_BURST, RENAME_INTERVAL_MS)

    @staticmethod
    def _kept_name(hub: SessionHost, player: Player) -> str | None:
        """The name this person chose before they reconnected: the one they chose last
        while the server ran, else (after a restart) the name of their seat at a table."""
        chosen = hub.names.get(player.id)
        if chosen is not None:
            return chosen
        return next((seat.name for table in hub.tables.values() for seat in table.seats
                     if seat.player_id == player.id), None)

    # -- what the session sees ------------------------------------------------------------

    def lobby(self) -> tuple[TableSummary, ...]:
        return tuple(t.summary() for t in self.hub.tables.values() if t.status != "closed")

    def history(self, limit: int = 8) -> PlayerHistory:
        """The hall of fame, this player's own record and the last games at this server
        (empty without a journal). A few small queries: ask when the lobby opens."""
        records = self.hub.records
        if records is None:
            return PlayerHistory((), None, ())
        return PlayerHistory(tuple(records.hall_of_fame(limit)),
                             records.player_record(self.player.id),
                             tuple(records.recent_games(limit)))

    def view(self) -> TableView | None:
        return None if self.table is None else self.table.view_for(self.player.id)

    @property
    def seat(self) -> int | None:
        return None if self.table is None else self.table.seat_of(self.player.id)

    # -- lobby and table commands ----------------------------------------------------------

    def rename(self, name: str) -> str:
        cleaned = clean_name(name)
        if not cleaned:
            raise BrokenRule("a name needs at least one visible character")
        if cleaned == self.player.name:
            return cleaned
        if not self._rename_budget.spend():  # each one is journaled and told to the table
            raise TooFast("slow down: wait a few seconds before taking another name")
        self.player = replace(self.player, name=cleaned)
        self.hub.names.chose(self.player.id, cleaned)
        if self.table is not None and self.seat is not None:
            self.hub.command(self.table, Rename(self.player.id, cleaned))
        return cleaned

    def create_table(self, options: TableOptions | None = None) -> str:
        self.leave()
        table = self.hub.create_table((options or TableOptions()).checked(), self.player)
        self._enter(table)
        self.hub.command(table, Join(self.player.id, self.player.name,
                                     self.hub.new_seat_code()))
        return table.code

    def join(self, code: str, *, spectate: bool = False) -> None:
        table = self.hub.find(code)
        if self.table is table and self.seat is not None:
            return
        if self.player.id in table.removed:
            raise NotAllowed(f"the host removed you from table {table.code}")
        if self._kept_out_of(table):
            raise NotAllowed(f"table {table.code}'s host removed a player from your "
                                "address: no new guest from there may join or watch")
        if self.table is not table:
            self.leave()
            self._enter(table)
        seat = table.seat_of(self.player.id)
        if seat is not None:
            self.hub.reconnect(table, seat)
            return
        if spectate or table.status == "playing" or len(table.seats) >= table.options.max_seats:
            self._note_watching(table)
            self.hub.changed(table)
            if not spectate:
                self.on_notice("the game has started or the table is full: you are watching")
            return
        self.hub.command(table, Join(self.player.id, self.player.name,
                                     self.hub.new_seat_code()))

    def _note_watching(self, table: Table) -> None:
        """The players hear that someone watches (once, if they come and go)."""
        line = f"{self.player.name} is watching"
        if not table.log or table.log[-1].text != line:
            table.note(line, PRESENCE)

    def _kept_out_of(self, table: Table) -> bool:
        """A keyless guest without a seat at ``table``, from an address a removed player
        came from: perhaps that player again, with a new guest's identity. (Friends behind
        one address who already sit there keep their seats: they hold a seat, or its code.)"""
        return (self.player.is_guest and self.player.address in table.removed_from
                and table.seat_of(self.player.id) is None)

    def resume(self) -> str | None:
        """Back to the game this player has a seat in, if one is running; its code. With
        seats in two running games (one left for the lobby, then a new one joined), the
        game they were at last: the seat they went away from most recently, or after a
        restart (everyone went away at once) the newer game."""
        if self.player.is_guest:
            return None  # a guest's id is new every time: they reclaim with a seat code
        seated = [(table, table.seats[seat]) for table in self.hub.tables.values()
                  if table.status == "playing"
                  and (seat := table.seat_of(self.player.id)) is not None]
        if not seated:
            return None
        # newest first: max keeps the first of equals
        table, _seat = max(reversed(seated), key=lambda pair: pair[1].away_since or 0.0)
        self.join(table.code)
        return table.code

    def would_only_watch(self, code: str) -> bool:
        """Whether joining table ``code`` now would make this player a spectator (a game
        runs there or it is full, and they have no seat there)."""
        table = self.hub.tables.get(code)
        return (table is not None and table.seat_of(self.player.id) is None
                and (table.status == "playing"
                     or len(table.seats) >= table.options.max_seats))

    def may_reclaim(self, code: str) -> bool:
        """Whether a keyless guest arriving at table ``code`` should be offered to take a
        seat back with its seat code (a game is running and a person's seat is empty),
        rather than only to watch."""
        table = self.hub.tables.get(code.strip().upper())
        return (self.player.is_guest and table is not None and table.status == "playing"
                and table.seat_of(self.player.id) is None
                and any(not s.is_bot and not s.connected for s in table.seats))

    def reclaim(self, code: str, seat_code: str) -> None:
        """A keyless guest comes back to their seat with the code they were shown."""
        table = self.hub.find(code)
        wanted = seat_code.strip().upper()

        def seat_index() -> int | None:
            return next((i for i, seat in enumerate(table.seats)
                         if not seat.is_bot and wanted and seat.seat_code == wanted), None)

        if seat_index() is None:
            raise BrokenRule("no seat at that table has this seat code")
        if self.table is not table:
            self.leave()
            self._enter(table)
        i = seat_index()  # leaving may have moved the seats along
        if i is None:
            raise BrokenRule("no seat at that table has this seat code")
        # The guest takes back the seat's identity, not only the seat: one person in the
        # records (hall of fame, their own record) and still the host if they were
        # and the seat's name, the one they chose
        self.player = replace(self.player, id=table.seats[i].player_id,
                              name=table.seats[i].name)
        self.hub.command(table, Reclaim(i, self.player.id))
        self.hub.reconnect(table, i)

    def leave(self) -> None:
        """Back to the lobby: a seat before or after a game is given up; in a game it is
        kept for this player's return."""
        if self.table is not None:
            self._vacate(keep_if_other_terminal=False, why="went to the lobby")
            call_safely(self.on_change)  # this session is back in the lobby

    def detach(self) -> None:
        """The terminal went away: keep the seat (a game in progress waits for them)."""
        self.hub.sessions.discard(self)
        if self.table is not None:
            self._vacate(keep_if_other_terminal=True, why="lost connection")

    def _vacate(self, *, keep_if_other_terminal: bool, why: str) -> None:
        table, seat = self.table, self.seat
        assert table is not None
        table.sessions.discard(self)
        self.table = None
        still_here = keep_if_other_terminal and any(s.seat == seat for s in table.sessions)
        if seat is not None and not still_here:
            if table.status != "playing":
                self.hub.command(table, Leave(seat))
            else:
                self.hub.away(table, seat, why)
        self.hub.changed(table)
        self.hub.forget_if_empty(table)

    def keep_draft(self, text: str) -> None:
        """The plan this player is writing, kept for their seat until the round ends: a
        dropped connection does not lose it (see :meth:`draft`)."""
        table, seat = self.table, self.seat
        if table is None or seat is None or table.state is None:
            return
        table.seats[seat].draft = ((table.games, table.state.round), text[:PLAN_MAX])

    def draft(self) -> str:
        """The plan this player had begun for this round, or ``""``."""
        table, seat = self.table, self.seat
        if table is None or seat is None or table.state is None:
            return ""
        kept = table.seats[seat].draft
        return kept[1] if kept is not None and kept[0] == (table.games,
                                                           table.state.round) else ""

    def set_options(self, options: TableOptions) -> None:
        table = self._hosting()
        if table.status == "playing":
            raise BrokenRule("options can be changed between games")
        self.hub.command(table, SetOptions(options.checked()))

    def add_bot(self, level: str = "normal") -> None:
        table = self._hosting()
        if table.status == "playing":
            raise BrokenRule("bots join between games")
        if len(table.seats) >= table.options.max_seats:
            raise BrokenRule("the table is full")
        self.hub.command(table, AddBot(level))

    def set_bot_level(self, seat: int, level: str) -> None:
        """The host makes the bot in ``seat`` play easy, normal or sharp."""
        table = self._hosting()
        if table.status == "playing":
            raise BrokenRule("bot levels change between games")
        self.hub.command(table, BotLevel(seat, level))

    def remove_seat(self, seat: int) -> None:
        """The host removes a seat: before a game it is given up (its player watches);
        in a game, a person's seat is handed to a bot (score and hand kept) and the person
        goes back to the lobby, not to come back to this table."""
        table = self._hosting()
        if not 0 <= seat < len(table.seats):
            raise BrokenRule("there is no such seat")
        removed = table.seats[seat].player_id
        if removed == self.player.id:
            raise BrokenRule("leave the table instead of removing yourself")
        if table.status == "playing":
            self._remove_player(table, seat)
            return
        self.hub.command(table, Leave(seat))
        for other in list(table.sessions):
            if other.player.id == removed:
                other.on_notice("the host gave your seat away: you are watching this table")

    def _remove_player(self, table: Table, seat: int) -> None:
        gone = table.seats[seat].player_id
        if table.seats[seat].is_bot:
            raise BrokenRule("a bot's seat stays in the game: only people are removed")
        addresses = sorted({other.player.address for other in self.hub.sessions
                            if other.player.id == gone and other.player.address})
        self.hub.command(table, Remove(seat, self.player.id, tuple(addresses)))
        for other in list(table.sessions):
            if other.player.id == gone:
                other.leave()
                other.on_notice(f"{self.player.name} removed you from table {table.code}: "
                                "a bot plays your seat")

    def start(self) -> None:
        table = self._hosting()
        if table.status == "playing":
            raise BrokenRule("the game is already running")
        self.hub.start(table)

    def chat(self, text: str) -> None:
        table, seat = self._seated()
        cleaned = clean_text(text, CHAT_MAX)
        if not cleaned:
            return
        state = table.state
        if (table.status == "playing" and state is not None and seat == state.lead
                and state.phase is Phase.PICKING):
            raise BrokenRule("the lead agent stays silent while picking items")
        if not self._chat_budget.spend():
            raise TooFast("slow down: wait a moment before your next chat line")
        self.hub.command(table, Chat(seat, cleaned))

    # -- moves -----------------------------------------------------------------------------

    def pick(self, column: int, row: int, at_ms: float | None = None) -> None:
        self._move(lambda s: rules.Pick(s, column, row), at_ms)

    def shout(self, at_ms: float | None = None) -> None:
        self._move(lambda s: rules.Shout(s, int(at_ms if at_ms is not None else now_ms())),
                   at_ms)

    def guess(self, card: int) -> None:
        self._move(lambda s: rules.Guess(s, card))

    def reveal(self, plan: str = "") -> None:
        self._move(lambda s: rules.Reveal(s, plan))

    def lead_reveal(self, plan: str = "") -> None:
        self._move(lambda s: rules.LeadReveal(s, plan))

    def best_plan(self, choice: int) -> None:
        self._move(lambda s: rules.BestPlan(s, choice))

    def next_round(self) -> None:
        self._move(rules.NextRound)

    def play(self, action: Action) -> None:
        """Any engine move for this player's own seat (bots and tests speak in actions)."""
        if action.seat != self.seat:
            raise NotAllowed("that move is for another seat")
        at_ms = action.at_ms if isinstance(action, rules.Shout) else None
        if isinstance(action, rules.EndGame):
            self.end_game()
        else:
            self._move(lambda _seat: action, at_ms)

    def end_game(self) -> None:
        table = self._hosting()
        if table.status != "playing":
            raise BrokenRule("no game is running")
        self._move(rules.EndGame)

    # -- helpers ---------------------------------------------------------------------------

    def _enter(self, table: Table) -> None:
        self.table = table
        table.sessions.add(self)

    def _seated(self) -> tuple[Table, int]:
        if self.table is None:
            raise BrokenRule("join a table first")
        seat = self.seat
        if seat is None:
            raise NotAllowed("spectators watch: take a seat to play")
        return self.table, seat

    def _hosting(self) -> Table:
        if self.table is None:
            raise BrokenRule("join a table first")
        if self.table.host_id != self.player.id:
            raise NotAllowed("only the table's host can do that")
        return self.table

    def _move(self, make: Callable[[int], Action], at_ms: float | None = None) -> None:
        table, seat = self._seated()
        if table.status != "playing" or table.state is None:
            raise BrokenRule("no game is running at this table")
        self.hub.submit(table, make(seat), self, at_ms)


def call_safely(callback: Callable[..., None], *args: object) -> None:
    try:
        callback(*args)
    except Exception:  # one session's broken callback must not harm the table
        log.exception("session callback failed")
