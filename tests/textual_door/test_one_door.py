"""Only the door names Textual's internals, and it names exactly what it lists; with any
other Textual it refuses to start, in one line."""

from __future__ import annotations

import ast
import subprocess
import sys

from tests.textual_door.private_names import (
    ROOT,
    every_textual_private_name,
    is_private,
    private_names_in,
    project_modules,
)
from tests.textual_door.test_contract import DOOR, PRIVATE_NAMES


def test_no_module_but_the_door_names_a_private_textual_name() -> None:
    found = [f"{path.relative_to(ROOT)}:{line}: {what}"
             for path in project_modules(DOOR) for line, what in private_names_in(path)]
    assert not found, ("only lean_textual/internals.py may name Textual's internals:\n"
                       + "\n".join(found))


def test_the_door_lists_every_private_name_it_names() -> None:
    every = every_textual_private_name()
    named: set[str] = set()
    for node in ast.walk(ast.parse(DOOR.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Attribute) and node.attr in every:
            named.add(node.attr)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and (
                node.value in every):
            named.add(node.value)
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("textual"):
            named.update(part for part in (node.module or "").split(".") if is_private(part))
    listed = {name for _where, name, _parameters in PRIVATE_NAMES}
    assert named - listed == set(), "named in the door but not in PRIVATE_NAMES"
    assert listed - named == set(), "in PRIVATE_NAMES but no longer named by the door"


def test_another_textual_is_refused_in_one_line_naming_the_one_needed() -> None:
    code = ("import importlib.metadata as m; real = m.version\n"
            "m.version = lambda name: '8.2.0' if name == 'textual' else real(name)\n"
            "import lean_textual.internals")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [
        "Mission Impractical needs Textual 8.2.8 exactly (installed: 8.2.0); reinstall it: "
        "pip install textual==8.2.8"]
