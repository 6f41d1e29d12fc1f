"""Leaner Textual strips: caches made on first use, and no strip that holds itself.

Every line Textual draws is a :class:`textual.strip.Strip`, and every strip carries seven
small caches (crops, divisions, styles...). Made eagerly, that is 14 objects and about a
kilobyte per strip before anything is cached, and most strips never use any of them: in a
seated player's app, about 700 strips were alive, two thirds of them only pieces cached
inside other strips. Each of those objects is one the garbage collector walks: measured at
20 tables of four, the strips' empty caches were a third of the young generation, and a
young collection paused every player for 7-44 ms. Here a strip's cache slots hold ``None``
until a cache is first used (:class:`_CacheOnFirstUse` stands in for each slot on the
class), so an unused cache costs nothing at all.

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

from collections.abc import Iterable, Sequence
from typing import Any

import textual.strip as strip_module
from rich.style import Style
from textual.cache import FIFOCache
from textual.strip import Strip

_installed = False
_ORIGINAL_DIVIDE = Strip.divide
_ORIGINAL_CROP_EXTEND = Strip.crop_extend
CACHES = ("_divide_cache", "_crop_cache", "_style_cache", "_filter_cache",
          "_line_length_cache", "_crop_extend_cache", "_offsets_cache")
"""The slots of a strip that each hold a :class:`FIFOCache`."""


class _CacheOnFirstUse:
    """Stands on the ``Strip`` class in place of one cache slot: the slot holds ``None``
    until the strip first reads it, and then a new :class:`FIFOCache` of ``maxsize``."""

    __slots__ = ("_maxsize", "_slot")

    def __init__(self, slot: Any, maxsize: int) -> None:
        self._slot = slot  # the slot's own descriptor, which reads and writes the strip
        self._maxsize = maxsize

    def __get__(self, strip: Strip | None, owner: type | None = None) -> Any:
        if strip is None:
            return self
        cache = self._slot.__get__(strip, owner)
        if cache is None:
            cache = FIFOCache(self._maxsize)
            self._slot.__set__(strip, cache)
        return cache

    def __set__(self, strip: Strip, value: Any) -> None:
        self._slot.__set__(strip, value)


def _no_cache_yet(_maxsize: int) -> None:
    """What ``Strip.__init__`` now puts in each cache slot."""
    return None


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
    caches = [getattr(probe, name, None) for name in CACHES]
    slots = [Strip.__dict__.get(name) for name in CACHES]
    if (strip_module.FIFOCache is not FIFOCache
            or not all(isinstance(cache, FIFOCache) for cache in caches)
            or not all(hasattr(slot, "__set__") for slot in slots)):
        return False
    for name, slot, cache in zip(CACHES, slots, caches, strict=True):
        setattr(Strip, name, _CacheOnFirstUse(slot, cache._maxsize))
    strip_module.FIFOCache = _no_cache_yet  # type: ignore[misc,assignment]
    Strip.divide = _divide  # type: ignore[method-assign]
    Strip.crop_extend = _crop_extend  # type: ignore[method-assign]
    _installed = True
    return True
