"""One session cannot hurt the server or another session."""

from __future__ import annotations

import asyncio
import gc
import sys
from pathlib import Path
from typing import Any

import pytest

from server.app_guard import crash_of
from tests.ssh.apps import BOARD
from tests.ssh.client import TermClient
from tests.ssh.conftest import StartServer, TwoPlayers
from tests.waiting import until


def _session_tasks() -> list[asyncio.Task[object]]:
    return [t for t in asyncio.all_tasks() if t.get_name().startswith("session ")]


async def test_a_dropped_connection_leaves_no_app_or_task_behind(
    two_players: TwoPlayers,
) -> None:
    server, alice, bob = await two_players()
    assert server.live_apps == 2
    alice.abort()
    await until(lambda: len(server.sessions) == 1, timeout=5.0)
    bob.abort()
    await until(lambda: not server.sessions and not server.connections, timeout=5.0)
    assert server.live_apps == 0
    await until(lambda: not _session_tasks(), timeout=5.0)
    gc.collect()
    assert [ref() for ref in BOARD.started] == [None, None]  # both apps are gone


async def test_ctrl_z_does_not_stop_the_server(game_server: StartServer) -> None:
    server = await game_server()
    alice = await TermClient.connect(server.port)
    await alice.wait_for("len: 0")
    alice.send(b"\x1a")  # ctrl+z, bound to suspend_process in the test app
    alice.send("ok")
    await alice.wait_for("len: 2")


async def test_an_app_cannot_open_urls_or_write_screenshots_on_the_server(
    game_server: StartServer, tmp_path: Path
) -> None:
    BOARD.screenshot_dir = str(tmp_path)
    server = await game_server()
    alice = await TermClient.connect(server.port)
    await alice.wait_for("len: 0")
    alice.send(b"\x0f\x13")  # ctrl+o opens a URL, ctrl+s saves a screenshot
    alice.send("ok")
    await alice.wait_for("len: 2")
    assert list(tmp_path.iterdir()) == []
    assert server.live_apps == 1


async def test_apps_coming_and_going_leave_the_servers_stdout_alone(
    two_players: TwoPlayers,
) -> None:
    stdout, stderr = sys.stdout, sys.stderr
    server, alice, bob = await two_players()
    alice.abort()  # the first to start is the first to stop
    await until(lambda: len(server.sessions) == 1, timeout=5.0)
    assert (sys.stdout, sys.stderr) == (stdout, stderr)
    bob.abort()
    await until(lambda: not server.sessions, timeout=5.0)
    assert (sys.stdout, sys.stderr) == (stdout, stderr)


async def test_an_eager_task_factory_set_by_an_app_is_taken_back(
    two_players: TwoPlayers, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Python 3.12+: ``App.run_async`` installs ``asyncio.eager_task_factory`` on the loop
    every session shares; the server puts its own factory back (simulated here on 3.11)."""
    installed: list[object] = []

    def eager_stand_in(loop: asyncio.AbstractEventLoop, coro: Any, **kwargs: Any) -> Any:
        installed.append(coro)
        return asyncio.Task(coro, loop=loop, **kwargs)

    monkeypatch.setattr(asyncio, "eager_task_factory", eager_stand_in, raising=False)
    loop = asyncio.get_running_loop()
    before = loop.get_task_factory()
    await two_players()
    assert loop.get_task_factory() is before


async def test_every_session_draws_with_the_same_colour_depth(game_server: StartServer) -> None:
    server = await game_server()
    alice = await TermClient.connect(server.port)
    await alice.wait_for("len: 0")
    app = BOARD.started[-1]()
    assert app is not None and app.console.color_system == server.config.color_system
    # the app draws in true colour; the wire carries what the terminal shows
    assert b"\x1b[38;2;" not in bytes(alice.raw)  # TERM=xterm-256color
    assert b"38;5;" in bytes(alice.raw)
    bob = await TermClient.connect(server.port, env={"COLORTERM": "truecolor"})
    await bob.wait_for("len: 0")
    assert b"\x1b[38;2;" in bytes(bob.raw)  # 24-bit colour sequences on the wire


async def test_textuals_help_panel_asked_for_as_an_app_closes_is_no_crash(
    game_server: StartServer,
) -> None:
    """Found by fuzzing: junk that runs Textual's "Keys" command (its help panel) as the
    app closes made ``mount`` raise "Can't mount widget(s) before Screen is mounted"."""
    server = await game_server()
    alice = await TermClient.connect(server.port)
    await alice.wait_for("len: 0")
    app = next(iter(server.sessions)).app
    assert app is not None
    app.exit(message="Goodbye from the test app.")
    app.action_show_help_panel()  # the "Keys" command, landing just then
    await alice.wait_closed()
    assert crash_of(app) is None
    assert b"Goodbye from the test app." in alice.raw
    assert b"Traceback" not in alice.raw and b"crash" not in alice.raw.lower()
