"""The help modal: the game's rules in our own words, and the keys of the screen below."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

_RULES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("The idea", (
        "One agent, the [b]lead agent[/b], is secretly handed one of four missions and hints "
        "at it with nothing but four unlikely items. Everyone else works out which mission "
        "it was.",
    )),
    ("Setup", (
        "Four missions sit on the task bar, numbered 1 to 4, above sixteen items in a 4x4 "
        "grid. Every agent starts with 1 point and guessing cards 1, 2, 3 and 4. A random "
        "agent leads first.",
    )),
    ("A round in six steps", (
        " 1. [b]Assignment[/b]: the lead secretly draws a number from 1 to 4: that mission "
        "is theirs.",
        " 2. [b]Items[/b]: in silence, the lead marks one item in each column, left to right.",
        " 3. [b]Guesses[/b]: every other agent hides the card of the mission they believe in.",
        " 4. [b]Reveal[/b]: starting on the lead's left and going round, each agent shows "
        "their card and tells how they would use the four items. Last, the lead shows the "
        "real mission and how the items were meant to be used.",
        " 5. [b]Points[/b]: a right guess earns 1 point, and the lead earns 1 point per right "
        "guess.",
        " 6. [b]Next[/b]: four new missions, new items where the marked ones were, and the "
        "agent on the lead's left leads the next round.",
    )),
    ("Stop!", (
        "Before the 4th item is marked, one guesser may shout Stop! and hide a guess at once; "
        "the lead waits for them. Right: 1 bonus point. Wrong: they hand back a point, if "
        "they have one. Shouts too close together to tell apart share the stop token (the "
        "host sets that tie window).",
    )),
    ("Best plan (an option)", (
        "After the reveal, the lead names the agent with the best plan, right or wrong: "
        "+1 point.",
    )),
    ("How many rounds", (
        "By player count: 3 agents play 6 rounds and 4 play 8 (everyone leads twice); 5 play "
        "5 (everyone leads once). Our house rule for 6 to 8 agents: everyone leads once. The "
        "host may instead pick a number of rounds, or play on until they end the game.",
    )),
    ("Winning", (
        "Most points wins. Agents tied at the top share the victory.",
    )),
    ("At the table", (
        "[b]Bots fill[/b] (an option): when the host starts with fewer than 3 people, bots "
        "take the empty seats until there are 3 players; off, the host adds bots with b. "
        "A person's seat is only removed after the host says yes. In a game, the round's "
        "points stay up until everyone has pressed Enter (with a turn timer, 30 seconds at "
        "most); the last round's stay until you press Enter for the final results. Once your "
        "guess is hidden (the lead: once the items are down), the plan field is yours: write "
        "your plan while the others reveal, and Enter reveals it on your turn. Esc goes "
        "back to the board and the chat.",
    )),
)

RULES = "\n\n".join(f"[b $accent]{title}[/]\n" + "\n".join(lines) for title, lines in _RULES)
"""The rules in our own words (Textual markup: our text, never a player's)."""



def keys_text(keys: Sequence[tuple[str, str]]) -> Text:
    """One line per key: the key, then what it does (both shown as plain text)."""
    text = Text()
    width = max((len(key) for key, _ in keys), default=0)
    for n, (key, description) in enumerate(keys):
        if n:
            text.append("\n")
        text.append(f" {key.ljust(width)} ", style="bold")
        text.append(f" {description}")
    if not keys:
        text.append("(no keys here)")
    return text


class HelpScreen(ModalScreen[None]):
    """The rules and the keys of the screen it was opened over. Escape closes it."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close help"),
        Binding("q", "close", "Close help", show=False),
    ]

    def __init__(self, keys: Sequence[tuple[str, str]], screen_title: str = "") -> None:
        super().__init__()
        self._keys = tuple(keys)
        self._screen_title = screen_title

    def compose(self) -> ComposeResult:
        with Vertical(id="help-box"):
            yield Static("Help  [dim](escape closes)[/dim]", id="help-title")
            with VerticalScroll(id="help-scroll"):
                title = "Keys here" + (f": {self._screen_title}" if self._screen_title else "")
                yield Static(title, id="help-keys-title", markup=False)
                yield Static(keys_text(self._keys), id="help-keys")
                yield Static("How to play", id="help-rules-title")
                yield Static(RULES, id="help-rules")

    def on_mount(self) -> None:
        self.query_one("#help-scroll").focus()

    def action_close(self) -> None:
        self.dismiss(None)
