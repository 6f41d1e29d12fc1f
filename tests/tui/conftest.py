"""Every app in a TUI test draws in true colour, as every app in the server does
(``server.app_guard.configure_process``).

Rich keeps a style's escape codes on the style, made for the colour depth of whichever
console drew it first, and styles are shared by every app in the process. Left to detect
its depth, a test's app draws in 16 colours while the snapshot hosts draw in true colour,
and one test's frames could carry codes of the other depth (a cell drawn in 16 colours,
compared with the same cell drawn again in true colour)."""

from textual import constants

constants.COLOR_SYSTEM = "truecolor"  # type: ignore[misc]
