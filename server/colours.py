"""What a client's terminal can show: true colour, 256 colours, 16 colours, none, or
nothing the game can use.

All sessions share one colour depth for rendering (Rich's caches are process-wide): every
app draws in true colour, and each session's frames are brought down to what its terminal
shows, by ``TERM`` (and ``COLORTERM`` if the client sends it): ``*-256color`` gets the
256-colour palette, ``xterm``, ``screen``, ``linux`` and the rest the 16 ANSI colours, and
``*-direct`` (or ``COLORTERM=truecolor``) true colour. A terminal that cannot show colour,
or a player who asks for none (``NO_COLOR``, sent with OpenSSH's ``SetEnv NO_COLOR=1``),
gets the frames with their colour codes taken out: bold, underline and reverse video stay,
so highlights still show. A ``dumb`` terminal cannot move its cursor at all, and is told so
instead of being sent a game it cannot draw.

The 16-colour map is by hue and lightness, not the nearest palette entry (an orange
accent would become red, like the errors): greys go to black, bright black, white and
bright white (a lighter grey background, such as a card on the grey status row, to
white), dark tints (the muted backgrounds) to the plain colour of their hue, light ones
to the bright colour. A foreground that lands on its own background's colour family
(a light green on a green, muted text on the grey status row) becomes black or bright
white, whichever reads on that background.
"""

from __future__ import annotations

import colorsys
import re
from collections.abc import Mapping
from functools import lru_cache

from rich.color import EIGHT_BIT_PALETTE, Color, ColorSystem

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


NO_COLOUR, COLOURS_16, COLOURS_256, TRUE_COLOUR = "none", "16", "256", "truecolor"
_TRUE_COLOUR_TERMS = ("xterm-kitty", "xterm-ghostty", "alacritty", "foot", "wezterm",
                      "contour", "iterm2")


def colour_depth(term_type: str, environment: Mapping[str, str]) -> str:
    """What the client's frames may use: :data:`NO_COLOUR` (no colour codes at all),
    :data:`COLOURS_16` (SGR 30-37, 90-97, 40-47, 100-107 only), :data:`COLOURS_256`
    (also ``38;5;n``) or :data:`TRUE_COLOUR` (also ``38;2;r;g;b``). ``environment``: what
    the client sent of ``NO_COLOR`` and ``COLORTERM``."""
    if environment.get("NO_COLOR", "") != "":
        return NO_COLOUR
    term = term_type.strip().lower()
    if term.startswith(_MONOCHROME):
        return NO_COLOUR
    if (environment.get("COLORTERM", "").lower() in ("truecolor", "24bit")
            or term.endswith("-direct") or term.startswith(_TRUE_COLOUR_TERMS)):
        return TRUE_COLOUR
    if "256" in term:
        return COLOURS_256
    return COLOURS_16


def _without_colour(match: re.Match[str]) -> str:
    return _stripped(match.group(1))


@lru_cache(maxsize=4096)
def _stripped(params_text: str) -> str:
    """One SGR sequence without its colours (a frame repeats few styles: cached)."""
    params = params_text.split(";") if params_text else []
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


def fit_colours(frame: str, depth: str) -> str:
    """``frame`` (drawn in true colour) with the colours ``depth`` cannot show brought
    down to ones it can (:data:`NO_COLOUR`: none at all, attributes kept)."""
    if depth == TRUE_COLOUR:
        return frame
    if depth == NO_COLOUR:
        return strip_colour(frame)
    # Split, not ``_SGR.sub`` with a function: a match object and a call per sequence
    # cost twice as much (a screen update carries about 100 of them; most clients say
    # xterm-256color, so most frames come through here).
    parts = _SGR.split(frame)  # text, parameters, text, ..., text
    for i in range(1, len(parts), 2):
        parts[i] = _fitted(parts[i], depth)
    return "".join(parts)


_PIECES_KEPT = 2048
"""Pieces of frames kept fitted, per depth (:func:`fit_pieces`)."""
_PIECE_MAX = 4096
"""Longer pieces (a whole screen from the compositor, seldom seen twice) are not kept."""
_fitted_pieces: dict[str, dict[str, str]] = {COLOURS_16: {}, COLOURS_256: {}, NO_COLOUR: {}}


def fit_pieces(pieces: list[str], depth: str) -> str:
    """The frame written as ``pieces`` (each whole escape sequences), fitted to ``depth``
    as :func:`fit_colours` fits it, each piece fitted once for every terminal of that
    depth. The seats at a table are sent the same rows: each row's text is one string,
    kept by Textual on the row's strip, so the second seat finds the first's fitted row
    in the cache by the string's identity, its hash already made."""
    if depth == TRUE_COLOUR:
        return "".join(pieces)
    cache = _fitted_pieces[depth]
    fitted: list[str] = []
    for piece in pieces:
        done = cache.get(piece)
        if done is None:
            done = fit_colours(piece, depth)
            if len(piece) <= _PIECE_MAX:
                if len(cache) >= _PIECES_KEPT:
                    cache.clear()
                cache[piece] = done
        fitted.append(done)
    return "".join(fitted)


