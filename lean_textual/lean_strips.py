"""Leaner Textual strips: caches made on first use, and no strip that holds itself.

Every line Textual draws is a :class:`textual.strip.Strip`, and every strip carries seven
small caches (crops, divisions, styles...). Made eagerly, that is 14 objects and about a
kilobyte per strip before anything is cached, and most strips never use any of them: in a
seated player's app, about 700 strips were alive, two thirds of them only pieces cached
inside other strips. Each of those objects is one the garbage collector walks, while every
player waits. Here a strip's cache slots stay empty
until a cache is first used (:func:`lean_textual.internals.make_strip_caches_lazy`), so an
unused cache costs nothing at all, not even the calls that would set it to nothing.

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

from rich.style import Style
from textual.color import Color
from textual.filter import ANSIToTruecolor, LineFilter
from textual.strip import Strip

from lean_textual.internals import make_strip_caches_lazy

_installed = False
_ORIGINAL_DIVIDE = Strip.divide
_ORIGINAL_CROP_EXTEND = Strip.crop_extend
_ORIGINAL_APPLY_FILTER = Strip.apply_filter


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
    a handful of lines have nothing to convert."""
    if type(filter) is ANSIToTruecolor:  # exactly: a subclass may convert more
        for _text, style, control in self:  # its segments
            if control is not None or (style is not None and not _true_colour(style)):
                break
        else:  # nothing to convert: the strip itself, never cached
            return self
    return _ORIGINAL_APPLY_FILTER(self, filter, background)


def install() -> None:
    """Patch Textual's strips (once); raises when Textual's ``Strip`` is not as expected.

    Works around ``Strip.__init__`` making seven caches per strip, a strip that caches
    itself (a reference cycle) and a filter that copies every line; retire each with the
    matching change in Textual's ``strip.py`` (lazy caches, no self in a cache, a filter
    that returns a line it would not change)."""
    global _installed
    if _installed:
        return
    make_strip_caches_lazy()
    # mypy: a patch of Textual's class is an assignment to a method
    Strip.divide = _divide  # type: ignore[method-assign]
    Strip.crop_extend = _crop_extend  # type: ignore[method-assign]
    Strip.apply_filter = _apply_filter  # type: ignore[method-assign]
    _installed = True
