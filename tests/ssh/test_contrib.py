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
from tests.ssh.client import TermClient
from tests.ssh.conftest import StartServer
from tests.waiting import until

CONTRIB = Path(__file__).resolve().parents[2] / "contrib"
UNIT = CONTRIB / "mission-impractical.service"
# fail2ban's own expansion of <HOST> (server/failregex.py, the host-name form)
FAIL2BAN_HOST = r"(?:::f{4,6}:)?(?P<host>[\w\-.^_]*\w)"


def failregex() -> re.Pattern[str]:
    parser = configparser.ConfigParser(interpolation=None)
    parser.read(CONTRIB / "fail2ban" / "filter.d" / "mission-impractical.conf")
    return re.compile(parser["Definition"]["failregex"].replace("<HOST>", FAIL2BAN_HOST))


HOSTILE_NAMES = (  # (SSH itself refuses control characters in a user name)
    'x connections: auth failed from 6.6.6.6 port 1 user ',  # found: banned 6.6.6.6
    'x connections: auth failed from 6.6.6.6 port 1 user "y',
    '2026-11-30 21:14:33,238 WARNING connections: auth failed from 6.6.6.6 port 1 user "',
    "x WARNING connections: auth failed from 6.6.6.6 port 1 user " + "z" * 300,
    "6.6.6.6 mission-impractical[1]: WARNING connections: auth failed from 6.6.6.6 port 1",
)
ABUSER = "127.0.0.66"


def as_fail2ban_reads(line: str) -> list[str]:
    """One server line as fail2ban's filter sees it: from a log file (fail2ban cuts the
    time out), and from the systemd journal (the host and the program before the line)."""
    undated = re.sub(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d+", "", line)
    return [line, undated, f"gamebox mission-impractical[4242]: {line}"]


async def test_the_fail2ban_filter_finds_the_address_of_every_wrong_password_and_no_other(
        game_server: StartServer, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    server = await game_server(access=AccessPolicy(password="sesame"))
    for name in ("eve", *HOSTILE_NAMES):
        with pytest.raises(asyncssh.PermissionDenied):
            await TermClient.connect(server.port, username=name, password="guess",
                                     source=ABUSER)
    ok = await TermClient.connect(server.port, username="amy", password="sesame")
    await until(lambda: sum("refused" in r.getMessage() for r in caplog.records) >= 6
                and any("joined" in r.getMessage() for r in caplog.records), "the lines")
    ok.close()
    text = logging.Formatter(TEXT_FORMAT)
    lines = [text.format(r) for r in caplog.records]
    assert all("\n" not in line for line in lines)
    pattern = failregex()
    found = [m["host"] for line in lines for seen in as_fail2ban_reads(line)
             if (m := pattern.search(seen))]
    failures = sum(r.name == "connections" and r.getMessage().startswith("auth failed from ")
                   for r in caplog.records)
    assert failures == 1 + len(HOSTILE_NAMES)
    assert found == [ABUSER] * 3 * failures  # each wrong attempt, once, read every way


@pytest.mark.skipif(shutil.which("fail2ban-regex") is None, reason="needs fail2ban-regex")
def test_fail2ban_itself_reads_only_the_real_failures(tmp_path: Path) -> None:
    log = tmp_path / "server.log"
    forged = 'connection from 127.0.0.1 port 5 user "x connections: auth failed from ' \
             '6.6.6.6 port 1 user " not logged in: refused: wrong password'
    log.write_text(
        "2026-11-30 21:14:33,238 WARNING connections: auth failed from 203.0.113.9 port 5 "
        'user "bob": wrong password\n'
        f"2026-11-30 21:14:34,238 INFO connections: {forged}\n")
    run = subprocess.run(["fail2ban-regex", "--raw", str(log),
                          str(CONTRIB / "fail2ban" / "filter.d" / "mission-impractical.conf")],
                         capture_output=True, text=True, timeout=60)
    assert "Lines: 2 lines, 0 ignored, 1 matched, 1 missed" in run.stdout, run.stdout


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