@lru_cache(maxsize=8192)
def _fitted(params_text: str, depth: str) -> str:
    """One SGR sequence's parameters, fitted to ``depth`` (a frame repeats few styles)."""
    params = params_text.split(";") if params_text else []
    kept: list[str] = []
    fg = bg = None  # 16 colours: palette indexes, written once both are known
    i = 0
    while i < len(params):
        param = params[i]
        i += 1
        head = param.split(":", 1)[0]
        code = int(head) if head.isdigit() else -1
        if code not in (38, 48, 58):
            if depth == COLOURS_16 and code in _COLOUR_CODES and code not in (39, 49):
                index = _index_of_code(code)
                if code < 40 or 90 <= code < 98:
                    fg = index
                else:
                    bg = index
                continue
            kept.append(param)
            continue
        colour: tuple[int, int, int] | int | None = None
        if ":" in param:  # the colon form: not worth fitting, never sent by Rich
            colour = None
        elif i < len(params) and params[i] == "5" and i + 1 < len(params):
            colour = _number(params[i + 1])
            i += 2
        elif i < len(params) and params[i] == "2" and i + 3 < len(params):
            colour = (_number(params[i + 1]), _number(params[i + 2]), _number(params[i + 3]))
            i += 4
        if colour is None or code == 58:
            continue  # underline colours are a nicety: dropped below true colour
        if depth == COLOURS_256:
            number = colour if isinstance(colour, int) else _eight_bit(colour)
            kept.extend((str(code), "5", str(number)))
        else:
            rgb = colour if isinstance(colour, tuple) else _palette_rgb(colour)
            if code == 38:
                fg = _sixteen(rgb)
            else:
                bg = _sixteen(rgb, background=True)
    if depth == COLOURS_16:
        if fg is not None and bg is not None and _clash(fg, bg):
            fg = 0 if bg in _LIGHT else 15
        if fg is not None:
            kept.append(str(30 + fg if fg < 8 else 90 + fg - 8))
        if bg is not None:
            kept.append(str(40 + bg if bg < 8 else 100 + bg - 8))
    if params and not kept:
        return ""
    return f"\x1b[{';'.join(kept)}m"


_LIGHT = {2, 3, 6, 7, 9, 10, 11, 13, 14, 15}  # backgrounds that want black text
_HUES = ((15, 1), (75, 3), (165, 2), (200, 6), (260, 4), (330, 5), (361, 1))  # to 15°: red


def _clash(fg: int, bg: int) -> bool:
    """Would ``fg`` on ``bg`` be hard to read (the same colour, or its bright twin)?
    Bright black on black stays: that is how muted text looks."""
    return fg % 8 == bg % 8 and not (fg == 8 and bg == 0)


def _number(text: str) -> int:
    return min(255, int(text)) if text.isdigit() else 0


def _index_of_code(code: int) -> int:
    if code >= 100:
        return code - 100 + 8
    if code >= 90:
        return code - 90 + 8
    return code % 10


def _palette_rgb(number: int) -> tuple[int, int, int]:
    triplet = EIGHT_BIT_PALETTE[max(0, min(255, number))]
    return triplet.red, triplet.green, triplet.blue


def _eight_bit(rgb: tuple[int, int, int]) -> int:
    number = Color.from_rgb(*rgb).downgrade(ColorSystem.EIGHT_BIT).number
    return 0 if number is None else number


def _sixteen(rgb: tuple[int, int, int], *, background: bool = False) -> int:
    """The ANSI colour (0-15) for ``rgb``, by hue and lightness (see the module's notes).
    A background grey turns white sooner than text does: the status row (a dark grey)
    and a card or tag on it (a lighter one) must not both be bright black."""
    r, g, b = (c / 255 for c in rgb)
    hue, lightness, _ = colorsys.rgb_to_hls(r, g, b)
    chroma = max(rgb) - min(rgb)
    if chroma < 40:  # a grey
        white_from = 0.28 if background else 0.42
        return 0 if lightness < 0.16 else 8 if lightness < white_from else 7 \
            if lightness < 0.78 else 15
    if lightness < 0.1:
        return 0
    degrees = hue * 360
    base = next(index for limit, index in _HUES if degrees < limit)
    return base + 8 if lightness >= 0.5 else base
