"""Bracketed pastes reach the parser whole and inert when short, cut and closed when endless."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from server.paste import PASTE_END, PASTE_START, PasteLimiter

CAP = 50
plain = st.text(alphabet=st.characters(blacklist_characters="\x1b"), max_size=200)
pastable = st.text(
    alphabet=st.characters(blacklist_categories=("Cc", "Cs"), whitelist_characters="\n\t"),
    max_size=CAP,
)


def _feed(limiter: PasteLimiter, chunks: list[str]) -> str:
    return "".join(limiter.filter(chunk) for chunk in chunks)


def _split(text: str, cuts: list[int]) -> list[str]:
    points = sorted({min(cut, len(text)) for cut in cuts})
    return [text[a:b] for a, b in zip([0, *points], [*points, len(text)], strict=True)]


@given(plain, st.lists(st.integers(0, 200), max_size=5))
def test_text_without_pastes_passes_unchanged(text: str, cuts: list[int]) -> None:
    assert _feed(PasteLimiter(CAP), _split(text, cuts)) == text


@given(pastable, plain, st.lists(st.integers(0, 300), max_size=6))
def test_a_paste_of_text_within_the_cap_passes_unchanged(
    pasted: str, after: str, cuts: list[int]
) -> None:
    stream = f"a{PASTE_START}{pasted}{PASTE_END}{after}"
    assert _feed(PasteLimiter(CAP), _split(stream, cuts)) == stream


@given(st.integers(CAP + 1, 500), plain, st.lists(st.integers(0, 700), max_size=6))
def test_a_long_paste_is_cut_at_the_cap_and_what_follows_survives(
    length: int, after: str, cuts: list[int]
) -> None:
    stream = f"{PASTE_START}{'x' * length}{PASTE_END}{after}"
    limiter = PasteLimiter(CAP)
    out = _feed(limiter, _split(stream, cuts))
    assert out == f"{PASTE_START}{'x' * CAP}{PASTE_END}{after}"
    assert limiter.truncated == 1


@given(st.text(max_size=400), st.lists(st.integers(0, 500), max_size=6))
def test_no_paste_ever_exceeds_the_cap(junk: str, cuts: list[int]) -> None:
    stream = PASTE_START + junk
    out = _feed(PasteLimiter(CAP), _split(stream, cuts))
    for body in re.findall(re.escape(PASTE_START) + "(.*?)(?:" + re.escape(PASTE_END) + "|$)",
                           out, flags=re.S):
        assert len(body) <= CAP


def test_an_open_paste_is_closed_when_the_client_goes_quiet() -> None:
    limiter = PasteLimiter(CAP)
    assert limiter.filter(PASTE_START + "half") == PASTE_START
    assert limiter.expire() == "half" + PASTE_END
    assert limiter.filter("typed") == "typed"


def test_a_cut_never_leaves_half_an_escape_sequence() -> None:
    limiter = PasteLimiter(10)
    out = limiter.filter(PASTE_START + "abcdefg\x1b[1;" + "z" * 20)
    assert out == PASTE_START + "abcdefg" + PASTE_END


@given(st.lists(st.integers(0, 60), max_size=6))
def test_escape_sequences_and_controls_in_a_paste_are_dropped_not_typed(cuts: list[int]) -> None:
    stream = PASTE_START + "hi\x1bc there\x1b[31mred\x07\x1b]52;c;eA==\x07!" + PASTE_END + "k"
    out = _feed(PasteLimiter(CAP), _split(stream, cuts))
    assert out == PASTE_START + "hi therered!" + PASTE_END + "k"
