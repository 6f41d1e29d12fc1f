"""``python -m bench``: run every benchmark in this folder, one after the other.

A benchmark is any ``bench/<name>.py`` with a ``main()``; each is run with its defaults
(``main([])`` if it takes arguments) and its name is printed above its figures.
"""

from __future__ import annotations

import importlib
import inspect
import sys
import time
from pathlib import Path


def benchmarks() -> list[str]:
    """Module names of the benchmarks, in alphabetical order."""
    here = Path(__file__).parent
    return [path.stem for path in sorted(here.glob("*.py")) if not path.stem.startswith("_")]


def run(name: str) -> int:
    """Run one benchmark; returns its exit status (0 when ``main`` returns None)."""
    module = importlib.import_module(f"bench.{name}")
    main = getattr(module, "main", None)
    if not callable(main):
        return 0
    print(f"== bench.{name} ==", flush=True)
    started = time.monotonic()
    result = main([]) if inspect.signature(main).parameters else main()
    print(f"== bench.{name}: {time.monotonic() - started:.0f} s ==\n", flush=True)
    return int(result or 0)


def main() -> int:
    failed = [name for name in benchmarks() if run(name) != 0]
    if failed:
        print("failed: " + ", ".join(failed), file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
