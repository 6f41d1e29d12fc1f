"""The operator's log: one line per connection with who and what became of them, auth
failures in the documented format, and the same facts as JSON fields."""

from __future__ import annotations

import io
import json
import logging
import sys

import asyncssh
import pytest

from server.admin.oplog import TEXT_FORMAT, JsonFormatter, configure_logging
from server.auth import AccessPolicy, fingerprint
from tests.ssh.client import TermClient
from tests.ssh.conftest import StartServer
from tests.waiting import until


def lines(caplog: pytest.LogCaptureFixture, formatter: logging.Formatter | None = None
          ) -> list[str]:
    formatter = formatter or logging.Formatter(TEXT_FORMAT)
    return [formatter.format(r) for r in caplog.records if r.name == "connections"]


async def visit(game_server: StartServer, key: asyncssh.SSHKey,
                caplog: pytest.LogCaptureFixture) -> None:
    """Alice connects with her key, sees the app, and leaves."""
    caplog.set_level(logging.INFO, logger="connections")
    server = await game_server()
    alice = await TermClient.connect(server.port, username="alice", key=key)
    await alice.wait_for("len: 0")
    alice.close()
    await until(lambda: len(lines(caplog)) == 2, "the joined and left lines")


async def test_each_connection_logs_who_joined_and_how_long_they_stayed(
        game_server: StartServer, client_key: asyncssh.SSHKey,
        caplog: pytest.LogCaptureFixture) -> None:
    await visit(game_server, client_key, caplog)
    joined, left = lines(caplog)
    who = f'connection from 127.0.0.1 port {port_of(joined)} user "alice" ' \
          f"key {fingerprint(client_key)}"
    assert joined.endswith(f"INFO connections: {who}: joined")
    assert f"{who}: left after 0 s" in left


def port_of(line: str) -> int:
    return int(line.split(" port ", 1)[1].split()[0])


async def test_a_refused_connection_says_why_and_a_guest_is_called_a_guest(
        game_server: StartServer, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="connections")
    server = await game_server()
    conn = await asyncssh.connect("127.0.0.1", server.port, username="bob", known_hosts=None,
                                  client_keys=None, agent_path=None, config=None,
                                  client_factory=_guest())
    await conn.run(encoding="utf-8")  # a shell with no terminal
    conn.close()
    await until(lambda: len(lines(caplog)) == 1, "the refusal line")
    assert lines(caplog)[0].endswith('user "bob" guest: refused: no terminal')


async def test_a_wrong_password_is_an_auth_failure_line_fail2ban_can_read(
        game_server: StartServer, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="connections")
    server = await game_server(access=AccessPolicy(password="sesame"))
    with pytest.raises(asyncssh.PermissionDenied):
        await TermClient.connect(server.port, username='eve"', password="open sesame")
    await until(lambda: any("refused" in line for line in lines(caplog)), "the refusal")
    failures = [line for line in lines(caplog) if "auth failed" in line]
    assert failures
    assert failures[0].endswith('WARNING connections: auth failed from 127.0.0.1 port '
                                f'{port_of(failures[0])} user "eve\\"": wrong password')
    assert lines(caplog)[-1].endswith('user "eve\\"" not logged in: refused: wrong password')


async def test_json_lines_carry_the_same_facts_as_fields(
        game_server: StartServer, client_key: asyncssh.SSHKey,
        caplog: pytest.LogCaptureFixture) -> None:
    await visit(game_server, client_key, caplog)
    joined, left = (json.loads(line) for line in lines(caplog, JsonFormatter()))
    assert joined["event"] == "joined" and joined["level"] == "INFO"
    assert joined["address"] == "127.0.0.1" and joined["user"] == "alice"
    assert joined["key"] == fingerprint(client_key) and joined["guest"] is False
    assert left["event"] == "left" and left["seconds"] >= 0
    assert left["message"].startswith("connection from 127.0.0.1")


def _guest() -> type[asyncssh.SSHClient]:
    from tests.ssh.client import _Guest

    return _Guest


def test_the_log_goes_to_stderr_as_it_is_when_a_line_is_logged(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Found in CI: a handler bound to a stderr a test had captured (and closed) printed
    'Logging error' into every later test's stderr."""
    root = logging.getLogger()
    monkeypatch.setattr(root, "handlers", list(root.handlers))  # (put back after)
    monkeypatch.setattr(root, "level", root.level)
    first, later = io.StringIO(), io.StringIO()
    monkeypatch.setattr(sys, "stderr", first)
    configure_logging("INFO")
    first.close()
    monkeypatch.setattr(sys, "stderr", later)
    logging.getLogger("mission.test").info("still heard")
    assert later.getvalue().endswith("INFO mission.test: still heard\n")
