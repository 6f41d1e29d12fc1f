"""The rulebook as a pure state machine.

``apply(state, action)`` returns ``(new_state, events)`` or raises
:class:`engine.errors.BrokenRule` (an :class:`IllegalAction`) with a message a player can
read; the state it was given is never changed (states are frozen). Randomness comes only
from the table's seed, so a journal of actions replays to exactly the same game.

Seats are numbered clockwise: the player to the *left* of seat ``s`` is ``s + 1`` (mod n).

Events are public by construction: they never carry a secret that is not yet revealed
(a hidden guess is announced without its number; the lead's task only at the reveal). Hidden
information leaves the state only through :func:`view_for`.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from enum import StrEnum

from engine.errors import BrokenRule
from engine.errors import IllegalAction as IllegalAction  # callers catch it here
from engine.text import PLAN_MAX, clean_text, join_names, plural

TASKS_ON_BAR = 4
COLUMNS = 4
ROWS = 4
GUESS_CARDS = (1, 2, 3, 4)
STARTING_POINTS = 1
MIN_PLAYERS = 3
MAX_PLAYERS = 8  # 6-8 is our house rule: each player leads once
ROUNDS_BY_PLAYERS = {3: 6, 4: 8, 5: 5}


class Phase(StrEnum):
    PICKING = "picking"  # lead picks items column by column; Stop! may be shouted
    GUESSING = "guessing"  # four items down; the others hide their guesses
    REVEALING = "revealing"  # guessers reveal in turn from the lead's left, with a plan
    LEAD_REVEAL = "lead_reveal"  # the lead reveals the task and their own plan
    BEST_PLAN = "best_plan"  # optional rule: the lead names the best plan
    ROUND_OVER = "round_over"  # points are in; waiting for someone to start the next round
    GAME_OVER = "game_over"


@dataclass(frozen=True)
class Options:
    """Table options that change the rules. ``rounds``: None means by player count (the
    rulebook's table), 0 means endless (play as long as you like)."""

    rounds: int | None = None
    best_plan: bool = False
    stop_tie_window_ms: int = 0

    def total_rounds(self, players: int) -> int | None:
        if self.rounds == 0:
            return None
        if self.rounds is not None:
            return self.rounds
        return ROUNDS_BY_PLAYERS.get(players, players)


# --- actions ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Pick:
    """The lead puts a token on the item at ``row`` of ``column`` (both 0-based)."""

    seat: int
    column: int
    row: int


@dataclass(frozen=True)
class Shout:
    """A guesser shouts Stop! ``at_ms`` is when their key's bytes reached the server."""

    seat: int
    at_ms: int = 0


@dataclass(frozen=True)
class Guess:
    """A guesser hides the guessing card ``card`` (1-4) face down."""

    seat: int
    card: int


@dataclass(frozen=True)
class Reveal:
    """A guesser turns over their card and tells their plan (may be empty)."""

    seat: int
    plan: str = ""


@dataclass(frozen=True)
class LeadReveal:
    """The lead shows the real task and how the items were meant to be used."""

    seat: int
    plan: str = ""


@dataclass(frozen=True)
class BestPlan:
    """Optional rule: the lead names the guesser with the best plan."""

    seat: int
    choice: int


@dataclass(frozen=True)
class NextRound:
    """Anyone at the table moves on once the round's points have been seen."""

    seat: int


@dataclass(frozen=True)
class EndGame:
    """Stop the game now (for endless games; the hub lets only the host do this)."""

    seat: int


Action = Pick | Shout | Guess | Reveal | LeadReveal | BestPlan | NextRound | EndGame


# --- results and events ----------------------------------------------------------------


@dataclass(frozen=True)
class ScoreLine:
    seat: int
    points: int
    reason: str


@dataclass(frozen=True)
class RoundResult:
    round: int
    lead: int
    secret: int
    task: str
    tasks: tuple[str, ...]
    items: tuple[str, ...]
    guesses: tuple[int | None, ...]
    plans: tuple[str, ...]
    stop: tuple[int, ...]
    best_plan: int | None
    lines: tuple[ScoreLine, ...]
    grid: tuple[tuple[str, ...], ...] = ()  # the 16 items on the table, grid[column][row]
    picks: tuple[int, ...] = ()  # the row picked in each column
    scores: tuple[int, ...] = ()  # every seat's score once the round's points are in

    def delta(self, seat: int) -> int:
        return sum(line.points for line in self.lines if line.seat == seat)


@dataclass(frozen=True)
class Event:
    kind: str
    text: str
    seat: int | None = None
    part: str = ""
    """For a move the log folds into the line of the moves before it (:func:`moves_text`):
    what this one adds (the item picked, the name of who hid a guess)."""


# --- state -----------------------------------------------------------------------------


@dataclass(frozen=True)
class State:
    seed: str
    options: Options
    players: tuple[str, ...]
    scores: tuple[int, ...]
    phase: Phase
    round: int
    lead: int
    secret: int
    tasks: tuple[str, ...]
    grid: tuple[tuple[str, ...], ...]  # grid[column][row]
    picks: tuple[int, ...] = ()
    stop: tuple[int, ...] = ()
    stop_at_ms: int | None = None  # the earliest holder's arrival stamp
    stop_stamps: tuple[int, ...] = ()  # each holder's, in the order of ``stop``
    stop_picks: int = 0  # items down when Stop! was first shouted
    guesses: tuple[int | None, ...] = ()
    plans: tuple[str, ...] = ()
    revealed: tuple[int, ...] = ()
    best_plan: int | None = None
    task_pile: tuple[str, ...] = ()
    task_discard: tuple[str, ...] = ()
    item_pile: tuple[str, ...] = ()
    item_discard: tuple[str, ...] = ()
    shuffles: int = 0
    history: tuple[RoundResult, ...] = field(default=())

    @property
    def n(self) -> int:
        return len(self.players)

    @property
    def total_rounds(self) -> int | None:
        return self.options.total_rounds(self.n)

    @property
    def guessers(self) -> tuple[int, ...]:
        """Seats other than the lead, in reveal order: starting at the lead's left."""
        return tuple((self.lead + k) % self.n for k in range(1, self.n))

    @property
    def stopper_pending(self) -> tuple[int, ...]:
        """Stop holders who have not hidden their guess yet (the lead must wait)."""
        return tuple(s for s in self.stop if self.guesses[s] is None)

    @property
    def next_revealer(self) -> int | None:
        for seat in self.guessers:
            if seat not in self.revealed:
                return seat
        return None

    def picked_items(self) -> tuple[str, ...]:
        return tuple(self.grid[c][r] for c, r in enumerate(self.picks))

    def waiting_for(self) -> tuple[int, ...]:
        """The seats whose move the table is waiting for now."""
        match self.phase:
            case Phase.PICKING:
                return self.stopper_pending or (self.lead,)
            case Phase.GUESSING:
                return tuple(s for s in self.guessers if self.guesses[s] is None)
            case Phase.REVEALING:
                nxt = self.next_revealer
                return () if nxt is None else (nxt,)
            case Phase.LEAD_REVEAL | Phase.BEST_PLAN:
                return (self.lead,)
            case Phase.ROUND_OVER:
                return tuple(range(self.n))
        return ()

    def winners(self) -> tuple[int, ...]:
        """Every seat with the top score: ties share victory."""
        top = max(self.scores)
        return tuple(s for s, p in enumerate(self.scores) if p == top)


def _rng(seed: str, *purpose: object) -> random.Random:
    return random.Random("/".join([seed, *map(str, purpose)]))


def _draw(
    pile: tuple[str, ...], discard: tuple[str, ...], count: int, seed: str, shuffles: int, kind: str
) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...], int]:
    """Draw ``count`` cards; when the pile runs out the discard is shuffled into it."""
    drawn: list[str] = []
    pile_l, discard_l = list(pile), list(discard)
    while len(drawn) < count:
        if not pile_l:
            if not discard_l:
                raise BrokenRule(f"the {kind} deck has run out of cards")
            pile_l = discard_l
            discard_l = []
            _rng(seed, "reshuffle", kind, shuffles).shuffle(pile_l)
            shuffles += 1
        drawn.append(pile_l.pop())
    return tuple(drawn), tuple(pile_l), tuple(discard_l), shuffles


