"""A cap on bracketed pastes, applied to decoded input before Textual's parser sees it.

Textual's parser keeps everything between ``ESC[200~`` and ``ESC[201~`` in memory and
hands it over as one ``Paste`` event, however long it is and even if the end never comes.
:class:`PasteLimiter` passes a paste through until ``max_chars``, then closes it itself
and drops the rest up to the client's own end marker. A paste left open while the client
goes quiet is closed by :meth:`PasteLimiter.expire`.
"""

from __future__ import annotations

from enum import Enum, auto

PASTE_START = "\x1b[200~"
PASTE_END = "\x1b[201~"
_TAIL = len(PASTE_START) - 1  # enough characters to find a marker split across chunks
_ESCAPE_SEARCH = 32  # Textual gives up on an escape sequence after this many characters


class _State(Enum):
    OUTSIDE = auto()
    INSIDE = auto()
    DROPPING = auto()


def _find(tail: str, text: str, marker: str) -> int:
    """Where ``marker`` ends within ``text`` (it may start in ``tail``), or -1."""
    index = (tail + text).find(marker)
    return -1 if index < 0 else index + len(marker) - len(tail)


def _cut_clean(text: str) -> str:
    """``text`` without a trailing, possibly unfinished escape sequence."""
    escape = text.rfind("\x1b", max(0, len(text) - _ESCAPE_SEARCH))
    return text if escape < 0 else text[:escape]


class PasteLimiter:
    """Filters a stream of text so no bracketed paste is longer than ``max_chars``."""

    def __init__(self, max_chars: int) -> None:
        self.max_chars = max_chars
        self.truncated = 0
        """How many pastes were cut short."""
        self._state = _State.OUTSIDE
        self._count = 0
        self._tail = ""

    @property
    def in_paste(self) -> bool:
        """Is a paste open (passing or being dropped)?"""
        return self._state is not _State.OUTSIDE

    def filter(self, text: str) -> str:
        """The part of ``text`` to hand on to the parser."""
        out: list[str] = []
        while text:
            if self._state is _State.OUTSIDE:
                text = self._outside(text, out)
            elif self._state is _State.INSIDE:
                text = self._inside(text, out)
            else:
                text = self._dropping(text)
        return "".join(out)

    def expire(self) -> str:
        """The client went quiet: close any open paste; returns text for the parser."""
        state, self._state, self._tail = self._state, _State.OUTSIDE, ""
        return PASTE_END if state is _State.INSIDE else ""

    def _remember(self, text: str) -> None:
        self._tail = (self._tail + text)[-_TAIL:]

    def _outside(self, text: str, out: list[str]) -> str:
        end = _find(self._tail, text, PASTE_START)
        if end < 0:
            out.append(text)
            self._remember(text)
            return ""
        out.append(text[:end])
        self._state, self._count, self._tail = _State.INSIDE, 0, ""
        return text[end:]

    def _inside(self, text: str, out: list[str]) -> str:
        room = self.max_chars - self._count
        end = _find(self._tail, text, PASTE_END)
        if 0 <= end <= room + len(PASTE_END):
            out.append(text[:end])
            self._state, self._tail = _State.OUTSIDE, ""
            return text[end:]
        if len(text) <= room:
            out.append(text)
            self._count += len(text)
            self._remember(text)
            return ""
        out.append(_cut_clean(text[:room]))
        out.append(PASTE_END)
        self.truncated += 1
        self._state, self._tail = _State.DROPPING, ""
        return text[room:]

    def _dropping(self, text: str) -> str:
        end = _find(self._tail, text, PASTE_END)
        if end < 0:
            self._remember(text)
            return ""
        self._state, self._tail = _State.OUTSIDE, ""
        return text[end:]
