"""What a client's terminal can show: colour, monochrome, or nothing the game can use.

All sessions share one colour depth for rendering (Rich's caches are process-wide), so a
terminal that cannot show colour, or a player who asks for none (``NO_COLOR``, sent with
OpenSSH's ``SetEnv NO_COLOR=1``), gets the same frames with their colour codes taken out:
bold, underline and reverse video stay, so highlights still show. A ``dumb`` terminal
cannot move its cursor at all, and is told so instead of being sent a game it cannot draw.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

DUMB_TERMINAL = (
    "Your terminal (TERM={term}) cannot draw Mission Impractical. "
    "Connect from a terminal that moves its cursor, e.g. with TERM=xterm-256color."
)
_CANNOT_DRAW = {"dumb", "unknown", "cons25", "emacs"}
_MONOCHROME = ("vt52", "vt100", "vt102", "vt220", "ansi-mono", "xterm-mono")
_SGR = re.compile(r"\x1b\[([0-9;:]*)m")
_COLOUR_CODES = {*range(30, 38), 39, *range(40, 48), 49, *range(90, 98), *range(100, 108)}


def cannot_draw(term_type: str) -> str | None:
    """A one-line reason when ``term_type`` cannot show the game at all, else None."""
    term = term_type.strip().lower()
    if term in _CANNOT_DRAW or not term:
        return DUMB_TERMINAL.format(term=term_type[:30] or "empty")
    return None


def wants_monochrome(term_type: str, environment: Mapping[str, str]) -> bool:
    """No colour: the terminal has none, or the player set ``NO_COLOR``."""
    if environment.get("NO_COLOR", "") != "":
        return True
    return term_type.strip().lower().startswith(_MONOCHROME)


def _without_colour(match: re.Match[str]) -> str:
    params = match.group(1).split(";") if match.group(1) else []
    kept: list[str] = []
    i = 0
    while i < len(params):
        param = params[i]
        head = param.split(":", 1)[0]
        code = int(head) if head.isdigit() else 0
        i += 1
        if code in (38, 48, 58):
            if ":" not in param and i < len(params):  # 38;5;n or 38;2;r;g;b
                i += 2 if params[i] == "5" else 4 if params[i] == "2" else 0
            continue
        if code not in _COLOUR_CODES:
            kept.append(param)
    if params and not kept:
        return ""
    return f"\x1b[{';'.join(kept)}m"


def strip_colour(frame: str) -> str:
    """``frame`` with every colour in its SGR sequences removed (attributes kept)."""
    return _SGR.sub(_without_colour, frame)
