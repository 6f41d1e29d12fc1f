"""The one in-process authority: it creates tables, applies their commands, runs their
timers and bots, and journals what it accepted (see engine.tables and engine.session).

Every session (one per connected terminal) attaches to the hub and calls it; the hub runs
on the single asyncio loop, so each call is applied whole before the next one starts: moves
at a table are serialized without locks. A table is a deterministic function of the
commands accepted at it (join, start, a move...): each accepted command is written to the
journal before anyone is told about it, and replaying the journal rebuilds the table.

Sessions never receive the game state: they are told *that* their table changed (a
callback with no arguments) and then ask for their own view, which the hub builds with
:func:`engine.rules.view_for` for their seat. Hidden information never leaves the hub
except through that view.

"Stop!" races are decided by when the key's bytes reached the server, not by when each
session's UI got round to them: the first shout opens a short settle window, every shout
and pick arriving during it is held, and at its end they are applied in arrival order.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import random
import secrets
from collections.abc import Callable, Iterable, Iterator
from dataclasses import asdict, replace
from itertools import groupby
from pathlib import Path
from typing import Any, Protocol

from engine import rules
from engine.bots import LEVELS
from engine.clock import now_ms
from engine.errors import BrokenRule, IllegalAction, NotAllowed, NotSaved
from engine.identity import Player
from engine.rules import Action, Phase
from engine.session import Session, call_safely
from engine.tables import (
    CODE_LETTERS,
    MAX_SEATS,
    ChatLine,
    LogLine,
    Seat,
    SeatInfo,
    Table,
    TableOptions,
    TableView,
    cancel_timer,
    unique_name,
)
from engine.text import clean_text, inert_payload

log = logging.getLogger(__name__)

ROUND_OVER_SECONDS = 30  # the round's points stay up this long at most
ABANDONED_SECONDS = 30 * 60  # a game every human left (and nobody watches) ends after this
SWEEP_SECONDS = 60  # how often abandoned games are looked for
PRESENCE = "presence"  # the log's kind for who comes and goes (not journaled)
TABLES_PER_PLAYER = 3  # open tables one player may host or sit at


class Journal(Protocol):
    """Where accepted commands go before anyone is told of them (see engine.journal)."""

    def record(self, code: str, seq: int, kind: str, payload: dict[str, Any]) -> None: ...

    def game_over(self, code: str, game_no: int, seats: list[tuple[str, str]],
                  result: dict[str, Any]) -> None: ...

    def table_records(self, code: str) -> Iterable[tuple[str, int, str, dict[str, Any]]]: ...


class BotFactory(Protocol):
    def __call__(self, seed: str) -> Any: ...  # an object with act(view, now_ms) -> Action


BOT_LEVELS = tuple(LEVELS)  # what the host may choose for a bot seat
DEFAULT_THINK_SECONDS = 1.2  # at human pace, for a bot that cannot say how long it thinks


def _moment(table: Table) -> tuple[Any, ...]:
    """What a bot's next move depends on: when it changes, the bot thinks again."""
    state = table.state
    assert state is not None
    return (table.games, state.round, state.phase, len(state.picks), state.stop,
            tuple(g is not None for g in state.guesses), len(state.revealed))


