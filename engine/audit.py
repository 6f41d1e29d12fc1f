"""The auditable log of one game: JSON-ready records, enough to check a game against the
rulebook without the code.

``python -m engine.simulate --json`` writes them for bots' games and ``mission-impractical
export CODE --format json`` for a finished game from the journal (:mod:`engine.replay`);
both build them here, so the two logs have one format:

* ``game``: the header (who wrote the log says what it holds: seed, players, rounds...);
* ``round``: as each round starts, its lead, the four tasks, the 16-item grid
  (``grid[column][row]``) and the secret card;
* ``action``: each accepted action with the public events it caused;
* ``points``: as each round ends, every point change in the order applied (zeros
  included) with the seat's running score, each seat's change and the scores;
* ``final``: the scores and the winners.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict
from typing import Any

from engine.rules import Action, Event, RoundResult, State, action_to_dict

Record = dict[str, Any]


def action_record(game: int, round_no: int, action: Action, texts: Sequence[str]) -> Record:
    return {"record": "action", "game": game, "round": round_no,
            **action_to_dict(action), "events": list(texts)}


def round_record(game: int, state: State) -> Record:
    return {"record": "round", "game": game, "round": state.round, "lead": state.lead,
            "tasks": list(state.tasks), "grid": [list(column) for column in state.grid],
            "secret": state.secret}


def points_record(game: int, result: RoundResult, before: Sequence[int]) -> Record:
    """The round's point changes in the order applied, then a 0 for each seat that got
    none (a wrong guess, a lead nobody found), each with the seat's running score."""
    running = list(before)
    changes = []
    for line in result.lines:
        running[line.seat] += line.points
        changes.append({**asdict(line), "score": running[line.seat]})
    scored = {line.seat for line in result.lines}
    for seat in range(len(before)):
        if seat not in scored:
            reason = ("lead agent: no correct guess" if seat == result.lead else
                      "no guess" if result.guesses[seat] is None else "wrong guess")
            changes.append({"seat": seat, "points": 0, "reason": reason,
                            "score": running[seat]})
    return {"record": "points", "game": game, "round": result.round, "secret": result.secret,
            "task": result.task, "items": list(result.items), "guesses": list(result.guesses),
            "stop": list(result.stop), "best_plan": result.best_plan, "changes": changes,
            "deltas": [result.delta(s) for s in range(len(before))],
            "scores": list(result.scores)}


class AuditLog:
    """The records of game number ``game``, in order, as it is played: the ``header``
    and the first round's, then :meth:`add` after each accepted action and :meth:`finish`
    at the end."""

    def __init__(self, game: int, header: Record, state: State) -> None:
        self.game = game
        self.records: list[Record] = [header, round_record(game, state)]

    def add(self, before: State, action: Action, events: Sequence[Event], after: State) -> None:
        """``action`` took the game from ``before`` to ``after`` and caused ``events``."""
        self.records.append(action_record(self.game, before.round, action,
                                          [event.text for event in events]))
        if len(after.history) > len(before.history):
            self.records.append(points_record(self.game, after.history[-1], before.scores))
        if after.round != before.round:
            self.records.append(round_record(self.game, after))

    def finish(self, state: State, seed: str | None) -> list[Record]:
        """The ``final`` record appended; returns every record."""
        self.records.append({"record": "final", "game": self.game, "seed": seed,
                             "scores": list(state.scores), "winners": list(state.winners()),
                             "rounds": len(state.history)})
        return self.records
