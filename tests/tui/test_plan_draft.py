"""A half-written plan outlasts a dropped connection: the player who comes back to their
seat finds it in the plan field, as they left it."""

from __future__ import annotations

from textual.widgets import Input

from engine.identity import Player
from tests.tui.game_host import GameHost, make_table, running, settle
from tests.tui.test_game_screen import apps_for, play_to_reveal


async def test_a_plan_half_written_before_a_drop_is_back_in_the_field_after_it() -> None:
    table = make_table(4)
    apps = apps_for(table)
    _first, second, _third = play_to_reveal(table)
    async with running([apps[second]]) as pilots:
        field = apps[second].screen.query_one("#plan", Input)
        assert field.has_focus
        await pilots[0].press(*"ring the cow")
        await settle(pilots)
    table.seat_session(second).detach()  # the connection dropped

    again = table.hub.attach(Player(f"key:{table.state().players[second]}", "ssh-name"))
    again.join(table.code)
    back = GameHost(again)
    async with running([back]):
        field = back.screen.query_one("#plan", Input)
        assert field.value == "ring the cow" and field.cursor_position == len("ring the cow")
