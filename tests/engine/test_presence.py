"""Who is at a table, and what that changes: players hear who watches; a table where no
person plays any more ends; a name and a half-written plan outlast a dropped connection."""

from __future__ import annotations

from types import SimpleNamespace

from engine.identity import Player
from tests.engine.test_hub import make_hub, seat_table


def test_players_hear_when_someone_starts_watching_and_see_how_many_watch(
        plain_deck: SimpleNamespace) -> None:
    hub = make_hub(plain_deck)
    sessions = seat_table(hub, 3)
    sessions[0].start()
    code = sessions[0].view().code
    dee = hub.attach(Player("key:dee", "Dee"))
    dee.join(code)
    dee.leave()
    dee.join(code)  # back again: one line, not two
    hub.attach(Player("key:eve", "Eve")).join(code, spectate=True)

    view = sessions[1].view()
    lines = [line.text for line in view.log]
    assert lines.count("Dee is watching") == 1 and "Eve is watching" in lines
    assert view.spectators == 2  # the game screen's status row says it (tests/tui)
