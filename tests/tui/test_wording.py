"""Words a player reads: no doubled brackets, no "1 rounds", each phrase reads as a sentence."""

from __future__ import annotations

import pytest

from engine.tables import TableOptions
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