def new_game(
    players: Sequence[str],
    *,
    seed: str | int,
    tasks: Sequence[str],
    items: Sequence[str],
    options: Options | None = None,
) -> State:
    """Setup: shuffle both decks, four tasks on the bar, a 4x4 grid of items, one point and
    cards 1-4 for everyone, and a random first lead agent."""
    options = options or Options()
    seed = str(seed)
    if not MIN_PLAYERS <= len(players) <= MAX_PLAYERS:
        raise BrokenRule(f"a game needs {MIN_PLAYERS} to {MAX_PLAYERS} players")
    if len(set(tasks)) < 2 * TASKS_ON_BAR or len(set(items)) < 2 * COLUMNS * ROWS:
        raise BrokenRule("the deck is too small to play")
    if options.rounds is not None and options.rounds < 0:
        raise BrokenRule("the number of rounds cannot be negative")
    task_pile = list(tasks)
    item_pile = list(items)
    _rng(seed, "setup", "tasks").shuffle(task_pile)
    _rng(seed, "setup", "items").shuffle(item_pile)
    bar, t_pile, _, _ = _draw(tuple(task_pile), (), TASKS_ON_BAR, seed, 0, "task")
    cells, i_pile, _, _ = _draw(tuple(item_pile), (), COLUMNS * ROWS, seed, 0, "item")
    grid = tuple(cells[c * ROWS : (c + 1) * ROWS] for c in range(COLUMNS))
    n = len(players)
    lead = _rng(seed, "setup", "lead").randrange(n)
    return State(
        seed=seed,
        options=options,
        players=tuple(players),
        scores=(STARTING_POINTS,) * n,
        phase=Phase.PICKING,
        round=1,
        lead=lead,
        secret=_assignment(seed, 1),
        tasks=bar,
        grid=grid,
        guesses=(None,) * n,
        plans=("",) * n,
        task_pile=t_pile,
        item_pile=i_pile,
    )


