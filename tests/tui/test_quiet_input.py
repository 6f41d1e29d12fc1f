"""QuietInput draws what Textual's Input draws, for less."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any, ClassVar

from rich.style import Style
from textual.app import App, ComposeResult
from textual.pilot import Pilot
from textual.strip import Strip
from textual.widgets import Input

from lean_textual.styles import keep_component_nodes, share_rule_matches
from tui.app import MissionApp  # noqa: F401  (installs the process's shared styles)
from tui.inputs import QuietInput

WORDS = ["plan", "we", "ride", "the", "pigeon", "  ", "café", "日本", "🦆", "x" * 30, "!"]


class Fields(App[None]):
    CSS: ClassVar[str] = """
    QuietInput { width: 24; }
    Screen.hot QuietInput > .input--cursor { background: red; }
    """

    def compose(self) -> ComposeResult:
        yield QuietInput(id="one")
        yield QuietInput(id="two")


def cells(strip: Strip) -> list[tuple[str, Style | None]]:
    """A strip as its characters with their styles (however the segments are cut)."""
    return [(char, segment.style) for segment in strip for char in segment.text]


@asynccontextmanager
async def two_fields() -> AsyncIterator[tuple[Fields, Pilot[None], list[QuietInput]]]:
    """The two fields of :class:`Fields`, running, styled as the server styles them."""
    keep_component_nodes()
    share_rule_matches()
    app = Fields()
    async with app.run_test(size=(60, 8)) as pilot:
        yield app, pilot, list(app.query(QuietInput))


async def focus_or_not(app: Fields, pilot: Pilot[None], field: QuietInput,
                       rng: random.Random) -> None:
    if rng.random() < 0.5:
        field.focus()
    else:
        app.set_focus(None)
    await pilot.pause()


def assert_drawn_alike(field: QuietInput, state: object) -> None:
    """The field's line as ours and as Textual's ``Input`` draw it: the same cells."""
    ours: Any = field.render_line(0)
    theirs: Any = Input.render_line(field, 0)
    assert cells(ours) == cells(theirs), state
    assert ours.cell_length == theirs.cell_length


async def test_a_field_draws_what_textual_s_input_draws_in_every_state() -> None:
    rng = random.Random(8)
    async with two_fields() as (app, pilot, fields):
        drawn = 0
        for _ in range(200):
            field = rng.choice(fields)
            field.value = "".join(rng.choice(WORDS) for _ in range(rng.randint(1, 8)))
            await focus_or_not(app, pilot, field, rng)
            end = len(field.value)
            field.cursor_position = rng.randint(0, end)
            if rng.random() < 0.4:
                field.selection = (rng.randint(0, end), rng.randint(0, end))  # type: ignore[assignment]
            field.scroll_to(x=rng.randint(0, 40), animate=False, immediate=True)
            assert_drawn_alike(field, (field.value, field.selection))
            drawn += field.has_focus
        assert drawn > 60


async def test_an_empty_field_draws_its_placeholder_as_textual_s_input_does() -> None:
    rng = random.Random(9)
    async with two_fields() as (app, pilot, fields):
        kinds: set[tuple[str, bool]] = set()
        for _ in range(60):
            field = rng.choice(fields)
            field.value = ""
            field.placeholder = rng.choice(("", "ABCD", "your name", "日本 🦆", "x" * 30))
            await focus_or_not(app, pilot, field, rng)
            assert_drawn_alike(field, (field.placeholder, field.has_focus))
            kinds.add((field.placeholder, field.has_focus))
        assert len(kinds) == 10


async def test_a_field_s_cursor_follows_a_class_set_on_its_screen() -> None:
    """The field keeps the key of its place between restyles: a class set on the screen
    restyles it, and the next key's cursor has the new colour."""
    keep_component_nodes()
    share_rule_matches()
    app = Fields()
    async with app.run_test(size=(60, 8)) as pilot:
        field = app.query_one("#one", QuietInput)
        field.focus()
        await pilot.press("a")
        before = field.get_component_rich_style("input--cursor")
        app.screen.add_class("hot")
        await pilot.press("b")
        after = field.get_component_rich_style("input--cursor")
        assert after != before and after.bgcolor is not None
        assert after.bgcolor.name in ("red", "#ff0000") or after.bgcolor.triplet == (255, 0, 0)
