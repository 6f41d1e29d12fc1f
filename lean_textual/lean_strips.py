"""Leaner Textual strips: caches made on first use, and no strip that holds itself.

Every line Textual draws is a :class:`textual.strip.Strip`, and every strip carries seven
small caches (crops, divisions, styles...). Made eagerly, that is 14 objects and about a
kilobyte per strip before anything is cached, and most strips never use any of them: in a
seated player's app, about 700 strips were alive, two thirds of them only pieces cached
inside other strips. Each of those objects is one the garbage collector walks: measured at
20 tables of four, the strips' empty caches were a third of the young generation, and a
young collection paused every player for 7-44 ms. Here a strip's cache slots stay empty
until a cache is first used (:class:`_CacheOnFirstUse` stands in for each slot on the
class, and :func:`_lean_init` leaves them unset), so an unused cache costs nothing at all,
not even the calls that would set it to nothing.

Two of those caches also made a strip refer to itself: dividing a strip at its own end
returns ``[self]``, and cropping it to its full width returns ``self``, and both results
were cached in the strip. A strip in a reference cycle is freed only by the cyclic garbage
collector, which on a busy server runs a full pass rarely (see ``server/gc_tuning.py``), so
the screens' old lines piled up as garbage. Those two answers are now given without being
cached: they cost nothing to make again.

Every line drawn also passes Textual's ANSI-to-truecolor filter, which copies it segment by
segment even when no colour needs converting; a line with nothing to convert now passes as
it is (:func:`_apply_filter`).

:func:`install` patches Textual's ``Strip`` class once per process, before the first
app starts. It changes no drawing (``tests/tui/test_lean_strips.py`` compares every patched
method with Textual's own), and it refuses to patch a Textual whose ``Strip`` does not look
as expected.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import lru_cache
from typing import Any

from rich.segment import Segment
from rich.style import Style
from textual.cache import FIFOCache
from textual.color import Color
from textual.filter import ANSIToTruecolor, LineFilter
from textual.strip import Strip

_installed = False
_ORIGINAL_DIVIDE = Strip.divide
_ORIGINAL_CROP_EXTEND = Strip.crop_extend
_ORIGINAL_APPLY_FILTER = Strip.apply_filter
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
        try:
            cache = self._slot.__get__(strip, owner)
        except AttributeError:  # never set: a strip made by _lean_init
            cache = None
        if cache is None:
            cache = FIFOCache(self._maxsize)
            self._slot.__set__(strip, cache)
        return cache

    def __set__(self, strip: Strip, value: Any) -> None:
        self._slot.__set__(strip, value)


PLAIN = ("_segments", "_cell_length", "_render_cache", "_link_ids", "_cell_count")
"""The other slots of a strip, which :func:`_lean_init` sets as Textual's ``__init__`` does."""


def _lean_init(self: Strip, segments: Iterable[Segment],
               cell_length: int | None = None) -> None:
    """``Strip.__init__`` without the caches: their slots stay empty until first read.
    Textual's sets seven slots through seven calls per strip, and a screen update makes
    a few hundred strips."""
    self._segments = list(segments)
    self._cell_length = cell_length
    self._render_cache = None
    self._link_ids = None
    self._cell_count = None


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


@lru_cache(maxsize=4096)
def _true_colour(style: Style) -> bool:
    """Whether ``ANSIToTruecolor`` hands ``style`` back as it is: no colour to convert
    (every colour already a triplet) and no dim colour to blend."""
    color, bgcolor = style.color, style.bgcolor
    return ((color is None or (color.triplet is not None and not style.dim))
            and (bgcolor is None or bgcolor.triplet is not None))


def _apply_filter(self: Strip, filter: LineFilter, background: Color) -> Strip:
    """``Strip.apply_filter``, except that a line the ANSI filter would copy unchanged is
    handed back as it is. Textual's filter builds a new segment for every segment of every
    line drawn, and makes a new strip; the game's colours are all true colours, so all but
    a handful of lines (measured: 5 of 6,343 over a bench run) have nothing to convert."""
    if type(filter) is ANSIToTruecolor:  # exactly: a subclass may convert more
        for _text, style, control in self._segments:
            if control is not None or (style is not None and not _true_colour(style)):
                break
        else:  # nothing to convert: the strip itself, never cached
            return self
    return _ORIGINAL_APPLY_FILTER(self, filter, background)


def install() -> bool:
    """Patch Textual's strips (once); False when this Textual is not the one we know."""
    global _installed
    if _installed:
        return True
    probe = Strip([])
    caches = [getattr(probe, name, None) for name in CACHES]
    slots = [Strip.__dict__.get(name) for name in CACHES]
    if (sorted(Strip.__slots__) != sorted(CACHES + PLAIN)
            or not all(isinstance(cache, FIFOCache) for cache in caches)
            or not all(hasattr(slot, "__set__") for slot in slots)):
        return False
    for name, slot, cache in zip(CACHES, slots, caches, strict=True):
        setattr(Strip, name, _CacheOnFirstUse(slot, cache._maxsize))
    Strip.__init__ = _lean_init  # type: ignore[method-assign]
    Strip.divide = _divide  # type: ignore[method-assign]
    Strip.crop_extend = _crop_extend  # type: ignore[method-assign]
    Strip.apply_filter = _apply_filter  # type: ignore[method-assign]
    _installed = True
    return True
