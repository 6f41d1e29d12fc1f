"""Each terminal gets what it can show: colour, monochrome, or a reason."""

from __future__ import annotations

import re

import asyncssh
import pytest

from engine.cards import load_deck
from engine.hub import Hub
from engine.rules import Phase
from server import colours
from server.admin.cli import mission_app_factory
from server.colours import (
    COLOURS_16,
    COLOURS_256,
    DUMB_TERMINAL,
    NO_COLOUR,
    TRUE_COLOUR,
    colour_depth,
    fit_colours,
    fit_pieces,
    strip_colour,
)
from tests.ssh.client import TermClient
from tests.ssh.conftest import StartServer
from tests.waiting import until

SGR = re.compile(r"\x1b\[([0-9;:]*)m")
ANSI_16 = {*range(30, 38), *range(40, 48), *range(90, 98), *range(100, 108), 39, 49}


def colour_codes(output: str) -> list[str]:
    """Every colour an output sets, as ``"31"``, ``"38;5;214"`` or ``"48;2;18;18;18"``."""
    codes = []
    for match in SGR.finditer(output):
        params = match.group(1).split(";") if match.group(1) else []
        i = 0
        while i < len(params):
            code = params[i]
            if code in ("38", "48", "58") and i + 1 < len(params):
                width = 3 if params[i + 1] == "5" else 5
                codes.append(";".join(params[i:i + width]))
                i += width
                continue
            if code.isdigit() and int(code) in ANSI_16:
                codes.append(code)
            i += 1
    return codes


@pytest.mark.parametrize("term, env, depth", [
    ("xterm", {}, COLOURS_16),
    ("screen", {}, COLOURS_16),
    ("linux", {}, COLOURS_16),
    ("rxvt-unicode", {}, COLOURS_16),
    ("xterm-256color", {}, COLOURS_256),
    ("screen-256color", {}, COLOURS_256),
    ("tmux-256color", {}, COLOURS_256),
    ("xterm-256color", {"COLORTERM": "truecolor"}, TRUE_COLOUR),
    ("xterm-direct", {}, TRUE_COLOUR),
    ("vt100", {}, NO_COLOUR),
    ("vt220", {"COLORTERM": "truecolor"}, NO_COLOUR),
    ("xterm-256color", {"NO_COLOR": "1"}, NO_COLOUR),
])
def test_each_terminal_type_gets_the_colours_it_shows(term: str, env: dict[str, str],
                                                      depth: str) -> None:
    assert colour_depth(term, env) == depth


def test_true_colour_is_brought_down_to_16_or_256_colours() -> None:
    frame = ("\x1b[1;38;2;254;166;43;48;2;18;18;18mA\x1b[38;5;71;48;2;36;69;46mB"
             "\x1b[0;4;58;2;1;2;3;31mC\x1b[m")
    sixteen = fit_colours(frame, COLOURS_16)
    assert all(c.isdigit() and int(c) in ANSI_16 for c in colour_codes(sixteen))
    assert "\x1b[1;93;40mA" in sixteen  # the orange accent is a yellow, not the errors' red
    assert "\x1b[0;4;31mC" in sixteen  # attributes and plain colours stay
    eight_bit = fit_colours(frame, COLOURS_256)
    assert not [c for c in colour_codes(eight_bit) if c.startswith(("38;2", "48;2"))]
    assert "38;5;214;48;5;233mA" in eight_bit
    assert fit_colours(frame, TRUE_COLOUR) == frame
    assert fit_colours(frame, NO_COLOUR) == strip_colour(frame)


