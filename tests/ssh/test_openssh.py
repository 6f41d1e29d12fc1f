"""The real thing: OpenSSH's client in a tmux pane, as a player would use it."""

from __future__ import annotations

import asyncio
import os
import shutil
from collections.abc import AsyncIterator

import pytest

from tests.ssh.conftest import StartServer

pytestmark = pytest.mark.skipif(
    shutil.which("tmux") is None or shutil.which("ssh") is None,
    reason="needs tmux and the OpenSSH client (apt-get install tmux openssh-client)",
)


class Pane:
    """One tmux pane on a private tmux server."""

    def __init__(self, socket: str) -> None:
        self.socket = socket

    async def tmux(self, *args: str) -> str:
        process = await asyncio.create_subprocess_exec(
            "tmux", "-L", self.socket, *args,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        )
        out, _ = await process.communicate()
        return out.decode()

    async def text(self) -> str:
        return await self.tmux("capture-pane", "-p", "-t", "play")

    async def wait_for(self, text: str, timeout: float = 15.0) -> None:
        deadline = asyncio.get_running_loop().time() + timeout
        while text not in await self.text():
            if asyncio.get_running_loop().time() > deadline:
                raise AssertionError(f"{text!r} not in pane:\n{await self.text()}")
            await asyncio.sleep(0.05)

    async def keys(self, *keys: str) -> None:
        await self.tmux("send-keys", "-t", "play", *keys)


@pytest.fixture
async def pane() -> AsyncIterator[Pane]:
    pane = Pane(f"mi-test-{os.getpid()}-{id(object())}")
    yield pane
    await pane.tmux("kill-server")


async def test_openssh_in_tmux_plays_and_gets_its_terminal_back(
    game_server: StartServer, pane: Pane
) -> None:
    server = await game_server()
    ssh = (
        f"ssh -F /dev/null -p {server.port} -o StrictHostKeyChecking=no "
        "-o UserKnownHostsFile=/dev/null -o LogLevel=ERROR alice@127.0.0.1"
    )
    await pane.tmux(
        "new-session", "-d", "-s", "play", "-x", "100", "-y", "30",
        f"{ssh}; echo SSH-EXITED $?; sleep 60",
    )
    await pane.wait_for("MISSION TEST player=alice")
    await pane.wait_for("size: 100x30")
    await pane.keys("hello", "Enter")
    await pane.wait_for("count: 1")
    await pane.tmux("resize-window", "-t", "play", "-x", "120", "-y", "40")
    await pane.wait_for("size: 120x40")

    await pane.keys("C-q")
    await pane.wait_for("SSH-EXITED 0")
    assert "MISSION TEST" not in await pane.text()
    modes = await pane.tmux(
        "display-message", "-p", "-t", "play",
        "#{alternate_on} #{cursor_flag} #{mouse_any_flag} #{mouse_sgr_flag}",
    )
    assert modes.split() == ["0", "1", "0", "0"]  # main screen, cursor shown, mouse off
