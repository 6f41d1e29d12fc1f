"""Only modern algorithms: ssh-audit finds nothing to fail, and OpenSSH still connects."""

from __future__ import annotations

import asyncio
import sys

import asyncssh
from ssh_audit import exitcodes

from tests.ssh.conftest import StartServer


async def test_ssh_audit_finds_no_failures(game_server: StartServer) -> None:
    server = await game_server()
    audit = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "ssh_audit", "--batch", "--skip-rate-test",
        "--port", str(server.port), "127.0.0.1",
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
    )
    output, _ = await asyncio.wait_for(audit.communicate(), timeout=30)
    report = output.decode()
    assert "(key) ssh-ed25519" in report, report  # it did audit the server
    failures = [line for line in report.splitlines() if "fail" in line.lower()]
    assert failures == [], report
    # warnings only: curve25519 is not post-quantum, but OpenSSH 9.2 has nothing better
    # that asyncssh speaks (sntrup761 needs liboqs)
    assert audit.returncode in (exitcodes.GOOD, exitcodes.WARNING), report
    for weak in ("ssh-rsa", "sha1", "cbc", "hmac-md5", "diffie-hellman-group1", "zlib"):
        assert weak not in report, weak


async def test_a_client_that_lists_chacha20_first_gets_aes_in_hardware(
        game_server: StartServer) -> None:
    """OpenSSH's own order: chacha20-poly1305, then AES-CTR, then AES-GCM. The server does
    not offer chacha20 (computed in Python by asyncssh, six times the cost of AES)."""
    server = await game_server()
    conn = await asyncssh.connect(
        "127.0.0.1", server.port, username="alice", known_hosts=None, client_keys=None,
        agent_path=None, config=None, password="",
        encryption_algs=["chacha20-poly1305@openssh.com", "aes128-ctr", "aes192-ctr",
                         "aes256-ctr", "aes128-gcm@openssh.com", "aes256-gcm@openssh.com"])
    try:
        assert conn.get_extra_info("send_cipher") == "aes128-ctr"
        assert conn.get_extra_info("recv_cipher") == "aes128-ctr"
    finally:
        conn.close()
