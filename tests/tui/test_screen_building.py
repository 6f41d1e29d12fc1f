"""What building a screen costs: the mechanisms, not the timings (bench/screens.py).

A new player's lobby, and each screen of a table (setup, game, results), is built while
the app holds its output back (a batch). While it is built:

- every widget is styled once, as it is mounted, and exactly as Textual's own setters
  would style it; nothing restyles the whole screen again on its first showing, nor a
  widget before it is mounted;
- nothing is drawn (Textual drew and dropped it), and when the batch ends the screen goes
  to the terminal whole, once;
- a full layout answers every layout asked for before it began.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from textual.app import App
from textual.css.styles import Styles
from textual.css.stylesheet import Stylesheet
from textual.dom import DOMNode
from textual.layout import Layout

from engine.cards import load_deck
from engine.hub import Hub
from lean_textual import styles
from tests.tui.test_screen_costs import (
    all_idle,
    settled_after,
    start_player,
    styled_nodes,
    three_at_a_table,
)
from tests.waiting import until
from tui.app import MissionApp
from tui.keybar import KeyBar

ROWS = re.compile(r"\x1b\[(\d+);1H")


def looks(app: MissionApp) -> list[tuple[Any, ...]]:
    """Each node of the app's screens, with the rules it holds and its scrollbars (a
    layout rule by its name: Textual makes a layout object per node)."""
    return [(type(node).__name__, node.id, sorted(node.classes),
             {rule: value.name if isinstance(value, Layout) else value
              for rule, value in node.styles.base._rules.items()},
             getattr(node, "show_vertical_scrollbar", None),
             getattr(node, "show_horizontal_scrollbar", None))
            for node in styled_nodes(app)]


@contextmanager
def restyles() -> Iterator[list[list[DOMNode | None]]]:
    """Every restyle pass (the nodes it restyles), while inside; a node not in any tree
    when it was restyled is listed as None."""
    passes: list[list[DOMNode | None]] = []
    update_nodes = Stylesheet.update_nodes

    def counted(stylesheet: Stylesheet, nodes: Any, animate: bool = False) -> None:
        nodes = list(nodes)
        passes.append([None if node._parent is None and not isinstance(node, App) else node
                       for node in nodes])
        update_nodes(stylesheet, nodes, animate=animate)

    Stylesheet.update_nodes = counted  # type: ignore[method-assign]
    try:
        yield passes
    finally:
        Stylesheet.update_nodes = update_nodes  # type: ignore[method-assign]


async def test_a_table_s_next_screen_reaches_each_terminal_whole_and_once() -> None:
    async with three_at_a_table("once") as (_, _, apps):
        host = apps[0]
        sent = [len(app._driver.frames) for app in apps]  # type: ignore[attr-defined]
        host.session.start()  # type: ignore[union-attr]
        await settled_after(0.8)
        for app, before in zip(apps, sent, strict=True):
            frames = app._driver.frames[before:]  # type: ignore[attr-defined]
            whole = [frame for frame in frames
                     if {int(row) for row in ROWS.findall(frame)} == set(range(1, 31))]
            assert frames and frames[0] in whole, "the game screen, whole, first"
            assert len(whole) == 1, f"{len(whole)} whole frames"
            assert "Tasks" in frames[0]


async def test_a_new_screen_is_styled_once_as_it_is_mounted() -> None:
    """No restyle of a whole screen while a lobby or a game screen is built, and none of a
    widget not mounted yet; and what each widget then holds is what a restyle of every
    widget gives (so the first showing's restyle, skipped, would change nothing)."""
    hub = Hub(deck=load_deck(), seed="styled", settle_ms=0, bot_delay=0.0)
    with restyles() as passes:
        app, task = await start_player(hub, "Dee")
        await settled_after(0.3)
    try:
        assert passes and max(len(nodes) for nodes in passes) == 1
        assert None not in (node for nodes in passes for node in nodes)
        before = looks(app)
        app.stylesheet.update(app.screen, animate=False)
        assert looks(app) == before
    finally:
        app.exit()
        await task
    async with three_at_a_table("styled") as (_, _, apps):
        host = apps[0]
        with restyles() as passes:
            host.session.start()  # type: ignore[union-attr]
            await settled_after(0.8)
        assert {type(app.screen).__name__ for app in apps} == {"GameScreen"}
        built = [nodes for nodes in passes if nodes and nodes[0] in apps[1].screen.walk_children(
            with_self=True)]
        assert built and max(len(nodes) for nodes in built) == 1
        for app in apps:
            before = looks(app)
            app.stylesheet.update(app.screen, animate=False)
            assert looks(app) == before


async def test_rules_are_stored_as_textual_s_own_setters_would_store_them(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The same screens built twice, the second time with Textual's ``replace_rules``:
    every node holds the same rules and shows the same scrollbars. And the first time,
    a new widget's rules went in without their setters (the mechanism)."""
    stored = Counter[str]()
    set_rule = Styles.set_rule

    def counted(self: Styles, rule: str, value: object | None) -> bool:
        stored[rule] += 1
        return set_rule(self, rule, value)

    async def built() -> list[list[tuple[Any, ...]]]:
        async with three_at_a_table("rules") as (_, _, apps):
            apps[0].session.start()  # type: ignore[union-attr]
            await settled_after(0.8)
            return [looks(app) for app in apps]

    monkeypatch.setattr(Styles, "set_rule", counted)
    ours = await built()
    ours_set = sum(stored.values())
    textual_replace = Stylesheet.replace_rules.__func__._textual  # type: ignore[attr-defined]
    monkeypatch.setattr(styles, "_replace_rules",
                        lambda node, rules: textual_replace(node, rules, animate=False))
    stored.clear()
    theirs = await built()
    assert ours == theirs
    # Textual sets every rule of every node through its setter (3,400 here); ours, the
    # rules of mounted nodes that changed, and the few whose setters do more (400).
    assert ours_set * 4 < sum(stored.values())


async def test_the_key_bar_reads_the_keys_once_while_a_screen_is_built(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """While a screen is built its bindings change at each mount and focus; the key bar
    reads them once, as the app lets its output go, and its keys are in the screen's one
    whole frame (checked by the frame tests)."""
    reads: list[KeyBar] = []
    update_hints = KeyBar.update_hints

    def counted(bar: KeyBar) -> None:
        reads.append(bar)
        update_hints(bar)

    monkeypatch.setattr(KeyBar, "update_hints", counted)
    hub = Hub(deck=load_deck(), seed="keys", settle_ms=0, bot_delay=0.0)
    app, task = await start_player(hub, "Dee")
    try:
        await until(lambda: reads, "the lobby's keys")
        await all_idle([app])
        assert len(reads) == 1
        assert "Create table" in app.screen.query_one(KeyBar).plain
        reads.clear()
        await app.run_action("screen.create")  # the table's screen, built in a batch
        await until(lambda: type(app.screen).__name__ == "TableScreen" and reads,
                    "the table's screen and its keys")
        await all_idle([app])
        assert len(reads) == 1
        assert "Add bot" in app.screen.query_one(KeyBar).plain
    finally:
        app.exit()
        await task


async def test_a_full_layout_answers_the_layouts_asked_before_it() -> None:
    hub = Hub(deck=load_deck(), seed="layout", settle_ms=0, bot_delay=0.0)
    app, task = await start_player(hub, "Eve")
    try:
        await settled_after(0.3)
        screen = app.screen
        screen.refresh(layout=True)
        assert screen._layout_required
        screen._refresh_layout()
        assert not screen._layout_required
        screen.refresh(layout=True)
        screen._refresh_layout(scroll=True)  # a scroll alone lays nothing out
        assert screen._layout_required
    finally:
        app.exit()
        await task

