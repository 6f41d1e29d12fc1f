"""Arrows point down: server -> tui -> engine, and tui -> lean_textual -> textual. The engine
knows no terminal or network; the rendering layer knows no game."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def modules_of(package: str) -> list[str]:
    return [f"{package}.{p.stem}" for p in sorted((ROOT / package).glob("*.py"))
            if p.stem != "__init__"]


def loaded_after_import(modules: list[str]) -> set[str]:
    code = ("import sys\n" + "".join(f"import {m}\n" for m in modules)
            + "print('\\n'.join(sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, check=True).stdout
    return set(out.split())


def test_the_engine_imports_neither_textual_nor_asyncssh() -> None:
    loaded = loaded_after_import(modules_of("engine"))
    assert not {m for m in loaded if m.split(".")[0] in ("textual", "asyncssh", "rich")}
    assert not {m for m in loaded if m.split(".")[0] in ("tui", "server")}


def test_the_tui_does_not_import_the_server_or_asyncssh() -> None:
    modules = modules_of("tui")
    if not modules:
        pytest.skip("no tui modules yet")
    loaded = loaded_after_import(modules)
    assert not {m for m in loaded if m.split(".")[0] in ("asyncssh", "server")}


def test_the_rendering_layer_knows_no_game_and_no_server() -> None:
    loaded = loaded_after_import(modules_of("lean_textual"))
    assert not {m for m in loaded if m.split(".")[0] in ("engine", "tui", "server", "asyncssh")}


def package_modules() -> dict[str, Path]:
    """Every module of the project's own packages (each top-level folder with an
    ``__init__.py``, tests aside), by dotted name."""
    modules = {}
    for init in sorted(ROOT.glob("*/__init__.py")):
        if init.parent.name == "tests":
            continue
        for path in sorted(init.parent.rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            modules[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return modules


def imports_of(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The project modules ``name`` imports anywhere in its source: at the top, inside
    functions, and under ``if TYPE_CHECKING:`` (a cycle a type checker walks is still a
    cycle a reader walks)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return {m for m in found if m in known and m != name}


def test_no_module_imports_itself_back_not_even_for_type_checking() -> None:
    modules = package_modules()
    graph = {name: imports_of(name, path, modules) for name, path in modules.items()}
    cycles = []
    done: set[str] = set()

    def visit(name: str, trail: list[str]) -> None:
        if name in trail:
            cycles.append(" -> ".join([*trail[trail.index(name):], name]))
            return
        if name in done:
            return
        for target in sorted(graph[name]):
            visit(target, [*trail, name])
        done.add(name)

    for name in sorted(graph):
        visit(name, [])
    assert {"engine.hub", "engine.session", "tui.app"} <= graph.keys()
    assert cycles == []


def test_the_ssh_host_imports_neither_the_game_nor_the_hosts_tools() -> None:
    """server/ is a reusable Textual-over-SSH host: the hub, the game's screens and the
    host's tools (server/admin/) are handed to it, never imported by it."""
    loaded = loaded_after_import(modules_of("server"))
    assert not {m for m in loaded if m.split(".")[0] == "tui"}
    assert not {m for m in loaded if m.startswith(("server.admin", "engine.hub"))}
