"""Every ``# type: ignore`` the type checker is told to accept says why, in the packages it
checks (engine/ and lean_textual/: ``dev.py types``): after it on its line, or on the line
above (``# mypy: ...``), which may explain a run of lines that each carry one."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
def _explained(lines: list[str], number: int) -> bool:
    ignore = lines[number].split("# type: ignore", 1)[1]
    if "#" in ignore:
        return True  # said after it
    while number:
        number -= 1
        above = lines[number].strip()
        if above.startswith("# mypy:"):
            return True
        if "# type: ignore" not in above:
            return False
    return False


def test_every_type_ignore_says_why() -> None:
    unexplained = []
    for package in ("engine", "lean_textual"):
        for path in sorted((ROOT / package).rglob("*.py")):
            name = str(path.relative_to(ROOT))
            lines = path.read_text(encoding="utf-8").splitlines()
            for number, line in enumerate(lines):
                if "# type: ignore" in line and not _explained(lines, number):
                    unexplained.append(f"{name}:{number + 1}: {line.strip()}")
    assert not unexplained, "\n".join(unexplained)
