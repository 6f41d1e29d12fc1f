"""``mission-impractical``: settings, the simulator hand-off, and a real serve/stop cycle."""

from __future__ import annotations

import asyncio
import signal
import stat
import sys
from pathlib import Path
from types import ModuleType

import pytest

from server import cli
from server.ssh_server import RESTARTING
from server.terminal import LEAVE_SEQUENCE
from tests.ssh.client import TermClient

ROOT = Path(__file__).resolve().parents[2]


def test_serve_settings_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MI_HOST", "127.0.0.2")
    monkeypatch.setenv("MI_PORT", "2345")
    monkeypatch.setenv("MI_DATA_DIR", "/srv/mi")
    monkeypatch.setenv("MI_LOG_LEVEL", "debug")
    options = cli.build_parser().parse_args(["serve"])
    assert (options.host, options.port) == ("127.0.0.2", 2345)
    assert options.data_dir == Path("/srv/mi")
    assert options.log_level == "DEBUG"
    assert options.authorized_keys is None and options.password is None


def test_flags_beat_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MI_PORT", "2345")
    options = cli.build_parser().parse_args(["serve", "--port", "2222"])
    assert options.port == 2222


def test_simulate_is_handed_to_the_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[list[str]] = []
    fake = ModuleType("engine.simulate")
    fake.main = lambda argv: seen.append(argv) or 3  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "engine.simulate", fake)
    assert cli.main(["simulate", "--games", "2"]) == 3
    assert seen == [["--games", "2"]]


async def _start(tmp_path: Path) -> tuple[asyncio.subprocess.Process, int, str]:
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "server.cli", "serve", "--host", "127.0.0.1", "--port", "0",
        "--host-key", str(tmp_path / "host_keys" / "key"), "--data-dir", str(tmp_path / "data"),
        "--app-factory", "tests.ssh.apps:make_counter_factory",
        cwd=ROOT, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )
    assert process.stdout is not None
    port, fingerprint = 0, ""
    while not (port and fingerprint):
        line = (await asyncio.wait_for(process.stdout.readline(), 20)).decode()
        assert line, "server exited before saying where it listens"
        if "listening on" in line:
            port = int(line.rsplit(":", 1)[1])
        if line.startswith("Host key fingerprint: "):
            fingerprint = line.split(": ", 1)[1].strip()
    return process, port, fingerprint


@pytest.mark.xdist_group("cli")
async def test_serve_says_goodbye_on_sigterm_and_keeps_its_host_key(tmp_path: Path) -> None:
    process, port, fingerprint = await _start(tmp_path)
    assert fingerprint.startswith("SHA256:")
    alice = await TermClient.connect(port)
    await alice.wait_for("len: 0")

    process.send_signal(signal.SIGTERM)
    await alice.wait_closed()
    assert await asyncio.wait_for(process.wait(), 15) == 0
    raw = bytes(alice.raw)
    assert raw.index(RESTARTING.encode()) > raw.rindex(LEAVE_SEQUENCE.encode())
    assert process.stderr is not None
    assert b"journal closed" in await process.stderr.read()

    key = tmp_path / "host_keys" / "key"
    assert stat.S_IMODE(key.stat().st_mode) == 0o600
    again, _, same = await _start(tmp_path)
    again.send_signal(signal.SIGINT)
    assert await asyncio.wait_for(again.wait(), 15) == 0
    assert same == fingerprint


def test_a_damaged_database_is_reported_and_left_alone(tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "data"
    data.mkdir()
    db = data / "mission.sqlite3"
    db.write_bytes(b"this is not sqlite at all" * 10)
    code = cli.main(["serve", "--host", "127.0.0.1", "--port", "0", "--data-dir", str(data),
                     "--host-key", str(tmp_path / "key")])
    assert code == 2
    err = capsys.readouterr().err
    assert str(db) in err and "not a valid database" in err
    assert db.read_bytes() == b"this is not sqlite at all" * 10


def test_the_invite_names_the_port_unless_it_is_22() -> None:
    assert cli.invite_command(22, "game.example.com") == "ssh -t game.example.com"
    assert cli.invite_command(2222, "game.example.com") == "ssh -t -p 2222 game.example.com"
