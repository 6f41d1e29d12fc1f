"""What the shared parts of the game screen say (status, tasks, scoreboard), as plain data
built from one seat's TableView; :mod:`tui.turn_text` does the seat's own panel.

Every function here is pure: a :class:`~engine.hub.TableView` in, a tuple of lines out.
A line is a tuple of spans ``(text, role)``; the role names a component class of
:class:`tui.board.Lines` (``""`` is plain text). Player-typed text (names, plans) only ever
lands in the text of a span, never in markup, so it is shown literally.

Because the widgets keep these tuples and compare them with the previous ones, a hub change
repaints only the widgets whose lines changed. And because they read only the seat's own
view, nothing here can show a secret the hub did not hand to this seat.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from rich.cells import cell_len

from engine.rules import COLUMNS, Phase, View
from engine.tables import TableView
from engine.text import join_names

Span = tuple[str, str]
Line = tuple[Span, ...]

AFTER_LEAD_REVEAL = (Phase.BEST_PLAN, Phase.ROUND_OVER, Phase.GAME_OVER)
REVEAL_PHASES = (Phase.REVEALING, Phase.LEAD_REVEAL, *AFTER_LEAD_REVEAL)


def plain(text: str) -> Line:
    return ((text, ""),)


def line_text(line: Line) -> str:
    return "".join(text for text, _role in line)


def pad(text: str, width: int) -> str:
    """``text`` padded with spaces to ``width`` terminal cells (names may be wide)."""
    return text + " " * max(0, width - cell_len(text))


def who(view: View, seat: int) -> str:
    """A player's name as this seat says it: "you" for themselves."""
    return "you" if seat == view.seat else view.players[seat]


def names(view: View, seats: Iterable[int]) -> str:
    return join_names([who(view, s) for s in seats])


def next_revealer(view: View) -> int | None:
    return next((s for s in view.guessers if s not in view.revealed), None)


def stoppers_pending(view: View) -> tuple[int, ...]:
    """Stop holders who have not hidden their guess yet: the lead waits for them."""
    return tuple(s for s in view.stop if not view.hidden[s])


def round_text(view: View) -> str:
    if view.total_rounds is None:
        return f"Round {view.round} (endless)"
    return f"Round {view.round} of {view.total_rounds}"


def task_name(view: View, card: int | None) -> str:
    if card is None or not 1 <= card <= len(view.tasks):
        return "?"
    return view.tasks[card - 1]


# --- status line -------------------------------------------------------------------------


def waiting_text(view: View) -> tuple[str, bool]:
    """What the table waits for (from ``view.waiting_for``), and whether it waits for me."""
    me = view.seat
    waiting = view.waiting_for
    mine = me is not None and me in waiting and view.phase is not Phase.ROUND_OVER
    phase = view.phase
    if phase is Phase.PICKING:
        pending = stoppers_pending(view)
        if pending:
            if mine:
                return "Your turn: hide a guess for your Stop!", True
            hide = "hides a guess" if len(pending) == 1 else "hide their guesses"
            return f"Stop! Waiting while {names(view, pending)} {hide}", False
        column = len(view.picks) + 1
        if mine:
            return f"Your turn: pick an item from column {column}", True
        return f"Waiting for {who(view, view.lead)} to pick from column {column}", False
    if phase is Phase.GUESSING:
        if mine:
            return "Your turn: hide your guess (keys 1-4)", True
        return f"Waiting for {names(view, waiting)} to hide a guess", False
    if phase is Phase.REVEALING:
        if mine:
            return "Your turn: reveal your guess and plan", True
        return f"Waiting for {names(view, waiting)} to reveal a guess", False
    if phase is Phase.LEAD_REVEAL:
        if mine:
            return "Your turn: reveal the task", True
        return f"Waiting for {who(view, view.lead)} to reveal the task", False
    if phase is Phase.BEST_PLAN:
        if mine:
            return "Your turn: name the best plan", True
        return f"Waiting for {who(view, view.lead)} to name the best plan", False
    if phase is Phase.ROUND_OVER:  # (the round's summary says the rest, room permitting)
        next_lead = (view.lead + 1) % len(view.players)
        if next_lead == view.seat:
            return "Round over: you lead next", False
        return f"Round over: next lead agent {who(view, next_lead)}", False
    return "Game over: Enter for the results", False


def status_line(tv: TableView) -> Line:
    view = tv.game
    assert view is not None
    waiting, mine = waiting_text(view)
    # the lead is marked in the players panel: the status row keeps its room for what the
    # table waits for, which must not be cut at 80 columns
    spans: list[Span] = [(round_text(view), "title"), (" · ", "")]
    spans.append((waiting, "me" if mine else ""))
    if view.phase is Phase.ROUND_OVER and tv.my_seat in tv.ready:
        spans.append((" · you are ready", "good"))
    if tv.my_seat is None:
        spans.append((" · watching", "dim"))
    elif tv.spectators:  # the players know they have an audience
        spans.append((f" · {tv.spectators} watching", "dim"))
    return tuple(spans)


