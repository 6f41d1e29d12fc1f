"""``mission-impractical``: settings, the simulator hand-off, and a real serve/stop cycle."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import stat
import sys
import tomllib
from pathlib import Path
from types import ModuleType

import asyncssh
import pytest

from engine.cards import load_deck
from server.admin import cli
from server.ssh_server import RESTARTING
from server.terminal import LEAVE_SEQUENCE
from tests.ssh.client import TermClient
from tests.waiting import until

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


async def _start(tmp_path: Path, *extra: str) -> tuple[asyncio.subprocess.Process, int, str]:
    key = ("--host-key", str(tmp_path / "host_keys" / "key")) if not extra else ()
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "server.admin.cli", "serve", "--host", "127.0.0.1", "--port", "0",
        *key, "--data-dir", str(tmp_path / "data"),
        "--app-factory", "tests.ssh.apps:make_counter_factory", *extra,
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


def test_version_is_the_one_in_pyproject(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        cli.main(["--version"])
    assert done.value.code == 0
    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    assert capsys.readouterr().out.strip() == f"mission-impractical {version}"


def test_by_default_friends_are_told_the_machines_own_name(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MI_PUBLIC_NAME", raising=False)
    options = cli.build_parser().parse_args(["serve"])
    assert options.public_name == socket.gethostname() != "host"


def test_the_data_dir_follows_systemd_then_xdg(monkeypatch: pytest.MonkeyPatch,
                                               tmp_path: Path) -> None:
    monkeypatch.delenv("MI_DATA_DIR", raising=False)
    monkeypatch.delenv("STATE_DIRECTORY", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert cli.build_parser().parse_args(["status"]).data_dir == tmp_path / "xdg" / \
        "mission-impractical"
    monkeypatch.setenv("STATE_DIRECTORY", "/var/lib/mission-impractical")
    assert cli.build_parser().parse_args(["serve"]).data_dir == \
        Path("/var/lib/mission-impractical")


def test_max_sessions_is_a_setting_and_must_be_positive(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("MI_MAX_SESSIONS", "40")
    assert cli.build_parser().parse_args(["serve"]).max_sessions == 40
    assert cli.build_parser().parse_args(["serve", "--max-sessions", "7"]).max_sessions == 7
    with pytest.raises(SystemExit):
        cli.build_parser().parse_args(["serve", "--max-sessions", "0"])
    assert "must be 1 or more" in capsys.readouterr().err


def test_an_older_versions_host_key_is_kept_in_use(monkeypatch: pytest.MonkeyPatch,
                                                   tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)
    options = cli.build_parser().parse_args(["serve", "--data-dir", "data"])
    assert cli.host_key_path(options) == Path("data") / cli.HOST_KEY_NAME
    legacy = tmp_path / "host_keys" / "ssh_host_ed25519_key"
    legacy.parent.mkdir()
    old_key = asyncssh.generate_private_key("ssh-ed25519")
    legacy.write_bytes(old_key.export_private_key())
    (tmp_path / "data").mkdir(mode=0o755)
    os.chmod(tmp_path / "data", 0o755)
    in_data = cli.host_key_path(options)
    assert in_data == Path("data") / cli.HOST_KEY_NAME  # copied: not the working directory's
    assert in_data.read_bytes() == legacy.read_bytes()
    assert stat.S_IMODE(in_data.stat().st_mode) == 0o600
    assert stat.S_IMODE((tmp_path / "data").stat().st_mode) == 0o700
    monkeypatch.chdir(tmp_path / "data")  # started elsewhere: the same key
    options = cli.build_parser().parse_args(["serve", "--data-dir", str(tmp_path / "data")])
    assert cli.host_key_path(options).read_bytes() == legacy.read_bytes()


def test_the_public_host_key_is_not_writable_by_others_whatever_the_umask(
        tmp_path: Path) -> None:
    from server.host_keys import load_or_create_host_key

    old = os.umask(0)
    try:
        load_or_create_host_key(tmp_path / "keys" / "host")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "keys" / "host.pub").stat().st_mode) == 0o644
    assert stat.S_IMODE((tmp_path / "keys" / "host").stat().st_mode) == 0o600


@pytest.mark.xdist_group("cli")
async def test_a_new_host_key_goes_in_the_data_dir_and_is_announced_once(
        tmp_path: Path) -> None:
    process, port, fingerprint = await _start(tmp_path, "--max-sessions", "1",
                                              "--public-name", "game.example.com")
    first = await TermClient.connect(port)
    await first.wait_for("len: 0")
    second = await TermClient.connect(port)
    await second.wait_closed()
    assert b"full" in bytes(second.stderr)  # --max-sessions 1 took effect
    process.send_signal(signal.SIGTERM)
    assert await asyncio.wait_for(process.wait(), 15) == 0
    assert process.stderr is not None
    log = (await process.stderr.read()).decode()
    key = tmp_path / "data" / "ssh_host_ed25519_key"
    assert f"made a new host key at {key} (first start)" in log  # plainly: nobody to warn
    assert "NEW HOST KEY" not in log and "Players who connected before" not in log
    assert fingerprint in log
    again, _, same = await _start(tmp_path, "--public-name", "game.example.com")
    again.send_signal(signal.SIGTERM)
    assert await asyncio.wait_for(again.wait(), 15) == 0
    assert again.stderr is not None
    assert "new host key" not in (await again.stderr.read()).decode().lower()
    assert same == fingerprint
    key.unlink()  # a lost key on a server that had players: every ssh will warn
    third, _, other = await _start(tmp_path, "--public-name", "game.example.com")
    third.send_signal(signal.SIGTERM)
    assert await asyncio.wait_for(third.wait(), 15) == 0
    assert third.stderr is not None
    assert f"NEW HOST KEY generated at {key}" in (await third.stderr.read()).decode()
    assert other != fingerprint


@pytest.mark.xdist_group("cli")
async def test_the_start_up_line_names_the_public_name_and_json_logs_are_json(
        tmp_path: Path) -> None:
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "server.admin.cli", "serve", "--host", "127.0.0.1", "--port", "0",
        "--data-dir", str(tmp_path / "data"), "--public-name", "game.example.com",
        "--log-format", "json",
        cwd=ROOT, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    assert process.stdout is not None and process.stderr is not None
    lines = [(await asyncio.wait_for(process.stdout.readline(), 20)).decode() for _ in range(3)]
    port = int(lines[0].rsplit(":", 1)[1])
    # a new table's invite says the same (run as python -m server.admin.cli, as here, it said
    # "ssh -t host")
    alice = await TermClient.connect(port)
    await alice.wait_for("the lobby")
    alice.send("c")
    await alice.wait_for(f"ssh -t -p {port} game.example.com")  # (the code may wrap)
    alice.close()
    # and so does the line for a client that sent a command instead of a table's code
    refused = await TermClient.connect(port, command="ls -l")
    told = f"To join a table: ssh -t -p {port} game.example.com CODE".encode()
    await until(lambda: told in bytes(refused.stderr), "the refusal")
    refused.close()
    process.send_signal(signal.SIGTERM)
    assert await asyncio.wait_for(process.wait(), 15) == 0
    assert lines[2].strip() == f"Players join with: ssh -p {port} game.example.com"
    deck = (await asyncio.wait_for(process.stdout.readline(), 20)).decode()
    own = load_deck()
    assert deck.strip() == (f"Deck: the game's own cards ({len(own.tasks)} tasks, "
                            f"{len(own.items)} items)")
    logged = [json.loads(line) for line in (await process.stderr.read()).decode().splitlines()]
    assert logged[-1]["message"] == "journal closed" and logged[-1]["level"] == "INFO"
