"""Memory comes back: once players leave, no app, screen or hub handle of theirs lives on."""

from __future__ import annotations

import asyncio
import gc
import logging
import weakref
from collections.abc import Callable
from typing import Any

import asyncssh
import pytest
from textual.app import App
from textual.filter import ANSIToTruecolor
from textual.notifications import Notification
from textual.screen import Screen
from textual.widgets._toast import Toast, ToastRack

from engine.cards import load_deck
from engine.hub import Hub
from engine.session import CHAT_BURST
from server import gc_tuning
from server.admin.cli import mission_app_factory
from server.app_guard import ShownNotices, bound_notices
from server.context import SessionContext
from server.limits import ConnectionLimits, SessionLimits
from tests.ssh.client import TermClient
from tests.ssh.conftest import StartServer
from tests.ssh.friends import three_at_a_table
from tests.waiting import until

pytestmark = pytest.mark.xdist_group("e2e")


def tracked_apps(hub: Hub) -> tuple[Callable[[SessionContext], App[Any]],
                                     list[weakref.ref[App[Any]]]]:
    """The server's app factory, and a weak reference to every app it makes."""
    build = mission_app_factory(hub)
    apps: list[weakref.ref[App[Any]]] = []

    def factory(context: SessionContext) -> App[Any]:
        app = build(context)
        apps.append(weakref.ref(app))
        return app

    return factory, apps


async def three_playing(port: int, hub: Hub, apps: list[weakref.ref[App[Any]]]
                        ) -> tuple[list[TermClient], list[weakref.ref[Any]]]:
    """Three friends at a table whose game has begun; and a weak reference to every
    screen their apps hold."""
    players, _ = await three_at_a_table(port, hub)
    players[0].send("g")
    await players[1].wait_for("Round 1")
    live = [app for app in (ref() for ref in apps) if app is not None]
    return players, [weakref.ref(screen) for app in live for screen in app.screen_stack]


