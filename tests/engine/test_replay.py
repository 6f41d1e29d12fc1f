"""Finished games watched again: listed from the journal, rebuilt move by move, exported."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Protocol

import pytest

from engine import rules
from engine.bots import Bot
from engine.cards import load_deck
from engine.hub import Hub
from engine.identity import Player as Person
from engine.journal import SqliteJournal, open_journal
from engine.records import Records, open_records
from engine.replay import (
    Place,
    ReplayError,
    find_game,
    load_replay,
    past_games,
    read_replay,
)
from engine.rules import Phase
from engine.session import Session
from engine.simulate import play_game
from engine.tables import Table, TableOptions
from engine.transcript import markdown

T0 = 1_780_000_000.0


class Clock:
    """Ten seconds a reading: the journal's timestamps are the same in every run."""

    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> float:
        self.now += 10
        return self.now


def journaled_hub(data: Path, seed: str = "replay") -> Hub:
    hub = Hub(deck=load_deck(), journal=open_journal(data, synchronous="OFF", clock=Clock()),
              seed=seed, settle_ms=0, bot_delay=0.0)
    hub.records = Records(hub.journal.connection)  # type: ignore[union-attr]
    return hub


def seat_people(hub: Hub, names: list[str], bots: tuple[str, ...] = (),
                options: TableOptions | None = None) -> tuple[Table, dict[int, Session]]:
    """``names`` sit down (the first hosts), then bots at ``bots`` levels."""
    sessions = [hub.attach(Person(f"key:{name.lower()}", name)) for name in names]
    code = sessions[0].create_table(options or TableOptions(turn_seconds=0, rounds=3))
    for session in sessions[1:]:
        session.join(code)
    for level in bots:
        sessions[0].add_bot(level)
    table = hub.tables[code]
    return table, {table.seat_of(s.player.id): s for s in sessions}  # type: ignore[misc]


class Player(Protocol):
    def act(self, view: rules.View, now_ms: int = 0) -> rules.Action | None: ...


async def play_to_the_end(table: Table, people: dict[int, Session], seed: str,
                          brain: Callable[[int], Player] | None = None) -> None:
    """The people play by a bot's choices (or ``brain(seat)``'s), through their sessions;
    bot seats move on the hub's own timers. Returns when the game is over."""
    brains = {seat: brain(seat) if brain is not None else Bot(load_deck(), f"{seed}/{seat}")
              for seat in people}
    people[min(people)].start()
    for _ in range(20_000):
        state = table.state
        assert state is not None
        if state.phase is Phase.GAME_OVER:
            return
        for seat, session in people.items():
            action = brains[seat].act(rules.view_for(state, seat), 0)
            if action is None or (state.phase is Phase.ROUND_OVER and seat in table.ready):
                continue
            try:
                session.play(action)
            except rules.IllegalAction:
                continue
            break
        await asyncio.sleep(0)
    raise AssertionError("the game did not end")


@pytest.fixture
def played(tmp_path: Path) -> Iterator[tuple[Hub, Table]]:
    """One whole game at a real hub: two people and two bots, three rounds."""
    hub = journaled_hub(tmp_path)
    table, people = seat_people(hub, ["Ann", "Bob"], bots=("normal", "sharp"))
    asyncio.run(play_to_the_end(table, people, "g1"))
    yield hub, table
    hub.close()


def journal_of(hub: Hub) -> SqliteJournal:
    assert isinstance(hub.journal, SqliteJournal)
    return hub.journal


def test_a_finished_game_replays_to_the_game_that_was_played(
        played: tuple[Hub, Table]) -> None:
    hub, table = played
    db = journal_of(hub).connection
    replay = load_replay(db, find_game(Records(db), table.code))
    assert table.state is not None
    assert replay.game.code == table.code and replay.game.game_no == 1
    assert replay.players == table.state.players
    assert replay.levels == ("human", "human", "normal", "sharp")
    assert [r.result for r in replay.rounds] == list(table.state.history)
    last = replay.rounds[-1].steps[-1]
    assert last.state.phase is Phase.GAME_OVER and last.state.scores == table.state.scores
    assert replay.scores == table.state.scores
    assert replay.winners == table.state.winners()
    assert replay.seed is None  # the table is open: its next game follows from its seed


