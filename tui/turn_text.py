"""The seat's own panel, as plain data from its TableView: the lead's secret task or the
guesser's hand, what to do now, the plan prompt, the reveals and the round's points.

Same conventions as :mod:`tui.board_text`: lines of ``(text, role)`` spans, user text only
ever as span text, and nothing read but this seat's own view.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.cells import cell_len

from engine.rules import Phase, View
from engine.tables import TableView
from tui.board_text import (
    AFTER_LEAD_REVEAL,
    REVEAL_PHASES,
    Line,
    Span,
    names,
    next_revealer,
    pad,
    plain,
    stoppers_pending,
    task_name,
    who,
)

# --- the seat's own panel: hand, secret, what to do ----------------------------------------


def _hand_line(view: View) -> Line:
    mine = view.my_guess
    spans: list[Span] = [("Your cards: ", "")]
    for card in (1, 2, 3, 4):
        spans.append((f" {card} ", "secret" if card == mine else "card"))
        spans.append((" ", ""))
    if mine is not None:
        verb = "revealed" if view.seat in view.revealed else "hid"
        spans.append((f" you {verb} {mine}: {task_name(view, mine)}", "dim"))
    return tuple(spans)


def _next_round_line(tv: TableView) -> Line:
    view = tv.game
    assert view is not None
    new_lead = (view.lead + 1) % len(view.players)
    tail: Line = ((". Next lead agent: ", ""), (who(view, new_lead), "name"))
    waiting = [s for s in tv.waiting_ready if s != tv.my_seat]
    others: Line = ((f". Waiting for {names(view, waiting)}", "dim"),) if waiting else ()
    if tv.my_seat is None:
        return (("Round over", "title"), *others, *tail)
    if tv.my_seat in tv.ready:
        return (("You are ready", "good"), *others, *tail)
    # "for the next round" stays in these words: the bench reads it
    return (("Press ", ""), ("Enter", "key"), (" when you are ready for the next round", ""),
            *tail)


def _lead_lines(tv: TableView, view: View) -> list[Line]:
    lines: list[Line] = []
    if view.phase not in AFTER_LEAD_REVEAL:
        lines.append((("Your secret task: ", ""),
                      (f"#{view.secret} {task_name(view, view.secret)}", "secret")))
    phase = view.phase
    if phase is Phase.PICKING:
        pending = stoppers_pending(view)
        if pending:
            lines.append((("Wait: ", "warn"),
                           (f"{names(view, pending)} shouted Stop! and "
                            + ("is hiding a guess" if len(pending) == 1
                               else "are hiding their guesses"), "")))
        else:
            lines.append(((f"Pick from column {len(view.picks) + 1}: ", "me"), ("↑↓", "key"),
                          (" + ", ""), ("Enter", "key"), (", keys ", ""), ("1-4", "key"),
                          (" or a click. Stay silent: no hints!", "")))
    elif phase is Phase.GUESSING:
        lines.append(plain("All four items are down: the others hide their guesses."))
    elif phase is Phase.REVEALING:
        nxt = next_revealer(view)
        lines.append(plain(f"Listen: {who(view, nxt) if nxt is not None else '-'} reveals "
                           "next. You reveal the task last."))
    elif phase is Phase.LEAD_REVEAL:
        lines.append((("Your turn: ", "me"), ("type how the items were meant to be used "
                                              "(optional), then ", ""),
                       ("Enter", "key")))
    elif phase is Phase.BEST_PLAN:
        spans: list[Span] = [("Name the best plan: ", "me")]
        for k, seat in enumerate(view.guessers, 1):
            spans += [(str(k), "key"), (f" {view.players[seat]}  ", "")]
        lines.append(tuple(spans))
    return lines


def _guesser_lines(tv: TableView, view: View) -> list[Line]:
    me = view.seat
    assert me is not None
    lines: list[Line] = [_hand_line(view)]
    phase = view.phase
    lead = who(view, view.lead)
    if phase is Phase.PICKING:
        if view.can_shout():
            lines.append((("[S] Stop!", "stop-key"),
                          ("  guess early, before the 4th item: +1 if right, -1 if wrong", "")))
        elif me in view.stop and view.my_guess is None:
            lines.append((("You shouted Stop! ", "stop"), ("Hide your guess now: ", ""),
                          ("1-4", "key"), (f" ({lead} waits for you)", "")))
        elif me in view.stop:
            lines.append(plain("Stop token placed on your guess. Watch the last items."))
        else:
            holder = names(view, view.stop)
            lines.append(((f"{holder} holds the stop token. ", "stop"),
                           ("Hide your guess (", ""), ("1-4", "key"),
                           (") when all four items are down.", "")))
    elif phase is Phase.GUESSING:
        if view.my_guess is None:
            lines.append((("Hide your guess: ", "me"), ("press ", ""), ("1-4", "key"),
                          (" for the task you think it is.", "")))
        else:
            waiting = [s for s in view.waiting_for if s != me]
            lines.append(plain(f"Your guess is hidden. Waiting for {names(view, waiting)}."))
    elif phase is Phase.REVEALING:
        nxt = next_revealer(view)
        if nxt == me:
            lines.append((("Your turn to reveal. ", "me"),
                          ("Type your plan for the four items (optional), then ", ""),
                          ("Enter", "key")))
        elif me in view.revealed:
            lines.append(plain(f"Waiting for {names(view, view.waiting_for)} to reveal."))
        else:
            lines.append(plain(f"{who(view, nxt) if nxt is not None else '-'} reveals next; "
                               "you reveal in turn from the lead's left."))
    elif phase is Phase.LEAD_REVEAL:
        lines.append(plain(f"Waiting for {lead} to reveal the task."))
    elif phase is Phase.BEST_PLAN:
        lines.append(plain(f"Waiting for {lead} to name the best plan."))
    return lines


SEAT_CODE_PROMPT = "Had a seat? Type your seat code here, then Enter"


def reclaim_lines() -> tuple[Line, ...]:
    """A guest watching a game where a person's seat waits: how to sit back down."""
    return ((("You are watching. ", "dim"), ("Had a seat here? ", "me"),
             ("Type your seat code below and press ", ""), ("Enter", "key"),
             (" to sit back down.", "")),)