# --- task bar ----------------------------------------------------------------------------


def task_lines(tv: TableView) -> tuple[Line, ...]:
    """The four numbered tasks; the lead's own task marked on the lead's screen only (the
    view holds ``secret`` for the lead, and for everyone once revealed)."""
    view = tv.game
    assert view is not None
    revealed_to_all = view.phase in AFTER_LEAD_REVEAL
    lines: list[Line] = []
    for number, task in enumerate(view.tasks, 1):
        is_secret = view.secret == number
        spans: list[Span] = [(f"{number} ", "key"), (task, "secret" if is_secret else "")]
        if is_secret:
            spans.append(("  ◀ the task" if revealed_to_all else "  ◀ your task",
                          "secret"))
        guessed = [s for s, g in enumerate(view.guesses) if g == number]
        if guessed:
            spans.append((f"  ← {names(view, guessed)}", "dim"))
        lines.append(tuple(spans))
    return tuple(lines)


# --- scoreboard --------------------------------------------------------------------------


def score_lines(tv: TableView) -> tuple[Line, ...]:
    """One line a seat: waiting marker, name, points, then public tags (lead, stop token,
    hidden guess without its value, revealed card, bot, away)."""
    view = tv.game
    assert view is not None
    width = min(16, max(cell_len(n) for n in view.players))
    show_cards = view.phase in AFTER_LEAD_REVEAL
    waiting = () if view.phase in (Phase.ROUND_OVER, Phase.GAME_OVER) else view.waiting_for
    lines: list[Line] = []
    for seat, name in enumerate(view.players):
        mark = "▸" if seat in waiting else " "
        spans: list[Span] = [(mark, "me"), (pad(name, width), "me" if seat == view.seat
                                               else "name")]
        spans.append((f" {view.scores[seat]:>3} ", "title"))
        if seat == view.lead:
            spans.append((" LEAD", "lead"))
        if seat in view.stop:
            spans.append((" STOP", "stop"))
        public_card = view.guesses[seat] if (seat in view.revealed or show_cards) else None
        if public_card is not None:
            role = ""
            if view.secret is not None and show_cards:
                role = "good" if public_card == view.secret else "bad"
            spans.append((f" [{public_card}]", role or "name"))
        elif view.hidden[seat] and seat != view.lead:
            spans.append((" hid", "dim"))
        if view.seat == seat:  # the game's seat: after a game a table's seats may move
            spans.append((" (you)", "dim"))
        if seat < len(tv.seats):
            info = tv.seats[seat]
            if info.is_bot:
                spans.append((" bot", "dim"))
            elif info.botted:
                spans.append((" away: bot plays", "warn"))
            elif not info.connected:
                spans.append((" away", "warn"))
        lines.append(tuple(spans))
    return tuple(lines)


def grid_title(view: View) -> str:
    if view.phase is Phase.PICKING and len(view.picks) < COLUMNS:
        return f"Items: one per column, left to right (column {len(view.picks) + 1} next)"
    return "Items: the four chosen"


# --- big moments ---------------------------------------------------------------------------


def _subject(view: View, seats: Sequence[int]) -> str:
    """Who did it, as a banner's sentence opens: "You shout", never "you shout" (names
    as their players wrote them)."""
    words = [who(view, s) for s in seats]
    if seats and seats[0] == view.seat:
        words[0] = "You"
    return join_names(words)


def moment_line(before: View, now: View) -> Line | None:
    """The banner for what just happened between two views of one round, if it deserves
    one: a Stop!, a card or the task revealed."""
    shouted = [s for s in now.stop if s not in before.stop]
    if shouted:
        single = len(shouted) == 1 and shouted[0] != now.seat  # "you shout", "Bo shouts"
        verb = "shouts" if single else "shout"
        return ((" STOP! ", "stop-key"), (f" {_subject(now, shouted)} {verb} Stop!",
                                           "stop"))
    revealed = [s for s in now.revealed if s not in before.revealed]
    if revealed:
        seat = revealed[-1]
        card = now.guesses[seat]
        verb = "reveal" if seat == now.seat else "reveals"
        return ((" REVEAL ", "card"), (f" {_subject(now, [seat])} {verb} {card}: ", "name"),
                (task_name(now, card), ""))
    if now.secret is not None and now.phase in AFTER_LEAD_REVEAL \
            and before.phase not in AFTER_LEAD_REVEAL:
        return ((" THE TASK ", "secret"), (f" was #{now.secret} ", "name"),
                (task_name(now, now.secret), "good"))
    return None