def test_each_round_steps_through_the_deal_every_move_and_the_points(
        played: tuple[Hub, Table]) -> None:
    hub, _ = played
    db = journal_of(hub).connection
    replay = load_replay(db, Records(db).recent_games(1)[0])
    for number, replay_round in enumerate(replay.rounds, start=1):
        steps = replay_round.steps
        kinds = [step.kind for step in steps]
        assert replay_round.number == number
        assert kinds[0] == "deal" and kinds[-1] == "points"
        assert kinds.count("pick") == 4
        assert kinds.count("reveal") == len(replay.players) - 1
        assert kinds.count("task") == 1
        assert kinds.count("guess") == len(replay.players) - 1
        deal = steps[0]
        assert deal.state.picks == () and deal.state.tasks == replay_round.tasks
        # the secret is shown from the first step: the game is over
        assert deal.view().secret == replay_round.secret
        assert rules.view_for(deal.state, None).secret is None
        assert replay_round.result is not None
        assert steps[-1].state.scores == replay_round.result.scores == replay_round.scores
        picks = [s for s in steps if s.kind == "pick"]
        assert tuple(s.state.picked_items()[-1] for s in picks) == replay_round.result.items
        assert all(s.at is not None and s.at >= deal.at for s in steps[1:])  # type: ignore[operator]


def test_the_journals_moves_come_back_one_for_one_with_their_events(
        played: tuple[Hub, Table]) -> None:
    hub, table = played
    db = journal_of(hub).connection
    replay = load_replay(db, find_game(Records(db), table.code, 1))
    journaled = [json.loads(p)["action"] for (p,) in db.execute(
        "SELECT payload FROM records WHERE kind = 'move' ORDER BY seq")]
    actions = [r for r in replay.records if r["record"] == "action"]
    assert [{k: v for k, v in r.items() if k not in ("record", "game", "round", "events")}
            for r in actions] == journaled
    moves = [step for _, step in replay.steps() if step.action is not None]
    assert [rules.action_to_dict(s.action) for s in moves] == [  # type: ignore[arg-type]
        a for a in journaled if a["type"] != "NextRound"]
    assert any(s.by_bot for s in moves) and not all(s.by_bot for s in moves)


def test_the_json_log_is_the_simulators_record_for_record(tmp_path: Path) -> None:
    """A bots' game from engine.simulate, written into a journal as a hub would have,
    exports to the very records ``simulate --json`` printed for it."""
    deck = load_deck()
    state, expected = play_game(4, "table-seed/1", deck, game=1)
    with open_journal(tmp_path, synchronous="OFF") as journal:
        journal.record("SIMU", 1, "create", {"seed": "table-seed", "host": "key:bot0",
                                             "options": {"turn_seconds": 0}})
        seq = 1
        for i, name in enumerate(state.players):
            seq += 1
            journal.record("SIMU", seq, "join", {"player": f"key:p{i}", "name": name,
                                                 "seat_code": "ABCDEF"})
        seq += 1
        journal.record("SIMU", seq, "start", {"tasks": list(deck.task_names),
                                              "items": list(deck.item_names)})
        for record in expected:
            if record["record"] == "action":
                seq += 1
                action = {k: v for k, v in record.items()
                          if k not in ("record", "game", "round", "events")}
                journal.record("SIMU", seq, "move", {"action": action, "bot": True})
        journal.game_over("SIMU", 1, [(f"key:p{i}", n) for i, n in enumerate(state.players)],
                          rules.game_summary(state))
        journal.close_table("SIMU")
        replay = load_replay(journal.connection, find_game(Records(journal.connection), "simu"))
    header, *rest = replay.records
    assert rest == expected[1:]
    assert header["seed"] == expected[0]["seed"]  # the table is closed: the seed is shown
    shared = set(expected[0]) - {"levels"}
    assert {k: header[k] for k in shared} == {k: expected[0][k] for k in shared}


def test_the_lobby_lists_my_games_first_then_the_servers(tmp_path: Path) -> None:
    hub = journaled_hub(tmp_path)
    try:
        for names in (["Ann", "Bob", "Cy"], ["Dee", "Eve", "Fay"], ["Ann", "Eve", "Gus"]):
            table, people = seat_people(hub, names, options=TableOptions(turn_seconds=0,
                                                                         rounds=1))
            asyncio.run(play_to_the_end(table, people, "-".join(names)))
            for session in people.values():
                session.leave()
        records = Records(journal_of(hub).connection)
        listed = past_games(records, "key:ann")
        assert [[p.name for p in g.players] for g in listed.mine] == [
            ["Ann", "Eve", "Gus"], ["Ann", "Bob", "Cy"]]
        assert [[p.name for p in g.players] for g in listed.others] == [["Dee", "Eve", "Fay"]]
        assert all(g.rounds == 1 for g in listed.mine + listed.others)
        assert past_games(records, None).mine == ()
        assert len(past_games(records, None).others) == 3
        newest = listed.mine[0]
        assert newest.finished_at > listed.mine[1].finished_at
        assert [w for w in newest.winners] == [p.name for p in newest.players if p.won]
    finally:
        hub.close()


