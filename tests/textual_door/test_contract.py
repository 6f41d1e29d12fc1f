"""The contract with Textual, read from the one door's own list (``PRIVATE_NAMES`` in
``lean_textual/internals.py``, read as text: nothing of ours is imported). Each private name
the door reaches is checked against the installed Textual, one test per name, so that an
upgrade names each name that moved or changed."""

from __future__ import annotations

import ast
import importlib
import importlib.util
import inspect

import pytest

from tests.textual_door.private_names import ROOT, textual_classes

DOOR = ROOT / "lean_textual" / "internals.py"


def door_list(name: str) -> object:
    """The literal value of the door's module-level ``name``."""
    for node in ast.parse(DOOR.read_text(encoding="utf-8")).body:
        if (isinstance(node, ast.AnnAssign | ast.Assign)
                and any(isinstance(target, ast.Name) and target.id == name for target in
                        (node.targets if isinstance(node, ast.Assign) else [node.target]))):
            assert node.value is not None
            return ast.literal_eval(node.value)
    raise LookupError(name)


PRIVATE_NAMES: list[tuple[str, str, str]] = list(door_list("PRIVATE_NAMES"))  # type: ignore[call-overload]


def _defined_on(cls: type, name: str) -> bool:
    """Whether ``cls`` (or a base) defines ``name``: on the class, or set on instances."""
    if inspect.getattr_static(cls, name, None) is not None:
        return True
    return any(name in textual_classes().get((base.__module__, base.__name__), ())
               for base in cls.__mro__)


@pytest.mark.parametrize(("where", "name", "parameters"), PRIVATE_NAMES,
                         ids=[f"{where}.{name}" for where, name, _ in PRIVATE_NAMES])
def test_textual_still_has(where: str, name: str, parameters: str) -> None:
    if ":" not in where:
        assert importlib.util.find_spec(f"{where}.{name}") is not None, (
            f"Textual has no module {where}.{name} any more")
        return
    module_name, class_name = where.split(":")
    cls = getattr(importlib.import_module(module_name), class_name, None)
    assert isinstance(cls, type), f"Textual has no class {where} any more"
    assert _defined_on(cls, name), f"{class_name}.{name} is gone from Textual"
    if parameters:
        method = inspect.getattr_static(cls, name)
        method = getattr(method, "__func__", method)
        found = "(" + ", ".join(inspect.signature(method).parameters) + ")"
        assert found == parameters, f"{class_name}.{name} now takes {found}, not {parameters}"


def test_the_door_was_written_for_the_installed_textual() -> None:
    from importlib.metadata import version

    wanted = door_list("TEXTUAL_VERSION")
    assert version("textual") == wanted, f"the door was written for Textual {wanted}"
