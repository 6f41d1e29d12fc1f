"""What a player sees while their terminal is smaller than the game needs."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.geometry import Size
from textual.screen import Screen
from textual.widgets import Static

MIN_WIDTH = 80
MIN_HEIGHT = 24


def too_small(size: Size) -> bool:
    """True when ``size`` cannot show the game."""
    return size.width < MIN_WIDTH or size.height < MIN_HEIGHT


def too_small_text(size: Size) -> str:
    return (f"Terminal too small: make it at least {MIN_WIDTH}x{MIN_HEIGHT} "
            f"(now {size.width}x{size.height})")


class TooSmallScreen(Screen[None]):
    """A centered notice; the app removes it when the terminal grows back."""

    def __init__(self, size: Size) -> None:
        super().__init__()
        self._shown_size = size

    def compose(self) -> ComposeResult:
        yield Static(too_small_text(self._shown_size), id="too-small", markup=False)

    def show_size(self, size: Size) -> None:
        """The terminal was resized but is still too small."""
        self._shown_size = size
        if self.is_mounted:
            self.query_one("#too-small", Static).update(too_small_text(size))
