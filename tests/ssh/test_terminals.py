"""Each terminal gets what it can show: colour, monochrome, or a reason."""

from __future__ import annotations

import pytest

from server.colours import DUMB_TERMINAL, strip_colour
from tests.ssh.client import TermClient
from tests.ssh.conftest import StartServer


def test_colour_codes_go_and_attributes_stay() -> None:
    frame = "\x1b[1;38;2;10;20;30;48;5;17mX\x1b[0m\x1b[38;2;1;2;3mY\x1b[7;31mZ\x1b[m"
    assert strip_colour(frame) == "\x1b[1mX\x1b[0mY\x1b[7mZ\x1b[m"


async def test_a_dumb_terminal_is_told_why_it_gets_no_game(game_server: StartServer) -> None:
    server = await game_server()
    client = await TermClient.connect(server.port, term="dumb")
    await client.wait_closed()
    assert client.stderr.decode().strip() == DUMB_TERMINAL.format(term="dumb")


@pytest.mark.parametrize("term, env", [("vt100", None), ("xterm-256color", {"NO_COLOR": "1"})])
async def test_a_terminal_without_colour_or_a_player_asking_for_none_gets_none(
    game_server: StartServer, term: str, env: dict[str, str] | None
) -> None:
    server = await game_server()
    plain = await TermClient.connect(server.port, term=term, env=env, username="plain")
    colourful = await TermClient.connect(server.port, username="colourful")
    await plain.wait_for("len: 0")
    await colourful.wait_for("len: 0")
    shown = {client: bytes(client.raw).decode("utf-8", "replace")
             for client in (plain, colourful)}
    assert strip_colour(shown[colourful]) != shown[colourful]  # the same app, in colour
    assert strip_colour(shown[plain]) == shown[plain]  # not one colour code