def _assignment(seed: str, round_no: int) -> int:
    """Step 1: the lead shuffles their guessing cards and secretly draws one."""
    return _rng(seed, "round", round_no, "assignment").choice(GUESS_CARDS)


# --- apply -----------------------------------------------------------------------------


def apply(state: State, action: Action) -> tuple[State, list[Event]]:
    """Check ``action`` against the rules and return the new state and its public events."""
    if not isinstance(action, Pick | Shout | Guess | Reveal | LeadReveal | BestPlan
                      | NextRound | EndGame):
        raise BrokenRule(f"unknown action {type(action).__name__}")
    for name, value in action.__dict__.items():
        if name not in ("plan",) and not _is_int(value):
            raise BrokenRule(f"{name} must be a whole number, not {value!r}")
        if name == "plan" and not isinstance(value, str):
            raise BrokenRule("a plan is text")
    if not 0 <= action.seat < state.n:
        raise BrokenRule(f"there is no seat {action.seat!r} at this table")
    if state.phase is Phase.GAME_OVER:
        raise BrokenRule("the game is over")
    match action:
        case Pick():
            return _pick(state, action)
        case Shout():
            return _shout(state, action)
        case Guess():
            return _guess(state, action)
        case Reveal():
            return _reveal(state, action)
        case LeadReveal():
            return _lead_reveal(state, action)
        case BestPlan():
            return _best_plan(state, action)
        case NextRound():
            return _next_round(state, action)
        case EndGame():
            return _end(state, action)
    raise AssertionError("unreachable")


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _name(state: State, seat: int) -> str:
    return state.players[seat]


def _pick(state: State, a: Pick) -> tuple[State, list[Event]]:
    if a.seat != state.lead:
        raise BrokenRule(f"only the lead agent, {_name(state, state.lead)}, picks items")
    if state.phase is not Phase.PICKING:
        raise BrokenRule("all four items are already chosen")
    if state.stopper_pending:
        pending = [_name(state, s) for s in state.stopper_pending]
        who = join_names(pending)
        hiding = "is hiding a guess" if len(pending) == 1 else "are hiding their guesses"
        raise BrokenRule(f"wait: {who} shouted Stop! and {hiding}")
    expected = len(state.picks)
    if a.column != expected:
        raise BrokenRule(f"items are chosen left to right: pick from column {expected + 1}")
    if not 0 <= a.row < ROWS:
        raise BrokenRule(f"column {expected + 1} has rows 1 to {ROWS}")
    picks = (*state.picks, a.row)
    item = state.grid[a.column][a.row]
    events = [Event("pick", moves_text("pick", _name(state, a.seat), (item,)), a.seat, item)]
    phase = Phase.GUESSING if len(picks) == COLUMNS else Phase.PICKING
    new = replace(state, picks=picks, phase=phase)
    if phase is Phase.GUESSING:
        events.append(Event("guessing", "All four items are down: hide your guesses"))
        new = _maybe_reveal(new, events)
    return new, events