def test_a_frame_s_pieces_are_fitted_as_the_frame_and_each_piece_once(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The driver fits a frame piece by piece (a row's text is a piece, the same string
    for every seat at a table): the same text as the frame fitted whole, at every depth,
    and a row sent to a second seat is not fitted again."""
    row = "\x1b[1;38;2;254;166;43;48;2;18;18;18mA\x1b[0m\x1b[38;2;36;69;46mB\x1b[m"
    pieces = ["\x1b[?2026h", "\x1b[3;5H", row, "\x1b[4;5H", row * 2, "\x1b[1;2H\x1b[?2026l"]
    for depth in (COLOURS_16, COLOURS_256, NO_COLOUR, TRUE_COLOUR):
        assert fit_pieces(pieces, depth) == fit_colours("".join(pieces), depth)
    fitted: list[str] = []
    fit_colours_of = colours.fit_colours

    def counted(frame: str, depth: str) -> str:
        fitted.append(frame)
        return fit_colours_of(frame, depth)

    monkeypatch.setattr(colours, "fit_colours", counted)
    second_seat = ["\x1b[?2026h", "\x1b[3;5H", row, "\x1b[1;9H\x1b[?2026l"]
    assert fit_pieces(second_seat, COLOURS_256) == fit_colours_of("".join(second_seat),
                                                                  COLOURS_256)
    assert row not in fitted and fitted == ["\x1b[1;9H\x1b[?2026l"]


def test_16_colour_text_never_takes_its_backgrounds_colour() -> None:
    """A light green on a dark green, or grey text on the grey status row, would vanish:
    such text becomes black or bright white."""
    on_green = fit_colours("\x1b[38;2;120;230;140;48;2;30;110;50mX", COLOURS_16)
    assert on_green == "\x1b[30;42mX"
    on_grey = fit_colours("\x1b[38;2;80;80;80;48;2;50;50;60mX", COLOURS_16)
    assert on_grey == "\x1b[97;100mX"
    muted = fit_colours("\x1b[38;2;90;90;90;48;2;18;18;18mX", COLOURS_16)
    assert muted == "\x1b[90;40mX"  # bright black on black: muted, still readable


def test_16_colour_tags_on_the_status_row_keep_a_box_of_their_own() -> None:
    """The theme's status row ($panel) and the REVEAL tag or a card on it
    ($panel-lighten-2) were both bright black: the tag had no box."""
    row = fit_colours("\x1b[38;2;224;224;224;48;2;36;47;56mX", COLOURS_16)
    tag = fit_colours("\x1b[1;38;2;224;224;224;48;2;69;80;90mX", COLOURS_16)
    assert row == "\x1b[97;100mX"
    assert tag == "\x1b[1;30;47mX"  # black on white


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


async def test_16_and_256_colour_terminals_get_no_colour_they_cannot_show(
        game_server: StartServer) -> None:
    """A game with its big moments (a pick, a Stop!, a hidden guess) on three terminals:
    xterm gets the 16 ANSI colours only, xterm-256color no true colour, and on the 16
    colour screen no text has its background's colour and the grid's cursor stands out."""
    hub = Hub(deck=load_deck(), seed="colours", settle_ms=0, bot_delay=0.0)
    server = await game_server(mission_app_factory(hub))
    keys = [asyncssh.generate_private_key("ssh-ed25519") for _ in range(3)]
    terms = ["xterm", "xterm-256color", "screen"]
    host = await TermClient.connect(server.port, username="ann", key=keys[0], term=terms[0])
    await host.wait_for("the lobby")
    host.send("c")
    await until(lambda: len(hub.tables) == 1, "ann's table")
    table = next(iter(hub.tables.values()))
    others = [await TermClient.connect(server.port, username=name, key=key, term=term,
                                       command=table.code)
              for name, key, term in zip(("bob", "cy"), keys[1:], terms[1:], strict=True)]
    clients = [host, *others]
    await until(lambda: len(table.seats) == 3, "three seats")
    await host.wait_for("cy")
    host.send("g")
    await until(lambda: table.state is not None, "the game")
    state = table.state
    assert state is not None
    lead = clients[state.lead]
    await lead.wait_for("Your secret task")
    lead.send("1")
    await until(lambda: len(table.state.picks) == 1, "a pick")  # type: ignore[union-attr]
    shouter = clients[state.guessers[0]]
    shouter.send("s")
    await until(lambda: table.state.stop != (), "a Stop!")  # type: ignore[union-attr]
    shouter.send("2")
    await until(lambda: table.state.phase is Phase.PICKING  # type: ignore[union-attr]
                and table.state.guesses[state.guessers[0]] is not None, "a guess")
    await lead.wait_for("Stop")
    for client in clients:
        await client.wait_for("Stop")

    for client, term in zip(clients, terms, strict=True):
        codes = colour_codes(bytes(client.raw).decode("utf-8", "replace"))
        assert codes, f"{term} got no colour at all"
        if term in ("xterm", "screen"):
            assert all(c.isdigit() for c in codes), f"{term} got {sorted(set(codes))[:5]}"
        else:
            assert not [c for c in codes if c.startswith(("38;2", "48;2"))]
            assert any(c.startswith("38;5") for c in codes)

    for client in (host, others[1]):  # the 16-colour screens
        screen = client.screen
        for y in range(screen.lines):
            for x, char in sorted(screen.buffer[y].items()):
                if char.data.strip() and char.fg != "default" and not char.reverse:
                    same = char.fg.removeprefix("bright") == char.bg.removeprefix("bright")
                    assert not same or (char.fg, char.bg) == ("brightblack", "black"), (
                        f"{char.data!r} at {x},{y} is {char.fg} on {char.bg}")
    grid_rows = [y for y, line in enumerate(lead.screen.display) if "1 " in line[:4]]
    assert grid_rows