def seat_code_prompt(seat_code: str) -> str:
    """A guest's seat code, where they will look for it again (the plan's row at the
    round's summary)."""
    return f"Your seat code: {seat_code} (type it to come back to this seat after a drop)"


def turn_lines(tv: TableView) -> tuple[Line, ...]:
    """This seat's private panel: the lead's secret task or the hand, and what to do now."""
    view = tv.game
    assert view is not None
    if view.phase is Phase.ROUND_OVER:
        return (_next_round_line(tv),)
    if view.phase is Phase.GAME_OVER:
        # "for the final results" stays in these words: the benches read it
        return (("The game is over. Press ", ""), ("Enter", "key"),
                (" for the final results", "")),
    if tv.my_seat is None:
        return ((("You are watching: no hand and no moves. ", "dim"), ("l", "key"),
                 (" goes back to the lobby.", "dim")),)
    if view.is_lead:
        return tuple(_lead_lines(tv, view))
    return tuple(_guesser_lines(tv, view))


PLAN_NOW, PLAN_AHEAD = "now", "ahead"


def plan_moment(tv: TableView) -> str | None:
    """When this seat writes its plan: :data:`PLAN_NOW` when it must reveal now;
    :data:`PLAN_AHEAD` while it waits for that turn with nothing else to do (a guesser whose
    guess is hidden, the lead once the four items are down); else None."""
    view = tv.game
    if view is None or tv.my_seat is None:
        return None
    phase = view.phase
    if view.is_lead:
        if phase is Phase.LEAD_REVEAL:
            return PLAN_NOW
        return PLAN_AHEAD if phase in (Phase.GUESSING, Phase.REVEALING) else None
    if view.my_guess is None or tv.my_seat in view.revealed:
        return None
    if phase is Phase.REVEALING and next_revealer(view) == tv.my_seat:
        return PLAN_NOW
    return PLAN_AHEAD if phase in (Phase.PICKING, Phase.GUESSING, Phase.REVEALING) else None


def plan_prompt(tv: TableView) -> str:
    """The placeholder of the plan input: what goes there, and when."""
    view = tv.game
    if view is None or tv.my_seat is None:
        return ""
    moment = plan_moment(tv)
    if moment == PLAN_NOW:
        if view.is_lead:
            return "Your plan (optional), Enter reveals the task"
        return f"Your plan (optional), Enter reveals card {view.my_guess}"
    if moment == PLAN_AHEAD:
        if view.is_lead:
            return "Write your plan ahead: you reveal it with the task, last"
        return f"Write your plan ahead: you reveal it with card {view.my_guess} in your turn"
    if view.is_lead:
        return "your plan goes here once the four items are down" \
            if view.phase is Phase.PICKING else ""
    if view.my_guess is None and view.phase in (Phase.PICKING, Phase.GUESSING):
        return "your plan goes here once your guess is hidden"
    return ""