def _shout(state: State, a: Shout) -> tuple[State, list[Event]]:
    """The earliest arrival stamp holds the token, and shouts stamped within the table's
    tie window after it share it. A shout stamped before the holder's (its app was busy, so
    it reached the table late) takes the token over while the race is still open: no
    holder has hidden a guess yet; holders stamped within the tie window of it keep a
    share. See "The Stop! race" in docs/architecture.md."""
    if a.seat == state.lead:
        raise BrokenRule("the lead agent cannot shout Stop!")
    if state.phase is not Phase.PICKING:
        raise BrokenRule("too late: Stop! only works before the 4th item is chosen")
    if a.seat in state.stop:
        raise BrokenRule("you already hold the stop token")
    name = _name(state, a.seat)
    if not state.stop:
        return (replace(state, stop=(a.seat,), stop_at_ms=a.at_ms, stop_stamps=(a.at_ms,),
                        stop_picks=len(state.picks)),
                [Event("stop", f"{name} shouts STOP! and takes the stop token", a.seat)])
    assert state.stop_at_ms is not None
    holder = join_names([_name(state, s) for s in state.stop])
    tie = state.options.stop_tie_window_ms
    if a.at_ms < state.stop_at_ms:
        if state.stopper_pending != state.stop or len(state.picks) != state.stop_picks:
            raise BrokenRule(f"too late: {holder} took the stop token before your Stop! "
                             "reached the table")
        kept = [(s, t) for s, t in zip(state.stop, state.stop_stamps, strict=True)
                if t - a.at_ms <= tie]
        text = f"{name} shouted Stop! first and takes the stop token from {holder}"
        if kept:
            text = (f"{name} shouted Stop! first and shares the stop token with "
                    f"{join_names([_name(state, s) for s, _t in kept])}")
        return (replace(state, stop=(a.seat, *(s for s, _t in kept)), stop_at_ms=a.at_ms,
                        stop_stamps=(a.at_ms, *(t for _s, t in kept))),
                [Event("stop", text, a.seat)])
    if a.at_ms - state.stop_at_ms > tie or len(state.picks) != state.stop_picks:
        raise BrokenRule(f"{holder} shouted Stop! first")
    text = f"{name} shouted Stop! at the same moment: they share the token"
    return (replace(state, stop=(*state.stop, a.seat),
                    stop_stamps=(*state.stop_stamps, a.at_ms)),
            [Event("stop", text, a.seat)])


def _guess(state: State, a: Guess) -> tuple[State, list[Event]]:
    if a.seat == state.lead:
        raise BrokenRule("the lead agent knows the task and does not guess")
    if state.phase not in (Phase.PICKING, Phase.GUESSING):
        raise BrokenRule("guesses are already being revealed")
    if state.guesses[a.seat] is not None:
        raise BrokenRule("your guess is hidden already and cannot change")
    if state.phase is Phase.PICKING and a.seat not in state.stop:
        if state.stop:  # the token is taken: Stop! is no way in now
            holders = join_names([_name(state, s) for s in state.stop])
            raise BrokenRule(f"wait until all four items are down ({holders} "
                             f"{'holds' if len(state.stop) == 1 else 'hold'} the stop token)")
        raise BrokenRule("wait until all four items are down, or shout Stop! first")
    if a.card not in GUESS_CARDS:
        raise BrokenRule("guess with a card from 1 to 4")
    guesses = list(state.guesses)
    guesses[a.seat] = a.card
    new = replace(state, guesses=tuple(guesses))
    name = _name(state, a.seat)
    events = [Event("guess", moves_text("guess", name, (name,)), a.seat, name)]
    return _maybe_reveal(new, events), events


def moves_text(kind: str, who: str, parts: Sequence[str]) -> str:
    """The log's one line for moves of one kind made one after another, which the board
    already shows as each is made: "Bob marks Fork · Rope" (``who`` is the lead, ``parts``
    the items), "Ann and Cy hide their guesses" (``parts`` the guessers)."""
    if kind == "pick":
        return f"{who} marks {' · '.join(parts)}"
    return f"{join_names(parts)} {'hides a guess' if len(parts) == 1 else 'hide their guesses'}"


