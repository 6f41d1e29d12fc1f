"""Leaner Textual strips: caches made on first use, and no strip that holds itself.

Every line Textual draws is a :class:`textual.strip.Strip`, and every strip carries seven
small caches (crops, divisions, styles...). Made eagerly, that is 14 objects and about a
kilobyte per strip before anything is cached, and most strips never use any of them: in a
seated player's app, about 700 strips were alive, two thirds of them only pieces cached
inside other strips. Made on first use, an unused cache is one small object.

Two of those caches also made a strip refer to itself: dividing a strip at its own end
returns ``[self]``, and cropping it to its full width returns ``self``, and both results
were cached in the strip. A strip in a reference cycle is freed only by the cyclic garbage
collector, which on a busy server runs a full pass rarely (see ``server/gc_tuning.py``), so
the screens' old lines piled up as garbage. Those two answers are now given without being
cached: they cost nothing to make again.

:func:`install` patches the ``textual.strip`` module once per process, before the first
app starts. It changes no drawing (``tests/tui/test_lean_strips.py`` compares every patched
method with Textual's own), and it refuses to patch a Textual whose ``Strip`` does not look
as expected.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from typing import Any

import textual.strip as strip_module
from rich.style import Style
from textual.strip import Strip

_installed = False
_ORIGINAL_DIVIDE = Strip.divide
_ORIGINAL_CROP_EXTEND = Strip.crop_extend


class LazyFIFOCache:
    """What :class:`textual.cache.FIFOCache` does for a strip (``get`` and setting a key,
    oldest key out first when full), with the dictionary made on the first store."""

    __slots__ = ("_items", "_maxsize")

    def __init__(self, maxsize: int) -> None:
        self._maxsize = maxsize
        self._items: dict[Hashable, Any] | None = None

    def get(self, key: Hashable, default: Any = None) -> Any:
        items = self._items
        return default if items is None else items.get(key, default)

    def __setitem__(self, key: Hashable, value: Any) -> None:
        items = self._items
        if items is None:
            self._items = {key: value}
            return
        if key not in items and len(items) >= self._maxsize:
            del items[next(iter(items))]
        items[key] = value

    set = __setitem__

    def __getitem__(self, key: Hashable) -> Any:
        if self._items is None:
            raise KeyError(key)
        return self._items[key]

    def __contains__(self, key: Hashable) -> bool:
        return self._items is not None and key in self._items

    def __len__(self) -> int:
        return 0 if self._items is None else len(self._items)

    def __bool__(self) -> bool:
        return bool(self._items)

    def keys(self) -> Iterable[Hashable]:
        return () if self._items is None else self._items.keys()

    def clear(self) -> None:
        self._items = None


def _divide(self: Strip, cuts: Iterable[int]) -> Sequence[Strip]:
    cell_length = self.cell_length
    kept = [cut for cut in cuts if cut <= cell_length]
    if kept == [cell_length]:  # one piece, the strip itself: never cached
        return [self]
    return _ORIGINAL_DIVIDE(self, kept)


def _crop_extend(self: Strip, start: int, end: int, style: Style | None) -> Strip:
    if start == 0 and end == self.cell_length:  # the strip itself: never cached
        return self
    return _ORIGINAL_CROP_EXTEND(self, start, end, style)


def install() -> bool:
    """Patch Textual's strips (once); False when this Textual is not the one we know."""
    global _installed
    if _installed:
        return True
    probe = Strip([])
    expected = ("_divide_cache", "_crop_cache", "_crop_extend_cache", "_offsets_cache")
    if not all(hasattr(probe, name) for name in expected) or not hasattr(
            strip_module, "FIFOCache"):
        return False
    strip_module.FIFOCache = LazyFIFOCache  # type: ignore[misc,assignment]
    Strip.divide = _divide  # type: ignore[method-assign]
    Strip.crop_extend = _crop_extend  # type: ignore[method-assign]
    _installed = True
    return True
