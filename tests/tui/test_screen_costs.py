"""What keeps the screens cheap on a server with hundreds of players: the mechanisms, not
the timings (bench/screens.py measures those).

- While playing, the layout is fixed: a pick, a key typed into the plan or the chat, and a
  new log line repaint; none re-lays out the screen.
- The stylesheet is parsed once per process, not once per player, and its rules are matched
  once per place in the screens: a second player's screens are styled from the first's
  matches, with exactly the styles Textual would have given them.
- Restyling a widget (focus moving, a class changing) makes no garbage for the cyclic
  collector, whose pauses stop every player at once.
- Our line widgets hold no component-class nodes of their own: their component styles come
  from one cache for the process, and are what Textual's own nodes would give them.
- A new player's first screen goes out once, whole, when it has settled.
- A partial repaint asks only the widgets whose cells it sends to draw (not the screen nor
  a container hidden under its children), and the terminal still shows exactly what a
  whole repaint would.
- A change from the hub is on the terminal when the app has handled it: no hops through
  the widgets' and the screen's message queues first. One the hub tells where no app's
  code runs (the journal's report that a move is on disk) is painted on every seat right
  there, through no app's queue.
- A changed line goes out as it was drawn, border and all: the compositor never crops it
  again on the way to the terminal.
- A character typed into a text field is typed and on the terminal, with the key bar's
  count of the characters left once the limit is near, in the app's handler of the key:
  one frame per key. So is a key
  the field has a binding for (Backspace, Delete, the arrows, Home, End), and a burst of
  every kind of key keeps its order. A field's ``Changed`` goes straight to its screen.
"""

from __future__ import annotations

import asyncio
import gc
import random
import re
import sys
import time
import weakref
from collections import Counter
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any, ClassVar

import pyte
import pytest
from rich.cells import cell_len
from rich.style import Style
from textual import events, messages
from textual._compositor import ChopsUpdate, Compositor
from textual._context import active_message_pump
from textual.app import App
from textual.css.stylesheet import Stylesheet
from textual.dom import DOMNode
from textual.driver import Driver
from textual.geometry import Size
from textual.message_pump import MessagePump
from textual.screen import Screen
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import Input

from engine.cards import load_deck
from engine.hub import Hub
from engine.identity import Player
from engine.tables import Table, TableOptions
from lean_textual import cached_lines, styles
from lean_textual.cached_lines import CachedLines
from lean_textual.steady import SteadyScreen
from tests.field_model import FieldModel
from tests.tui.game_host import GameHost, make_table, running, settle
from tests.waiting import until
from tui.app import MissionApp
from tui.board import ItemGrid
from tui.chat import GameLog
from tui.countdown import Countdown
from tui.game_screen import GameScreen
from tui.inputs import QuietInput


