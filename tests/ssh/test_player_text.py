"""Text one player types shows literally, and keeps the layout aligned, on the OTHER
players' screens: escapes, markup, bidirectional overrides, zero-width and combining
characters, wide characters and newlines."""

from __future__ import annotations

import asyncio
from unicodedata import normalize

import pytest
from wcwidth import wcswidth

from engine.cards import load_deck
from engine.hub import Hub
from server.admin.cli import mission_app_factory
from server.paste import PASTE_END, PASTE_START
from tests.ssh.client import TermClient
from tests.ssh.conftest import StartServer
from tests.ssh.friends import three_at_a_table
from tests.waiting import until

pytestmark = pytest.mark.xdist_group("e2e")

TYPED = "\x1b[31mred\x1b[0m [bold]b[/bold] R\u202eLO z\u200bw e\u0301\u0301 漢字😀 \x07\x08!"
SHOWN = ("red [bold]b[/bold] R", "LO z", "w e\u0301\u0301 漢字😀!")
PASTED = "first line\nsecond\x1b]0;pwned\x07\x1b[2J line"


def aligned(client: TermClient) -> bool:
    """Every row of the screen is exactly as wide as the terminal: nothing overflowed."""
    return all(wcswidth(line) == client.screen.columns for line in client.screen.display)


async def test_every_kind_of_nasty_text_is_inert_and_aligned_on_other_screens(
    game_server: StartServer,
) -> None:
    hub = Hub(deck=load_deck(), seed="text", settle_ms=0, bot_delay=0.0)
    server = await game_server(mission_app_factory(hub))
    (alice, bob, carol), _ = await three_at_a_table(
        server.port, hub, ("alice", "bob[red]x", "carol"),
        ((120, 40), (100, 30), (120, 40)))  # the readers see the chat half-wide: lines whole
    alice.send("g")
    await bob.wait_for("Round 1")

    bob.send("c")
    await until(lambda: bob.text().count("Chat") >= 1, "bob's chat")
    bob.send(TYPED + "\r")
    await alice.wait_for("漢字")
    bob.send("\x1b")  # back to the board, wherever Enter left the focus
    await asyncio.sleep(0.2)  # a lone Esc is known only after the escape delay
    bob.send("c")
    bob.send(PASTE_START + PASTED + PASTE_END + "\r")
    for other in (alice, carol):
        await other.wait_for("first line")
        screen = normalize("NFC", other.text())  # pyte composes e + accent
        assert "bob[red]x:" in screen  # markup in a name is text
        for part in SHOWN:
            assert normalize("NFC", part) in screen, (part, screen)
        assert "\u202e" not in screen and "\u200b" not in screen
        assert "[2J" not in screen
        assert aligned(other), screen
        assert b"pwned" not in bytes(other.raw)  # no title set, nothing of it shown
