"""The one in-process authority: it keeps the tables, applies their commands, journals
what it accepted and tells the sessions at a table that it changed.

Every session (one per connected terminal) attaches to the hub and calls it; the hub runs
on the single asyncio loop, so each call is applied whole before the next one starts: moves
at a table are serialized without locks. A table is a deterministic function of the
commands accepted at it (:mod:`engine.commands`): each accepted command is written to the
journal before anyone is told about it, and replaying the journal rebuilds the table.

Sessions never receive the game state: they are told *that* their table changed (a
callback with no arguments) and then ask for their own view
(:meth:`engine.tables.Table.view_for`). Hidden information never leaves the hub except
through that view.

What happens because time passed (the Stop! settle window, grace, the sweep of abandoned
tables, turn timers, the bots' pace) is :mod:`engine.timers`; table and seat codes are
:mod:`engine.codes`.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterable
from itertools import groupby
from pathlib import Path
from typing import Any, Protocol, cast

from engine import commands, rules, timers
from engine.clock import now_ms
from engine.codes import Codes
from engine.commands import (
    Close,
    Command,
    Create,
    Move,
    Remove,
    Start,
    from_record,
    new_table,
    to_record,
)
from engine.errors import BrokenRule, IllegalAction, NotAllowed, NotSaved
from engine.identity import ChosenNames, Player
from engine.rules import Action, Phase
from engine.session import Session, call_safely
from engine.tables import (
    PRESENCE,
    Occupant,
    Table,
    TableOptions,
)
from engine.text import clean_text, inert_payload, plural
from engine.timers import BotFactory, Timers

log = logging.getLogger(__name__)

ABANDONED_SECONDS = 5 * 60
"""A game no person has played at for this long ends (its bots do not play on alone,
spectators or not): ``serve --abandoned-minutes``."""
TABLES_PER_PLAYER = 3  # open tables one player may host or sit at


class Journal(Protocol):
    """Where accepted commands go before anyone is told of them (see engine.journal)."""

    def record(self, code: str, seq: int, kind: str, payload: dict[str, Any]) -> None: ...

    def game_over(self, code: str, game_no: int, seats: list[tuple[str, str]],
                  result: dict[str, Any]) -> None: ...

    def table_records(self, code: str) -> Iterable[tuple[str, int, str, dict[str, Any]]]: ...


class Hub:
    """Tables and sessions. ``deck`` is an :class:`engine.cards.Deck`; ``bot_factory``,
    ``settle_ms``, ``bot_delay`` and ``grace_seconds`` go to the :class:`Timers`;
    ``seed`` makes codes and games the same every run (tests, benches)."""

    def __init__(
        self,
        *,
        deck: Any | None = None,
        journal: Journal | None = None,
        bot_factory: BotFactory | None = None,
        settle_ms: float = 150,
        bot_delay: float | None = None,
        grace_seconds: float = 45,
        seed: str | None = None,
        abandoned_seconds: float = ABANDONED_SECONDS,
        tables_per_player: int = TABLES_PER_PLAYER,
    ) -> None:
        if deck is None:
            from engine.cards import load_deck

            deck = load_deck()
        self.deck = deck
        self.journal = journal
        self.timers = Timers(self, deck=deck, bot_factory=bot_factory, settle_ms=settle_ms,
                             bot_delay=bot_delay, grace_seconds=grace_seconds)
        self.abandoned_seconds = abandoned_seconds
        self.tables_per_player = tables_per_player
        self.tables: dict[str, Table] = {}
        self.set_aside: dict[str, str] = {}
        """Tables whose journal could not be replayed: code -> why. Left in the journal
        as they are (for a person to look at) and never served; their codes stay taken."""
        self.records: Any | None = None  # engine.records.Records when journaled
        self.sessions: set[Session] = set()
        self.names = ChosenNames()  # a name chosen in the lobby outlasts a reconnect
        self._lobby_version = 0
        self.codes = Codes(seed)
        self._replaying = False
        self._untold: dict[Table | None, int] = {}
        """Changes waiting for the disk: table (None: the lobby) -> the journal writer's
        ticket that must be committed before anyone is told."""

    @classmethod
    def open(cls, data_dir: Path, **kwargs: Any) -> Hub:
        """The server's hub: journaled in ``data_dir``, every unfinished table rebuilt."""
        from engine.journal import open_journal
        from engine.records import Records

        journal = open_journal(data_dir)
        hub = cls(journal=journal, **kwargs)
        hub.records = Records(journal.connection)
        for code in list(journal.open_tables()):
            try:  # one bad record sets its table aside; the others are served
                hub.replay(journal.table_records(code))
            except Exception as error:
                hub.set_aside[code] = str(error) or type(error).__name__
                log.error("table %s set aside: its journal cannot be replayed (%s)",
                          code, hub.set_aside[code])
        for table in hub.tables.values():
            if table.status == "finished":  # a crash may have come before its record
                hub._record_game(table)
        return hub

    def write_behind(self) -> None:
        """Commit the journal on a thread of its own from now on (the server, on its
        loop): moves no longer wait for the disk on the loop, and every change is told
        once the disk has it (:mod:`engine.journal_writer`)."""
        start = getattr(self.journal, "write_behind", None)
        if start is not None:
            start(asyncio.get_running_loop(), self._saved, self._lost)

    def _held_for_disk(self, key: Table | None) -> bool:
        """Whether telling of ``key``'s change must wait for writes not yet committed
        (then it is told by :meth:`_saved`)."""
        writer = getattr(self.journal, "writer", None)
        if writer is None or not writer.pending:
            return False
        self._untold[key] = writer.queued
        return True

    def _saved(self) -> None:
        """The journal committed: tell every change whose writes are all on disk now."""
        # only the writer's own report calls this: a journal with a writer is there
        saved = self.journal.writer.saved  # type: ignore[union-attr]  # see above
        for key, ticket in list(self._untold.items()):
            if ticket <= saved:
                del self._untold[key]
                if key is None:
                    self._tell_lobby()
                else:
                    self._tell(key)

    def _lost(self, codes: set[str], error: str) -> None:
        """A commit failed: the tables ``codes`` go back to what the disk holds, and
        their players hear that their latest moves were not kept."""
        tables = [self.tables[code] for code in sorted(codes) if code in self.tables]
        for table in tables:  # told below, once rebuilt
            self._untold.pop(table, None)
        for table in tables:
            try:
                self._rebuild(table)
            except Exception as error:  # not even its creation was saved: it never was
                log.warning("table %s is gone: %s", table.code, error)
                self.tables.pop(table.code, None)
                self._send_to_lobby(table, "the server could not save your new table: "
                                    "make it again")
                self._untold[None] = 0
                continue
            self._untold[table] = 0
            for session in list(table.sessions):
                call_safely(session.on_notice,
                            "the server could not save the latest moves here: they are "
                            "undone, make them again")
        self._saved()

    # -- sessions --------------------------------------------------------------------------

    def attach(self, player: Player, on_change: Callable[[], None] = lambda: None,
               on_notice: Callable[[str], None] = lambda _text: None) -> Session:
        session = Session(self, player, on_change, on_notice)
        self.sessions.add(session)
        return session

    def find(self, code: str) -> Table:
        table = self.tables.get(code.strip().upper())
        if table is None:
            raise BrokenRule(f"no table has the code {clean_text(code, 8)!r}")
        return table

    def create_table(self, options: TableOptions, host: Player, code: str | None = None,
                     seed: str | None = None) -> Table:
        mine = sum(1 for t in self.tables.values()
                   if t.host_id == host.id or t.seat_of(host.id) is not None)
        if mine >= self.tables_per_player:
            raise NotAllowed(f"you are already at {plural(mine, 'table')}: leave one first")
        code = code or self.codes.table_code(lambda c: c in self.tables or c in self.set_aside)
        seed = seed or self.codes.table_seed(code)
        create = Create(seed, host.id, options)
        table = new_table(code, create)
        self._journal(table, create)
        self.tables[code] = table
        self._lobby_changed()
        return table

    def new_seat_code(self) -> str:
        return self.codes.seat_code()

    # -- commands: the only way a table changes ----------------------------------------------

    def command(self, table: Table, command: Command) -> None:
        """Apply one table command, journal it, and tell everyone at the table.
        Text in it loses its control characters first: the journal holds them never, and
        the command applied is the one its record decodes to, as in a replay."""
        kind, payload = to_record(command)
        command = cast(Command, from_record(kind, inert_payload(payload)))
        held = () if table.state is None else table.state.stop
        commands.apply(table, command, self.deck)
        try:
            self._journal(table, command)
        except Exception as error:  # memory must never run ahead of the disk
            log.error("journal write failed at %s: %s", table.code, error)
            self._rebuild(table)
            raise NotSaved("the server could not save that: try again") from None
        if table.state is not None and table.state.phase is Phase.GAME_OVER \
                and isinstance(command, Move):
            self._record_game(table)
        self.changed(table)
        if isinstance(command, Move) and isinstance(command.action, rules.Shout):
            self._tell_outshouted(table, held)
        if isinstance(command, Remove):  # at round over, the table may have waited for them
            self._start_round_if_all_ready(table)
        if command.lobby_sees:
            self._lobby_changed()

    def _tell_outshouted(self, table: Table, held: tuple[int, ...]) -> None:
        """Holders of the token who lost it to a shout stamped before theirs hear why."""
        assert table.state is not None
        first = table.state.players[table.state.stop[0]]
        for session in list(table.sessions):
            if session.seat in held and session.seat not in table.state.stop:
                call_safely(session.on_notice, f"{first} shouted Stop! first")

    def _record_game(self, table: Table) -> None:
        """Store a finished game for the players' records (once; after its last move)."""
        if self.journal is None or self._replaying or table.state is None:
            return
        try:
            self.journal.game_over(table.code, table.games,
                                   [(s.player_id, s.name) for s in table.seats],
                                   rules.game_summary(table.state))
        except Exception:
            log.exception("could not store game %d of %s", table.games, table.code)

    def _rebuild(self, table: Table) -> None:
        """After a failed write: put ``table`` back as the journal holds it."""
        assert self.journal is not None
        fresh = self._replay_table(self.journal.table_records(table.code))
        old = {s.player_id: s for s in table.seats}
        for seat in fresh.seats:
            if (was := old.get(seat.player_id)) is not None:
                seat.connected, seat.away_since, seat.botted = (
                    was.connected, was.away_since, was.botted)
        for name in ("options", "host_id", "seats", "state", "status", "games", "seq", "log",
                     "chat", "removed", "removed_from"):
            setattr(table, name, getattr(fresh, name))

    def _journal(self, table: Table, command: Command | Create) -> None:
        table.seq += 1
        if self.journal is not None and not self._replaying:
            self.journal.record(table.code, table.seq, *to_record(command))

    # -- game flow -------------------------------------------------------------------------

    def start(self, table: Table) -> None:
        # The cards travel with the game, so a replay deals the same game after an upgrade.
        self.command(table, Start(tuple(self.deck.task_names), tuple(self.deck.item_names)))

    def submit(self, table: Table, action: Action, session: Occupant | None = None,
               at_ms: float | None = None, by_bot: bool = False) -> None:
        """A move from a seat. Raises IllegalAction (nothing changes) when refused."""
        at = now_ms() if at_ms is None else at_ms
        if (isinstance(action, rules.NextRound) and session is not None and not by_bot
                and table.state is not None and table.state.phase is Phase.ROUND_OVER
                and not self._replaying):
            # One person's Enter does not take the points away from the others mid-read:
            # the next round starts when every connected person is ready (or on time out).
            table.ready.add(action.seat)
            if table.waiting_ready():
                self.changed(table)
                return
        if not self._replaying and self.timers.hold(table, action, session, at):
            return
        self.command(table, Move(action, by_bot))

    def reconnect(self, table: Table, seat: int) -> None:
        s = table.seats[seat]
        was_away = not s.connected
        s.connected, s.away_since = True, None
        if s.botted:
            s.botted = False
            table.note(f"{s.name} is back and takes over from the bot", PRESENCE)
        elif was_away and table.status == "playing":  # the table read "lost connection"
            table.note(f"{s.name} is back", PRESENCE)
        self.changed(table)

    def away(self, table: Table, seat: int, why: str = "lost connection") -> None:
        """The seat's player is gone for now (``why``: "lost connection", "went to the
        lobby"); a bot may take the seat over after the grace period."""
        s = table.seats[seat]
        s.connected, s.away_since = False, now_ms()
        table.note(f"{s.name} {why}: their seat is kept", PRESENCE)
        self._start_round_if_all_ready(table)
        self.timers.grace(table, s)

    def _start_round_if_all_ready(self, table: Table) -> None:
        """At round over, the last person the table waited for left: everyone still here
        is ready, so the next round starts."""
        state = table.state
        if (state is None or state.phase is not Phase.ROUND_OVER or not table.ready
                or table.waiting_ready() or self._replaying):
            return
        try:
            self.command(table, Move(rules.NextRound(min(table.ready))))
        except IllegalAction as error:
            log.warning("next round at %s refused: %s", table.code, error)

    def expire_abandoned(self, now: float | None = None) -> list[str]:
        """End the games whose every person left (or lost connection) ``abandoned_seconds``
        ago: whoever only watches goes back to the lobby. The end is journaled (the table
        stays ended after a restart); returns their codes."""
        now = now_ms() if now is None else now
        expired = timers.abandoned(list(self.tables.values()), now, self.abandoned_seconds)
        for table in expired:
            self._close(table)
            timers.stop(table)
            self._send_to_lobby(table, f"table {table.code} ended: its players left")
        if expired:
            self._lobby_changed()
        return [table.code for table in expired]

    def _send_to_lobby(self, table: Table, notice: str) -> None:
        """Everyone still at ``table`` (which is gone) is back in the lobby, told why."""
        for session in list(table.sessions):
            table.sessions.discard(session)
            session.table = None
            call_safely(session.on_notice, notice)
            call_safely(session.on_change)

    def forget_if_empty(self, table: Table) -> None:
        """A table nobody sits or watches at, outside a game, is closed."""
        humans = [s for s in table.seats if not s.is_bot]
        if table.status != "playing" and not humans and not table.sessions:
            self._close(table)
            self._lobby_changed()

    def _close(self, table: Table) -> None:
        commands.apply(table, Close(), self.deck)
        self.tables.pop(table.code, None)
        self._journal(table, Close())

    def changed(self, table: Table) -> None:
        """Tell every session at ``table`` to redraw, and let bots and timers react: at
        once, or when the journal has committed what was accepted before."""
        table.version += 1
        if self._replaying or self._held_for_disk(table):
            return
        self._tell(table)

    def _tell(self, table: Table) -> None:
        self.timers.schedule(table)
        for session in list(table.sessions):
            call_safely(session.on_change)

    def _lobby_changed(self) -> None:
        self._lobby_version += 1
        if self._replaying or self._held_for_disk(None):
            return
        self._tell_lobby()

    def _tell_lobby(self) -> None:
        for session in list(self.sessions):
            if session.table is None:
                call_safely(session.on_change)

    # -- replay ----------------------------------------------------------------------------

    def replay(self, records: Iterable[tuple[str, int, str, dict[str, Any]]]) -> None:
        """Rebuild tables from journal records ``(code, seq, kind, payload)``, each table's
        records in order starting with its "create"."""
        for _code, group in groupby(records, key=lambda record: record[0]):
            table = self._replay_table(group)
            if table.status == "closed":
                continue
            self.tables[table.code] = table
            for seat in table.seats:
                if not seat.is_bot:
                    seat.connected, seat.away_since = False, now_ms()

    def _replay_table(self, records: Iterable[tuple[str, int, str, dict[str, Any]]]) -> Table:
        table: Table | None = None
        self._replaying = True
        try:
            for code, seq, kind, payload in records:
                command = from_record(kind, payload)
                if isinstance(command, Create):
                    table = new_table(code, command)
                else:
                    assert table is not None, f"{code}: records must start with create"
                    commands.apply(table, command, self.deck)
                table.seq = seq
        finally:
            self._replaying = False
        assert table is not None, "no records"
        return table

    def resume_timers(self) -> None:
        """After replay, on the running loop: timers restart with their full grace, and
        abandoned games are looked for every :data:`engine.timers.SWEEP_SECONDS`."""
        self.timers.sweep()
        for table in self.tables.values():
            for seat in table.seats:
                if not seat.is_bot and table.status == "playing":
                    self.timers.grace(table, seat)
            self.changed(table)

    def close(self) -> None:
        self.timers.close(self.tables.values())
        close = getattr(self.journal, "close", None)
        if close is not None:
            close()