class Hub:
    """Tables and sessions. ``deck`` is an :class:`engine.cards.Deck`; ``bot_factory``
    builds a bot for a seat (the default one plays at the seat's level); ``settle_ms`` is
    the Stop! settle window. ``bot_delay`` None (the server) lets bots move at human pace,
    each move after the time the bot says a person would think; a number of seconds makes
    them move one at a time that far apart (tests: 0 for at once)."""

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
        self.bot_factory = bot_factory
        self.settle_ms = settle_ms
        self.bot_delay = bot_delay
        self.grace_seconds = grace_seconds
        self.abandoned_seconds = abandoned_seconds
        self.tables_per_player = tables_per_player
        self.tables: dict[str, Table] = {}
        self._sweep_timer: asyncio.TimerHandle | None = None
        self.set_aside: dict[str, str] = {}
        """Tables whose journal could not be replayed: code -> why. Left in the journal
        as they are (for a person to look at) and never served; their codes stay taken."""
        self.records: Any | None = None  # engine.records.Records when journaled
        self.sessions: set[Session] = set()
        self._lobby_version = 0
        self._seed = seed
        self._replaying = False
        self._codes = 0
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
            start(self._loop(), self._saved, self._lost)

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
        saved = self.journal.writer.saved  # type: ignore[union-attr]
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
                for session in list(table.sessions):  # back to the lobby (told below)
                    table.sessions.discard(session)
                    session.table = None
                    call_safely(session.on_notice, "the server could not save your new "
                                "table: make it again")
                self._untold[None] = 0
                continue
            self._untold[table] = 0
            for session in list(table.sessions):
                call_safely(session.on_notice,
                            "the server could not save the latest moves here: they are "
                            "undone, make them again")
        self._saved()

    def _default_bot(self, seed: str, level: str) -> Any:
        from engine.bots import Bot

        return Bot(self.deck, seed, level)

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
            raise NotAllowed(f"you are already at {mine} tables: leave one first")
        code = code or self._new_code()
        seed = seed or (f"{self._seed}/{code}" if self._seed else secrets.token_hex(8))
        table = Table(code=code, seed=seed, options=options, host_id=host.id)
        self._journal(table, "create", {"seed": seed, "host": host.id,
                                         "options": asdict(options)})
        self.tables[code] = table
        self._lobby_changed()
        return table

    def new_seat_code(self) -> str:
        """Six letters a keyless guest uses to reclaim their seat (seeded in tests)."""
        if self._seed is not None:
            self._codes += 1
            rng = random.Random(f"{self._seed}/seat/{self._codes}")
            return "".join(rng.choices(CODE_LETTERS, k=6))
        return "".join(secrets.choice(CODE_LETTERS) for _ in range(6))

    def _new_code(self) -> str:
        if self._seed is not None:  # deterministic codes for tests and benches
            while True:
                self._codes += 1
                n = self._codes
                letters = []
                for _ in range(4):
                    n, r = divmod(n, len(CODE_LETTERS))
                    letters.append(CODE_LETTERS[r])
                code = "".join(letters)
                if code not in self.tables and code not in self.set_aside:
                    return code
        while True:
            code = "".join(secrets.choice(CODE_LETTERS) for _ in range(4))
            if code not in self.tables and code not in self.set_aside:
                return code

    # -- views -----------------------------------------------------------------------------

    def table_view(self, table: Table, session: Session) -> TableView:
        seat = table.seat_of(session.player.id)
        game = None if table.state is None else rules.view_for(
            table.state, self._game_seat(table, session.player.id, seat))
        return TableView(
            code=table.code,
            status=table.status,
            options=table.options,
            seats=tuple(SeatInfo(s.name, s.is_bot, s.connected or s.is_bot, s.botted,
                                 s.player_id == table.host_id, s.level) for s in table.seats),
            my_seat=seat,
            is_host=table.host_id == session.player.id,
            spectators=sum(1 for s in table.sessions if s.seat is None),
            game=game,
            log=tuple(table.log),
            chat=tuple(table.chat),
            deadline_ms=table.deadline_ms,
            seat_code=table.seats[seat].seat_code if seat is not None else None,
            version=table.version,
            ready=tuple(sorted(table.ready)),
            waiting_ready=table.waiting_ready(),
        )

    @staticmethod
    def _game_seat(table: Table, player: str, seat: int | None) -> int | None:
        """``player``'s seat in the table's game: their table seat, unless the game is over
        and they did not play it (they took a seat someone left)."""
        if seat is None or table.status != "finished":
            return seat
        played = seat < len(table.played_by) and table.played_by[seat] == player
        return seat if played else None

    # -- commands: the only way a table changes ----------------------------------------------

    def command(self, table: Table, kind: str, payload: dict[str, Any]) -> None:
        """Apply one table command, journal it, and tell everyone at the table.
        Text in it loses its control characters first: the journal holds them never."""
        payload = inert_payload(payload)
        self._apply(table, kind, payload)
        try:
            self._journal(table, kind, payload)
        except Exception as error:  # memory must never run ahead of the disk
            log.error("journal write failed at %s: %s", table.code, error)
            self._rebuild(table)
            raise NotSaved("the server could not save that: try again") from None
        if kind == "move" and table.state is not None and table.state.phase is Phase.GAME_OVER:
            self._record_game(table)
        self.changed(table)
        if kind == "remove":  # at round over, the table may have waited only for them
            self._start_round_if_all_ready(table)
        if kind in ("join", "leave", "options", "add_bot", "rename", "start", "reclaim",
                    "bot_level", "remove"):
            self._lobby_changed()

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

    def _apply(self, table: Table, kind: str, payload: dict[str, Any]) -> None:
        handler = getattr(self, f"_cmd_{kind}", None)
        if handler is None:
            raise BrokenRule(f"unknown table command {kind!r}")
        handler(table, **payload)

    def _journal(self, table: Table, kind: str, payload: dict[str, Any]) -> None:
        table.seq += 1
        if self.journal is not None and not self._replaying:
            self.journal.record(table.code, table.seq, kind, payload)

    def _cmd_close(self, table: Table) -> None:
        self.tables.pop(table.code, None)

    def _cmd_join(self, table: Table, player: str, name: str, seat_code: str) -> None:
        if len(table.seats) >= table.options.max_seats:
            raise BrokenRule("the table is full")
        table.seats.append(Seat(player, unique_name(table, name), seat_code))
        if table.host_id is None:
            table.host_id = player
        self._log(table, f"{table.seats[-1].name} sits down")

    def _cmd_leave(self, table: Table, seat: int) -> None:
        gone = table.seats.pop(seat)
        self._log(table, f"{gone.name} leaves the table")
        if gone.player_id == table.host_id:
            humans = [s.player_id for s in table.seats if not s.is_bot]
            table.host_id = humans[0] if humans else None
            if table.host_id is not None:
                self._log(table, f"{self._name_of(table, table.host_id)} is now the host")

    def _cmd_remove(self, table: Table, seat: int, by: str,
                    addresses: list[str] | None = None) -> None:
        """The host hands a person's seat to a bot for the rest of the game: the seat keeps
        its name, points and hand (the rules go on as they were); its person may not come
        back to this table, with a key or with the seat code, and no new guest may come in
        from the ``addresses`` they were connected from."""
        if table.status != "playing" or not 0 <= seat < len(table.seats):
            raise BrokenRule("there is no such seat in a game here")
        gone = table.seats[seat]
        if gone.is_bot or gone.player_id == by:
            raise BrokenRule("only another person's seat can be removed")
        table.removed.add(gone.player_id)
        table.removed_from.update(addresses or ())
        gone.player_id, gone.seat_code = f"bot:removed:{seat}:{len(table.removed)}", ""
        gone.connected, gone.away_since, gone.botted = True, None, False
        table.bots.pop(seat, None)
        table.bot_plans.pop(seat, None)
        table.ready.discard(seat)
        self._log(table, f"{self._name_of(table, by)} removed {gone.name}: "
                         "a bot plays their seat")

    def _cmd_rename(self, table: Table, player: str, name: str) -> None:
        seat = table.seat_of(player)
        if seat is None:
            return
        old = table.seats[seat].name
        table.seats[seat].name = unique_name(table, name, skip=seat)
        self._log(table, f"{old} is now called {table.seats[seat].name}")
        if table.state is not None and self._game_seat(table, player, seat) is not None:
            names = list(table.state.players)
            names[seat] = table.seats[seat].name
            table.state = replace(table.state, players=tuple(names))

    def _cmd_reclaim(self, table: Table, seat: int, player: str) -> None:
        table.seats[seat].player_id = player
        if table.host_id is None:
            table.host_id = player

    def _cmd_options(self, table: Table, **options: Any) -> None:
        table.options = TableOptions(**options)
        self._log(table, "the host changed the table options")

    def _cmd_add_bot(self, table: Table, level: str = "normal") -> None:
        _check_level(level)
        n = sum(1 for s in table.seats if s.is_bot) + 1
        names = {s.name for s in table.seats}
        name = next(f"Bot {label}" for label in _bot_names() if f"Bot {label}" not in names)
        table.seats.append(Seat(f"bot:{n}:{len(table.seats)}", name, "", level=level))
        self._log(table, f"{name} (a {level} bot) sits down")

    def _cmd_bot_level(self, table: Table, seat: int, level: str) -> None:
        _check_level(level)
        if not 0 <= seat < len(table.seats) or not table.seats[seat].is_bot:
            raise BrokenRule("that seat is not a bot")
        table.seats[seat].level = level
        table.bots.pop(seat, None)
        self._log(table, f"{table.seats[seat].name} now plays {level}")

    def _cmd_chat(self, table: Table, seat: int, text: str) -> None:
        table.chat.append(ChatLine(table.seats[seat].name, text))

    def _cmd_start(self, table: Table, tasks: list[str] | None = None,
                   items: list[str] | None = None) -> None:
        if table.options.bots_fill:
            while len(table.seats) < rules.MIN_PLAYERS:
                self._cmd_add_bot(table)
        if not rules.MIN_PLAYERS <= len(table.seats) <= MAX_SEATS:
            raise BrokenRule(f"a game needs {rules.MIN_PLAYERS} to "
                                f"{table.options.max_seats} seats (add bots?)")
        table.games += 1
        table.state = rules.new_game(
            [s.name for s in table.seats], seed=f"{table.seed}/{table.games}",
            tasks=tasks or self.deck.task_names, items=items or self.deck.item_names,
            options=table.options.rules_options())
        table.played_by = tuple(s.player_id for s in table.seats)
        table.status = "playing"
        table.bots = {}
        table.bot_plans = {}
        table.log.clear()
        self._log(table, f"Game {table.games} begins. Round 1: "
                         f"{table.seats[table.state.lead].name} is the lead agent", "round")

    def _cmd_move(self, table: Table, action: dict[str, Any], bot: bool = False) -> None:
        if table.state is None:
            raise BrokenRule("no game is running at this table")
        move = rules.action_from_dict(action)
        state, events = rules.apply(table.state, move)
        table.state = state
        if state.phase is not Phase.ROUND_OVER:
            table.ready.clear()
        # only the move itself is the bot's doing; a new round (even one the timer
        # started) is nobody's move
        by_bot = bot and not isinstance(move, rules.NextRound)
        for i, event in enumerate(events):
            if event.part:
                self._log_move(table, event, by_bot=by_bot and i == 0)
            else:
                self._log(table, event.text, event.kind, by_bot=by_bot and i == 0)
        if state.phase is Phase.GAME_OVER:
            table.status = "finished"
            table.deadline_ms = None

    def _log(self, table: Table, text: str, kind: str = "info", by_bot: bool = False) -> None:
        table.log.append(LogLine(text, kind, by_bot))

    def _log_move(self, table: Table, event: rules.Event, by_bot: bool) -> None:
        """A pick or a hidden guess joins the line of the moves of its kind before it ("Bob
        marks Fork · Rope"): the board shows each move as it is made, and a line per move
        scrolled the plans out of a small log, and scrolled every seat's log (a quarter of
        the cost of drawing a pick). A bot's move for an absent player keeps a line of its own,
        marked "(bot)". Picks in one line are always one lead's: a new round logs a line
        first.

        Lines about who is here are not journaled: the fold reaches past them and the
        folded line moves below them, so that a replay, which has none, logs the same."""
        log = table.log
        at = len(log) - 1
        while at >= 0 and log[at].kind == PRESENCE:
            at -= 1
        last = log[at] if at >= 0 else None
        if last is not None and last.kind == event.kind and last.parts \
                and last.by_bot == by_bot:
            parts = (*last.parts, event.part)
            who = "" if event.seat is None or table.state is None \
                else table.state.players[event.seat]
            del log[at]
            log.append(LogLine(rules.moves_text(event.kind, who, parts), event.kind,
                               by_bot, parts))
        else:
            log.append(LogLine(event.text, event.kind, by_bot, (event.part,)))

    def _name_of(self, table: Table, player_id: str) -> str:
        seat = table.seat_of(player_id)
        return "-" if seat is None else table.seats[seat].name

    # -- game flow -------------------------------------------------------------------------

    def start(self, table: Table) -> None:
        # The cards travel with the game, so a replay deals the same game after an upgrade.
        self.command(table, "start", {"tasks": list(self.deck.task_names),
                                      "items": list(self.deck.item_names)})

    def submit(self, table: Table, action: Action, session: Session | None = None,
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
        if table.settle is not None:
            table.settle.append((at, len(table.settle), session, action))
            return
        if (isinstance(action, rules.Shout) and self.settle_ms > 0 and not self._replaying
                and table.state is not None and table.state.phase is Phase.PICKING):
            rules.apply(table.state, action)  # refuse at once what can never succeed
            table.settle = [(at, 0, session, action)]
            _later(self._loop(), self.settle_ms / 1000, self._settle, table)
            return
        self.command(table, "move", {"action": rules.action_to_dict(action), "bot": by_bot})

    def _settle(self, table: Table) -> None:
        held, table.settle = table.settle or [], None
        for _at, _n, session, action in sorted(held, key=lambda h: (h[0], h[1])):
            try:
                self.command(table, "move", {"action": rules.action_to_dict(action),
                                             "bot": session is None})
            except IllegalAction as refusal:
                if session is not None:
                    session.on_notice(str(refusal))

    def reconnect(self, table: Table, seat: int) -> None:
        s = table.seats[seat]
        was_away = not s.connected
        s.connected, s.away_since = True, None
        if s.botted:
            s.botted = False
            self._log(table, f"{s.name} is back and takes over from the bot", PRESENCE)
        elif was_away and table.status == "playing":  # the table read "lost connection"
            self._log(table, f"{s.name} is back", PRESENCE)
        self.changed(table)

    def away(self, table: Table, seat: int, why: str = "lost connection") -> None:
        """The seat's player is gone for now (``why``: "lost connection", "went to the
        lobby"); a bot may take the seat over after the grace period."""
        s = table.seats[seat]
        s.connected, s.away_since = False, now_ms()
        self._log(table, f"{s.name} {why}: their seat is kept", PRESENCE)
        self._start_round_if_all_ready(table)
        loop = self._loop_or_none()
        if loop is not None:
            _later(loop, self.grace_seconds, self._grace_over, table, s)

    def _start_round_if_all_ready(self, table: Table) -> None:
        """At round over, the last person the table waited for left: everyone still here
        is ready, so the next round starts."""
        state = table.state
        if (state is None or state.phase is not Phase.ROUND_OVER or not table.ready
                or table.waiting_ready() or self._replaying):
            return
        try:
            self.command(table, "move", {"action": rules.action_to_dict(
                rules.NextRound(min(table.ready))), "bot": False})
        except IllegalAction as error:
            log.warning("next round at %s refused: %s", table.code, error)

    def _grace_over(self, table: Table, seat: Seat) -> None:
        if seat in table.seats and not seat.connected and table.status == "playing":
            seat.botted = True
            self._log(table, f"a bot plays for {seat.name} until they return", PRESENCE)
            self.changed(table)

    def _sweep(self) -> None:
        self.expire_abandoned()
        self._sweep_timer = _later(self._loop(), SWEEP_SECONDS, self._sweep)

    def expire_abandoned(self, now: float | None = None) -> list[str]:
        """End the games every human left ``abandoned_seconds`` ago (nobody watching);
        returns their codes."""
        now = now_ms() if now is None else now
        limit = self.abandoned_seconds * 1000
        expired = []
        for table in list(self.tables.values()):
            humans = [s for s in table.seats if not s.is_bot]
            if table.sessions or any(s.connected for s in humans):
                continue
            last_seen = max((s.away_since or 0 for s in humans), default=0)
            if now - last_seen >= limit:
                log.info("table %s ended: abandoned by every player", table.code)
                self.tables.pop(table.code, None)
                self._journal(table, "close", {})
                cancel_timer(table, "timer")
                cancel_timer(table, "bot_tick")
                expired.append(table.code)
        if expired:
            self._lobby_changed()
        return expired

    def forget_if_empty(self, table: Table) -> None:
        """A table nobody sits or watches at, outside a game, is closed."""
        humans = [s for s in table.seats if not s.is_bot]
        if table.status != "playing" and not humans and not table.sessions:
            self.tables.pop(table.code, None)
            self._journal(table, "close", {})
            self._lobby_changed()

    def changed(self, table: Table) -> None:
        """Tell every session at ``table`` to redraw, and let bots and timers react: at
        once, or when the journal has committed what was accepted before."""
        table.version += 1
        if self._replaying or self._held_for_disk(table):
            return
        self._tell(table)

    def _tell(self, table: Table) -> None:
        self._schedule(table)
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

    # -- bots and timers -------------------------------------------------------------------

    def _schedule(self, table: Table) -> None:
        loop = self._loop_or_none()
        if (loop is None or table.status != "playing" or table.state is None
                or not table.sessions):  # nobody is watching: the table waits for them
            cancel_timer(table, "timer")
            cancel_timer(table, "bot_tick")
            table.deadline_ms = None
            return
        if any(s.bot_plays for s in table.seats):
            if self.bot_delay is None:
                self._plan_bots(table, loop)
            elif table.bot_tick is None:
                table.bot_tick = _later(loop, self.bot_delay, self._bots_act, table)
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
            cancel_timer(table, "timer")
            table.timer_key = (turn, waiting)
            seconds = table.options.turn_seconds
            if state.phase is Phase.ROUND_OVER:
                seconds = min(seconds, ROUND_OVER_SECONDS)
            table.deadline_ms = now_ms() + seconds * 1000
            table.timer = _later(loop, seconds, self._timeout, table)

    def _bot_for(self, table: Table, seat: int) -> Any:
        bot = table.bots.get(seat)
        if bot is None:
            seed = f"{table.seed}/{table.games}/bot{seat}"
            bot = table.bots[seat] = (self.bot_factory(seed) if self.bot_factory is not None
                                      else self._default_bot(seed, table.seats[seat].level))
        return bot

    def _plan_bots(self, table: Table, loop: asyncio.AbstractEventLoop) -> None:
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
        cancel_timer(table, "bot_tick")
        if due:
            table.bot_tick = _later(loop, max(0.0, (min(due) - now) / 1000),
                                    self._bots_act, table)

    def _bot_move(self, table: Table, seat: int) -> Action | None:
        assert table.state is not None
        return self._bot_for(table, seat).act(rules.view_for(table.state, seat), int(now_ms()))

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
                self._schedule(table)
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
                self.submit(table, action, None, by_bot=True)
            except IllegalAction as error:
                log.warning("bot at %s seat %d refused: %s", table.code, seat, error)
                continue
            return
        for seat in seats:  # nothing to do after all: think again when the game moves
            table.bot_plans.pop(seat, None)

    def _timeout(self, table: Table) -> None:
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
                self._log(table, f"time is up for {table.seats[seat].name}: "
                                 "a bot moves for them", "timer")
            try:
                self.submit(table, action, None, by_bot=True)
            except IllegalAction as error:
                log.warning("timeout move refused at %s: %s", table.code, error)
            if isinstance(action, rules.NextRound):
                break
        self._schedule(table)

    def _loop(self) -> asyncio.AbstractEventLoop:
        return asyncio.get_running_loop()

    def _loop_or_none(self) -> asyncio.AbstractEventLoop | None:
        try:
            return asyncio.get_running_loop()
        except RuntimeError:
            return None

    # -- replay ----------------------------------------------------------------------------

    def replay(self, records: Iterable[tuple[str, int, str, dict[str, Any]]]) -> None:
        """Rebuild tables from journal records ``(code, seq, kind, payload)``, each table's
        records in order starting with its "create"."""
        for _code, group in groupby(records, key=lambda record: record[0]):
            table = self._replay_table(group)
            self.tables[table.code] = table
            for seat in table.seats:
                if not seat.is_bot:
                    seat.connected, seat.away_since = False, now_ms()

    def _replay_table(self, records: Iterable[tuple[str, int, str, dict[str, Any]]]) -> Table:
        table: Table | None = None
        self._replaying = True
        try:
            for code, seq, kind, payload in records:
                if kind == "create":
                    table = Table(code=code, seed=payload["seed"], host_id=payload["host"],
                                  options=TableOptions(**payload["options"]))
                else:
                    assert table is not None, f"{code}: records must start with create"
                    self._apply(table, kind, payload)
                table.seq = seq
        finally:
            self._replaying = False
        assert table is not None, "no records"
        return table

    def resume_timers(self) -> None:
        """After replay, on the running loop: timers restart with their full grace, and
        abandoned games are looked for every :data:`SWEEP_SECONDS`."""
        self._sweep()
        for table in self.tables.values():
            for seat in table.seats:
                if not seat.is_bot and table.status == "playing":
                    _later(self._loop(), self.grace_seconds, self._grace_over, table, seat)
            self.changed(table)

    def close(self) -> None:
        if self._sweep_timer is not None:
            self._sweep_timer.cancel()
        for table in self.tables.values():
            cancel_timer(table, "timer")
            cancel_timer(table, "bot_tick")
        close = getattr(self.journal, "close", None)
        if close is not None:
            close()


def _check_level(level: str) -> None:
    if level not in BOT_LEVELS:
        raise BrokenRule(f"bots play {', '.join(BOT_LEVELS)}, not {level!r}")


def _later(loop: asyncio.AbstractEventLoop, delay: float, callback: Callable[..., None],
           *args: Any) -> asyncio.TimerHandle:
    """``loop.call_later`` in a context of its own: a timer set while one player's app
    handles a key must neither run as that app nor keep it alive after the player left."""
    return loop.call_later(delay, callback, *args, context=contextvars.Context())


def _bot_names() -> Iterator[str]:
    yield from ("Ada", "Bix", "Cog", "Dot", "Echo", "Fizz", "Gizmo", "Hex")
    n = 1
    while True:
        yield str(n)
        n += 1
