"""Arrows point down: server -> tui -> engine, and tui -> lean_textual -> textual. The engine
knows no terminal or network; the rendering layer knows no game."""

from __future__ import annotations

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
