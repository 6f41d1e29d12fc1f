"""The second round of attacks (issue 34), each against a real server over SSH from loopback
addresses of their own (127.0.0.0/8 is all loopback): what each one now gets."""

from __future__ import annotations

import asyncio
import logging

import pytest
from asyncssh.packet import String

from server.session import GameSession
from tests.ssh.client import TermClient, until
from tests.ssh.conftest import StartServer

ABUSER = "127.0.0.66"
FRIEND = "127.0.0.2"


def _send_env(client: TermClient, name: bytes, value: bytes) -> None:
    """One ``env`` request on the client's session channel, as a hostile client sends it
    (asyncssh's client only sends env before the session starts)."""
    assert client.chan is not None
    client.chan._send_request(b"env", String(name), String(value))  # type: ignore[attr-defined]


def _session_of(server: object, address: str) -> GameSession:
    sessions = [s for s in server.sessions if s.address == address]  # type: ignore[attr-defined]
    assert len(sessions) == 1
    return sessions[0]


# -- env requests ------------------------------------------------------------------------------


async def test_a_session_keeps_only_the_few_short_variables_a_game_reads(
        game_server: StartServer) -> None:
    server = await game_server()
    client = await TermClient.connect(server.port, source=ABUSER,
                                      env={"LANG": "en_GB.UTF-8", "NO_COLOR": "1"})
    await client.wait_for("count")
    for name, value in ((b"LC_ALL", b"C.UTF-8"), (b"PATH", b"/bin"), (b"EVIL", b"x" * 100),
                        (b"COLORTERM", b"truecolor" * 10_000), (b"TERM", b"xterm")):
        _send_env(client, name, value)
    kept = _session_of(server, ABUSER)._chan.get_environment_bytes()  # type: ignore[union-attr]
    await until(lambda: b"TERM" in kept, "the last request")
    assert dict(kept) == {b"LANG": b"en_GB.UTF-8", b"NO_COLOR": b"1", b"LC_ALL": b"C.UTF-8",
                          b"TERM": b"xterm"}
    client.close()


async def test_an_env_flood_is_cut_off_and_keeps_no_memory(
        game_server: StartServer, caplog: pytest.LogCaptureFixture) -> None:
    """Found: 10,000 requests of 200 KB each took the server from 67 to 1,978 MB."""
    caplog.set_level(logging.INFO)
    server = await game_server()
    client = await TermClient.connect(server.port, source=ABUSER)
    await client.wait_for("count")
    friend = await TermClient.connect(server.port, source=FRIEND)
    await friend.wait_for("count")
    session = _session_of(server, ABUSER)
    kept = session._chan.get_environment_bytes()  # type: ignore[union-attr]
    for n in range(300):
        if client.closed.is_set():
            break
        _send_env(client, b"LC_%d" % n if n % 2 else b"JUNK%d" % n, b"v" * 200_000)
        await asyncio.sleep(0)
    await client.wait_closed(timeout=20)
    assert sum(len(k) + len(v) for k, v in kept.items()) == 0  # every value was too long
    assert any("environment requests; disconnecting" in r.getMessage() for r in caplog.records)
    friend.send("\r")  # the counter: the friend plays on
    await friend.wait_for("count: 1")
    friend.close()
