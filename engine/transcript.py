"""A finished game as Markdown, to share in a chat: ``export CODE --format md``.

Round by round: the lead, the four tasks and the secret one, the items picked, who shouted
Stop! and when, every guess with its plan, the lead's plan, every point and the scores.
Only lists, bold and headings: chats that draw no tables (Slack, Discord) show it well, and
as plain text it still reads. What players typed (names, plans) is escaped, so it shows as
they typed it and cannot turn into links or markup.
"""

from __future__ import annotations

import re

from engine.replay import Replay, ReplayRound
from engine.rules import RoundResult
from engine.text import join_names

_MARKUP = re.compile(r"([\\`*_\[\]<>|~@])")
"""What makes markup inside a line (players' text never starts one: ``#``, ``-`` and
``1.`` are safe), and ``@``, which a chat may take for a mention (``@everyone``)."""


def escape(text: str) -> str:
    """``text`` shown as it is by Markdown and chats."""
    return _MARKUP.sub(r"\\\1", text)


def markdown(replay: Replay) -> str:
    """The game's transcript: a heading, the result, then each round."""
    game = replay.game
    names = [escape(name) for name in replay.players]
    winners = [names[seat] for seat in replay.winners]
    top = max(replay.scores)
    verb = "wins" if len(winners) == 1 else "win"
    lines = [
        f"# Mission Impractical: table {game.code}, game {game.game_no}",
        "",
        f"{game.finished_at:%Y-%m-%d %H:%M} UTC · {len(names)} players · "
        f"{_count(game.rounds, 'round')} · **{join_names(winners)} {verb}** with "
        f"{_count(top, 'point')}",
        "",
        "Final scores: " + _scores(names, replay.scores),
    ]
    for replay_round in replay.rounds:
        lines += ["", *_round(replay_round, names)]
    return "\n".join(lines) + "\n"


def _round(replay_round: ReplayRound, names: list[str]) -> list[str]:
    lead = names[replay_round.lead]
    tasks = " · ".join(f"{n} {escape(t)}" for n, t in enumerate(replay_round.tasks, start=1))
    lines = [f"## Round {replay_round.number}: {lead} leads", "",
             f"- Tasks: {tasks}",
             f"- Secret task: **{replay_round.secret} {escape(replay_round.task)}**"]
    result = replay_round.result
    if result is None:
        return [*lines, "- The host ended the game before this round was scored"]
    lines.append("- Items: " + " · ".join(escape(item) for item in result.items))
    after = replay_round.stop_after
    if result.stop and after is not None:
        lines.append(f"- Stop! {join_names([names[s] for s in result.stop])}, after "
                     f"{_count(after, 'item')}")
    lines.append("- Guesses:")
    lines += [f"  - {_guess(result, seat, names)}" for seat in _reveal_order(result, names)]
    plan = result.plans[result.lead]
    lines.append(f"- {lead}'s plan: " + (escape(plan) if plan else "none"))
    if result.best_plan is not None:
        lines.append(f"- Best plan: {names[result.best_plan]}'s")
    points = [f"{names[line.seat]} {line.points:+d} ({escape(line.reason)})"
              for line in result.lines if line.points]
    lines.append("- Points: " + (" · ".join(points) if points else "none"))
    lines.append("- Scores: " + _scores(names, result.scores))
    return lines


def _reveal_order(result: RoundResult, names: list[str]) -> list[int]:
    """The guessers from the lead's left, the order they revealed in."""
    n = len(names)
    return [(result.lead + k) % n for k in range(1, n)]


def _guess(result: RoundResult, seat: int, names: list[str]) -> str:
    card = result.guesses[seat]
    if card is None:
        return f"{names[seat]}: no guess"
    mark = "right" if card == result.secret else "wrong"
    text = f"{names[seat]}: {card} {escape(result.tasks[card - 1])} ({mark})"
    plan = result.plans[seat]
    return text + (f", plan: {escape(plan)}" if plan else "")


def _scores(names: list[str], scores: tuple[int, ...]) -> str:
    return " · ".join(f"{name} {score}" for name, score in zip(names, scores, strict=True))


def _count(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")
