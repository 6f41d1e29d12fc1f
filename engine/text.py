"""Player-typed text (names, plans, chat) made safe to store and show.

Everything a player types passes through :func:`clean_text` before it reaches the game
state, the journal or another player's screen: control characters and terminal escape
sequences are removed, white space is folded, and the length is capped. The result is plain
text; the TUI still renders it without markup.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from typing import Any

NAME_MAX = 16
PLAN_MAX = 160
CHAT_MAX = 200

# CSI / OSC / DCS and other ESC-introduced sequences, then any lone C0/C1 control.
_ESCAPES = re.compile(
    r"""
    \x1b\[[0-?]*[ -/]*[@-~]?          # CSI ... final byte
  | \x1b\][^\x07\x1b]*(?:\x07|\x1b\\)? # OSC ... BEL or ST
  | \x1b[PX^_][^\x1b]*(?:\x1b\\)?      # DCS, SOS, PM, APC ... ST
  | \x1b[ -/]*[0-~]?                   # two-character escapes
  | \x9b[0-?]*[ -/]*[@-~]?             # 8-bit CSI
    """,
    re.VERBOSE,
)


def plural(count: int, one: str, many: str | None = None) -> str:
    """``"1 round"``, ``"2 rounds"``: a count with its noun in the right number."""
    return f"{count} {one if count == 1 else (many or one + 's')}"


def join_names(names: Sequence[str]) -> str:
    """``Ann``, ``Ann and Bob``, ``Ann, Bob and Cy``."""
    if len(names) <= 1:
        return "".join(names)
    return f"{', '.join(names[:-1])} and {names[-1]}"


def _printable(ch: str) -> bool:
    category = unicodedata.category(ch)
    # Cc control, Cf format (bidi overrides, zero-width), Cs surrogates, Co private, Cn unassigned
    return not category.startswith("C") and category not in ("Zl", "Zp")


def strip_escapes(raw: str) -> str:
    """``raw`` without terminal escape sequences (whole, or cut off at its end)."""
    return _ESCAPES.sub("", raw)


def clean_text(raw: str, max_len: int) -> str:
    """Return ``raw`` as one line of printable text of at most ``max_len`` characters."""
    text = strip_escapes(raw)
    text = "".join(ch if _printable(ch) else " " for ch in text)
    text = " ".join(text.split())
    return text[:max_len].rstrip()


def inert(raw: str) -> str:
    """``raw`` with no escape sequence and no control, format (bidi, zero-width) or other
    invisible character left (line breaks and tabs become spaces); nothing else changes."""
    return "".join(
        ch if _printable(ch) else " " for ch in strip_escapes(raw)
        if _printable(ch) or ch.isspace()
    )


def inert_payload(payload: Any) -> Any:
    """Every string in a command's payload (dicts and lists within) made :func:`inert`."""
    if isinstance(payload, str):
        return inert(payload)
    if isinstance(payload, dict):
        return {key: inert_payload(value) for key, value in payload.items()}
    if isinstance(payload, list | tuple):
        return type(payload)(inert_payload(value) for value in payload)
    return payload


def clean_name(raw: str) -> str:
    """A display name: printable, one line, at most :data:`NAME_MAX` characters."""
    return clean_text(raw, NAME_MAX)