def _maybe_reveal(state: State, events: list[Event]) -> State:
    if state.phase is Phase.GUESSING and all(state.guesses[s] is not None for s in state.guessers):
        first = state.guessers[0]
        events.append(Event("revealing", f"All guesses are hidden: {_name(state, first)} "
                                         "reveals first"))
        return replace(state, phase=Phase.REVEALING)
    return state


def _reveal(state: State, a: Reveal) -> tuple[State, list[Event]]:
    if state.phase is not Phase.REVEALING:
        if a.seat == state.lead and state.phase is Phase.LEAD_REVEAL:
            raise BrokenRule("as lead agent you reveal the task, not a guess")
        raise BrokenRule("it is not time to reveal guesses")
    turn = state.next_revealer
    if a.seat != turn:
        assert turn is not None
        raise BrokenRule(f"it is {_name(state, turn)}'s turn to reveal")
    plan = clean_text(a.plan, PLAN_MAX)
    plans = list(state.plans)
    plans[a.seat] = plan
    revealed = (*state.revealed, a.seat)
    card = state.guesses[a.seat]
    # mypy: a seat that reveals has hidden a guess (rules checked it): card is not None
    text = f"{_name(state, a.seat)} reveals {card}: {state.tasks[card - 1]}"  # type: ignore[operator]
    events = [Event("reveal", text, a.seat)]
    if plan:
        events.append(Event("plan", f"{_name(state, a.seat)}'s plan: {plan}", a.seat))
    phase = Phase.LEAD_REVEAL if len(revealed) == len(state.guessers) else Phase.REVEALING
    return replace(state, plans=tuple(plans), revealed=revealed, phase=phase), events


def _lead_reveal(state: State, a: LeadReveal) -> tuple[State, list[Event]]:
    if a.seat != state.lead:
        raise BrokenRule("only the lead agent reveals the task")
    if state.phase is not Phase.LEAD_REVEAL:
        raise BrokenRule("the task is revealed after every guess is shown")
    plan = clean_text(a.plan, PLAN_MAX)
    plans = list(state.plans)
    plans[a.seat] = plan
    state = replace(state, plans=tuple(plans))
    events = [Event("task", f"{_name(state, a.seat)} reveals the task: {state.secret}, "
                            f"{state.tasks[state.secret - 1]}", a.seat)]
    if plan:
        events.append(Event("plan", f"{_name(state, a.seat)}'s plan: {plan}", a.seat))
    if state.options.best_plan:
        events.append(Event("best_plan", f"{_name(state, a.seat)} now names the best plan"))
        return replace(state, phase=Phase.BEST_PLAN), events
    return _score(state, events)


def _best_plan(state: State, a: BestPlan) -> tuple[State, list[Event]]:
    if a.seat != state.lead:
        raise BrokenRule("only the lead agent names the best plan")
    if state.phase is not Phase.BEST_PLAN:
        raise BrokenRule("the best plan is named after the task is revealed")
    if a.choice not in state.guessers:
        raise BrokenRule("name one of the other players")
    # The choice is the lead's move and the first line it logs (a bot lead's "(bot)" tag
    # goes on this line, never on a player's points).
    events = [Event("best_plan", f"{_name(state, a.seat)} names {_name(state, a.choice)}'s "
                                 "plan the best", a.seat)]
    return _score(replace(state, best_plan=a.choice), events)


def score_lines(state: State) -> tuple[ScoreLine, ...]:
    """Step 5, as a list of explained point changes, in the rulebook's order: correct
    guesses, the lead's points, the stop token, then the optional best plan. The stop
    penalty is settled *before* the best-plan point: a stopper who guessed wrong with 0
    points has nothing to return (a 0 line says so) and keeps a best-plan point won after."""
    lines: list[ScoreLine] = []
    correct = [s for s in state.guessers if state.guesses[s] == state.secret]
    for seat in state.guessers:
        if seat in correct:
            lines.append(ScoreLine(seat, 1, "correct guess"))
    if correct:
        lines.append(ScoreLine(state.lead, len(correct),
                               f"lead agent: {len(correct)} correct guess"
                               + ("es" if len(correct) > 1 else "")))
    running = list(state.scores)
    for line in lines:
        running[line.seat] += line.points
    for seat in state.stop:
        if seat in correct:
            lines.append(ScoreLine(seat, 1, "stop token bonus"))
        elif running[seat] > 0:
            lines.append(ScoreLine(seat, -1, "stop token penalty"))
            running[seat] -= 1
        else:
            lines.append(ScoreLine(seat, 0, "stop token penalty (no point to return)"))
    if state.best_plan is not None:
        lines.append(ScoreLine(state.best_plan, 1, "best plan"))
    return tuple(lines)


