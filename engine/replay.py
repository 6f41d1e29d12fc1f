"""Finished games, watched again: the list of past games and one game, step by step.

The journal keeps every command a table accepted (:mod:`engine.journal`) and, for each
finished game, its summary and seats (:mod:`engine.records`). A replay is rebuilt from the
first: the table's records up to the game's ``start`` go through a hub of its own (so the
game is dealt exactly as it was: seed, options, seats, cards), then each accepted move goes
through :func:`engine.rules.apply` again. The result is checked against the stored summary;
a journal that does not give it back raises :class:`ReplayError`.

What a screen (or a command-line tool) calls:

* :func:`past_games` (the lobby's list: the player's own games, then the server's), or
  :meth:`engine.records.Records.finished_games` for a page of either;
* :func:`find_game` for ``CODE`` and ``CODE N``;
* :func:`load_replay` for one game (or :func:`read_replay` from a worker thread): a
  :class:`Replay`, its :class:`ReplayRound` s and their :class:`Step` s. Each step holds
  the game as it stood after it (``state``) and ``view()``, the spectator's view with the
  lead's secret shown (the game is over);
* :class:`Place` and ``Replay.forward``/``back``/``next_round``/``previous_round``/``end``
  to move through it.

Pure data, no Textual. Names are the ones the game ended with (those the records list);
chat is not part of a replay. Once ``prune`` has removed a closed table's records, its games
are still listed (their summary stays) but :func:`load_replay` says it cannot show them.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from engine import rules
from engine.audit import AuditLog, Record
from engine.records import GameSummary, Records, open_records
from engine.rules import Action, Event, Options, Phase, RoundResult, State, View

PAST_GAMES = 20  # how many games the lobby lists of each kind


class ReplayError(Exception):
    """A finished game cannot be replayed; ``str(error)`` says which and why."""


# --- the list ------------------------------------------------------------------------------


@dataclass(frozen=True)
class PastGames:
    """What the lobby lists: ``mine`` (the player's games, newest first), then ``others``
    (the server's latest games the player was not in, newest first)."""

    mine: tuple[GameSummary, ...]
    others: tuple[GameSummary, ...]


def past_games(records: Records, player_id: str | None, limit: int = PAST_GAMES) -> PastGames:
    """The player's ``limit`` latest finished games (``player_id`` is a key's or, while
    connected, a guest's id), then up to ``limit`` of the server's latest that they were
    not in. Three or four indexed queries whatever the journal holds."""
    mine = tuple(records.finished_games(player_id, limit)) if player_id else ()
    seen = {game.game_id for game in mine}
    recent = records.finished_games(None, limit + len(mine))
    return PastGames(mine, tuple(g for g in recent if g.game_id not in seen)[:limit])


def find_game(records: Records, code: str, game_no: int | None = None) -> GameSummary:
    """Game ``game_no`` of table ``code``, or its last finished game (``replay CODE``,
    ``export CODE N``); :class:`ReplayError` says when there is none."""
    game = records.game(code, game_no)
    if game is None:
        which = f"game {game_no}" if game_no else "game"
        raise ReplayError(f"the journal holds no finished {which} of table {code.upper()}")
    return game


# --- the replay ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Step:
    """One moment of a round: the deal, then each accepted move, and the points.

    ``kind`` is ``"deal"`` (tasks and grid on the table, the lead named), ``"pick"``,
    ``"stop"`` (a Stop! shouted), ``"guess"`` (a guess hidden), ``"reveal"`` (a guess turned
    over, with its plan), ``"task"`` (the lead shows the task and their plan),
    ``"best_plan"``, ``"points"`` (every score line of the round) or ``"end"`` (the host
    ended the game). ``lines`` are what the table's log said of it."""

    kind: str
    seat: int | None
    lines: tuple[str, ...]
    state: State  # the game just after this step
    at: float | None  # Unix time the server accepted it (None: not recorded)
    by_bot: bool = False  # a bot made this move (for a bot seat, or for an absent player)
    action: Action | None = None

    def view(self) -> View:
        """The table as a spectator saw it after this step, with the secret shown."""
        return replace(rules.view_for(self.state, None), secret=self.state.secret)

    @property
    def when(self) -> datetime | None:
        return None if self.at is None else _when(self.at)


@dataclass(frozen=True)
class ReplayRound:
    """One round: what was dealt, every step, and its points (``result`` is None for a
    round the host ended before it was scored)."""

    number: int
    lead: int
    secret: int  # the lead's task card, 1-4
    tasks: tuple[str, ...]
    grid: tuple[tuple[str, ...], ...]  # grid[column][row], as dealt
    scores_before: tuple[int, ...]
    steps: tuple[Step, ...]
    result: RoundResult | None

    @property
    def task(self) -> str:
        return self.tasks[self.secret - 1]

    @property
    def scores(self) -> tuple[int, ...]:
        """Every seat's score once the round was over."""
        return self.steps[-1].state.scores

    @property
    def stop_after(self) -> int | None:
        """How many items were down when Stop! was first shouted (None: nobody did)."""
        for step in self.steps:
            if step.kind == "stop":
                return step.state.stop_picks
        return None

    def seconds_in(self, step: Step) -> float | None:
        """How long into the round ``step`` came, in seconds (None when not recorded)."""
        start = self.steps[0].at
        return None if start is None or step.at is None else step.at - start


@dataclass(frozen=True)
class Replay:
    """A finished game, round by round. ``seed`` is None while its table is still open:
    the next game's cards follow from it."""

    game: GameSummary
    seed: str | None
    options: Options
    levels: tuple[str, ...]  # per seat: "human", or the bot's level
    rounds: tuple[ReplayRound, ...]
    records: tuple[Record, ...] = field(repr=False)
    """The auditable log (:mod:`engine.audit`): what ``export --format json`` writes."""

    @property
    def players(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.game.players)

    @property
    def scores(self) -> tuple[int, ...]:
        return tuple(p.score for p in self.game.players)

    @property
    def winners(self) -> tuple[int, ...]:
        return tuple(p.seat for p in self.game.players if p.won)

    def steps(self) -> Iterator[tuple[ReplayRound, Step]]:
        """Every step of the game in order, with its round."""
        for replay_round in self.rounds:
            for step in replay_round.steps:
                yield replay_round, step

    # -- moving through it: a screen keeps a Place and asks for the next -------------------

    def step_at(self, place: Place) -> Step:
        return self.rounds[place.round].steps[place.step]

    def forward(self, place: Place) -> Place:
        """The next step (Space, down): from a round's last, the next round's deal."""
        if place.step + 1 < len(self.rounds[place.round].steps):
            return Place(place.round, place.step + 1)
        return Place(place.round + 1, 0) if place.round + 1 < len(self.rounds) else place

    def back(self, place: Place) -> Place:
        """The step before (up): from a round's deal, the previous round's last step."""
        if place.step > 0:
            return Place(place.round, place.step - 1)
        if place.round == 0:
            return place
        return Place(place.round - 1, len(self.rounds[place.round - 1].steps) - 1)

    def next_round(self, place: Place) -> Place:
        """The next round's deal (right); the last round's last step from the last round."""
        if place.round + 1 < len(self.rounds):
            return Place(place.round + 1, 0)
        return self.end()

    def previous_round(self, place: Place) -> Place:
        """This round's deal (left), or the previous round's from a deal."""
        return Place(max(0, place.round - 1) if place.step == 0 else place.round, 0)

    def end(self) -> Place:
        """The game's last step (End): the last points and the winners."""
        return Place(len(self.rounds) - 1, len(self.rounds[-1].steps) - 1)


@dataclass(frozen=True)
class Place:
    """Where a screen is in a :class:`Replay`: indexes of the round and of its step.
    ``Place()`` is the first round's deal (Home)."""

    round: int = 0
    step: int = 0


def load_replay(db: sqlite3.Connection, game: GameSummary | int,
                deck: Any | None = None) -> Replay:
    """Rebuild finished game ``game`` (a summary from the list, or its ``game_id``) from
    the journal behind ``db`` (the server's connection, or a read-only one from
    :func:`engine.records.open_records`). ``deck`` deals games whose ``start`` did not
    carry its cards (the installed deck by default). Raises :class:`ReplayError`."""
    records = Records(db)
    summary = records.game_by_id(game) if isinstance(game, int) else game
    if summary is None:
        raise ReplayError(f"the journal holds no finished game {game}")
    row = db.execute("SELECT g.table_id, g.result, t.closed_at FROM games g JOIN tables t"
                     " ON t.id = g.table_id WHERE g.id = ?", (summary.game_id,)).fetchone()
    if row is None:
        raise ReplayError(f"the journal holds no finished game {summary.game_id}")
    table_id, result_text, closed_at = row
    name = f"game {summary.game_no} of table {summary.code}"
    moves = _Moves(db, table_id, summary.code, name)
    try:
        table = moves.table_at_start(summary.game_no, deck)
        if table.state is None:
            raise ReplayError(f"{name}: its start is not in the journal")
        replay = _replay(summary, table, moves, seed=table.state.seed if closed_at else None)
    except (rules.IllegalAction, KeyError, TypeError, ValueError, AssertionError) as error:
        raise ReplayError(f"{name} cannot be replayed: the journal's record "
                          f"{moves.seq} does not follow ({error})") from error
    finally:
        moves.close()
    _check(replay, json.loads(result_text), name)
    return replay


def read_replay(data_dir: Path, game: GameSummary | int, deck: Any | None = None) -> Replay:
    """:func:`load_replay` on a read-only connection of its own, opened and closed here:
    for a worker thread (``await asyncio.to_thread(read_replay, data_dir, game)``), so
    that the few milliseconds of replaying the moves do not hold up the server's loop.
    ``data_dir`` holds the journal (the hub's ``journal.path.parent``)."""
    records = open_records(data_dir)
    try:
        return load_replay(records.connection, game, deck)
    finally:
        records.close()


class _Moves:
    """A table's records in order, read as they are needed."""

    def __init__(self, db: sqlite3.Connection, table_id: int, code: str, name: str) -> None:
        self.code, self.name = code, name
        self.seq = 0
        self.started_at: float | None = None  # when the game's start was recorded
        self._iter: Iterator[tuple[str, dict[str, Any], float]] = iter(())
        self._rows = db.execute("SELECT seq, kind, payload, at FROM records"
                                " WHERE table_id = ? ORDER BY seq", (table_id,))

    def close(self) -> None:
        """Let go of the read (an unfinished one would hold back the server's checkpoints)."""
        self._rows.close()

    def __iter__(self) -> Iterator[tuple[str, dict[str, Any], float]]:
        for seq, kind, payload, at in self._rows:
            if seq != self.seq + 1 or (seq == 1) != (kind == "create"):
                raise ReplayError(f"{self.name}: the journal's history of the table is "
                                  f"broken at record {seq} ({kind})")
            self.seq = seq
            yield kind, json.loads(payload), at
        if self.seq == 0:
            raise ReplayError(f"{self.name}: its moves are no longer in the journal (the "
                              "host pruned them); only its scores are kept")

    def table_at_start(self, game_no: int, deck: Any | None) -> Any:
        """The table as it was once game ``game_no`` began, rebuilt by a hub of its own."""
        from engine.hub import Hub  # the hub's own replay deals the game as it was dealt

        prefix: list[tuple[str, int, str, dict[str, Any]]] = []
        starts = 0
        self._iter = iter(self)
        for kind, payload, at in self._iter:
            prefix.append((self.code, self.seq, kind, payload))
            if kind == "start":
                starts += 1
                if starts == game_no:
                    self.started_at = at
                    break
        else:
            raise ReplayError(f"{self.name}: the journal does not hold its start")
        hub = Hub(journal=None, deck=deck, seed="replay")
        hub.replay(prefix)
        return hub.tables[self.code]

    def after_start(self) -> Iterator[tuple[str, dict[str, Any], float]]:
        yield from self._iter


_KINDS: dict[type, str] = {rules.Pick: "pick", rules.Shout: "stop", rules.Guess: "guess",
                           rules.Reveal: "reveal", rules.LeadReveal: "task",
                           rules.BestPlan: "best_plan", rules.EndGame: "end"}
_POINTS = ("score", "game_over")  # the events a "points" step shows


class _Rounds:
    """Rounds and steps, built as the moves are applied."""

    def __init__(self, state: State, at: float | None) -> None:
        self.rounds: list[ReplayRound] = []
        self._start(state, (f"Round 1: {state.players[state.lead]} is the lead agent",), at)

    def _start(self, state: State, lines: tuple[str, ...], at: float | None) -> None:
        self._state0 = state
        self._steps = [Step("deal", state.lead, lines, state, at)]

    def add(self, before: State, action: Action, events: list[Event], after: State,
            at: float | None, by_bot: bool) -> None:
        if isinstance(action, rules.NextRound):
            self._close(before)
            self._start(after, tuple(e.text for e in events), at)
            return
        points = [e.text for e in events if e.kind in _POINTS]
        lines = tuple(e.text for e in events if e.kind not in _POINTS)
        self._steps.append(Step(_KINDS[type(action)], action.seat, lines, after, at, by_bot,
                                action))
        if points:
            self._steps.append(Step("points", None, tuple(points), after, at))

    def _close(self, state: State) -> None:
        first = self._state0
        scored = len(state.history) > len(first.history)
        self.rounds.append(ReplayRound(
            first.round, first.lead, first.secret, first.tasks, first.grid, first.scores,
            tuple(self._steps), state.history[-1] if scored else None))

    def finish(self, state: State) -> tuple[ReplayRound, ...]:
        self._close(state)
        return tuple(self.rounds)


def _replay(summary: GameSummary, table: Any, moves: _Moves, seed: str | None) -> Replay:
    state: State = table.state
    names = tuple(p.name for p in summary.players)
    if len(names) == state.n:  # the names the game ended with, as the records list them
        state = replace(state, players=names)
    levels = tuple("human" if not s.is_bot else s.level for s in table.seats[:state.n])
    options = state.options
    log = AuditLog(summary.game_no, {
        "record": "game", "game": summary.game_no, "code": summary.code,
        "finished_at": summary.finished_at.isoformat(), "seed": seed,
        "players": list(state.players), "levels": list(levels), "perfect_seat": None,
        "lead_by_words": False, "lead_by_sense": False, "rounds": state.total_rounds,
        "rounds_option": options.rounds, "best_plan": options.best_plan,
        "stop_tie_window_ms": options.stop_tie_window_ms, "first_lead": state.lead,
    }, state)
    rounds = _Rounds(state, moves.started_at)
    for kind, payload, at in moves.after_start():
        if kind == "start":
            break
        if kind != "move":  # chat, renames, seats taken over: not part of the game's moves
            continue
        action = rules.action_from_dict(payload["action"])
        after, events = rules.apply(state, action)
        log.add(state, action, events, after)
        rounds.add(state, action, events, after, at, bool(payload.get("bot")))
        state = after
        if state.phase is Phase.GAME_OVER:
            break
    if state.phase is not Phase.GAME_OVER:
        raise ReplayError(f"game {summary.game_no} of table {summary.code}: the journal "
                          "does not hold its last move")
    return Replay(summary, seed, options, levels, rounds.finish(state),
                  tuple(log.finish(state, seed)))


def _check(replay: Replay, result: dict[str, Any], name: str) -> None:
    """The moves must give back the result stored when the game ended."""
    last = replay.rounds[-1].steps[-1].state
    stored_rounds = result.get("rounds", [])
    if (list(last.scores) != result.get("scores") or len(last.history) != len(stored_rounds)
            or [r.secret for r in last.history] != [r.get("secret") for r in stored_rounds]):
        raise ReplayError(f"{name}: the journal's moves do not give the stored result "
                          f"(scores {list(last.scores)}, stored {result.get('scores')})")


def _when(timestamp: float) -> datetime:
    return datetime.fromtimestamp(timestamp, tz=UTC)
