"""What a connection may not do: run commands, copy files, forward ports, skip the terminal."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import asyncssh
import pytest

from server.auth import AccessPolicy, fingerprint
from server.session import NEEDS_TERMINAL, NO_FILES, NOT_A_CODE, not_a_code
from server.ssh_server import SERVER_VERSION
from tests.ssh.apps import BOARD
from tests.ssh.client import TermClient
from tests.ssh.conftest import StartServer


async def _connect(port: int, **kwargs: object) -> asyncssh.SSHClientConnection:
    options = {"username": "eve", "known_hosts": None, "agent_path": None, "config": None}
    options.setdefault("client_keys", kwargs.pop("client_keys", None))
    return await asyncssh.connect("127.0.0.1", port, **{**options, **kwargs})


@pytest.fixture
async def keyed(
    game_server: StartServer, client_key: asyncssh.SSHKey
) -> asyncssh.SSHClientConnection:
    server = await game_server()
    return await _connect(server.port, client_keys=[client_key])


async def test_a_command_is_refused_with_the_command_that_joins_a_table_here(
        game_server: StartServer, client_key: asyncssh.SSHKey) -> None:
    server = await game_server(invite="ssh -t -p 2302 game.example.com")
    keyed = await _connect(server.port, client_keys=[client_key])
    result = await keyed.run("cat /etc/passwd", encoding="utf-8")
    assert result.exit_status == 1
    assert result.stderr.strip() == not_a_code("ssh -t -p 2302 game.example.com")
    assert result.stderr.strip() == ("Mission Impractical runs no commands. To join a table: "
                                     "ssh -t -p 2302 game.example.com CODE (CODE is the "
                                     "table's 4 letters). To watch its last game again: "
                                     "ssh -t -p 2302 game.example.com replay CODE.")
    assert result.stdout == ""


async def test_scp_is_refused(keyed: asyncssh.SSHClientConnection) -> None:
    result = await keyed.run("scp -t /tmp", encoding="utf-8")
    assert result.exit_status == 1
    assert NOT_A_CODE in result.stderr


async def test_a_session_without_a_terminal_is_told_to_use_ssh_t(
    keyed: asyncssh.SSHClientConnection,
) -> None:
    result = await keyed.run(encoding="utf-8")  # a shell, no PTY
    assert result.exit_status == 1
    assert result.stderr == NEEDS_TERMINAL + "\n"


async def test_a_table_code_without_a_terminal_is_told_to_use_ssh_t(
    keyed: asyncssh.SSHClientConnection,
) -> None:
    result = await keyed.run("ABCD", encoding="utf-8")
    assert result.stderr.strip() == NEEDS_TERMINAL


async def test_sftp_is_refused_with_a_message(keyed: asyncssh.SSHClientConnection) -> None:
    with pytest.raises((asyncssh.SFTPError, asyncssh.ChannelOpenError)):
        await keyed.start_sftp_client()
    result = await keyed.run(subsystem="sftp", encoding="utf-8")  # what sftp shows its user
    assert result.exit_status == 1 and result.stderr.strip() == NO_FILES


async def test_port_forwarding_is_refused_saying_it_is_off(
        keyed: asyncssh.SSHClientConnection) -> None:
    with pytest.raises(asyncssh.ChannelOpenError, match="port forwarding is off"):
        await keyed.create_connection(asyncssh.SSHTCPSession, "127.0.0.1", 22)
    with pytest.raises(asyncssh.ChannelListenError):
        await keyed.forward_remote_port("127.0.0.1", 0, "127.0.0.1", 22)
    with pytest.raises(asyncssh.ChannelOpenError):
        await keyed.create_unix_connection(asyncssh.SSHUNIXSession, "/run/anything.sock")


async def test_environment_variables_from_the_client_are_ignored(
    game_server: StartServer,
) -> None:
    server = await game_server()
    before = dict(os.environ)
    env = {"TERM": "dumb", "TEXTUAL_COLOR_SYSTEM": "standard", "LD_PRELOAD": "/tmp/x.so"}
    alice = await TermClient.connect(server.port, env=env)
    await alice.wait_for("len: 0")
    assert BOARD.contexts[-1].term_type == "xterm-256color"  # from the PTY request only
    assert dict(os.environ) == before


async def test_the_server_names_itself_without_its_software_version(
    keyed: asyncssh.SSHClientConnection,
) -> None:
    assert keyed.get_extra_info("server_version") == f"SSH-2.0-{SERVER_VERSION}"
    assert "AsyncSSH" not in SERVER_VERSION


async def test_an_allow_list_admits_listed_keys_only(
    game_server: StartServer, client_key: asyncssh.SSHKey, tmp_path: Path
) -> None:
    listed = tmp_path / "authorized_keys"
    listed.write_bytes(b'from="*" ' + client_key.export_public_key())
    server = await game_server(access=AccessPolicy.from_options(listed, None))

    friend = await TermClient.connect(server.port, key=client_key)
    await friend.wait_for("len: 0")
    stranger = asyncssh.generate_private_key("ssh-ed25519")
    with pytest.raises(asyncssh.PermissionDenied):
        await _connect(server.port, client_keys=[stranger])
    with pytest.raises(asyncssh.PermissionDenied):
        await TermClient.connect(server.port)  # keyless guests are not let in either
    assert BOARD.contexts[-1].player.id == f"key:{fingerprint(client_key)}"


async def test_a_shared_password_is_asked_of_everyone(
    game_server: StartServer, client_key: asyncssh.SSHKey
) -> None:
    server = await game_server(access=AccessPolicy(password="sesame"))
    guest = await TermClient.connect(server.port, password="sesame")
    await guest.wait_for("len: 0")
    assert BOARD.contexts[-1].player.is_guest
    with pytest.raises(asyncssh.PermissionDenied):
        await _connect(server.port, password="open sesame")
    with pytest.raises(asyncssh.PermissionDenied):
        await _connect(server.port, client_keys=[client_key])


async def test_a_client_that_never_logs_in_is_dropped(game_server: StartServer) -> None:
    server = await game_server(login_timeout_s=0.5)
    reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
    banner = await reader.readline()
    assert banner.startswith(b"SSH-2.0-MissionImpractical")
    rest = await asyncio.wait_for(reader.read(), timeout=5)  # then silence, until closed
    assert reader.at_eof(), rest
    writer.close()


async def test_one_connection_cannot_open_sessions_without_end(
    game_server: StartServer, client_key: asyncssh.SSHKey
) -> None:
    server = await game_server(sessions_per_connection=2)
    conn = await _connect(server.port, client_keys=[client_key])
    for _ in range(2):
        await conn.create_session(
            asyncssh.SSHClientSession, term_type="xterm", term_size=(80, 24), encoding=None
        )
    for _ in range(100):
        if len(server.sessions) == 2:
            break
        await asyncio.sleep(0.02)
    with pytest.raises(asyncssh.ChannelOpenError):
        await conn.create_session(
            asyncssh.SSHClientSession, term_type="xterm", term_size=(80, 24), encoding=None
        )
