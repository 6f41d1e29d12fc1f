"""``python3 dev.py serve``, the README's first command: Ctrl+C stops the server cleanly."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.skipif(os.name != "posix", reason="process groups and signals")


def test_ctrl_c_on_dev_serve_shuts_the_server_down_cleanly(tmp_path: Path) -> None:
    """The terminal sends Ctrl+C to the whole foreground group: the wrapper and the server.
    The server tells its players and closes the journal; the wrapper waits for it and
    passes on its exit code, with no traceback of its own."""
    env = {**os.environ, "MI_LOG_LEVEL": "info"}
    process = subprocess.Popen(
        [sys.executable, str(ROOT / "dev.py"), "serve", "--host", "127.0.0.1", "--port", "0",
         "--data-dir", str(tmp_path / "data")],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        start_new_session=True)  # its own group, as a terminal's foreground job
    try:
        assert process.stdout is not None
        deadline = time.monotonic() + 60
        while "is listening on" not in process.stdout.readline():
            assert time.monotonic() < deadline and process.poll() is None, "no banner"
        time.sleep(0.3)
        os.killpg(process.pid, signal.SIGINT)
        _out, err = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    assert process.returncode == 0
    assert "journal closed" in err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err


def test_dev_script_passes_any_host_tool_on_with_the_checkouts_data_dir() -> None:
    """``dev.py restore`` (or any command of the server's own) reaches the server's command
    line, and its help names the data dir dev.py really uses, not the installed default."""
    out = subprocess.run([sys.executable, str(ROOT / "dev.py"), "restore", "--help"],
                         cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "a file written by backup" in out.stdout
    assert str(ROOT / "data") in " ".join(out.stdout.split())


def test_dev_script_help_has_no_raw_markup() -> None:
    out = subprocess.run([sys.executable, str(ROOT / "dev.py"), "help"],
                         capture_output=True, text=True, timeout=30)
    assert out.returncode == 0 and "restore" in out.stdout and "``" not in out.stdout
