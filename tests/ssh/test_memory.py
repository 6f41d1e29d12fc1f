"""Memory comes back: once players leave, no app, screen or hub handle of theirs lives on."""

from __future__ import annotations

import gc
import logging
import weakref
from typing import Any

import pytest
from textual.app import App

from engine.cards import load_deck
from engine.hub import Hub
from server.cli import mission_app_factory
from server.context import SessionContext
from tests.ssh.client import until
from tests.ssh.conftest import StartServer
from tests.ssh.friends import three_at_a_table

pytestmark = pytest.mark.xdist_group("e2e")


async def test_no_app_or_screen_outlives_its_session(
    game_server: StartServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    # pytest keeps every log record, and a crash's keeps its traceback and so its app:
    # a server's log does not, so this test's records go to no capture.
    monkeypatch.setattr(logging.getLogger("server"), "propagate", False)
    hub = Hub(deck=load_deck(), seed="mem", settle_ms=0, bot_delay=0.0)
    build = mission_app_factory(hub)
    apps: list[weakref.ref[App[Any]]] = []

    def factory(context: SessionContext) -> App[Any]:
        app = build(context)
        apps.append(weakref.ref(app))
        return app

    server = await game_server(factory)
    (alice, *friends), _ = await three_at_a_table(server.port, hub)
    alice.send("g")
    await friends[0].wait_for("Round 1")
    live = [ref() for ref in apps]
    screens = [weakref.ref(screen) for app in live if app is not None
               for screen in app.screen_stack]
    drawn = [weakref.ref(widget._styles_cache) for app in live if app is not None
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