def _score(state: State, events: list[Event]) -> tuple[State, list[Event]]:
    lines = score_lines(state)
    scores = list(state.scores)
    for line in lines:
        scores[line.seat] += line.points
        if line.points:
            sign = "+" if line.points > 0 else ""
            events.append(Event("score", f"{_name(state, line.seat)} {sign}{line.points} "
                                         f"({line.reason})", line.seat))
    result = RoundResult(
        round=state.round,
        lead=state.lead,
        secret=state.secret,
        task=state.tasks[state.secret - 1],
        tasks=state.tasks,
        items=state.picked_items(),
        guesses=state.guesses,
        plans=state.plans,
        stop=state.stop,
        best_plan=state.best_plan,
        lines=lines,
        grid=state.grid,
        picks=state.picks,
        scores=tuple(scores),
    )
    new = replace(state, scores=tuple(scores), history=(*state.history, result),
                  phase=Phase.ROUND_OVER)
    total = new.total_rounds
    if total is not None and new.round >= total:
        return _finish(new, events)
    return new, events


def _finish(state: State, events: list[Event]) -> tuple[State, list[Event]]:
    names = join_names([_name(state, s) for s in state.winners()])
    points = plural(max(state.scores), "point")
    verb = "win" if len(state.winners()) > 1 else "wins"
    events.append(Event("game_over", f"Game over: {names} {verb} with {points}"))
    return replace(state, phase=Phase.GAME_OVER), events


def _next_round(state: State, a: NextRound) -> tuple[State, list[Event]]:
    if state.phase is not Phase.ROUND_OVER:
        raise BrokenRule("the round is not over yet")
    # Step 6: discard the bar and draw four new tasks; replace the chosen items in place.
    bar, t_pile, t_discard, shuffles = _draw(
        state.task_pile, (*state.task_discard, *state.tasks), TASKS_ON_BAR,
        state.seed, state.shuffles, "task")
    chosen = state.picked_items()
    fresh, i_pile, i_discard, shuffles = _draw(
        state.item_pile, (*state.item_discard, *chosen), COLUMNS, state.seed, shuffles, "item")
    grid = [list(col) for col in state.grid]
    for column, row in enumerate(state.picks):
        grid[column][row] = fresh[column]
    lead = (state.lead + 1) % state.n
    round_no = state.round + 1
    new = replace(
        state,
        phase=Phase.PICKING,
        round=round_no,
        lead=lead,
        secret=_assignment(state.seed, round_no),
        tasks=bar,
        grid=tuple(tuple(col) for col in grid),
        picks=(),
        stop=(),
        stop_at_ms=None,
        stop_stamps=(),
        stop_picks=0,
        guesses=(None,) * state.n,
        plans=("",) * state.n,
        revealed=(),
        best_plan=None,
        task_pile=t_pile,
        task_discard=t_discard,
        item_pile=i_pile,
        item_discard=i_discard,
        shuffles=shuffles,
    )
    text = f"Round {round_no}: {_name(state, lead)} is the lead agent"
    return new, [Event("round", text, lead)]


def _end(state: State, a: EndGame) -> tuple[State, list[Event]]:
    return _finish(state, [Event("end", f"{_name(state, a.seat)} ends the game")])


# --- views -----------------------------------------------------------------------------