def test_a_code_used_again_finds_its_newest_game_and_numbers_count_per_table(
        tmp_path: Path) -> None:
    hub = journaled_hub(tmp_path)
    try:
        table, people = seat_people(hub, ["Ann", "Bob", "Cy"],
                                    options=TableOptions(turn_seconds=0, rounds=1))
        for game in (1, 2):
            asyncio.run(play_to_the_end(table, people, f"game{game}"))
        records = Records(journal_of(hub).connection)
        assert find_game(records, table.code).game_no == 2
        assert find_game(records, table.code.lower(), 1).game_no == 1
        first = load_replay(journal_of(hub).connection, find_game(records, table.code, 1))
        second = load_replay(journal_of(hub).connection, find_game(records, table.code))
        assert first.rounds[0].tasks != second.rounds[0].tasks
        with pytest.raises(ReplayError, match="no finished game 3 of table"):
            find_game(records, table.code, 3)
        with pytest.raises(ReplayError, match="no finished game of table ZZZZ"):
            find_game(records, "ZZZZ")
    finally:
        hub.close()


def test_a_pruned_game_is_listed_but_says_its_moves_are_gone(
        played: tuple[Hub, Table]) -> None:
    hub, table = played
    db = journal_of(hub).connection
    assert find_game(Records(db), table.code).moves_kept
    db.execute("DELETE FROM records")
    game = find_game(Records(db), table.code)
    assert not game.moves_kept  # a list can say so before anyone opens it
    with pytest.raises(ReplayError, match="pruned"):
        load_replay(db, game)


def test_a_journal_that_does_not_give_the_stored_result_is_refused(
        played: tuple[Hub, Table]) -> None:
    hub, table = played
    db = journal_of(hub).connection
    db.execute("UPDATE games SET result = json_set(result, '$.scores[0]', 99)")
    with pytest.raises(ReplayError, match="do not give the stored result"):
        load_replay(db, find_game(Records(db), table.code))


def test_a_replay_reads_beside_the_server_and_lets_its_writes_through(
        played: tuple[Hub, Table], tmp_path: Path) -> None:
    hub, table = played
    reader = open_records(tmp_path)  # read-only, from another connection (a host's tool)
    try:
        replay = load_replay(reader.connection, find_game(reader, table.code))
        host = next(s for s in table.sessions if s.player.id == table.host_id)
        host.start()  # the server writes on...
        db = journal_of(hub).connection
        busy, _, _ = db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        assert busy == 0  # ...and no read of the replay's is left open to hold it back
        assert replay.rounds and table.status == "playing"
    finally:
        reader.close()


def test_a_screen_steps_forward_and_back_across_rounds_and_jumps_round_by_round(
        played: tuple[Hub, Table]) -> None:
    hub, table = played
    db = journal_of(hub).connection
    replay = load_replay(db, find_game(Records(db), table.code))
    place, seen = Place(), []
    while True:
        seen.append(replay.step_at(place))
        after = replay.forward(place)
        if after == place:
            break
        place = after
    assert seen == [step for _, step in replay.steps()]
    assert place == replay.end() and replay.step_at(place).kind == "points"
    back = place
    for _ in seen[1:]:
        back = replay.back(back)
    assert back == Place() and replay.back(back) == Place()
    assert replay.next_round(Place(0, 3)) == Place(1, 0)
    assert replay.next_round(Place(2, 0)) == replay.end()  # the last round: to its end
    assert replay.previous_round(Place(1, 4)) == Place(1, 0)  # this round's deal first
    assert replay.previous_round(Place(1, 0)) == Place(0, 0)
    assert replay.previous_round(Place()) == Place()


def test_an_endless_game_the_host_ended_mid_round_replays_with_that_round_unscored(
        tmp_path: Path) -> None:
    hub = journaled_hub(tmp_path)
    try:
        table, people = seat_people(hub, ["Ann", "Bob", "Cy"],
                                    options=TableOptions(turn_seconds=0, rounds=0))
        host = people[0]
        host.start()
        brains = {seat: Bot(load_deck(), f"endless/{seat}") for seat in people}
        while table.state is not None and table.state.round < 2:  # one whole round
            state = table.state
            seat = next(s for s in state.waiting_for() if s not in table.ready)
            action = brains[seat].act(rules.view_for(state, seat), 0)
            assert action is not None
            people[seat].play(action)
        host.end_game()
        db = journal_of(hub).connection
        replay = load_replay(db, find_game(Records(db), table.code))
        assert [r.result is not None for r in replay.rounds] == [True, False]
        last = replay.rounds[-1]
        assert [s.kind for s in last.steps] == ["deal", "end", "points"]
        assert last.steps[1].lines == ("Ann ends the game",)
        assert "ended the game before this round was scored" in markdown(replay)
        assert replay.records[-1]["record"] == "final"
    finally:
        hub.close()


def test_a_worker_thread_reads_a_replay_on_a_connection_of_its_own(
        played: tuple[Hub, Table], tmp_path: Path) -> None:
    hub, table = played
    db = journal_of(hub).connection
    game = find_game(Records(db), table.code)
    replay = asyncio.run(asyncio.to_thread(read_replay, tmp_path, game.game_id))
    assert replay.records == load_replay(db, game).records
