"""Bracketed pastes, capped and made inert before Textual's parser sees them.

Textual's parser keeps everything between ``ESC[200~`` and ``ESC[201~`` in memory and
hands it over as one ``Paste`` event, however long it is and even if the end never comes;
and an ESC inside a paste ends it early, so the rest is typed as keystrokes (a pasted
``ESC c`` would open the chat). :class:`PasteLimiter` collects each paste itself, up to
``max_chars``, drops the rest up to the client's own end marker, and hands the parser the
paste in one piece with escape sequences and control characters (other than tab and line
breaks) removed. A paste left open while the client goes quiet is closed by
:meth:`PasteLimiter.expire`.
"""

from __future__ import annotations

import re
from enum import Enum, auto

from engine.text import strip_escapes

PASTE_START = "\x1b[200~"
PASTE_END = "\x1b[201~"
_TAIL = len(PASTE_START) - 1  # enough characters to find a marker split across chunks
_CONTROLS = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")


class _State(Enum):
    OUTSIDE = auto()
    INSIDE = auto()
    DROPPING = auto()


def _find(tail: str, text: str, marker: str) -> int:
    """Where ``marker`` ends within ``text`` (it may start in ``tail``), or -1."""
    index = (tail + text).find(marker)
    return -1 if index < 0 else index + len(marker) - len(tail)


def inert(pasted: str) -> str:
    """Pasted text with nothing a terminal parser would act on: no escape sequences, no
    control characters but tab and line breaks."""
    return _CONTROLS.sub("", strip_escapes(pasted))


class PasteLimiter:
    """Filters a stream of text so every bracketed paste is whole, inert and at most
    ``max_chars`` long."""

    def __init__(self, max_chars: int) -> None:
        self.max_chars = max_chars
        self.truncated = 0
        """How many pastes were cut short."""
        self._state = _State.OUTSIDE
        self._body: list[str] = []
        self._count = 0
        self._tail = ""

    @property
    def in_paste(self) -> bool:
        """Is a paste open (being collected or dropped)?"""
        return self._state is not _State.OUTSIDE

    def filter(self, text: str) -> str:
        """The part of ``text`` to hand on to the parser (a paste only once it is whole)."""
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
        if state is _State.INSIDE:
            return self._close()
        self._body, self._count = [], 0
        return ""

    def _close(self, cut: bool = False) -> str:
        """The collected paste, inert and at most ``max_chars`` long, and its end marker."""
        pasted = "".join(self._body)
        self._body, self._count = [], 0
        if cut or len(pasted) > self.max_chars:
            pasted = pasted[: self.max_chars]
            self.truncated += 1
        return inert(pasted) + PASTE_END

    def _remember(self, text: str) -> None:
        self._tail = (self._tail + text)[-_TAIL:]

    def _outside(self, text: str, out: list[str]) -> str:
        end = _find(self._tail, text, PASTE_START)
        if end < 0:
            out.append(text)
            self._remember(text)
            return ""
        out.append(text[:end])  # the start marker goes on: the parser now waits for the rest
        self._state, self._body, self._count, self._tail = _State.INSIDE, [], 0, ""
        return text[end:]

    def _inside(self, text: str, out: list[str]) -> str:
        end = _find(self._tail, text, PASTE_END)
        if end >= 0:
            self._keep(text[: max(0, end - len(PASTE_END))])
            self._drop_split_marker(end)
            out.append(self._close())
            self._state, self._tail = _State.OUTSIDE, ""
            return text[end:]
        room = self.max_chars - self._count
        self._keep(text[: max(0, room)])
        self._remember(text)
        if len(text) > room:  # over the cap: close it here, drop the rest up to its end
            out.append(self._close(cut=True))
            self._state = _State.DROPPING
        return ""

    def _keep(self, text: str) -> None:
        self._body.append(text)
        self._count += len(text)

    def _drop_split_marker(self, end: int) -> None:
        """An end marker that began in the previous chunk left its start in the body."""
        if end < len(PASTE_END):
            started = len(PASTE_END) - end
            body = "".join(self._body)
            self._body = [body[:-started]]
            self._count = len(self._body[0])

    def _dropping(self, text: str) -> str:
        end = _find(self._tail, text, PASTE_END)
        if end < 0:
            self._remember(text)
            return ""
        self._state, self._tail = _State.OUTSIDE, ""
        return text[end:]
