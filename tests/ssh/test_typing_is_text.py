"""Typing is never a move: words typed into the chat stay text, however fast they come and
whatever follows Enter, over SSH through the real driver; a move comes only from a key
pressed at the board, after Esc, and the player sees where their keys go."""

from __future__ import annotations

import asyncio

import pytest

from engine.cards import load_deck
from engine.hub import Hub
from engine.rules import Phase, State
from engine.tables import Table
from server.admin.cli import mission_app_factory
from tests.ssh.client import TermClient
from tests.ssh.conftest import StartServer
from tests.ssh.friends import three_at_a_table
from tests.waiting import until

pytestmark = pytest.mark.xdist_group("e2e")


async def _playing(game_server: StartServer) -> tuple[Hub, Table, dict[int, TermClient]]:
    hub = Hub(deck=load_deck(), seed="typing", settle_ms=40, bot_delay=0.0)
    server = await game_server(mission_app_factory(hub))
    terms, table = await three_at_a_table(server.port, hub, sizes=((80, 24),) * 3)
    terms[0].send("g")
    await until(lambda: table.status == "playing", "the game to start")
    await terms[1].wait_for("Round 1 of")
    return hub, table, dict(enumerate(terms))


def _state(table: Table) -> State:
    assert table.state is not None
    return table.state


def _chat(table: Table) -> list[str]:
    return [line.text for line in table.chat]


async def test_words_typed_after_a_chat_line_in_one_burst_never_shout_stop(
    game_server: StartServer,
) -> None:
    _hub, table, terms = await _playing(game_server)
    guesser = _state(table).guessers[0]
    term, other = terms[guesser], terms[_state(table).guessers[1]]
    term.send("cnice one\rso what")  # one write: c, a line, Enter, and more words
    await other.wait_for("nice one")
    await term.wait_for("so what")  # still in the chat line, where the keys went
    await asyncio.sleep(0.2)
    assert _state(table).stop == ()
    assert _chat(table) == ["nice one"]
    assert "typing in chat" in term.text()
    term.send("\r")
    await until(lambda: _chat(table) == ["nice one", "so what"], "the second line")
    assert _state(table).stop == ()


async def test_two_lines_in_one_burst_both_reach_the_chat_and_open_nothing(
    game_server: StartServer,
) -> None:
    _hub, table, terms = await _playing(game_server)
    term = terms[_state(table).guessers[0]]
    term.send("chi all2\rready?\r")
    await until(lambda: _chat(table) == ["hi all2", "ready?"], "both lines in the chat")
    await asyncio.sleep(0.2)
    assert "Keys" not in term.text() and "How to play" not in term.text()  # no help
    assert _state(table).guesses == (None,) * 3 and _state(table).stop == ()


async def test_a_guess_after_a_chat_line_is_played_from_the_board_after_esc(
    game_server: StartServer,
) -> None:
    _hub, table, terms = await _playing(game_server)
    state = _state(table)
    lead = terms[state.lead]
    for column in range(4):
        lead.send("1")
        await until(lambda c=column: len(_state(table).picks) == c + 1, f"pick {column + 1}")
    assert _state(table).phase is Phase.GUESSING
    guesser = state.guessers[0]
    term = terms[guesser]
    term.send("cwhich one?\r3")  # the 3 is typed after Enter: it stays in the chat line
    await until(lambda: _chat(table) == ["which one?"], "the chat line")
    await term.wait_for("back to the board to play")  # the key bar says where keys go
    await asyncio.sleep(0.2)
    assert _state(table).guesses[guesser] is None
    term.send("\x7f\x1b")  # Backspace, then Esc alone: the board has the keys
    await term.wait_for("c chat")
    term.send("3")
    await until(lambda: _state(table).guesses[guesser] == 3, "the guess hidden")
    assert _chat(table) == ["which one?"]