# --- reveals and the round's points --------------------------------------------------------


def reveal_lines(tv: TableView) -> tuple[Line, ...]:
    """Revealed cards and plans in reveal order, then the lead's; at round over the points
    of the round, each explained."""
    view = tv.game
    assert view is not None
    if (view.phase is Phase.ROUND_OVER and view.history) or last_round_over(view):
        return round_over_lines(view)
    if view.phase not in REVEAL_PHASES:
        return ()
    lines: list[Line] = []
    lead_revealed = view.phase in AFTER_LEAD_REVEAL and view.secret is not None
    newest = view.lead if lead_revealed else (view.revealed[-1] if view.revealed else None)
    for seat in view.revealed:
        card = view.guesses[seat]
        lines.append(((view.players[seat], "name"),
                      (f" reveals {card}: {task_name(view, card)}", ""),
                      *_plan_mark(view.plans[seat], seat == newest)))
    if lead_revealed:
        lines.append(((view.players[view.lead], "name"), (" (lead) reveals the task: ", ""),
                      (f"#{view.secret} {task_name(view, view.secret)}", "good"),
                      *_plan_mark(view.plans[view.lead], True)))
    if newest is not None and view.plans[newest]:
        # the newest plan whole, for everyone to read before the next reveal (the panel
        # wraps it, and leaves out the oldest reveals if it must)
        lines.append(((f"{view.players[newest]}'s plan: ", "name"),
                      (view.plans[newest], "plan")))
    return tuple(lines)


def _plan_mark(plan: str, shown: bool) -> tuple[Span, ...]:
    """The newest plan is printed whole below the reveals; the others, in the log (PgUp
    reads back): a mark says there is one."""
    if not plan:
        return ()
    return (("  · plan below", "plan"),) if shown else (("  · plan in the log", "plan"),)


def fit_round_over(lines: tuple[Line, ...], rows: int, *, players: int) -> tuple[Line, ...]:
    """The round's summary (:func:`reveal_lines` then this seat's lines: ``players``
    point lines after the header, then what to do now) in ``rows`` rows: its header line
    is never the one left out. What goes first when they do not fit: the lines after the
    points (the status row names the next lead, the key bar says Enter), then each
    point's reasons (the log has them: PgUp), the points on as few rows as they take."""
    if rows <= 0 or len(lines) <= rows:
        return lines
    header, points = lines[0], lines[1:1 + players]
    if 1 + players <= rows:
        return (header, *points)
    cells: list[Span] = [("Points (why: PgUp):", "dim")]
    for line in points:
        name, delta = line[0][0].strip(), line[1]
        cells += [("  " + name, "name"), (delta[0].rstrip(), delta[1])]
    return (header, tuple(cells))


def last_round_over(view: View) -> bool:
    """The game is over and its round was scored (not a round ended half way): the game
    screen shows that round's summary, as every round's."""
    return (view.phase is Phase.GAME_OVER and bool(view.history)
            and view.history[-1].round == view.round)


def round_over_lines(view: View) -> tuple[Line, ...]:
    result = view.history[-1]
    width = min(16, max(cell_len(n) for n in view.players))
    over = "over, the last" if view.phase is Phase.GAME_OVER else "over"
    lines: list[Line] = [((f"Round {result.round} {over}. The task was ", "title"),
                          (f"#{result.secret} {result.task}", "good"))]
    for seat in _seat_order(view, result.lead):
        scored = [(ln.reason, ln.points) for ln in result.lines if ln.seat == seat]
        delta = result.delta(seat)
        guess = result.guesses[seat] if seat < len(result.guesses) else None
        if seat != result.lead and guess is not None and guess != result.secret:
            # the card's number only: the tasks panel marks it, and the line fits 80 columns
            scored.insert(0, (f"wrong guess ({guess})", 0))
        # more than one reason: each says what it brought ("wrong guess (3); best plan
        # +1"), or the point seems to come from the wrong guess, and a 0 hides a -1 and +1
        reasons = [f"{reason} {points:+d}" if points and len(scored) > 1 else reason
                   for reason, points in scored] or ["no correct guesses"]
        role = "good" if delta > 0 else ("bad" if delta < 0 else "dim")
        lines.append(((" " + pad(view.players[seat], width), "name"),
                      (f" {delta:+d} ", role), ("; ".join(reasons), "")))
    return tuple(lines)


def _seat_order(view: View, lead: int) -> Sequence[int]:
    n = len(view.players)
    return [lead, *((lead + k) % n for k in range(1, n))]
