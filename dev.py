#!/usr/bin/env python3
"""Set-up and everyday commands, with nothing but Python 3.11+ on the machine.

    python3 dev.py serve    create .venv if needed, install, start the server on port 2222
    python3 dev.py test     create .venv if needed, install with test extras, run the tests
    python3 dev.py bench    run the benchmarks in bench/ and print their figures
    python3 dev.py lint     ruff over the tree
    python3 dev.py fuzz     a long fuzzing run of the whole input path (MI_FUZZ_EXAMPLES=2000)

Extra arguments go to the underlying command (``dev.py serve --port 2022``).
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
PY = BIN / "python"
STAMP = VENV / ".installed"


def ensure_installed() -> None:
    """One venv, installed editable with the test extras; redone when pyproject changes."""
    if sys.version_info < (3, 11):  # noqa: UP036 - dev.py may be started by an older python3
        sys.exit(f"Mission Impractical needs Python 3.11+, this is {sys.version.split()[0]}")
    digest = hashlib.sha256((ROOT / "pyproject.toml").read_bytes()).hexdigest()
    if STAMP.exists() and STAMP.read_text() == digest and PY.exists():
        return
    if not PY.exists():
        print("creating .venv ...", flush=True)
        venv.EnvBuilder(with_pip=True).create(VENV)
    print("installing mission-impractical and its test tools into .venv ...", flush=True)
    pip = [str(PY), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    subprocess.run([*pip, "--upgrade", "pip"], check=True)
    subprocess.run([*pip, "-e", f"{ROOT}[test]"], check=True, cwd=ROOT)
    STAMP.write_text(digest)


def run(args: list[str]) -> int:
    return subprocess.run(args, cwd=ROOT).returncode


def main(argv: list[str]) -> int:
    command, rest = (argv[0], argv[1:]) if argv else ("help", [])
    if command not in {"serve", "test", "bench", "lint", "fuzz"}:
        print(__doc__)
        return 0 if command in {"help", "-h", "--help"} else 2
    ensure_installed()
    if command == "serve":
        return run([str(BIN / "mission-impractical"), "serve", *rest])
    if command == "test":
        return run([str(PY), "-m", "pytest", "-n", "2", "--dist", "loadgroup", "-q", *rest])
    if command == "fuzz":
        os.environ.setdefault("MI_FUZZ_EXAMPLES", "2000")
        return run([str(PY), "-m", "pytest", "-q", "tests/ssh/test_fuzz.py", *rest])
    if command == "bench":
        return run([str(PY), "-m", "bench", *rest])
    return run([str(BIN / "ruff"), "check", ".", *rest])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