@dataclass(frozen=True)
class View:
    """What one seat (or a spectator, ``seat=None``) may know of the table."""

    seat: int | None
    phase: Phase
    round: int
    total_rounds: int | None
    players: tuple[str, ...]
    scores: tuple[int, ...]
    lead: int
    tasks: tuple[str, ...]
    grid: tuple[tuple[str, ...], ...]
    picks: tuple[int, ...]
    stop: tuple[int, ...]
    hidden: tuple[bool, ...]  # has this seat hidden a guess?
    guesses: tuple[int | None, ...]  # own guess, and others' once revealed
    plans: tuple[str, ...]  # shown once revealed
    revealed: tuple[int, ...]
    secret: int | None  # the lead's task: to the lead, and to all after the reveal
    best_plan: int | None
    waiting_for: tuple[int, ...]
    history: tuple[RoundResult, ...]
    best_plan_rule: bool

    @property
    def is_lead(self) -> bool:
        return self.seat is not None and self.seat == self.lead

    @property
    def guessers(self) -> tuple[int, ...]:
        n = len(self.players)
        return tuple((self.lead + k) % n for k in range(1, n))

    def picked_items(self) -> tuple[str, ...]:
        return tuple(self.grid[c][r] for c, r in enumerate(self.picks))

    @property
    def my_guess(self) -> int | None:
        return None if self.seat is None else self.guesses[self.seat]

    def can_shout(self) -> bool:
        return (self.seat is not None and not self.is_lead and self.phase is Phase.PICKING
                and not self.stop)

    def can_guess(self) -> bool:
        if self.seat is None or self.is_lead or self.guesses[self.seat] is not None:
            return False
        if self.phase is Phase.GUESSING:
            return True
        return self.phase is Phase.PICKING and self.seat in self.stop

    def can_pick(self) -> bool:
        return (self.is_lead and self.phase is Phase.PICKING
                and not any(not self.hidden[s] for s in self.stop))

    def winners(self) -> tuple[int, ...]:
        top = max(self.scores)
        return tuple(s for s, p in enumerate(self.scores) if p == top)


def view_for(state: State, seat: int | None) -> View:
    """The one way state reaches a screen or a bot: secrets of other seats removed."""
    lead_revealed = state.phase in (Phase.BEST_PLAN, Phase.ROUND_OVER, Phase.GAME_OVER)
    guesses = tuple(
        g if (s == seat or s in state.revealed or lead_revealed) else None
        for s, g in enumerate(state.guesses)
    )
    plans = tuple(p if (s in state.revealed or (s == state.lead and lead_revealed)) else ""
                  for s, p in enumerate(state.plans))
    return View(
        seat=seat,
        phase=state.phase,
        round=state.round,
        total_rounds=state.total_rounds,
        players=state.players,
        scores=state.scores,
        lead=state.lead,
        tasks=state.tasks,
        grid=state.grid,
        picks=state.picks,
        stop=state.stop,
        hidden=tuple(g is not None for g in state.guesses),
        guesses=guesses,
        plans=plans,
        revealed=state.revealed,
        secret=state.secret if (seat == state.lead or lead_revealed) else None,
        best_plan=state.best_plan,
        waiting_for=state.waiting_for(),
        history=state.history,
        best_plan_rule=state.options.best_plan,
    )


# --- serialization (journal, --json output) ----------------------------------------------

_ACTION_TYPES: dict[str, type] = {
    cls.__name__: cls
    for cls in (Pick, Shout, Guess, Reveal, LeadReveal, BestPlan, NextRound, EndGame)
}


def action_to_dict(action: Action) -> dict[str, object]:
    """``{"type": "Pick", "seat": 0, "column": 1, "row": 2}``: plain JSON-ready data."""
    return {"type": type(action).__name__, **action.__dict__}


def action_from_dict(data: dict[str, object]) -> Action:
    """The inverse of :func:`action_to_dict`; malformed data raises :class:`BrokenRule`."""
    fields = dict(data)
    cls = _ACTION_TYPES.get(str(fields.pop("type", "")))
    if cls is None:
        raise BrokenRule(f"unknown action {data.get('type')!r}")
    try:
        # mypy: the action classes of _ACTION_TYPES are looked up by name, typed as type[Any]
        return cls(**fields)  # type: ignore[no-any-return]
    except TypeError as error:
        raise BrokenRule(f"malformed {cls.__name__}: {error}") from None


def game_summary(state: State) -> dict[str, object]:
    """A finished game as plain data: names, scores, winners and every round explained."""
    return {
        "players": list(state.players),
        "total_rounds": state.total_rounds,
        "stop_tie_window_ms": state.options.stop_tie_window_ms,
        "first_lead": state.history[0].lead if state.history else state.lead,
        "scores": list(state.scores),
        "winners": list(state.winners()),
        "rounds": [{**asdict(result),
                    "deltas": [result.delta(seat) for seat in range(state.n)]}
                   for result in state.history],
    }
