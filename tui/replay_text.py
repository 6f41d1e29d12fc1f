"""What the replay screen says of one step of a finished game, as plain lines.

Pure functions, as :mod:`tui.board_text`: a :class:`~engine.replay.Replay`, a round and a
step in; tuples of ``(text, role)`` spans out (roles are :class:`tui.board.Lines`'
component classes). Names and plans are player text: only ever the text of a span.

The game is over, so nothing is secret: the lead's task is marked from the deal on.
"""

from __future__ import annotations

from functools import lru_cache

from rich.cells import cell_len, set_cell_size
from textual.content import Content

from engine.records import GameSummary
from engine.replay import Replay, ReplayRound, Step
from engine.rules import COLUMNS, ROWS
from engine.text import join_names, plural
from tui.board_text import Line, pad

STEP_WORDS = {"deal": "the deal", "pick": "an item picked", "stop": "Stop!",
              "guess": "a guess hidden", "reveal": "a guess revealed",
              "task": "the lead's task", "best_plan": "the best plan",
              "points": "the points", "end": "the host ends the game"}


def title(replay: Replay) -> str:
    game = replay.game
    return (f"Replay  ·  table {game.code}, game {game.game_no}  ·  "
            f"{game.finished_at:%d %b %Y %H:%M} UTC")


def where_line(replay: Replay, replay_round: ReplayRound, index: int) -> Line:
    """``Round 2 of 3 · step 4 of 15: an item picked · 40 s in``."""
    step = replay_round.steps[index]
    seconds = replay_round.seconds_in(step)
    when = "" if seconds is None else f"  ·  {_duration(seconds)} in"
    return ((f"Round {replay_round.number} of {len(replay.rounds)}", "title"),
            (f"  ·  step {index + 1} of {len(replay_round.steps)}: ", ""),
            (STEP_WORDS.get(step.kind, step.kind), "key"), (when, "dim"))


def task_lines(replay_round: ReplayRound, step: Step) -> tuple[Line, ...]:
    """The four tasks, the lead's secret one marked (and whether it is revealed yet)."""
    state = step.state
    lead = state.players[replay_round.lead]
    shown = step.kind in ("task", "best_plan", "points", "end")
    lines: list[Line] = [((f"Tasks  ·  lead {lead}", "title"),)]
    for card, task in enumerate(replay_round.tasks, start=1):
        if card == replay_round.secret:
            mark = "◆ secret, shown" if shown else "◆ secret"
            lines.append(((f"{card} ", "key"), (task, "secret"), (f"  {mark}", "lead")))
        else:
            lines.append(((f"{card} ", "key"), (task, "")))
    return tuple(lines)


def grid_lines(replay_round: ReplayRound, step: Step, width: int) -> tuple[Line, ...]:
    """The grid as dealt, one row of items per line; a picked item is marked."""
    picks = step.state.picks
    cell = max(6, (width - (COLUMNS - 1)) // COLUMNS)
    lines: list[Line] = [(("Items", "title"), (f"  ·  {plural(len(picks), 'pick')}", "dim"))]
    for row in range(ROWS):
        spans: list[tuple[str, str]] = []
        for column in range(COLUMNS):
            item = replay_round.grid[column][row]
            picked = column < len(picks) and picks[column] == row
            text = pad(set_cell_size(item, cell - 1).rstrip(), cell - 1)
            if column:
                spans.append((" ", ""))
            spans.append((("✓" if picked else " ") + text, "card" if picked else "dim"))
        lines.append(tuple(spans))
    return tuple(lines)


def score_lines(replay: Replay, replay_round: ReplayRound, step: Step) -> tuple[Line, ...]:
    """Every seat's running score, the lead and the Stop! holders marked, and who won
    once the game is over."""
    state = step.state
    lines: list[Line] = [(("Scores", "title"),)]
    over = step is replay.rounds[-1].steps[-1]
    width = max(cell_len(name) for name in state.players)
    for seat, name in enumerate(state.players):
        marks: list[tuple[str, str]] = []
        if seat == replay_round.lead:
            marks.append((" lead", "lead"))
        if seat in state.stop:
            marks.append((" Stop!", "stop"))
        if over and seat in replay.winners:
            marks.append((" ★ won", "good"))
        level = replay.levels[seat] if seat < len(replay.levels) else "human"
        bot = "    " if level == "human" else " bot"
        lines.append(((pad(name, width), "name"), (bot, "dim"),
                      (f" {state.scores[seat]:>3}", ""), *marks))
    return tuple(lines)


STORY_INDENT = 8  # "  1m40 ▶ ": the time and the mark before each line of the log


def story_lines(replay_round: ReplayRound, index: int, width: int = 0) -> tuple[Line, ...]:
    """What the round's log said up to this step, the newest step's lines marked; a line
    longer than ``width`` (a plan) wraps under its own text."""
    lines: list[Line] = []
    for n, step in enumerate(replay_round.steps[:index + 1]):
        seconds = replay_round.seconds_in(step)
        when = "      " if seconds is None else f"{_duration(seconds):>5} "
        now = n == index
        for k, text in enumerate(step.lines):
            role = _role(step, text) if now else "dim" if step.kind == "deal" else ""
            pieces = _wrap(text, width - STORY_INDENT)
            lines.append(((when if k == 0 else "      ", "dim"),
                          ("▶ " if now and k == 0 else "  ", "key"), (pieces[0], role),
                          *(_verdict(replay_round, step) if k == 0 else ())))
            lines.extend(((" " * STORY_INDENT, ""), (piece, role)) for piece in pieces[1:])
    return tuple(lines)


@lru_cache(maxsize=256)
def _wrap(text: str, width: int) -> tuple[str, ...]:
    """``text`` in lines of ``width`` cells (kept: each step draws the round's log again)."""
    if width < 10 or cell_len(text) <= width:
        return (text,)
    return tuple(line.plain.rstrip() for line in Content(text).wrap(width)) or (text,)


def game_line(game: GameSummary) -> tuple[str, ...]:
    """One finished game as the past games list shows it: date, code, players, winner,
    rounds."""
    winners = join_names(list(game.winners)) or "nobody"
    players = ", ".join(p.name for p in game.players)
    pruned = "" if game.moves_kept else "pruned, no replay: "
    return (f"{game.finished_at:%d %b %H:%M}", game.code + (f" {game.game_no}"
                                                            if game.game_no > 1 else ""),
            plural(game.rounds, "round"), winners, pruned + players)


def _verdict(replay_round: ReplayRound, step: Step) -> tuple[tuple[str, str], ...]:
    """A revealed guess is right or wrong: the secret is known all along."""
    if step.kind != "reveal" or step.seat is None:
        return ()
    right = step.state.guesses[step.seat] == replay_round.secret
    return (("  right", "good"),) if right else (("  wrong", "bad"),)


def _role(step: Step, text: str) -> str:
    if "'s plan: " in text:
        return "plan"
    return {"stop": "stop", "points": "good", "task": "secret"}.get(step.kind, "name")


def _duration(seconds: float) -> str:
    seconds = int(seconds)
    return f"{seconds}s" if seconds < 60 else f"{seconds // 60}m{seconds % 60:02d}"
