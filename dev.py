#!/usr/bin/env python3
"""Set-up and everyday commands, with nothing but Python 3.11+ on the machine.

    python3 dev.py serve    create .venv if needed, install the server, start it on port 2222
    python3 dev.py test     create .venv if needed, add the test tools, run the tests
    python3 dev.py bench    run the benchmarks in bench/ and print their figures
    python3 dev.py lint     ruff over the tree
    python3 dev.py types    mypy over engine/ and lean_textual/ (strict; .ci/run runs it)
    python3 dev.py fuzz     a long fuzzing run of the whole input path (MI_FUZZ_EXAMPLES=2000)
    python3 dev.py status   or any other command of the server's own command line (backup,
                            restore, prune, kick, ban, unban, simulate...): the host's tools

Extra arguments go to the underlying command, for example: python3 dev.py serve --port 2022
Run from a checkout, the server and the host's tools keep their data in the checkout's data/
folder (unless --data-dir or MI_DATA_DIR says otherwise).
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
CONSTRAINTS = ROOT / "constraints.txt"
"""Every dependency's exact version (Textual's must be the one lean_textual/internals.py
was written for)."""
OWN = {"serve", "test", "bench", "lint", "types", "fuzz"}
"""dev.py's own commands; every other one goes to the server's command line."""


def ensure_installed(with_tests: bool) -> None:
    """One venv with the game installed editable (and the test tools when ``with_tests``),
    every dependency at its version in constraints.txt; redone when pyproject.toml or
    constraints.txt changes."""
    if sys.version_info < (3, 11):  # noqa: UP036 - dev.py may be started by an older python3
        sys.exit(f"Mission Impractical needs Python 3.11+, this is {sys.version.split()[0]}")
    digest = hashlib.sha256((ROOT / "pyproject.toml").read_bytes()
                            + CONSTRAINTS.read_bytes()).hexdigest()
    stamp = STAMP.read_text().split() if STAMP.exists() else []
    wanted = [digest, "test"] if with_tests else [digest]
    if PY.exists() and stamp[:1] == [digest] and (not with_tests or "test" in stamp):
        return
    if not PY.exists():
        print("creating .venv ...", flush=True)
        venv.EnvBuilder(with_pip=True).create(VENV)
    what = "and its test tools " if with_tests else ""
    print(f"installing mission-impractical {what}into .venv ...", flush=True)
    pip = [str(PY), "-m", "pip", "install", "-qq", "--disable-pip-version-check"]
    subprocess.run([*pip, "--upgrade", "pip"], check=True)
    target = f"{ROOT}[test]" if with_tests else str(ROOT)
    subprocess.run([*pip, "-c", str(CONSTRAINTS), "-e", target], check=True, cwd=ROOT)
    STAMP.write_text(" ".join(wanted))


def run(args: list[str]) -> int:
    """Run ``args`` and pass on its exit code. Ctrl+C reaches the command from the terminal
    (the server shuts down cleanly: it tells its players and closes the journal); this
    wrapper waits for it. ``subprocess.run`` would kill it a quarter of a second later,
    mid-shutdown, and print a traceback of its own."""
    process = subprocess.Popen(args, cwd=ROOT)
    while True:
        try:
            return process.wait()
        except KeyboardInterrupt:
            continue


def main(argv: list[str]) -> int:
    command, rest = (argv[0], argv[1:]) if argv else ("help", [])
    if command in {"help", "-h", "--help"}:
        print(__doc__)
        return 0
    ensure_installed(with_tests=command in OWN - {"serve"})
    if command == "serve" or command not in OWN:
        os.environ.setdefault("MI_DATA_DIR", str(ROOT / "data"))
        return run([str(BIN / "mission-impractical"), command, *rest])
    if command == "test":
        return run([str(PY), "-m", "pytest", "-n", "2", "--dist", "loadgroup", "-q", *rest])
    if command == "fuzz":
        os.environ.setdefault("MI_FUZZ_EXAMPLES", "2000")
        return run([str(PY), "-m", "pytest", "-q", "tests/ssh/test_fuzz.py", *rest])
    if command == "types":
        return run([str(PY), "-m", "mypy", *rest])
    if command == "bench":
        return run([str(PY), "-m", "bench", *rest])
    return run([str(BIN / "ruff"), "check", ".", *rest])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
