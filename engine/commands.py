"""Table commands: what may change a table, as typed values, and :func:`apply`, the one
function that applies them.

A table is a deterministic function of the commands accepted at it, the way a game is of
its actions (:mod:`engine.rules`): the hub applies each command with :func:`apply`, writes
its record (:func:`to_record`) to the journal, and a restarted hub rebuilds the table by
decoding every record (:func:`from_record`) and applying it again. :func:`apply` reads
nothing but the table, the command and the deck (no hub, clock, randomness or disk), and a
command it refuses raises an :class:`~engine.errors.IllegalAction` before anything changed.

Unlike a game's state, a :class:`~engine.tables.Table` is changed in place: sessions,
timers and the journal's undo hold on to it, so it keeps its identity. Presence (who is
connected, the log's lines of who comes and goes) is not journaled and not made here.

Records keep the journal's first format: ``(kind, payload)`` with a kind string ("join",
"move"...) and a JSON-ready payload; journals written before commands had types load
unchanged (``tests/engine/test_commands.py`` replays one).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import asdict, dataclass, replace
from typing import Any, ClassVar, Protocol

from engine import rules
from engine.bots import LEVELS
from engine.errors import BrokenRule
from engine.rules import Phase
from engine.tables import MAX_SEATS, ChatLine, Seat, Table, TableOptions, unique_name

BOT_LEVELS = tuple(LEVELS)  # what the host may choose for a bot seat
REMOVED = "bot:removed:"  # the id of a person's seat the host handed to a bot


class Deck(Protocol):
    """The cards a game is dealt from when its start record names none."""

    @property
    def task_names(self) -> tuple[str, ...]: ...

    @property
    def item_names(self) -> tuple[str, ...]: ...


@dataclass(frozen=True)
class Create:
    """A new table: its seed, the player who made it and its options."""

    seed: str
    host: str
    options: TableOptions
    kind: ClassVar[str] = "create"


@dataclass(frozen=True)
class Close:
    """The table is over (left empty, or abandoned): it is served no more."""

    kind: ClassVar[str] = "close"
    lobby_sees: ClassVar[bool] = False


@dataclass(frozen=True)
class Join:
    """A person sits down (the first one at a table without a host becomes it)."""

    player: str
    name: str
    seat_code: str
    kind: ClassVar[str] = "join"
    lobby_sees: ClassVar[bool] = True


@dataclass(frozen=True)
class Leave:
    """A seat is given up, outside a game (its player left, or the host gave it away)."""

    seat: int
    kind: ClassVar[str] = "leave"
    lobby_sees: ClassVar[bool] = True


@dataclass(frozen=True)
class Remove:
    """In a game, the host ``by`` hands a person's seat to a bot for good; that person may
    not come back, nor a new guest from their ``addresses``."""

    seat: int
    by: str
    addresses: tuple[str, ...] = ()
    kind: ClassVar[str] = "remove"
    lobby_sees: ClassVar[bool] = True


@dataclass(frozen=True)
class Rename:
    player: str
    name: str
    kind: ClassVar[str] = "rename"
    lobby_sees: ClassVar[bool] = True


@dataclass(frozen=True)
class Reclaim:
    """A keyless guest takes back ``seat`` (and its identity, ``player``)."""

    seat: int
    player: str
    kind: ClassVar[str] = "reclaim"
    lobby_sees: ClassVar[bool] = True


@dataclass(frozen=True)
class SetOptions:
    options: TableOptions
    kind: ClassVar[str] = "options"
    lobby_sees: ClassVar[bool] = True


@dataclass(frozen=True)
class AddBot:
    level: str = "normal"
    kind: ClassVar[str] = "add_bot"
    lobby_sees: ClassVar[bool] = True


@dataclass(frozen=True)
class BotLevel:
    seat: int
    level: str
    kind: ClassVar[str] = "bot_level"
    lobby_sees: ClassVar[bool] = True


@dataclass(frozen=True)
class Chat:
    seat: int
    text: str
    kind: ClassVar[str] = "chat"
    lobby_sees: ClassVar[bool] = False


@dataclass(frozen=True)
class Start:
    """A game begins, dealt from ``tasks`` and ``items`` (the cards travel with the game,
    so a replay deals the same game after the deck changed; empty: the deck's)."""

    tasks: tuple[str, ...] = ()
    items: tuple[str, ...] = ()
    kind: ClassVar[str] = "start"
    lobby_sees: ClassVar[bool] = True


@dataclass(frozen=True)
class Move:
    """A move of the game; ``bot``: a bot made it (for a bot seat or an absent player)."""

    action: rules.Action
    bot: bool = False
    kind: ClassVar[str] = "move"
    lobby_sees: ClassVar[bool] = False


Command = (Close | Join | Leave | Remove | Rename | Reclaim | SetOptions | AddBot | BotLevel
           | Chat | Start | Move)
"""Everything that changes a table that exists (:class:`Create` makes one)."""


# --- records -----------------------------------------------------------------------------


def to_record(command: Command | Create) -> tuple[str, dict[str, Any]]:
    """The journal's ``(kind, payload)`` for ``command``: plain JSON-ready data."""
    match command:
        case Create():
            return command.kind, {"seed": command.seed, "host": command.host,
                                  "options": asdict(command.options)}
        case SetOptions():
            return command.kind, asdict(command.options)
        case Remove():
            return command.kind, {"seat": command.seat, "by": command.by,
                                  "addresses": list(command.addresses)}
        case Start():
            return command.kind, {"tasks": list(command.tasks), "items": list(command.items)}
        case Move():
            return command.kind, {"action": rules.action_to_dict(command.action),
                                  "bot": command.bot}
        case _:
            return command.kind, asdict(command)


def from_record(kind: str, payload: dict[str, Any]) -> Command | Create:
    """The command a journal record holds, in any format the journal was ever written in;
    an unknown kind or a malformed payload raises :class:`~engine.errors.BrokenRule`."""
    try:
        match kind:
            case "create":
                return Create(payload["seed"], payload["host"],
                              TableOptions(**payload["options"]))
            case "options":
                return SetOptions(TableOptions(**payload))
            case "remove":
                return Remove(payload["seat"], payload["by"],
                              tuple(payload.get("addresses") or ()))
            case "start":
                return Start(tuple(payload.get("tasks") or ()),
                             tuple(payload.get("items") or ()))
            case "move":
                return Move(rules.action_from_dict(payload["action"]),
                            bool(payload.get("bot", False)))
        cls = _SIMPLE.get(kind)
        if cls is None:
            raise BrokenRule(f"unknown table command {kind!r}")
        # mypy: the command classes of _SIMPLE are looked up by name, typed as type[Any]
        return cls(**payload)  # type: ignore[no-any-return]
    except (TypeError, KeyError) as error:
        raise BrokenRule(f"malformed {kind!r} record: {error}") from None


_SIMPLE: dict[str, type] = {cls.kind: cls for cls in (Close, Join, Leave, Rename, Reclaim,
                                                      AddBot, BotLevel, Chat)}


# --- the reducer -------------------------------------------------------------------------


def new_table(code: str, command: Create) -> Table:
    return Table(code=code, seed=command.seed, options=command.options,
                 host_id=command.host)


def apply(table: Table, command: Command, deck: Deck) -> None:
    """Change ``table`` as ``command`` says, or raise (the table unchanged)."""
    match command:
        case Move():
            _move(table, command)
        case Chat():
            table.chat.append(ChatLine(table.seats[command.seat].name, command.text))
        case Join():
            _join(table, command)
        case Leave():
            _leave(table, command)
        case Remove():
            _remove(table, command)
        case Rename():
            _rename(table, command)
        case Reclaim():
            _check_seat(table, command.seat)
            table.seats[command.seat].player_id = command.player
            if table.host_id is None:
                table.host_id = command.player
        case SetOptions():
            table.options = command.options
            table.note("the host changed the table options")
        case AddBot():
            _check_level(command.level)
            table.seats.append(_bot_seat(table.seats, command.level))
            table.note(f"{table.seats[-1].name} (a {command.level} bot) sits down")
        case BotLevel():
            _bot_level(table, command)
        case Start():
            _start(table, command, deck)
        case Close():
            table.status = "closed"


def _check_seat(table: Table, seat: int) -> None:
    if not 0 <= seat < len(table.seats):
        raise BrokenRule("there is no such seat")


def _check_level(level: str) -> None:
    if level not in BOT_LEVELS:
        raise BrokenRule(f"bots play {', '.join(BOT_LEVELS)}, not {level!r}")


def _join(table: Table, c: Join) -> None:
    if len(table.seats) >= table.options.max_seats:
        raise BrokenRule("the table is full")
    table.seats.append(Seat(c.player, unique_name(table, c.name), c.seat_code))
    if table.host_id is None:
        table.host_id = c.player
    table.note(f"{table.seats[-1].name} sits down")


def _leave(table: Table, c: Leave) -> None:
    _check_seat(table, c.seat)
    gone = table.seats.pop(c.seat)
    table.note(f"{gone.name} leaves the table")
    if gone.player_id == table.host_id:
        humans = [s.player_id for s in table.seats if not s.is_bot]
        table.host_id = humans[0] if humans else None
        if table.host_id is not None:
            table.note(f"{table.name_of(table.host_id)} is now the host")


def _remove(table: Table, c: Remove) -> None:
    """The seat keeps its name, points and hand (the rules go on as they were)."""
    if table.status != "playing" or not 0 <= c.seat < len(table.seats):
        raise BrokenRule("there is no such seat in a game here")
    gone = table.seats[c.seat]
    if gone.is_bot or gone.player_id == c.by:
        raise BrokenRule("only another person's seat can be removed")
    table.removed.add(gone.player_id)
    table.removed_from.update(c.addresses)
    gone.player_id, gone.seat_code = f"{REMOVED}{c.seat}:{len(table.removed)}", ""
    gone.connected, gone.away_since, gone.botted = True, None, False
    table.bots.pop(c.seat, None)
    table.bot_plans.pop(c.seat, None)
    table.ready.discard(c.seat)
    table.note(f"{table.name_of(c.by)} removed {gone.name}: a bot plays their seat")


def _rename(table: Table, c: Rename) -> None:
    seat = table.seat_of(c.player)
    if seat is None:
        return
    old = table.seats[seat].name
    table.seats[seat].name = unique_name(table, c.name, skip=seat)
    table.note(f"{old} is now called {table.seats[seat].name}")
    played = table.game_seat(c.player, seat)
    if table.state is not None and played is not None:
        names = list(table.state.players)
        names[played] = table.seats[seat].name
        table.state = replace(table.state, players=tuple(names))


def _bot_level(table: Table, c: BotLevel) -> None:
    _check_level(c.level)
    if not 0 <= c.seat < len(table.seats) or not table.seats[c.seat].is_bot:
        raise BrokenRule("that seat is not a bot")
    table.seats[c.seat].level = c.level
    table.bots.pop(c.seat, None)
    table.note(f"{table.seats[c.seat].name} now plays {c.level}")


def _bot_seat(seats: list[Seat], level: str) -> Seat:
    n = sum(1 for s in seats if s.is_bot) + 1
    names = {s.name for s in seats}
    name = next(f"Bot {label}" for label in _bot_names() if f"Bot {label}" not in names)
    return Seat(f"bot:{n}:{len(seats)}", name, "", level=level)


def _start(table: Table, c: Start, deck: Deck) -> None:
    seats = list(table.seats)
    while table.options.bots_fill and len(seats) < rules.MIN_PLAYERS:
        seats.append(_bot_seat(seats, "normal"))  # no line: the log starts anew below
    if not rules.MIN_PLAYERS <= len(seats) <= MAX_SEATS:
        raise BrokenRule(f"a game needs {rules.MIN_PLAYERS} to "
                         f"{table.options.max_seats} seats (add bots?)")
    state = rules.new_game(
        [s.name for s in seats], seed=f"{table.seed}/{table.games + 1}",
        tasks=c.tasks or deck.task_names, items=c.items or deck.item_names,
        options=table.options.rules_options())
    table.seats, table.state = seats, state
    table.games += 1
    table.played_by = tuple(s.player_id for s in seats)
    table.status = "playing"
    table.bots = {}
    table.bot_plans = {}
    table.log.clear()
    table.note(f"Game {table.games} begins. Round 1: "
               f"{seats[state.lead].name} is the lead agent", "round")


def _move(table: Table, c: Move) -> None:
    if table.state is None:
        raise BrokenRule("no game is running at this table")
    state, events = rules.apply(table.state, c.action)
    table.state = state
    if state.phase is not Phase.ROUND_OVER:
        table.ready.clear()
    # "(bot)" marks a move a bot made for a person (their time ran out, they are away, the
    # host removed them): a bot seat's own moves are its own. Only the move itself is the
    # bot's doing; a new round (even one the timer started) is nobody's move.
    by_bot = (c.bot and not isinstance(c.action, rules.NextRound)
              and not _own_bot_seat(table, c.action.seat))
    for i, event in enumerate(events):
        if event.part:
            table.note_move(event, by_bot=by_bot and i == 0)
        else:
            table.note(event.text, event.kind, by_bot=by_bot and i == 0)
    if state.phase is Phase.GAME_OVER:
        table.status = "finished"
        table.deadline_ms = None


def _own_bot_seat(table: Table, seat: int) -> bool:
    """A seat a bot sat down in (not a person's seat a bot plays)."""
    return (0 <= seat < len(table.seats) and table.seats[seat].is_bot
            and not table.seats[seat].player_id.startswith(REMOVED))


def _bot_names() -> Iterator[str]:
    yield from ("Ada", "Bix", "Cog", "Dot", "Echo", "Fizz", "Gizmo", "Hex")
    n = 1
    while True:
        yield str(n)
        n += 1
