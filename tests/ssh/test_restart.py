"""Durability: the real server, killed at random points, loses no accepted move.

The server runs as a subprocess (``mission-impractical serve``) with its own data dir.
Three players with their own keys play over real SSH. The test's oracle is the journal
itself, read through a read-only SQLite connection and replayed through the engine: it
says whose move it is, and after every restart it must still hold every move it held
before the kill.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import re
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import asyncssh
import pytest

from engine import rules
from engine.cards import load_deck
from engine.hub import Hub
from engine.rules import Phase, State
from engine.tables import Table
from engine.text import plural
from server.terminal import LEAVE_SEQUENCE
from tests.ssh.client import TermClient
from tests.waiting import until

pytestmark = pytest.mark.xdist_group("restart")

SCRIPT = Path(sys.executable).with_name("mission-impractical")
Row = tuple[str, int, str, dict[str, Any]]


class ServerProcess:
    """``mission-impractical serve`` in a subprocess, on a port of its own choosing."""

    def __init__(self, data_dir: Path, host_key: Path) -> None:
        self.data_dir, self.host_key = data_dir, host_key
        self.proc: subprocess.Popen[str] | None = None
        self.port = 0

    def start(self) -> int:
        self.proc = subprocess.Popen(
            [str(SCRIPT), "serve", "--host", "127.0.0.1", "--port", "0",
             "--data-dir", str(self.data_dir), "--host-key", str(self.host_key),
             "--log-level", "WARNING"],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            found = re.search(r"listening on 127\.0\.0\.1:(\d+)", line)
            if found:
                self.port = int(found.group(1))
                return self.port
        raise AssertionError(f"the server did not start (exit {self.proc.wait()})")

    def kill(self, sig: int = signal.SIGKILL) -> int:
        assert self.proc is not None
        self.proc.send_signal(sig)
        code = self.proc.wait(timeout=15)
        assert self.proc.stdout is not None
        self.proc.stdout.close()
        return code


def journal_rows(data_dir: Path) -> list[Row]:
    """Every record of every open table, read as another process would."""
    db = sqlite3.connect(f"file:{data_dir / 'mission.sqlite3'}?mode=ro", uri=True)
    try:
        rows = db.execute(
            "SELECT t.code, r.seq, r.kind, r.payload FROM records r "
            "JOIN tables t ON t.id = r.table_id WHERE t.closed_at IS NULL "
            "ORDER BY t.id, r.seq").fetchall()
    except sqlite3.OperationalError:  # not created yet
        rows = []
    finally:
        db.close()
    return [(code, seq, kind, json.loads(payload)) for code, seq, kind, payload in rows]


def replayed(rows: list[Row]) -> Table:
    hub = Hub(deck=load_deck())
    hub.replay(rows)
    return next(iter(hub.tables.values()))


def oracle(data_dir: Path) -> Table | None:
    rows = journal_rows(data_dir)
    return replayed(rows) if rows else None


def next_move(state: State, shout_round: bool) -> tuple[int, str]:
    """(seat, keys) of the next move a player makes, from what the journal says."""
    match state.phase:
        case Phase.PICKING:
            if state.stopper_pending:
                seat = state.stopper_pending[0]
                return seat, str(state.secret)
            if shout_round and len(state.picks) == 1 and not state.stop:
                return state.guessers[state.round % len(state.guessers)], "s"
            return state.lead, str(1 + (len(state.picks) + state.round) % 4)
        case Phase.GUESSING:
            seat = state.waiting_for()[0]
            return seat, str(1 + (seat + state.round) % 4)
        case Phase.REVEALING | Phase.LEAD_REVEAL:
            return state.waiting_for()[0], "ok\r"
        case Phase.ROUND_OVER:
            return state.lead, "\r"
    raise AssertionError(f"no move in {state.phase}")


def expected_scores(state: State) -> list[int]:
    """The rulebook's points, recomputed from each round's cards and guesses."""
    scores = [rules.STARTING_POINTS] * state.n
    for result in state.history:
        correct = [s for s in range(state.n)
                   if s != result.lead and result.guesses[s] == result.secret]
        for seat in correct:
            scores[seat] += 1
        scores[result.lead] += len(correct)
        for seat in result.stop:
            if seat in correct:
                scores[seat] += 1
            elif scores[seat] > 0:
                scores[seat] -= 1
    return scores


class Players:
    """Three friends with their own keys, who reconnect after every restart."""

    names = ("alice", "bob", "carol")

    def __init__(self) -> None:
        self.keys = [asyncssh.generate_private_key("ssh-ed25519") for _ in self.names]
        self.terms: list[TermClient] = []

    async def connect(self, port: int, code: str | None) -> None:
        self.terms = [await TermClient.connect(port, username=name, key=key, size=(120, 40),
                                               command=code)
                      for name, key in zip(self.names, self.keys, strict=True)]

    def by_seat(self, table: Table) -> dict[int, TermClient]:
        ids = {seat.player_id: i for i, seat in enumerate(table.seats)}
        terms = {}
        for name, key, term in zip(self.names, self.keys, self.terms, strict=True):
            del name
            player_id = f"key:{key.get_fingerprint('sha256')}"
            terms[ids[player_id]] = term
        return terms

    def drop(self) -> None:
        for term in self.terms:
            term.abort()


async def test_killed_servers_lose_no_accepted_move(tmp_path: Path) -> None:
    rng = random.Random(20261129)
    server = ServerProcess(tmp_path / "data", tmp_path / "host_key")
    players = Players()
    await players.connect(server.start(), None)
    host = players.terms[0]
    await host.wait_for("the lobby")
    host.send("c")
    await until(lambda: oracle(server.data_dir) is not None, "the table")
    code = oracle(server.data_dir).code
    for term in players.terms[1:]:
        term.close()
    await players.connect(server.port, code)
    await until(lambda: len(oracle(server.data_dir).seats) == 3, "three seats")
    await players.terms[2].wait_for("alice")
    host.send("g")
    await until(lambda: oracle(server.data_dir).status == "playing", "the game")
    for term in players.terms:  # people play once they see the board
        await term.wait_for("Round 1 of")

    kills_at = set(rng.sample(range(5, 70), 5))
    step = restarts = 0
    while (table := oracle(server.data_dir)).status == "playing":
        state = table.state
        assert state is not None
        seat, keys = next_move(state, shout_round=state.round % 2 == 1)
        count = len(journal_rows(server.data_dir))

        def grew(count: int = count) -> bool:
            return len(journal_rows(server.data_dir)) > count

        terms = players.by_seat(table)
        if keys.endswith("\r"):
            await terms[seat].wait_for("Enter" if state.phase is Phase.ROUND_OVER else "plan")
        if state.phase is Phase.ROUND_OVER:  # the next round starts when all are ready
            for term in terms.values():
                term.send(keys)
        else:
            terms[seat].send(keys)
        step += 1
        if step in kills_at:
            if rng.random() < 0.5:  # mid-flight: the move may or may not have been accepted
                await asyncio.sleep(rng.uniform(0, 0.03))
            else:  # after every screen could have shown it
                await until(grew, "the move to be journaled")
            held = journal_rows(server.data_dir)
            server.kill(signal.SIGKILL)
            players.drop()
            after = journal_rows(server.data_dir)
            assert after[:len(held)] == held  # nothing accepted is lost
            assert len(after) <= len(held) + 1
            restarts += 1
            await players.connect(server.start(), code)
            resumed = oracle(server.data_dir)
            if len(after) == len(held):
                assert resumed.state == replayed(held).state
            for term in players.terms:  # everyone sees the board again before playing on
                await term.wait_for(f"Round {resumed.state.round} of")
            continue
        await until(grew, f"step {step} ({keys!r} from seat {seat} in {state.phase})")
    assert restarts == len(kills_at)
    final = oracle(server.data_dir)
    assert final.state is not None and final.state.phase is Phase.GAME_OVER
    assert list(final.state.scores) == expected_scores(final.state)
    top = max(final.state.scores)
    for term in players.terms:
        term.send("\r")  # from the last round's summary (if they saw it) to the results
        await term.wait_for("Final ranking")
        await term.wait_for(f"with {plural(top, 'point')}")

    # SIGTERM: everyone is told, terminals are restored, the journal closes cleanly
    assert server.kill(signal.SIGTERM) == 0
    for term in players.terms:
        await term.wait_closed()
        assert LEAVE_SEQUENCE.encode() in term.raw
        assert b"restarting" in term.raw
    assert not (server.data_dir / "mission.sqlite3-wal").exists() or (
        os.path.getsize(server.data_dir / "mission.sqlite3-wal") == 0)
