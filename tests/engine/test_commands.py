"""Table commands: typed values with one reducer, journaled in the format the journal has
always had (so the tables of a journal written before commands had types still load)."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from engine import commands, rules
from engine.commands import (
    AddBot,
    BotLevel,
    Chat,
    Close,
    Create,
    Join,
    Leave,
    Move,
    Reclaim,
    Remove,
    Rename,
    SetOptions,
    Start,
    from_record,
    new_table,
    to_record,
)
from engine.errors import BrokenRule
from engine.hub import Hub
from engine.journal import open_journal
from engine.tables import PRESENCE, TableOptions

OLD_JOURNAL = Path(__file__).parent / "data" / "journal_67e0eb1.json"
"""Records the hub of commit 67e0eb1 journaled (string kinds, dict payloads; written by a
script run against that commit's engine): a table that used every table command, one
closed table, and what the first table looked like at the end."""


def old_journal() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(OLD_JOURNAL.read_text())
    return data


def assert_as_it_was(hub: Hub, data: dict[str, Any]) -> None:
    after = data["after"]
    code = data["records"][0][0]
    table = hub.tables[code]
    assert [[s.player_id, s.name, s.level] for s in table.seats] == after["seats"]
    assert table.host_id == after["host"]
    assert asdict(table.options) == after["options"]
    assert (table.status, table.games, table.seq) == (after["status"], after["games"],
                                                      after["seq"])
    assert [[line.kind, line.text] for line in table.log] == [
        line for line in after["log"] if line[0] != PRESENCE]  # presence is not journaled
    assert [line.text for line in table.chat] == after["chat"]
    assert sorted(table.removed) == after["removed"]
    assert table.state is not None
    assert (str(table.state.phase), list(table.state.stop), list(table.state.picks)) == (
        after["phase"], after["stop"], after["picks"])
    assert data["closed"] not in hub.tables


def test_a_journal_written_before_commands_had_types_replays_to_the_same_table(
        plain_deck: SimpleNamespace) -> None:
    data = old_journal()
    hub = Hub(deck=plain_deck, settle_ms=0)
    hub.replay(tuple(record) for record in data["records"])
    assert_as_it_was(hub, data)


def test_a_server_restarted_on_an_old_journal_file_serves_its_tables(
        plain_deck: SimpleNamespace, tmp_path: Path) -> None:
    data = old_journal()
    journal = open_journal(tmp_path, synchronous="OFF")
    for code, seq, kind, payload in data["records"]:
        journal.record(code, seq, kind, payload)
    journal.close()
    hub = Hub.open(tmp_path, deck=plain_deck, settle_ms=0)
    try:
        assert_as_it_was(hub, data)
    finally:
        hub.close()


def test_every_record_decodes_to_a_command_that_encodes_back_to_it() -> None:
    for _code, _seq, kind, payload in old_journal()["records"]:
        assert to_record(from_record(kind, payload)) == (kind, payload)


@pytest.mark.parametrize("command", [
    Create("seed", "key:a", TableOptions(rounds=3)), Close(), Join("key:a", "Ann", "QWERTY"),
    Leave(1), Remove(2, "key:a", ("10.0.0.1",)), Rename("key:a", "Annie"), Reclaim(1, "g:x"),
    SetOptions(TableOptions(best_plan=True)), AddBot("sharp"), BotLevel(3, "easy"),
    Chat(0, "hi"), Start(("t1",), ("i1",)), Move(rules.Shout(1, 1234), bot=True),
])
def test_a_command_survives_its_record(command: commands.Command | Create) -> None:
    kind, payload = to_record(command)
    assert json.loads(json.dumps(payload)) == payload  # plain JSON
    assert from_record(kind, payload) == command


def test_records_older_still_than_the_current_payloads_load() -> None:
    assert from_record("remove", {"seat": 1, "by": "key:a"}) == Remove(1, "key:a")
    assert from_record("start", {}) == Start()
    assert from_record("start", {"tasks": None, "items": None}) == Start()
    assert from_record("add_bot", {}) == AddBot()
    move = {"action": {"type": "Pick", "seat": 0, "column": 0, "row": 2}}
    assert from_record("move", move) == Move(rules.Pick(0, 0, 2))


def test_an_unknown_or_malformed_record_is_refused_by_name() -> None:
    with pytest.raises(BrokenRule, match="unknown table command 'dance'"):
        from_record("dance", {})
    with pytest.raises(BrokenRule, match="malformed 'join' record"):
        from_record("join", {"player": "key:a"})


def test_a_refused_start_leaves_the_table_as_it_was(plain_deck: SimpleNamespace) -> None:
    table = new_table("ABCD", Create("s", "key:a", TableOptions(bots_fill=True)))
    commands.apply(table, Join("key:a", "Ann", "X"), plain_deck)
    tiny = SimpleNamespace(task_names=("t",), item_names=("i",))
    with pytest.raises(BrokenRule, match="deck is too small"):
        commands.apply(table, Start(), tiny)
    assert [s.name for s in table.seats] == ["Ann"] and table.status == "lobby"
    commands.apply(table, Start(), plain_deck)
    assert [s.name for s in table.seats] == ["Ann", "Bot Ada", "Bot Bix"]
