"""Installed as a host installs it: a wheel built from the project, put in a fresh venv
outside the checkout, started from another directory with no settings, and played on."""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from tests.ssh.client import TermClient

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"][
    "find"]["include"]
SHIPPED = ("pyproject.toml", "README.md", "LICENSE",
           *(pattern.rstrip("*") for pattern in PACKAGES))
"""What a wheel is built from: the packages pyproject.toml ships, and its metadata files."""


def _run(*args: str | Path, cwd: Path) -> str:
    done = subprocess.run([str(a) for a in args], cwd=cwd, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout + done.stderr


def _wheel(tmp_path: Path) -> Path:
    """Build the wheel from a copy of what the project ships."""
    source = tmp_path / "source"
    source.mkdir()
    for name in SHIPPED:
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, source / name,
                            ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy(ROOT / name, source / name)
    built = _run(sys.executable, "-m", "pip", "wheel", "--no-deps", "-w", tmp_path / "wheels",
                 "./source", cwd=tmp_path)
    assert "Warning" not in built.replace("WARNING: Location", ""), built  # no setuptools nags
    return next((tmp_path / "wheels").glob("mission_impractical-*.whl"))


def _install(tmp_path: Path) -> Path:
    """Build the wheel and install it into a new venv. Returns the venv's bin directory."""
    wheel = _wheel(tmp_path)
    _run(sys.executable, "-m", "venv", tmp_path / "venv", cwd=tmp_path)
    bin_dir = tmp_path / "venv" / "bin"
    _run(bin_dir / "python", "-m", "pip", "install", "-q", wheel, cwd=tmp_path)
    return bin_dir


def _textual_in(bin_dir: Path) -> str:
    return _run(bin_dir / "python", "-c",
                "import importlib.metadata as m; print(m.version('textual'))",
                cwd=bin_dir).strip()


@pytest.mark.xdist_group("cli")
def test_the_wheel_over_an_older_textual_refuses_to_start_then_pip_moves_it_to_the_pin(
        tmp_path: Path) -> None:
    """A host's venv already holds Textual 8.2.0 (on which the server cannot run):
    the game installed without its dependencies refuses to start, in one line naming the
    version it needs; installed as pip installs it, Textual moves to the pinned version."""
    pinned = next(line.split("==")[1] for line in (ROOT / "constraints.txt").read_text()
                  .splitlines() if line.startswith("textual=="))
    wheel = _wheel(tmp_path)
    _run(sys.executable, "-m", "venv", tmp_path / "venv", cwd=tmp_path)
    bin_dir = tmp_path / "venv" / "bin"
    pip = [bin_dir / "python", "-m", "pip", "install", "-q", "--disable-pip-version-check"]
    _run(*pip, "textual==8.2.0", "asyncssh", cwd=tmp_path)
    _run(*pip, "--no-deps", wheel, cwd=tmp_path)
    assert _textual_in(bin_dir) == "8.2.0"
    refused = subprocess.run([bin_dir / "mission-impractical", "--version"], cwd=tmp_path,
                             capture_output=True, text=True, timeout=120)
    assert refused.returncode == 1
    assert refused.stderr.strip().splitlines() == [
        f"Mission Impractical needs Textual {pinned} exactly (installed: 8.2.0); "
        f"reinstall it: pip install textual=={pinned}"]
    _run(*pip, wheel, cwd=tmp_path)
    assert _textual_in(bin_dir) == pinned
    assert _run(bin_dir / "mission-impractical", "--version", cwd=tmp_path).startswith(
        "mission-impractical ")


@pytest.mark.xdist_group("cli")
async def test_the_installed_wheel_serves_a_game_from_any_directory(tmp_path: Path) -> None:
    bin_dir = _install(tmp_path)
    elsewhere, home = tmp_path / "elsewhere", tmp_path / "home"
    elsewhere.mkdir()
    home.mkdir()
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("MI_") and k not in {"XDG_DATA_HOME", "STATE_DIRECTORY",
                                                     "PYTHONPATH"}}
    env["HOME"] = str(home)
    program = bin_dir / "mission-impractical"
    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    assert _run(program, "--version", cwd=elsewhere).strip() == f"mission-impractical {version}"
    where = _run(bin_dir / "python", "-c", "import engine, tui; print(engine.__file__)",
                 cwd=elsewhere)
    assert str(tmp_path / "venv") in where  # the installed copy, not the checkout

    process = await asyncio.create_subprocess_exec(
        program, "serve", "--host", "127.0.0.1", "--port", "0", cwd=elsewhere, env=env,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    assert process.stdout is not None
    port = 0
    while not port:
        line = (await asyncio.wait_for(process.stdout.readline(), 30)).decode()
        assert line, "the server exited before listening"
        if "listening on" in line:
            port = int(line.rsplit(":", 1)[1])
    try:
        player = await TermClient.connect(port, username="amy")
        await player.wait_for("the lobby", timeout=20)
        player.close()
    finally:
        process.send_signal(signal.SIGTERM)
        assert await asyncio.wait_for(process.wait(), 15) == 0
    data = home / ".local" / "share" / "mission-impractical"
    assert (data / "mission.sqlite3").is_file()
    assert (data / "ssh_host_ed25519_key").is_file()
    assert not list(elsewhere.iterdir())  # nothing dropped in the working directory
