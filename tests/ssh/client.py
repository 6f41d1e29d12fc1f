"""A real SSH client for the tests: asyncssh with a PTY, its output drawn on a pyte screen."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import asyncssh
import pyte


class _Guest(asyncssh.SSHClient):
    """Takes keyboard-interactive auth with no questions, as a keyless OpenSSH client does."""

    def kbdint_auth_requested(self) -> str:
        return ""

    def kbdint_challenge_received(
        self, name: str, instructions: str, lang: str, prompts: Any
    ) -> list[str]:
        return [""] * len(prompts)


class _ScreenSession(asyncssh.SSHClientSession[bytes]):
    def __init__(self, client: TermClient) -> None:
        self._client = client

    def data_received(self, data: bytes, datatype: asyncssh.DataType) -> None:
        if datatype == asyncssh.EXTENDED_DATA_STDERR:
            self._client.stderr += data
        else:
            self._client.raw += data
            if self._client.draw:
                self._client.stream.feed(data)

    def connection_lost(self, exc: Exception | None) -> None:
        self._client.closed.set()


class TermClient:
    """One player's terminal: connect, type, resize, and read what the screen shows."""

    def __init__(self, width: int, height: int) -> None:
        self.screen = pyte.Screen(width, height)
        self.stream = pyte.ByteStream(self.screen)
        self.raw = bytearray()
        self.stderr = bytearray()
        self.closed = asyncio.Event()
        self.conn: asyncssh.SSHClientConnection | None = None
        self.chan: asyncssh.SSHClientChannel[bytes] | None = None
        self.draw = True
        """Feed output to the pyte screen (a flooding client that never looks can skip it)."""

    @classmethod
    async def connect(
        cls,
        port: int,
        *,
        username: str = "alice",
        key: asyncssh.SSHKey | None = None,
        password: str | None = None,
        size: tuple[int, int] = (100, 30),
        command: str | None = None,
        pty: bool = True,
        env: dict[str, str] | None = None,
        window: int = 2 * 1024 * 1024,
        source: str | None = None,
        term: str = "xterm-256color",
    ) -> TermClient:
        """Connect to 127.0.0.1:``port`` and open a session (with a PTY unless told not to).

        ``source`` is the address to connect from (any 127.x.y.z on loopback): per-address
        limits see it as another household."""
        client = cls(*size)
        client.conn = await asyncssh.connect(
            "127.0.0.1",
            port,
            username=username,
            known_hosts=None,
            client_keys=[key] if key is not None else None,
            agent_path=None,
            password=password,
            client_factory=None if password else _Guest,
            config=None,
            local_addr=(source, 0) if source else None,
        )
        client.chan, _ = await client.conn.create_session(
            lambda: _ScreenSession(client),
            command=command,
            term_type=term if pty else None,
            term_size=size if pty else None,
            encoding=None,
            env=env or (),
            window=window,
        )
        return client

    def text(self) -> str:
        """The screen as lines of text."""
        return "\n".join(self.screen.display)

    async def wait_for(self, text: str, timeout: float = 10.0) -> float:
        """Wait until ``text`` is on the screen; returns the seconds it took."""
        start = time.monotonic()
        while text not in self.text():
            if time.monotonic() - start > timeout:
                raise AssertionError(f"{text!r} not on screen after {timeout}s:\n{self.text()}")
            await asyncio.sleep(0.01)
        return time.monotonic() - start

    async def wait_closed(self, timeout: float = 10.0) -> None:
        """Wait until the server closes the session."""
        await asyncio.wait_for(self.closed.wait(), timeout)

    def send(self, data: str | bytes) -> None:
        """Type ``data`` (text is sent as UTF-8)."""
        assert self.chan is not None
        self.chan.write(data.encode() if isinstance(data, str) else data)

    def resize(self, width: int, height: int) -> None:
        """The window changed size."""
        assert self.chan is not None
        self.screen.resize(height, width)
        self.chan.change_terminal_size(width, height)

    def close(self) -> None:
        """Disconnect politely."""
        if self.conn is not None:
            self.conn.close()

    def abort(self) -> None:
        """Drop the connection at once, as a network failure would."""
        if self.conn is not None:
            self.conn.abort()