async def test_no_app_or_screen_outlives_its_session(
    game_server: StartServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    # pytest keeps every log record, and a crash's keeps its traceback and so its app:
    # a server's log does not, so this test's records go to no capture.
    monkeypatch.setattr(logging.getLogger("server"), "propagate", False)
    hub = Hub(deck=load_deck(), seed="mem", settle_ms=0, bot_delay=0.0)
    factory, apps = tracked_apps(hub)

    server = await game_server(factory)
    (alice, *friends), screens = await three_playing(server.port, hub, apps)
    live = [app for app in (ref() for ref in apps) if app is not None]
    drawn = [weakref.ref(widget._styles_cache) for app in live
             for widget in app.screen.walk_children(with_self=True)]
    del live
    assert len(apps) == 3 and len(screens) >= 3 and len(drawn) > 30

    for player in (alice, *friends):
        player.close()
    await until(lambda: not server.sessions and not server.connections, "everyone gone")
    await until(lambda: not hub.sessions, "the hub let go of every session")
    gc.collect()
    assert [ref() for ref in apps] == [None] * len(apps)
    assert [ref() for ref in screens] == [None] * len(screens)
    assert sum(ref() is not None for ref in drawn) == 0  # not even in Textual's caches
    assert all(not t.sessions for t in hub.tables.values())


async def test_a_departed_players_widgets_are_freed_without_a_collection(
    game_server: StartServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A player who leaves would leave their app as cyclic garbage, about 2,200 objects
    in the lobby, freed only by a full collection, which walks every player's objects
    (about a second at 300 players, everyone waiting). Taken apart as the session ends,
    its widgets go by reference counts, the collector off."""
    monkeypatch.setattr(logging.getLogger("server"), "propagate", False)
    hub = Hub(deck=load_deck(), seed="mem", settle_ms=0, bot_delay=0.0)
    factory, apps = tracked_apps(hub)
    server = await game_server(factory)
    alice = await TermClient.connect(server.port, username="alice")
    await alice.wait_for("the lobby")
    alice.send("c")  # a table: its screen, then back to the lobby's
    await alice.wait_for("table ")
    app = apps[0]()
    assert app is not None
    widgets = [weakref.ref(widget) for screen in app.screen_stack
               for widget in screen.walk_children(with_self=True)]
    del app
    assert len(widgets) > 10
    gc.collect()
    gc.disable()
    try:
        alice.close()
        await until(lambda: not server.sessions and not server.connections, "alice gone")
        await asyncio.sleep(0.1)
        alive = [widget for widget in (ref() for ref in widgets) if widget is not None]
    finally:
        gc.enable()
    # the screens the app names itself (its lobby, its bottom screen) go with the app, at
    # the next full collection, as empty shells
    assert [type(w).__name__ for w in alive if not isinstance(w, Screen) or vars(w)] == []
    assert len(alive) <= 2
    # nor does Textual's process-wide cache of truecolor styles keep its line filter
    assert ANSIToTruecolor.truecolor_style.cache_info().currsize == 0


async def test_a_refused_session_goes_with_its_connection(game_server: StartServer) -> None:
    """A session refused before it started (no room for guests from the network) stayed
    among those opening, with its connection, channel and ciphers, until someone asked
    for the next session: 27 of them after a guest flood had gone."""
    server = await game_server(connection_limits=ConnectionLimits(
        guest_sessions_per_network=1))
    first = await TermClient.connect(server.port, source="127.0.3.1")
    await first.wait_for("MISSION TEST")
    refused = await TermClient.connect(server.port, source="127.0.3.2")
    await refused.wait_closed()
    await until(lambda: len(server.connections) == 1, "the refused guest gone")
    assert server.opening == set()
    first.close()


async def test_a_chat_flood_leaves_a_few_notices_on_the_flooders_screen(
    game_server: StartServer, client_key: asyncssh.SSHKey
) -> None:
    """Refused chat lines, each a notification: the flooder's screen holds a bounded few
    (it held one toast per refusal, a hundred at twenty lines a second), and the
    repeated refusal is said once."""
    hub = Hub(deck=load_deck(), seed="flood", settle_ms=0, bot_delay=0.2)
    build = mission_app_factory(hub)
    apps: list[App[Any]] = []
    said: list[str] = []

    def factory(context: SessionContext) -> App[Any]:
        app = build(context)
        notify = app.notify

        def counted(message: str, **kwargs: Any) -> None:
            said.append(message)
            notify(message, **kwargs)

        app.notify = counted  # type: ignore[method-assign]
        apps.append(app)
        return app

    server = await game_server(factory, limits={"keys_per_s": 10**6})  # 300 keys at once
    chatty = await TermClient.connect(server.port, username="chatty", key=client_key)
    await chatty.wait_for("the lobby")
    chatty.send("cbb")  # a table of their own, two bots
    await until(lambda: any(len(t.seats) == 3 for t in hub.tables.values()), "two bots")
    chatty.send("g")
    await chatty.wait_for("Round 1")
    lines = 30
    chatty.send("".join(f"cline {n}\r" for n in range(lines)))
    # each refused line is one notification asked for (the lead, while picking, is also
    # told once per line that they are muted)
    await until(lambda: len(said) >= lines - CHAT_BURST, "the refusals", timeout=20)
    (app,) = apps
    rack = app.screen.get_child_by_type(ToastRack)
    await until(lambda: not any(h._pruning for h in rack.children), "the toasts settled")
    most = SessionLimits().max_notices
    assert 1 <= len(app._notifications) <= most
    assert 1 <= len(rack.children) <= most
    assert len({n.message for n in app._notifications}) == len(app._notifications)


async def test_a_toast_whose_notice_ran_out_goes_with_its_holder() -> None:
    """Textual's toast rack, when it drops a toast whose notice ran out before the toast's
    own timer fired (a busy loop), removed the toast and left its holder on the screen for
    the rest of the app's life: one more widget per late toast."""
    app: App[None] = App()
    bound_notices(app, 3)
    async with app.run_test(notifications=True) as pilot:
        app.notify("first")
        rack = app.screen.get_child_by_type(ToastRack)
        await until(lambda: len(rack.query(Toast)) == 1, "the first toast")
        (first,) = app._notifications
        first.raised_at -= first.timeout + 1  # ran out; its toast's timer has not fired
        app.notify("second")
        await until(lambda: [t._notification.message for t in rack.query(Toast)] == ["second"],
                    "only the second toast")
        await pilot.pause()
        assert [holder.id for holder in rack.children if not holder._pruning] == [
            ToastRack._toast_id(next(iter(app._notifications)))]


def test_notices_are_bounded_and_said_once() -> None:
    notices = ShownNotices(3)
    for text in ("a", "b", "a", "c", "d"):
        notices.add(Notification(text))
    assert [n.message for n in notices] == ["b", "c", "d"]


async def test_a_dropped_connection_does_not_keep_its_app(
    game_server: StartServer, client_key: asyncssh.SSHKey, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A connection that drops (no goodbye) is gone before its session ends; the session's
    end must not arm the connection's no-game timer, which would hold the app (through the
    connection's sessions) until it fires."""
    monkeypatch.setattr(logging.getLogger("server"), "propagate", False)
    hub = Hub(deck=load_deck(), seed="drop", settle_ms=0, bot_delay=0.0)
    factory, apps = tracked_apps(hub)

    wait = 2.0
    server = await game_server(factory,
                               connection_limits=ConnectionLimits(session_wait_s=wait))
    player = await TermClient.connect(server.port, username="zed", key=client_key)
    await player.wait_for("the lobby")
    await asyncio.sleep(wait + 0.2)  # the no-game timer armed at login has fired
    player.abort()
    await until(lambda: not server.sessions and not server.connections, "the player gone")
    await until(lambda: not hub.sessions, "the hub let go of the session")
    gc.collect()
    assert [ref() for ref in apps] == [None]


async def test_when_everyone_has_left_the_server_collects_and_frees_every_app_and_screen(
    game_server: StartServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(logging.getLogger("server"), "propagate", False)  # as above
    monkeypatch.setattr(gc_tuning, "QUIET_S", 0.5)
    heard: list[str] = []
    handler = logging.Handler()
    handler.emit = lambda record: heard.append(record.getMessage())  # type: ignore[method-assign]
    logger = logging.getLogger("server.gc_tuning")
    logger.addHandler(handler)
    monkeypatch.setattr(logger, "level", logging.INFO)
    hub = Hub(deck=load_deck(), seed="empty", settle_ms=0, bot_delay=0.0)
    factory, apps = tracked_apps(hub)
    try:
        server = await game_server(factory)
        (alice, *friends), screens = await three_playing(server.port, hub, apps)
        friends[0].close()
        await asyncio.sleep(1.0)
        assert not heard  # someone is still here: nothing to collect for
        gc.disable()  # from here on only the server's own collection runs
        for player in (alice, friends[1]):
            player.close()
        await until(lambda: any("everyone has left" in line for line in heard),
                    "the note that everyone has left")
        assert [ref() for ref in apps] == [None] * 3
        assert [ref() for ref in screens] == [None] * len(screens)
    finally:
        gc.enable()
        logger.removeHandler(handler)
    assert "; 0 apps and" in heard[-1]
