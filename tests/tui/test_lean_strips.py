"""lean_textual.lean_strips: Textual's strips made leaner without drawing anything differently."""

from __future__ import annotations

import gc

from hypothesis import given
from hypothesis import strategies as st
from rich.segment import Segment
from rich.style import Style
from rich.terminal_theme import MONOKAI
from textual.cache import FIFOCache
from textual.color import Color
from textual.filter import ANSIToTruecolor
from textual.strip import Strip

from lean_textual import lean_strips

STYLES = [None, Style(bold=True), Style(color="red"), Style(bgcolor="blue", italic=True)]
segments = st.lists(st.tuples(st.text("ab日 é", min_size=1, max_size=6),
                              st.sampled_from(STYLES)), max_size=5)


def strip_of(parts: list[tuple[str, Style | None]]) -> Strip:
    return Strip([Segment(text, style) for text, style in parts])


def drawn(strips: Strip | list[Strip] | tuple[Strip, ...]) -> list[list[Segment]]:
    if isinstance(strips, Strip):
        strips = [strips]
    return [list(strip) for strip in strips]


def test_installed_on_the_pinned_textual() -> None:
    lean_strips.install()  # installed already (tests/conftest.py): does nothing
    strip = Strip([Segment("hello")])
    assert isinstance(strip._crop_cache, FIFOCache)


def test_a_strip_holds_no_cache_until_it_uses_one() -> None:
    strip = Strip([Segment("hello", Style(bold=True))])
    assert not [o for o in gc.get_referents(strip) if isinstance(o, FIFOCache)]
    strip.crop(1, 3)
    held = [o for o in gc.get_referents(strip) if isinstance(o, FIFOCache)]
    assert len(held) == 1 and len(held[0]) == 1  # the crop cache, holding that crop
    assert strip.crop(1, 3) is strip.crop(1, 3)  # and it is used


@given(segments, st.lists(st.integers(0, 40), max_size=4))
def test_divide_draws_what_textual_draws(parts: list[tuple[str, Style | None]],
                                         cuts: list[int]) -> None:
    strip = strip_of(parts)
    cuts = [*sorted(cuts), strip.cell_length]
    expected = lean_strips._ORIGINAL_DIVIDE(strip_of(parts), cuts)
    assert drawn(strip.divide(cuts)) == drawn(expected)
    assert drawn(strip.divide(cuts)) == drawn(expected)  # and again, from the cache


@given(segments, st.integers(0, 30), st.integers(0, 30), st.sampled_from(STYLES))
def test_crop_extend_draws_what_textual_draws(parts: list[tuple[str, Style | None]],
                                              start: int, end: int,
                                              style: Style | None) -> None:
    start, end = min(start, end), max(start, end)
    expected = lean_strips._ORIGINAL_CROP_EXTEND(strip_of(parts), start, end, style)
    assert drawn(strip_of(parts).crop_extend(start, end, style)) == drawn(expected)


COLOURED = [None, Style(bold=True), Style(color="#ff8800"), Style(bgcolor="#102030"),
            Style(color="#ff8800", bgcolor="#102030", dim=True), Style(dim=True),
            Style(color="red"), Style(bgcolor="blue"), Style(color="default"),
            Style(color="color(200)", italic=True), Style(color="#ffffff", dim=True)]
coloured = st.lists(st.tuples(st.text("ab日 é", min_size=1, max_size=6),
                              st.sampled_from(COLOURED)), max_size=5)


@given(coloured, st.booleans(), st.sampled_from(["#000000", "#223344"]))
def test_the_ansi_filter_draws_what_textual_draws(parts: list[tuple[str, Style | None]],
                                                  control: bool, background: str) -> None:
    """Textual's filter copies every segment of every line drawn; a line with nothing to
    convert (the game's own colours are all true colours) comes back as it is."""
    truecolor = ANSIToTruecolor(MONOKAI)
    segments = [Segment(text, style) for text, style in parts]
    control = control and bool(segments)
    if control:
        segments.append(Segment("", None, [(1,)]))  # type: ignore[list-item]
    expected = lean_strips._ORIGINAL_APPLY_FILTER(Strip(segments), truecolor,
                                                  Color.parse(background))
    strip = Strip(segments)
    filtered = strip.apply_filter(truecolor, Color.parse(background))
    assert drawn(filtered) == drawn(expected)
    unchanged = drawn(expected) == drawn(strip)
    assert (filtered is strip) is unchanged  # nothing to convert: the strip itself


def test_no_strip_is_left_for_the_cyclic_collector() -> None:
    """A strip divided at its own end, or cropped to its own width, used to hold itself in
    its caches, so only a full garbage collection freed it."""
    gc.collect()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        for _ in range(50):
            strip = Strip([Segment("hello", Style(bold=True)), Segment(" world")])
            strip.divide([strip.cell_length])
            strip.divide([3, strip.cell_length])
            strip.crop_extend(0, strip.cell_length, None)
            strip.crop_extend(2, 20, None)
            strip.crop(1, 4)
            del strip
        gc.collect()
        assert not [o for o in gc.garbage if isinstance(o, Strip)]
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()