@contextmanager
def counting_reflows(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    count = [0]
    original = Screen._refresh_layout

    def counted(screen: Screen[Any], *args: Any, **kwargs: Any) -> Any:
        count[0] += 1
        return original(screen, *args, **kwargs)

    monkeypatch.setattr(Screen, "_refresh_layout", counted)
    yield count
    monkeypatch.setattr(Screen, "_refresh_layout", original)


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_picks_and_the_log_lines_they_bring_never_re_lay_out_any_screen(
        monkeypatch: pytest.MonkeyPatch, size: tuple[int, int]) -> None:
    table = make_table(4)
    apps = [GameHost(table.seat_session(seat)) for seat in range(4)]
    async with running(apps, size=size) as pilots:
        lead = pilots[table.lead]
        with counting_reflows(monkeypatch) as reflows:
            for row in "1234":
                await lead.press(row)
                await settle(pilots)
        assert len(table.state().picks) == 4
        assert reflows[0] == 0


async def test_typing_a_plan_or_a_chat_line_never_re_lays_out_the_screen(
        monkeypatch: pytest.MonkeyPatch) -> None:
    table = make_table(3)
    apps = [GameHost(table.seat_session(seat)) for seat in range(3)]
    async with running(apps) as pilots:
        guesser = pilots[table.guessers()[0]]
        await guesser.press("c")
        await settle(pilots)
        with counting_reflows(monkeypatch) as reflows:
            await guesser.press(*"hello there, a rather long chat line to scroll sideways")
            await settle(pilots)
        chat = apps[table.guessers()[0]].screen.query_one("#chat-input")
        assert chat.value.startswith("hello there")
        assert reflows[0] == 0


async def test_opening_and_sending_a_chat_line_repaints_no_whole_screen(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Focus moves to the chat and back to the game: only what changed is repainted."""
    full = [0]
    original = Compositor.render_full_update

    def counted(compositor: Compositor, *args: Any, **kwargs: Any) -> Any:
        full[0] += 1
        return original(compositor, *args, **kwargs)

    table = make_table(3)
    apps = [GameHost(table.seat_session(seat)) for seat in range(3)]
    async with running(apps) as pilots:
        guesser = pilots[table.guessers()[0]]
        app = apps[table.guessers()[0]]
        await settle(pilots)
        monkeypatch.setattr(Compositor, "render_full_update", counted)
        before = app.focused
        await guesser.press("c")
        await settle(pilots)
        assert app.focused is not before and app.focused.id == "chat-input"
        await guesser.press(*"hi", "enter")
        await settle(pilots)
        assert app.focused.id == "chat-input"  # the chat keeps the keys after Enter
        await guesser.press("escape")
        await settle(pilots)
        assert app.focused is before
        assert any("hi" in line.text for line in table.hub.tables[table.code].chat)
        assert full[0] == 0


async def test_people_sitting_down_and_leaving_re_lay_out_no_table_screen(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A table's seats, its status line and its watchers change as people come and go:
    each is repainted in place (the status was a text of automatic height, re-laid out
    for every person who sat down, on every screen at the table)."""
    hub = Hub(deck=load_deck(), seed="seats", settle_ms=0, bot_delay=0.0)
    host = MissionApp(hub, Player("key:ann", "Ann"))
    async with host.run_test(size=(100, 30)) as pilot:
        await pilot.press("c")
        await pilot.pause(0.2)
        code = host.session.view().code  # type: ignore[union-attr]
        status = host.screen.query_one("#table-status", CachedLines).plain
        with counting_reflows(monkeypatch) as reflows:
            others = [hub.attach(Player(f"key:{name}", name)) for name in ("bob", "cy")]
            for other in others:
                other.join(code)
                await pilot.pause(0.1)
            watcher = hub.attach(Player("key:dee", "Dee"))
            watcher.join(code, spectate=True)
            await pilot.pause(0.1)
            host.session.add_bot()  # type: ignore[union-attr]
            others[0].leave()
            await pilot.pause(0.2)
        assert host.screen.query_one("#table-status", CachedLines).plain != status
        assert "1 spectator" in host.screen.query_one("#watchers", CachedLines).plain
        assert reflows[0] == 0


async def test_the_stylesheet_is_parsed_once_for_every_player_in_the_process() -> None:
    hub = Hub(deck=load_deck(), seed="css", settle_ms=0, bot_delay=0.0)
    first = MissionApp(hub, Player("key:ann", "Ann"))
    async with first.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
    parsed = styles.parses
    second = MissionApp(hub, Player("key:bob", "Bob"))
    async with second.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
    assert styles.parses == parsed


def styled_nodes(app: App[Any]) -> list[DOMNode]:
    """Every node of every screen the app holds, with its component-class nodes."""
    nodes: list[DOMNode] = []
    for screen in app.screen_stack:
        for node in screen.walk_children(with_self=True):
            nodes.append(node)
            nodes.extend(node.__dict__.get("_component_nodes", {}).values())
    return nodes


class RootsMatched(list):  # type: ignore[type-arg]
    """Stands in for ``styles._matching``: notes the root (the app) of every node that was
    matched against the rules rather than served from the shared cache."""

    def __init__(self) -> None:
        super().__init__()
        self.roots: list[DOMNode] = []

    def append(self, item: Any) -> None:
        root = item[0]
        while root._parent is not None:
            root = root._parent
        self.roots.append(root)
        super().append(item)


async def test_a_second_player_is_styled_from_the_first_players_matches_and_identically(
        monkeypatch: pytest.MonkeyPatch) -> None:
    table = make_table(3)
    apps = [GameHost(table.seat_session(seat)) for seat in range(3)]
    async with running(apps) as pilots:
        await settle(pilots)
        lead = pilots[table.lead]
        second = MissionApp(Hub(deck=load_deck(), seed="css2", settle_ms=0, bot_delay=0.0),
                            Player("key:bob", "Bob"))
        first = MissionApp(Hub(deck=load_deck(), seed="css1", settle_ms=0, bot_delay=0.0),
                           Player("key:ann", "Ann"))
        async with first.run_test(size=(100, 30)) as pilot:
            await pilot.pause()
        misses = RootsMatched()  # (the game apps may restyle meanwhile: not counted)
        monkeypatch.setattr(styles, "_matching", misses)
        async with second.run_test(size=(100, 30)) as pilot:
            await pilot.pause()
            assert second not in misses.roots  # every node's rules came from the cache
            checked = styled_nodes(second) + styled_nodes(lead.app)
            unshared = Stylesheet.apply._unshared  # type: ignore[attr-defined]
            for node in checked:
                app = node  # its own app (node.app is the app running now: the second)
                while app._parent is not None:
                    app = app._parent
                shared_rules = dict(node.styles.base._rules)
                flags = styles._flags(node)
                unshared(app.stylesheet, node)
                assert dict(node.styles.base._rules) == shared_rules, node
                assert styles._flags(node) == flags, node
            kinds = {type(node).__name__ for node in checked}
            assert kinds >= {"LobbyScreen", "GameScreen", "ItemGrid"}


async def test_a_restyle_pass_builds_each_node_s_path_once_and_the_same_as_alone() -> None:
    """A restyle pass (``update_nodes``, a mount) hands every apply one cache: a node's key
    for the shared matches extends its parent's from it, and equals the key worked out
    alone, ancestor by ancestor, whatever order the pass takes the nodes in."""
    table = make_table(3)
    apps = [GameHost(table.seat_session(seat)) for seat in range(3)]
    async with running(apps) as pilots:
        await settle(pilots)
        app = pilots[table.lead].app
        nodes = styled_nodes(app)
        stylesheet = app.stylesheet
        asked = Counter[int]()
        has_pseudo_class = DOMNode.has_pseudo_class

        def counted(node: DOMNode, name: str) -> bool:
            asked[id(node)] += 1
            return has_pseudo_class(node, name)

        for order in (nodes, nodes[::-1]):
            memo: dict[Any, Any] = {}
            asked.clear()
            DOMNode.has_pseudo_class = counted  # type: ignore[method-assign]
            try:
                keys = [styles._match_key(stylesheet, node, memo) for node in order]
            finally:
                DOMNode.has_pseudo_class = has_pseudo_class  # type: ignore[method-assign]
            assert keys == [styles._match_key(stylesheet, node) for node in order]
            tested = len(styles._rules_token(stylesheet.rules)[1])
            assert tested and max(asked.values()) == tested  # each node asked once


async def test_moving_focus_about_the_lobby_leaves_no_garbage_for_the_cyclic_collector(
        ) -> None:
    hub = Hub(deck=load_deck(), seed="gc", settle_ms=0, bot_delay=0.0)
    app = MissionApp(hub, Player("key:ann", "Ann"))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        gc.collect()
        gc.disable()
        gc.set_debug(gc.DEBUG_SAVEALL)
        try:
            focused = set()
            for _ in range(12):  # round the lobby's fields and lists, twice
                await pilot.press("tab")
                await pilot.pause()
                focused.add(app.focused)
            gc.collect()
            left = {type(o).__name__ for o in gc.garbage if isinstance(o, DOMNode)}
        finally:
            gc.set_debug(0)
            gc.garbage.clear()
            gc.enable()
        assert len(focused) >= 2  # the name and the table code, at least
        assert not left


class Part(Widget):
    COMPONENT_CLASSES: ClassVar[set[str]] = {"part--mark"}
    DEFAULT_CSS = """
    Part > .part--mark { color: red; }
    Part.hot > .part--mark { color: blue; }
    Part:focus > .part--mark { text-style: bold; }
    """
    can_focus = True

    def render(self) -> str:
        return "x"


async def test_a_kept_component_node_still_follows_its_widget_s_classes_and_focus() -> None:
    styles.keep_component_nodes()

    class One(App[None]):
        def compose(self) -> Iterator[Widget]:
            yield Part()

    app = One()
    async with app.run_test() as pilot:
        part = app.query_one(Part)
        part.blur()
        await pilot.pause()
        node = part.get_component_styles("part--mark").node

        def mark() -> tuple[str | None, bool]:
            style = part.get_component_rich_style("part--mark")
            return (style.color.name if style.color else None), bool(style.bold)

        assert mark() == ("#ff0000", False)
        part.add_class("hot")
        await pilot.pause()
        assert mark() == ("#0000ff", False)
        part.focus()
        await pilot.pause()
        assert mark() == ("#0000ff", True)
        part.remove_class("hot")
        part.blur()
        await pilot.pause()
        assert mark() == ("#ff0000", False)
        assert part.get_component_styles("part--mark").node is node  # restyled in place


@contextmanager
def textual_virtual_node(widget: Widget, name: str) -> Iterator[None]:
    """Give ``widget`` the virtual node Textual would make for its component class
    ``name``, matched against the rules without the shared matches, for a moment."""
    virtual = DOMNode(classes=name)
    virtual._attach(widget)
    Stylesheet.apply._unshared(widget.app.stylesheet, virtual)  # type: ignore[attr-defined]
    widget._component_styles[name] = virtual.styles
    widget._visual_style_cache.clear()
    widget._rich_style_cache.clear()
    try:
        yield
    finally:
        del widget._component_styles[name]
        widget._visual_style_cache.clear()
        widget._rich_style_cache.clear()


def textual_component_style(widget: Widget, name: str) -> object:
    """What Textual would make of ``widget``'s component class ``name``."""
    with textual_virtual_node(widget, name):
        return widget.get_visual_style(name)


def assert_styled_as_textual_would(widgets: list[CachedLines]) -> None:
    for widget in widgets:
        assert widget._component_styles == {}, widget
        assert "_component_nodes" not in widget.__dict__, widget
        for name in sorted(widget._get_component_classes()):
            assert widget.component_style(name) == textual_component_style(widget, name), (
                widget, name)


async def test_line_widgets_hold_no_component_nodes_and_look_as_textual_would_draw_them(
        ) -> None:
    async with table_of_three("shared-components") as (_table, apps):
        host = apps[0]
        screen_widgets = [w for w in host.screen.walk_children() if isinstance(w, CachedLines)]
        kinds = {type(w).__name__ for w in screen_widgets}
        assert kinds >= {"Lines", "ItemGrid", "GameLog", "ChatLog", "KeyBar"}
        grid = host.screen.query_one(ItemGrid)
        was = grid.has_focus
        assert_styled_as_textual_would(screen_widgets)
        (host.screen.query_one("#chat-input") if was else grid).focus()
        await settled_after(0.1)
        assert grid.has_focus is not was
        assert_styled_as_textual_would(screen_widgets)  # the grid's pseudo class changed


def textual_rich_styles(widget: Widget, name: str) -> tuple[object, object]:
    """Textual's own ``get_component_rich_style`` of ``name``, from its own virtual node."""
    with textual_virtual_node(widget, name):
        return (Widget.get_component_rich_style(widget, name),
                Widget.get_component_rich_style(widget, name, partial=True))


async def test_text_fields_hold_no_component_nodes_and_draw_as_textual_would() -> None:
    hub = Hub(deck=load_deck(), seed="inputs", settle_ms=0, bot_delay=0.0)
    app = MissionApp(hub, Player("key:ann", "Ann"))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        fields = list(app.screen.query(QuietInput))
        assert len(fields) == 3
        for focused in (None, *fields):
            if focused is not None:
                focused.focus()
                await pilot.pause()
            for field in fields:
                assert field._component_styles == {}
                for name in sorted(field._get_component_classes()):
                    shared = (field.get_component_rich_style(name),
                              field.get_component_rich_style(name, partial=True))
                    assert shared == textual_rich_styles(field, name), (field, name)
        assert fields[0].get_component_rich_style("nothing", default=Style()) == Style()


async def test_a_closed_screen_s_drawn_lines_go_without_waiting_for_the_collector() -> None:
    hub = Hub(deck=load_deck(), seed="released", settle_ms=0, bot_delay=0.0)
    players = [await start_player(hub, "Ann")]
    host = players[0][0]
    code = host.session.create_table(TableOptions(turn_seconds=0))  # type: ignore[union-attr]
    players += [await start_player(hub, name, code) for name in ("Bob", "Cy")]
    try:
        await settled_after(0.3)
        gc.collect()
        gc.disable()
        gc.set_debug(gc.DEBUG_SAVEALL)
        try:
            host.session.start()  # type: ignore[union-attr]
            await settled_after(0.5)  # three table screens close, three game screens open
            assert all(type(app.screen).__name__ == "GameScreen" for app, _ in players)
            gc.collect()
            left = Counter(type(o).__name__ for o in gc.garbage)
        finally:
            gc.set_debug(0)
            gc.garbage.clear()
            gc.enable()
        assert left["TableScreen"] == 3  # the screens themselves wait for the collector,
        assert left["Strip"] + left["Segment"] == 0  # but not the lines they drew (83 here)
    finally:
        for app, task in players:
            app.exit()
            await task


async def test_no_screen_carries_textual_s_tooltip_widget() -> None:
    async with table_of_three("no-tooltips") as (_table, apps):
        for app in apps:  # run as the server runs them (run_test leaves tooltips out anyway)
            kinds = {type(w).__name__ for s in app.screen_stack
                     for w in s.walk_children(with_self=True)}
            assert "Tooltip" not in kinds and "GameScreen" in kinds


class Tinted(CachedLines):
    COMPONENT_CLASSES: ClassVar[set[str]] = {"tinted--mark"}
    DEFAULT_CSS = """
    Tinted { height: 1; }
    Tinted > .tinted--mark { color: red; background: blue 50%; }
    """


async def test_inline_colours_on_the_way_down_make_a_different_component_style() -> None:
    styles.keep_component_nodes()

    class Two(App[None]):
        def compose(self) -> Iterator[Widget]:
            yield Tinted(id="plain")
            yield Tinted(id="painted")

    app = Two()
    async with app.run_test() as pilot:
        plain, painted = app.query(Tinted)
        painted.styles.background = "green"
        await pilot.pause()
        assert_styled_as_textual_would([plain, painted])
        assert plain.component_style("tinted--mark") != painted.component_style("tinted--mark")
        with pytest.raises(KeyError):
            plain.component_style("tinted--nothing")


class FrameCounter(Driver):
    """A terminal that keeps every frame it is sent."""

    def __init__(self, app: App[Any], *, debug: bool = False, mouse: bool = True,
                 size: tuple[int, int] | None = None) -> None:
        super().__init__(app, debug=False, mouse=mouse, size=size)
        self._buffer: list[str] = []
        self.frames: list[str] = []

    def write(self, data: str) -> None:
        self._buffer.append(data)

    def flush(self) -> None:
        if self._buffer:
            self.frames.append("".join(self._buffer))
            self._buffer.clear()

    def start_application_mode(self) -> None:
        size = Size(*(self._size or (100, 30)))
        self._app.post_message(events.Resize(size, size))

    def disable_input(self) -> None:
        pass

    def stop_application_mode(self) -> None:
        pass


async def test_a_new_player_gets_the_settled_lobby_in_one_full_frame_under_10_kb() -> None:
    hub = Hub(deck=load_deck(), seed="frames", settle_ms=0, bot_delay=0.0)
    app = MissionApp(hub, Player("key:ann", "Ann"))
    app.driver_class = FrameCounter  # type: ignore[assignment]
    app._capture_stdout = sys.stdout  # type: ignore[assignment]
    app._capture_stderr = sys.stderr  # type: ignore[assignment]
    task = asyncio.get_running_loop().create_task(app.run_async(size=(100, 30)))
    try:
        deadline = time.monotonic() + 10
        while not (app._driver is not None and app._driver.frames):  # type: ignore[attr-defined]
            assert time.monotonic() < deadline, "no frame"
            await asyncio.sleep(0.01)
        await settled_after(0.5)  # anything else it would send
        frames = app._driver.frames  # type: ignore[attr-defined]
        rows = {int(row) for row in re.findall(r"\x1b\[(\d+);1H", frames[0])}
        assert len(frames) == 1
        assert rows == set(range(1, 31))  # every row: a whole screen
        assert "the lobby" in frames[0]
        assert len(frames[0].encode()) <= 10 * 1024
    finally:
        app.exit()
        await task


STARTED: weakref.WeakSet[MissionApp] = weakref.WeakSet()  # the apps start_player ran


async def start_player(hub: Hub, name: str, code: str | None = None,
                       size: tuple[int, int] = (100, 30)) -> tuple[MissionApp, asyncio.Task]:
    app = MissionApp(hub, Player(f"key:{name}", name), join_code=code)
    STARTED.add(app)
    app.driver_class = FrameCounter  # type: ignore[assignment]
    app._capture_stdout = sys.stdout  # type: ignore[assignment]
    app._capture_stderr = sys.stderr  # type: ignore[assignment]
    task = asyncio.get_running_loop().create_task(app.run_async(size=size))
    deadline = time.monotonic() + 10
    while not (app._driver is not None and app._driver.frames):  # type: ignore[attr-defined]
        assert time.monotonic() < deadline, "no frame"
        await asyncio.sleep(0.01)
    return app, task


@asynccontextmanager
async def three_at_a_table(seed: str, hub: Hub | None = None
                           ) -> AsyncIterator[tuple[Hub, str, list[MissionApp]]]:
    """Three players' apps at one table, the host's first, its game not started (a real
    hub, without a journal unless ``hub`` is given; no SSH): the hub, the table's code and
    the apps."""
    if hub is None:
        hub = Hub(deck=load_deck(), seed=seed, settle_ms=0, bot_delay=0.0)
    players = [await start_player(hub, "Ann")]
    code = players[0][0].session.create_table(  # type: ignore[union-attr]
        TableOptions(turn_seconds=0))
    for name in ("Bob", "Cy"):
        players.append(await start_player(hub, name, code))
    try:
        await settled_after(0.3)
        yield hub, code, [app for app, _ in players]
    finally:
        for app, task in players:
            app.exit()
            await task


@asynccontextmanager
async def table_of_three(seed: str) -> AsyncIterator[tuple[Table, list[MissionApp]]]:
    """Three players' apps at a table whose game has started."""
    async with three_at_a_table(seed) as (hub, code, apps):
        apps[0].session.start()  # type: ignore[union-attr]
        await settled_after(0.5)
        await all_idle(apps)
        yield hub.tables[code], apps


def idle(app: MissionApp) -> bool:
    """The app, its screen and every widget on it have nothing under way or waiting."""
    return (app._idle_outside_any_app() and not app.screen.message_queue_size
            and not any(node.message_queue_size for node in app.screen.walk_children()))


async def all_idle(apps: list[MissionApp], timeout: float = 10.0) -> None:
    """Wait until every app has nothing under way or waiting (on a loaded machine the
    game screens are still being built half a second after the start): a change told
    then is painted in the hub's call, as the tests of that expect."""
    await until(lambda: all(idle(app) for app in apps), "the apps to settle", timeout)


async def settled_after(seconds: float) -> None:
    """Wait ``seconds`` (what an idle machine needs), then until every running app that
    :func:`start_player` started is idle: a busy machine (CI's two cores, a collection
    of a big heap) may take longer, and a test must not fail for it."""
    await asyncio.sleep(seconds)
    await all_idle([app for app in list(STARTED)
                    if app.is_running and app._too_small is None])


@asynccontextmanager
async def a_guesser_on_the_clock(seed: str
                                 ) -> AsyncIterator[tuple[Table, list[MissionApp], MissionApp]]:
    """Three players' apps at a table whose game has started with a 12-second turn timer:
    the table, the apps and the first guesser's app."""
    async with three_at_a_table(seed) as (hub, code, apps):
        table = hub.tables[code]
        table.options = replace(table.options, turn_seconds=12)
        apps[0].session.start()  # type: ignore[union-attr]
        await settled_after(0.5)
        await all_idle(apps)
        guesser = next(app for app in apps
                       if app.session.seat == table.state.guessers[0])  # type: ignore[union-attr]
        yield table, apps, guesser


def terminal_text(app: MissionApp, size: tuple[int, int] = (100, 30)) -> list[str]:
    """What the player's terminal shows: every frame sent, played into a terminal."""
    screen = pyte.Screen(*size)
    stream = pyte.Stream(screen)
    stream.feed("".join(app._driver.frames))  # type: ignore[attr-defined]
    return [line.rstrip() for line in screen.display]


def whole_repaint_text(app: MissionApp) -> list[str]:
    strips = app.screen._compositor.render_strips()
    return ["".join(segment.text for segment in strip).rstrip() for strip in strips]


async def picks_and_chat(table: Table, apps: list[MissionApp]) -> None:
    """Three picks, each followed by a chat line, and time for every screen to settle."""
    by_seat = {app.session.seat: app for app in apps}  # type: ignore[union-attr]
    for column in range(3):
        by_seat[table.state.lead].session.pick(column, column % 4)  # type: ignore[union-attr]
        await settled_after(0.1)
        by_seat[table.state.guessers[0]].session.chat(f"hmm {column}")  # type: ignore[union-attr]
        await settled_after(0.1)
    await settled_after(0.3)


def through_the_compositor(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every repaint goes through Textual's compositor: a hub change's rows, and a widget
    shown whole that asked for a repaint, would otherwise go straight to the terminal
    (``tests/tui/test_rows_painted.py``), and the compositor's own path is what the test
    measures."""
    monkeypatch.setattr(cached_lines, "queue_rows", lambda _widget, _rows: False)
    monkeypatch.setattr(SteadyScreen, "_painted_whole", lambda _screen: [])


async def test_the_terminal_shows_what_a_whole_repaint_would_after_picks_and_chat(
        monkeypatch: pytest.MonkeyPatch) -> None:
    through_the_compositor(monkeypatch)
    asked: list[str] = []
    render_lines = Widget.render_lines

    def counted(widget: Widget, crop: Any) -> Any:
        asked.append(type(widget).__name__)
        return render_lines(widget, crop)

    async with table_of_three("paint") as (table, apps):
        monkeypatch.setattr(Widget, "render_lines", counted)
        refreshes = [0]
        original = Compositor.render_partial_update

        def counted_refresh(compositor: Compositor) -> Any:
            refreshes[0] += 1
            return original(compositor)

        monkeypatch.setattr(Compositor, "render_partial_update", counted_refresh)
        await picks_and_chat(table, apps)
        drawn = list(asked)
        for app in apps:
            assert terminal_text(app) == whole_repaint_text(app)
        visible = len(apps[0].screen._compositor.visible_widgets)
        assert refreshes[0] >= 6
        assert len(drawn) / refreshes[0] < visible * 0.5  # not every widget, every time
        hidden = {"GameScreen", "Horizontal", "Vertical"}  # drawn over by their children
        assert not hidden & set(drawn)


async def test_changed_lines_go_to_the_terminal_as_drawn_without_a_second_crop(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A line widget marks whole rows dirty, its border included. Marking only the content
    made the compositor crop every changed line short of the border before sending it: a
    new strip, segments split again, about a tenth of a screen update."""
    through_the_compositor(monkeypatch)
    sending = [False]
    counts = Counter[str]()
    crop, render = Strip.crop, ChopsUpdate.render_segments

    def counted_crop(strip: Strip, *args: Any) -> Strip:
        counts["crops"] += sending[0]
        return crop(strip, *args)

    def counted_render(update: ChopsUpdate, console: Any) -> str:
        counts["updates"] += 1
        sending[0] = True
        try:
            return render(update, console)
        finally:
            sending[0] = False

    async with table_of_three("whole-lines") as (table, apps):
        monkeypatch.setattr(Strip, "crop", counted_crop)
        monkeypatch.setattr(ChopsUpdate, "render_segments", counted_render)
        await picks_and_chat(table, apps)
        assert counts["updates"] >= 6 and counts["crops"] == 0
        for app in apps:
            assert terminal_text(app) == whole_repaint_text(app)


async def test_a_pick_redraws_the_newest_line_of_a_full_log_not_every_line(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A lead's picks share one line of the log, which grows ("Ann marks Fork · Rope"):
    a line per pick scrolled every row of every seat's log, about a quarter of a pick's
    cost. The log is full first, so that a new line would scroll it."""
    async with table_of_three("fold") as (table, apps):
        hub = apps[0].session.hub  # type: ignore[union-attr]
        for _ in range(8):  # who comes and goes fills the log
            hub.away(table, 1, "went to the lobby")
            hub.reconnect(table, 1)
        await settled_after(0.3)
        rows: list[int] = []
        refresh_lines = GameLog._refresh_lines

        def counted(log: GameLog, lines: list[int]) -> None:
            rows.extend(lines)
            refresh_lines(log, lines)

        monkeypatch.setattr(GameLog, "_refresh_lines", counted)
        by_seat = {app.session.seat: app for app in apps}  # type: ignore[union-attr]
        lead = by_seat[table.state.lead].session  # type: ignore[union-attr]
        lead.pick(0, 0)  # type: ignore[union-attr]
        await settled_after(0.2)
        height = apps[0].screen.query_one(GameLog).content_size.height
        assert len(rows) >= 3 * (height - 1)  # the first pick's line scrolled every log
        rows.clear()
        lead.pick(1, 0)  # type: ignore[union-attr]
        await settled_after(0.2)
        line = table.log[-1]
        assert line.kind == "pick" and len(line.parts) == 2
        assert cell_len(line.text) < apps[0].screen.query_one(GameLog).content_size.width
        assert rows == [height - 1] * 3  # each seat: the newest line, once
        for app in apps:
            assert terminal_text(app) == whole_repaint_text(app)


async def test_a_pick_painted_in_its_turn_wakes_no_line_widget_on_the_other_seats(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Painted in the hub change's own turn, the other seats' line widgets have nothing
    left to do: they post themselves no prompt (a wake of their queue each), and their
    terminals show what a whole repaint would."""
    async with table_of_three("held-prompts") as (table, apps):
        lead = table.state.lead
        others = [app for app in apps if app.session.seat != lead]  # type: ignore[union-attr]
        prompted: Counter[str] = Counter()
        post = MessagePump.post_message

        def counted(pump: MessagePump, message: Any) -> bool:
            if isinstance(message, messages.Prompt) and isinstance(pump, CachedLines) \
                    and any(pump.app is app for app in others):
                prompted[type(pump).__name__] += 1
            return post(pump, message)

        monkeypatch.setattr(MessagePump, "post_message", counted)
        for column in range(2):
            next(app for app in apps if app.session.seat == lead).session.pick(  # type: ignore[union-attr]
                column, 1)
            await settled_after(0.3)
        assert not prompted
        for app in others:
            assert terminal_text(app) == whole_repaint_text(app)


async def test_a_change_that_needs_a_layout_is_still_painted_by_its_widgets_queues() -> None:
    """When the screen cannot paint in the change's turn (here a layout is pending), the
    line widgets' held prompts are posted, and Textual paints them its own way."""
    async with table_of_three("held-fallback") as (table, apps):
        lead = table.state.lead
        other = next(app for app in apps if app.session.seat != lead)  # type: ignore[union-attr]
        other.screen._layout_required = True
        next(app for app in apps if app.session.seat == lead).session.pick(0, 1)  # type: ignore[union-attr]
        await settled_after(0.3)
        assert "●" in "".join(terminal_text(other))
        assert terminal_text(other) == whole_repaint_text(other)


async def test_the_seats_at_a_table_draw_each_line_they_share_once() -> None:
    """Every guesser sees the same grid and log: the first seat to make the grid's lines,
    wrap a log entry, draw a line or finish a row (border and padding) does it for the
    process, and the others are handed the same objects."""
    async with table_of_three("shared") as (table, apps):
        lead = table.state.lead
        next(app for app in apps if app.session.seat == lead).session.pick(0, 1)  # type: ignore[union-attr]
        await settled_after(0.3)
        guessers = [app for app in apps if app.session.seat != lead]  # type: ignore[union-attr]
        grids = [app.screen.query_one(ItemGrid) for app in guessers]
        assert all(a is b for a, b in zip(grids[0]._contents, grids[1]._contents, strict=True))
        logs = [app.screen.query_one(GameLog) for app in guessers]
        assert all(logs[0]._wrapped[entry] is logs[1]._wrapped[entry]
                   for entry in logs[0].entries)
        for kind in (ItemGrid, GameLog):
            first, second = (app.screen.query_one(kind) for app in guessers)
            shown = len(first._contents)
            assert shown >= 2 and first.plain == second.plain
            assert all(first.render_line(y) is second.render_line(y) for y in range(shown))
            top = first.styles.gutter.top
            finished = [widget.render_lines(widget.outer_size.region)[top:top + shown]
                        for widget in (first, second)]
            assert all(a is b for a, b in zip(*finished, strict=True))


def compositor_updates(monkeypatch: pytest.MonkeyPatch) -> Counter[int]:
    """How many updates each app's compositor rendered (by the app's id())."""
    counted: Counter[int] = Counter()
    render_update = Compositor.render_update

    def counting(compositor: Compositor, *args: Any, **kwargs: Any) -> Any:
        update = render_update(compositor, *args, **kwargs)
        if update is not None:
            counted[id(compositor)] += 1
        return update

    monkeypatch.setattr(Compositor, "render_update", counting)
    return counted


def rows_drawn(monkeypatch: pytest.MonkeyPatch) -> Counter[str | int]:
    """Rows line widgets drew themselves, by the widget's class name and by its app's
    id()."""
    counted: Counter[str | int] = Counter()
    paint_rows = CachedLines.paint_rows

    def counting(widget: CachedLines, rows: list[int], region: Any) -> list[str] | None:
        text = paint_rows(widget, rows, region)
        if text is not None:
            counted[type(widget).__name__] += len(rows)
            counted[id(widget.app)] += len(rows)
        return text

    monkeypatch.setattr(CachedLines, "paint_rows", counting)
    return counted


async def test_a_pick_told_where_no_app_runs_is_on_the_other_seats_terminals_in_that_turn(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The hub tells a table of a move where no app's code runs (on the server, the
    journal's report that the move is on disk): each seat's screen is brought up to date
    and painted right there, with no message through its app's queue, and its changed
    rows go straight to the terminal, drawn by the line widgets, not the compositor
    (``tests/tui/test_rows_painted.py``)."""
    async with table_of_three("paint-now") as (table, apps):
        queued = hub_changes_handled(monkeypatch)
        updates = compositor_updates(monkeypatch)
        drawn = rows_drawn(monkeypatch)
        for column in range(3):
            lead = table.state.lead
            others = [app for app in apps if app.session.seat != lead]  # type: ignore[union-attr]
            before = {app: len(app._driver.frames) for app in others}  # type: ignore[union-attr]
            next(app for app in apps if app.session.seat == lead).session.pick(  # type: ignore[union-attr]
                column, 1)
            for app in others:  # no await since the pick: painted in the hub's call
                assert len(app._driver.frames) == before[app] + 1  # type: ignore[union-attr]
                assert updates[id(app.screen._compositor)] == 0
            await settled_after(0.3)
            for app in others:
                assert len(app._driver.frames) == before[app] + 1  # type: ignore[union-attr]
        assert queued == []
        assert drawn["ItemGrid"] >= 6 and drawn["GameLog"] >= 6
        for app in apps:
            assert terminal_text(app) == whole_repaint_text(app)


async def test_a_move_on_disk_is_painted_on_every_seat_in_the_journal_report_s_turn(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The server's way: the lead's key plays the pick, the journal's thread commits it,
    and the report of the commit paints every seat; a change told while an app's code runs
    goes through the apps' queues."""
    hub = Hub.open(tmp_path, seed="on-disk", settle_ms=0, bot_delay=0.0)
    hub.write_behind()
    try:
        async with three_at_a_table("on-disk", hub) as (_, code, apps):
            apps[0].session.start()  # type: ignore[union-attr]
            await settled_after(0.5)
            await all_idle(apps)  # on a loaded machine the game screens are still mounting
            assert all(isinstance(app.screen, GameScreen) for app in apps)
            table = hub.tables[code]
            queued = hub_changes_handled(monkeypatch)
            painted_in: list[str] = []
            show = GameScreen.show

            def watched(screen: GameScreen, view: Any) -> None:
                painted_in.append(type(active_message_pump.get()).__name__)
                show(screen, view)

            monkeypatch.setattr(GameScreen, "show", watched)
            lead = next(app for app in apps if app.session.seat == table.state.lead)  # type: ignore[union-attr]
            lead.post_message(events.Key("2", "2"))
            await settled_after(0.5)
            assert table.state.picks == (1,)
            assert queued == [] and painted_in == ["MissionApp"] * 3  # each in its own context
            guesser = next(app for app in apps if app is not lead)
            with guesser._context():  # told while an app's code runs (nothing waits for disk)
                hub.changed(table)
            assert queued == []
            await settled_after(0.3)
            assert sorted(map(id, queued)) == sorted(map(id, apps))  # each through its queue
            for app in apps:
                assert terminal_text(app) == whole_repaint_text(app)
    finally:
        hub.close()


def hub_changes_handled(monkeypatch: pytest.MonkeyPatch) -> list[MissionApp]:
    """Filled with each app that handles a ``HubChanged`` from its queue."""
    handled: list[MissionApp] = []
    on_hub_changed = MissionApp.on_hub_changed

    async def watched(app: MissionApp, message: Any) -> None:
        handled.append(app)
        await on_hub_changed(app, message)

    monkeypatch.setattr(MissionApp, "on_hub_changed", watched)
    return handled


async def test_a_banner_s_end_and_the_countdown_s_steps_are_painted_in_their_own_turn(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A Stop! shows a banner on every seat for a few seconds; its end, and each step of
    the turn's countdown, are painted where their timers call, not by the screen's update
    timer after the widgets' queues have woken."""
    monkeypatch.setattr(GameScreen, "BANNER_SECONDS", 0.3)
    async with a_guesser_on_the_clock("banner-end") as (_table, apps, guesser):
        updates_by = screen_updates_by(monkeypatch)
        guesser.post_message(events.Key("s", "s"))
        await settled_after(0.15)
        assert "STOP!" in terminal_text(apps[0])[0]
        await settled_after(0.6)
        for app in apps:
            assert "STOP!" not in terminal_text(app)[0]
        countdown = guesser.screen.query_one(Countdown)
        before = countdown.plain
        await asyncio.sleep(2.5)  # from 0:12 through 0:10 to 0:09
        assert countdown.plain != before
        assert "⏱ 0:09" in terminal_text(guesser)[0]
        assert [caller for caller in updates_by if caller != "paint_now"] == []
        for app in apps:
            assert terminal_text(app) == whole_repaint_text(app)


def screen_updates_by(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Filled with the name of the function that starts each screen update."""
    callers: list[str] = []
    refresh = SteadyScreen._compositor_refresh  # the update timer holds its bound callback

    def watched(screen: SteadyScreen[Any]) -> None:
        callers.append(sys._getframe(2).f_code.co_name)  # over Screen._on_timer_update
        refresh(screen)

    monkeypatch.setattr(SteadyScreen, "_compositor_refresh", watched)
    return callers


def keys_handled_in_the_apps_turn(monkeypatch: pytest.MonkeyPatch, handler: type,
                                  method: str = "on_key") -> list[bool]:
    """Filled, each time ``handler``'s ``method`` handles a key, with whether it ran
    inside ``MissionApp.on_event`` (the app's own turn) rather than from a widget's queue."""
    inside_app: list[bool] = []
    in_handler = [False]
    handled, their_key = MissionApp.on_event, getattr(handler, method)

    async def watched(app: MissionApp, event: events.Event) -> None:
        in_handler[0] = True
        try:
            await handled(app, event)
        finally:
            in_handler[0] = False

    def keyed(widget: Any, event: events.Key) -> None:
        inside_app.append(in_handler[0])
        their_key(widget, event)

    monkeypatch.setattr(MissionApp, "on_event", watched)
    monkeypatch.setattr(handler, method, keyed)
    return inside_app


async def test_a_leads_pick_key_is_played_by_the_app_in_the_turn_it_arrives(
        monkeypatch: pytest.MonkeyPatch) -> None:
    async with table_of_three("key-now") as (table, apps):
        lead = next(app for app in apps
                    if app.session.seat == table.state.lead)  # type: ignore[union-attr]
        inside_app = keys_handled_in_the_apps_turn(monkeypatch, ItemGrid)
        for key in ("down", "2", "3"):
            lead.post_message(events.Key(key, key if len(key) == 1 else None))
            await settled_after(0.2)
        assert [item for item in table.state.picks] == [1, 2]
        assert inside_app == [True, True, True]


async def test_a_stop_key_is_shouted_by_the_app_in_the_turn_it_arrives(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """As the lead's pick is: forwarded, the key would wait on the focused widget's queue,
    then on the screen's, and the Stop! race is decided by order of arrival."""
    async with table_of_three("shout-now") as (table, apps):
        guesser = next(app for app in apps
                       if app.session.seat == table.state.guessers[0])  # type: ignore[union-attr]
        inside_app = keys_handled_in_the_apps_turn(monkeypatch, GameScreen, "play_key")
        guesser.post_message(events.Key("s", "s"))
        await settled_after(0.4)
        assert table.state.stop == (guesser.session.seat,)  # type: ignore[union-attr]
        assert inside_app == [True]


@asynccontextmanager
async def a_guesser_in_the_chat(seed: str) -> AsyncIterator[tuple[MissionApp, QuietInput]]:
    """A guesser's app at a table of three whose game has started, and its chat field,
    focused (the guesser pressed c)."""
    async with table_of_three(seed) as (table, apps):
        guesser = next(app for app in apps
                       if app.session.seat == table.state.guessers[0])  # type: ignore[union-attr]
        guesser.post_message(events.Key("c", "c"))
        await settled_after(0.2)
        yield guesser, guesser.screen.query_one("#chat-input", QuietInput)


def frames_after_each_key(monkeypatch: pytest.MonkeyPatch, app: MissionApp) -> list[int]:
    """Filled, as ``app`` finishes handling each key, with the count of frames its
    terminal has been sent by then."""
    frames = app._driver.frames  # type: ignore[union-attr]
    counts: list[int] = []
    handled = MissionApp.on_event

    async def watched(handler_app: MissionApp, event: events.Event) -> None:
        await handled(handler_app, event)
        if handler_app is app and isinstance(event, events.Key):
            counts.append(len(frames))

    monkeypatch.setattr(MissionApp, "on_event", watched)
    return counts


async def test_a_typed_character_is_on_the_terminal_in_the_keys_turn_with_the_count_near_the_limit(
        monkeypatch: pytest.MonkeyPatch) -> None:
    async with a_guesser_in_the_chat("type-now") as (guesser, chat):
        sent_in_handler = frames_after_each_key(monkeypatch, guesser)
        before = len(guesser._driver.frames)  # type: ignore[union-attr]
        reads = 0
        key_hints = GameScreen.key_hints

        def counted(screen: GameScreen) -> list[tuple[str, str, str]]:
            nonlocal reads
            reads += 1
            return key_hints(screen)

        monkeypatch.setattr(GameScreen, "key_hints", counted)
        for char in "hi!":
            guesser.post_message(events.Key(char, char))
            await settled_after(0.1)
        assert sent_in_handler == [before + 1, before + 2, before + 3]  # a frame a key
        assert reads == 0  # far from the limit, a key leaves the key bar alone
        assert len(guesser._driver.frames) == before + 3  # type: ignore[union-attr]
        for char in "yo":  # a burst keeps its order
            guesser.post_message(events.Key(char, char))
        await settled_after(0.2)
        assert chat.value == "hi!yo"
        shown = "\n".join(terminal_text(guesser))
        assert "hi!yo" in shown and "characters left" not in shown
        # Near the limit each key also counts what is left, in the same frame.
        guesser.post_message(events.Paste("x" * (int(chat.max_length * 0.75) - 5)))
        await settled_after(0.2)
        sent_in_handler.clear()
        reads, before = 0, len(guesser._driver.frames)  # type: ignore[union-attr]
        for char in "ab":
            guesser.post_message(events.Key(char, char))
            await settled_after(0.1)
        assert sent_in_handler == [before + 1, before + 2] and reads == 2
        left = chat.max_length - len(chat.value)
        assert f" {left} characters left" in "\n".join(terminal_text(guesser))
        guesser.post_message(events.Key("backspace", None))  # and it goes when it is far
        await settled_after(0.1)
        guesser.post_message(events.Key("home", None))
        for _ in range(len(chat.value) - 10):
            guesser.post_message(events.Key("delete", None))
        await settled_after(0.3)
        assert len(chat.value) == 10
        assert "characters left" not in "\n".join(terminal_text(guesser))
        assert terminal_text(guesser) == whole_repaint_text(guesser)


async def test_a_character_typed_after_the_text_sends_the_two_cells_it_changes(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Most keys typed into a plan or a chat line add a character after the text: the
    terminal gets the character and the cursor after it, straight from the field (the
    compositor would send the text up to the cursor), and the field is left as Textual's
    typing leaves it. Near the field's right edge Textual types (it scrolls the text),
    and the terminal still shows what a whole repaint would."""
    async with a_guesser_in_the_chat("two-cells") as (guesser, chat):
        guesser.post_message(events.Key("a", "a"))  # the placeholder goes: the whole field
        await settled_after(0.1)
        frames = guesser._driver.frames  # type: ignore[union-attr]
        for char in "bc":
            before = len(frames)
            guesser.post_message(events.Key(char, char))
            await settled_after(0.1)
            assert len(frames) == before + 1
            drawn = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", frames[-1])
            assert drawn == f"{char} "  # the character, and the cursor's cell after it
        assert (chat.value, chat.selection) == ("abc", (3, 3))
        assert chat.virtual_size == Size(chat.content_width, 1)
        assert guesser.cursor_position == chat.cursor_screen_offset
        assert terminal_text(guesser) == whole_repaint_text(guesser)
        width = chat.scrollable_content_region.width
        for char in "xyz" * (width // 3 + 2):  # on past the right edge
            guesser.post_message(events.Key(char, char))
            await asyncio.sleep(0.01)
        await settled_after(0.3)
        assert chat.value.endswith("xyzxyz") and chat.scroll_offset.x > 0
        assert chat.cursor_position == len(chat.value)
        assert terminal_text(guesser) == whole_repaint_text(guesser)


async def test_editing_keys_are_taken_in_the_keys_own_turn_and_a_burst_keeps_its_order(
        monkeypatch: pytest.MonkeyPatch) -> None:
    async with a_guesser_in_the_chat("edit-now") as (guesser, chat):
        for char in "abc":
            guesser.post_message(events.Key(char, char))
        await settled_after(0.2)
        sent_in_handler = frames_after_each_key(monkeypatch, guesser)
        before = len(guesser._driver.frames)  # type: ignore[union-attr]
        for key in ("left", "backspace", "home", "delete", "end"):
            guesser.post_message(events.Key(key, None))
            await settled_after(0.1)
        assert (chat.value, chat.cursor_position) == ("c", 1)
        assert sent_in_handler == [before + k for k in range(1, 6)]  # a frame each, at once
        assert len(guesser._driver.frames) == before + 5  # type: ignore[union-attr]
        # A burst of every kind of key, and pastes, which wait in the field's queue (and
        # so must every key after them): the field ends as typed.
        rng = random.Random(7)
        model = FieldModel("c", 1)
        for _ in range(120):
            token = rng.choice([("char", rng.choice("xyz é")), ("paste", rng.choice(["ab", "ßé"])),
                                ("key", rng.choice(["backspace", "delete", "left", "right",
                                                    "home", "end", "f5"]))])
            model.apply(token)
            kind, value = token
            guesser.post_message(events.Key(value, value) if kind == "char"
                                 else events.Paste(value) if kind == "paste"
                                 else events.Key(value, None))
        await settled_after(0.5)
        assert (chat.value, chat.cursor_position) == (model.text, model.cursor)
        assert terminal_text(guesser) == whole_repaint_text(guesser)


async def test_a_field_s_change_goes_straight_to_its_screen_and_a_paste_is_counted(
        monkeypatch: pytest.MonkeyPatch) -> None:
    async with a_guesser_in_the_chat("changes") as (guesser, chat):
        changes_at: list[str] = []
        dispatch = MessagePump._dispatch_message

        async def watched(pump: MessagePump, message: Any) -> None:
            if isinstance(message, Input.Changed) and message.input is chat:
                changes_at.append(type(pump).__name__)
            await dispatch(pump, message)

        monkeypatch.setattr(MessagePump, "_dispatch_message", watched)
        for char in "hi":
            guesser.post_message(events.Key(char, char))
        guesser.post_message(events.Paste(" there"))  # waits in the field's queue
        await settled_after(0.3)
        assert changes_at == ["GameScreen"] * 3  # not the field, its containers, the app
        assert chat.value == "hi there"
        with chat.prevent(Input.Changed):  # Textual's way to change a value quietly
            chat.value = "quiet"
        await settled_after(0.2)
        assert changes_at == ["GameScreen"] * 3
        guesser.post_message(events.Paste("z" * (chat.max_length - 5)))  # up to the limit
        await settled_after(0.2)
        assert len(chat.value) == chat.max_length
        assert " 0 characters left" in "\n".join(terminal_text(guesser))
