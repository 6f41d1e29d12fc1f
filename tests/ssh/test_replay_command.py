"""``ssh -t HOST replay CODE [N]``: a finished game, watched again over real SSH."""

from __future__ import annotations

from pathlib import Path

import asyncssh

from engine.tables import TableOptions
from server.admin.cli import mission_app_factory
from server.session import parse_join_code, parse_replay
from tests.engine.test_replay import journaled_hub, play_to_the_end, seat_people
from tests.ssh.client import TermClient
from tests.ssh.conftest import StartServer


def test_replay_code_and_a_game_number_are_read_beside_the_join_code() -> None:
    assert parse_replay("replay abcd") == ("ABCD", None)
    assert parse_replay("  REPLAY abcd 2 ") == ("ABCD", 2)
    assert parse_replay("abcd") is None and parse_join_code("abcd") == (True, "ABCD")
    assert parse_replay("replay abcde") is None and parse_replay("replay abcd 0") is None
    assert parse_replay(None) is None


async def test_ssh_replay_code_opens_the_last_finished_game_of_that_table(
        game_server: StartServer, client_key: asyncssh.SSHKey, tmp_path: Path) -> None:
    hub = journaled_hub(tmp_path)
    try:
        table, people = seat_people(hub, ["Ann", "Bob"], bots=("normal",),
                                    options=TableOptions(turn_seconds=0, rounds=1))
        await play_to_the_end(table, people, "ssh")
        for session in people.values():
            session.leave()
        server = await game_server(mission_app_factory(hub))
        client = await TermClient.connect(server.port, key=client_key, size=(80, 24),
                                          command=f"replay {table.code.lower()}")
        try:
            await client.wait_for(f"Replay  ·  table {table.code}, game 1")
            await client.wait_for("step 1 of")
            assert "◆ secret" in client.text()
            client.send("\x1b[B")  # down: the first pick
            await client.wait_for("step 2 of")
            await client.wait_for("▶ ")
            client.send("\x1b[F")  # End
            await client.wait_for("Game over:")
            client.send("\x1b")  # Esc: the lobby
            await client.wait_for("Tables")
        finally:
            client.close()
        numbered = await TermClient.connect(server.port, key=client_key, size=(80, 24),
                                            command=f"replay {table.code} 2")
        try:
            await numbered.wait_for(f"no finished game 2 of table {table.code}")
        finally:
            numbered.close()
    finally:
        hub.close()
