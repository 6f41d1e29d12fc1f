"""Finding the private Textual names a module of ours names, by reading its source.

A private Textual name is a leading-underscore name that Textual defines: a private module
(``textual._compositor``), or an attribute or method of one of its classes
(``Widget._repaint_required``, ``Screen._refresh_layout``). Our own module reaches one when
it imports a private module or name from Textual, reads or sets it on an object (``app
._driver``), names it in a string (``getattr(node, "_compositor")``), or, in a class built
on a Textual class, defines or reaches it on ``self`` (an override, or a collision such as
``TooSmallScreen._size``, which overwrote ``Widget._size``). A leading-underscore
attribute of our own on ``self`` in a class that is not a Textual one is ours.
"""

from __future__ import annotations

import ast
import importlib
from collections.abc import Iterator
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def is_private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _class_names(node: ast.ClassDef) -> set[str]:
    names: set[str] = set()
    for item in node.body:
        if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef):
            names.add(item.name)
        elif isinstance(item, ast.Assign):
            for target in item.targets:
                if isinstance(target, ast.Name):
                    names.add(target.id)
                    if target.id == "__slots__":
                        names.update(c.value for c in ast.walk(item.value)
                                     if isinstance(c, ast.Constant) and isinstance(c.value, str))
        elif isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
            names.add(item.target.id)
    for inner in ast.walk(node):
        if (isinstance(inner, ast.Attribute) and isinstance(inner.ctx, ast.Store)
                and isinstance(inner.value, ast.Name) and inner.value.id in ("self", "cls")):
            names.add(inner.attr)
    return {name for name in names if is_private(name)}


@cache
def textual_classes() -> dict[tuple[str, str], frozenset[str]]:
    """The private names of every class in Textual's source, by (module, class name)."""
    import textual

    package = Path(textual.__file__).parent
    found: dict[tuple[str, str], frozenset[str]] = {}
    for path in package.rglob("*.py"):
        parts = path.relative_to(package.parent).with_suffix("").parts
        module = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                found[(module, node.name)] = frozenset(_class_names(node))
    return found


@cache
def every_textual_private_name() -> frozenset[str]:
    return frozenset().union(*textual_classes().values())


def textual_names_of(cls: type) -> frozenset[str]:
    """The private names of the Textual classes ``cls`` is built on."""
    names: set[str] = set()
    for base in cls.__mro__:
        if base.__module__.split(".")[0] == "textual":
            names |= textual_classes().get((base.__module__, base.__name__), frozenset())
    return frozenset(names)


def _textual_import(node: ast.Import | ast.ImportFrom) -> str | None:
    if isinstance(node, ast.ImportFrom):
        module = node.module or ""
        if module.split(".")[0] != "textual":
            return None
        if any(is_private(part) for part in module.split(".")):
            return module
        private = [alias.name for alias in node.names if is_private(alias.name)]
        return f"{module}.{private[0]}" if private else None
    for alias in node.names:
        parts = alias.name.split(".")
        if parts[0] == "textual" and any(is_private(part) for part in parts):
            return alias.name
    return None


def _on_self(node: ast.Attribute) -> bool:
    value = node.value
    if isinstance(value, ast.Name):
        return value.id in ("self", "cls")
    return (isinstance(value, ast.Call) and isinstance(value.func, ast.Name)
            and value.func.id == "super")


def private_names_in(path: Path) -> Iterator[tuple[int, str]]:
    """``(line, what)`` for each private Textual name the module at ``path`` names."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    module_name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
    every = every_textual_private_name()
    module = None
    own_class: dict[int, frozenset[str] | None] = {}  # per node id: the class's names
    for node in tree.body:
        if not isinstance(node, ast.ClassDef):
            continue
        if module is None:
            module = importlib.import_module(module_name)
        cls = getattr(module, node.name, None)
        names = textual_names_of(cls) if isinstance(cls, type) else frozenset()
        for inner in ast.walk(node):
            own_class[id(inner)] = names
        for item in node.body:
            if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef) and item.name in names:
                yield item.lineno, f"defines {item.name}, a name of its Textual base"
            if isinstance(item, ast.Assign | ast.AnnAssign):
                targets = item.targets if isinstance(item, ast.Assign) else [item.target]
                for target in targets:
                    if isinstance(target, ast.Name) and target.id in names:
                        yield item.lineno, f"defines {target.id}, a name of its Textual base"
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            private = _textual_import(node)
            if private:
                yield node.lineno, f"imports {private}"
        elif isinstance(node, ast.Attribute) and is_private(node.attr):
            if _on_self(node):
                names = own_class.get(id(node))
                if names and node.attr in names:
                    yield node.lineno, f"reaches self.{node.attr}, a name of its Textual base"
            elif node.attr in every:
                yield node.lineno, f"reaches .{node.attr}, a private Textual name"
        elif (isinstance(node, ast.Constant) and isinstance(node.value, str)
              and node.value in every):
            yield node.lineno, f"names {node.value!r}, a private Textual name"


def project_modules(door: Path) -> list[Path]:
    """Every module of the game's packages, except the one door."""
    return sorted(path for package in ("engine", "lean_textual", "tui", "server")
                  for path in (ROOT / package).rglob("*.py") if path != door)
