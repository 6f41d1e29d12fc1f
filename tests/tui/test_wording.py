"""Words a player reads: no doubled brackets, no "1 rounds", each phrase reads as a sentence."""

from __future__ import annotations

import pytest

from engine.identity import Player
from engine.tables import TableOptions
from tui import board_text
from tui.table_screen import game_length


@pytest.mark.parametrize(("rounds", "seated", "phrase"), [
    (0, 3, "an endless game (the host ends it)"),
    (1, 3, "a game of 1 round"),
    (7, 4, "a game of 7 rounds"),
    (None, 4, "a game of 8 rounds for 4 agents"),
    (None, 2, "a game (its rounds set by how many agents sit)"),
])
def test_the_game_length_reads_as_what_starting_now_would_give(
        rounds: int | None, seated: int, phrase: str) -> None:
    text = game_length(TableOptions(rounds=rounds), seated)
    assert text == phrase


def test_players_read_how_many_watch_their_game_and_spectators_that_they_watch(
        plain_deck: object) -> None:
    from tests.engine.test_hub import make_hub, seat_table

    hub = make_hub(plain_deck)  # type: ignore[arg-type]
    sessions = seat_table(hub, 3)
    sessions[0].start()
    code = sessions[0].view().code  # type: ignore[union-attr]
    dee = hub.attach(Player("key:dee", "Dee"))
    dee.join(code)
    player = "".join(text for text, _ in board_text.status_line(sessions[1].view()))  # type: ignore[arg-type]
    watcher = "".join(text for text, _ in board_text.status_line(dee.view()))  # type: ignore[arg-type]
    assert player.endswith(" · 1 watching")
    assert watcher.endswith(" · watching")
