"""What contrib/ ships for hosts: the fail2ban filter reads the server's real auth
failure lines (and nothing a player's name could forge), and the systemd unit is valid
and sandboxed."""

from __future__ import annotations

import configparser
import logging
import re
import shutil
import subprocess
from pathlib import Path

import asyncssh
import pytest

from server.admin.oplog import TEXT_FORMAT
from server.auth import AccessPolicy
from tests.ssh.client import TermClient, until
from tests.ssh.conftest import StartServer

CONTRIB = Path(__file__).resolve().parents[2] / "contrib"
UNIT = CONTRIB / "mission-impractical.service"
# fail2ban's own expansion of <HOST> (server/failregex.py, the host-name form)
FAIL2BAN_HOST = r"(?:::f{4,6}:)?(?P<host>[\w\-.^_]*\w)"


def failregex() -> re.Pattern[str]:
    parser = configparser.ConfigParser(interpolation=None)
    parser.read(CONTRIB / "fail2ban" / "filter.d" / "mission-impractical.conf")
    return re.compile(parser["Definition"]["failregex"].replace("<HOST>", FAIL2BAN_HOST))


async def test_the_fail2ban_filter_finds_the_address_of_every_wrong_password(
        game_server: StartServer, client_key: asyncssh.SSHKey,
        caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="connections")
    server = await game_server(access=AccessPolicy(password="sesame"))
    forger = 'x connections: auth failed from 10.9.9.9 port 1 user "y'
    for name in ("eve", forger):
        with pytest.raises(asyncssh.PermissionDenied):
            await TermClient.connect(server.port, username=name, password="guess")
    ok = await TermClient.connect(server.port, username="amy", password="sesame")
    await until(lambda: sum("refused" in r.getMessage() for r in caplog.records) == 2
                and any("joined" in r.getMessage() for r in caplog.records), "the lines")
    ok.close()
    text = logging.Formatter(TEXT_FORMAT)
    lines = [text.format(r) for r in caplog.records if r.name == "connections"]
    pattern = failregex()
    found = [m["host"] for line in lines if (m := pattern.search(line))]
    undated = [m["host"] for line in lines if (m := pattern.search(line.split(" ", 2)[2]))]
    assert found == undated == ["127.0.0.1"] * sum(
        line.split("connections: ", 1)[1].startswith("auth failed") for line in lines)
    assert len(found) >= 2  # each wrong attempt is one line; the forged name changes nothing


def test_the_systemd_unit_is_hardened_as_the_docs_say() -> None:
    unit = UNIT.read_text()
    for option in ("ProtectSystem=strict", "ReadWritePaths=/var/lib/mission-impractical",
                   "PrivateTmp=true", "ProtectHome=true", "NoNewPrivileges=true",
                   "RestrictAddressFamilies=AF_INET AF_INET6 AF_UNIX",
                   "SystemCallFilter=@system-service",
                   "CapabilityBoundingSet=CAP_NET_BIND_SERVICE"):
        assert f"\n{option}\n" in unit, option


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="needs systemd-analyze")
def test_systemd_accepts_the_unit_and_rates_its_exposure_low(tmp_path: Path) -> None:
    unit = tmp_path / UNIT.name  # the same unit, with a program that exists here
    unit.write_text(UNIT.read_text().replace(
        "/opt/mission-impractical/bin/mission-impractical", shutil.which("true") or "/bin/true"))
    verify = subprocess.run(["systemd-analyze", "verify", str(unit)], capture_output=True,
                            text=True, timeout=60)
    assert verify.returncode == 0, verify.stderr
    security = subprocess.run(["systemd-analyze", "security", "--offline=true", str(unit)],
                              capture_output=True, text=True, timeout=60)
    if security.returncode != 0 and "offline" in security.stderr:
        pytest.skip("this systemd-analyze cannot rate a unit file offline")
    score = re.search(r"Overall exposure level for \S+: ([\d.]+)", security.stdout)
    assert score is not None, security.stdout + security.stderr
    print(f"systemd-analyze security: exposure {score[1]} (0 safest, 10 unsafe)")
    assert float(score[1]) <= 2.5
