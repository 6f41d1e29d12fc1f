"""Questions over the screen. :class:`Confirm`: yes or no (the host ending a game, removing
a player, a player leaving a game); it dismisses with the answer (``y``/``n``, Esc or the
buttons). :class:`Choose`: one of a few numbered names (whom the host removes); it
dismisses with the index chosen, or None (Esc).

Both questions are asked by a single key on a board where letters do things, so a word
typed at the board by mistake (a plan, before its field took the focus) can ask one and
answer it: "fly" asks with ``l`` whether to leave the game and answers ``y``. Keys that
reach a question less than :data:`READ_MS` after it was asked (by when they reached the
server, not when the app got to them) were typed before anyone could read it: they answer
nothing."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar, TypeVar

from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Label

from engine.clock import now_ms
from tui.timing import arrival_ms

READ_MS = 500.0
"""How long a question ignores keys after it was asked: too short to read it, long enough
for the rest of a word typed in one go."""


AnswerType = TypeVar("AnswerType")


class Question(ModalScreen[AnswerType]):
    """A question that ignores the keys of a burst that asked it (see the module)."""

    def __init__(self) -> None:
        super().__init__()
        self.asked_ms = now_ms()

    def on_key(self, event: events.Key) -> None:
        # The screen sees a key before any binding does (bindings run once it bubbled up
        # to the app), the focused button's Enter included.
        if arrival_ms(event) - self.asked_ms < READ_MS:
            event.stop()
            event.prevent_default()


class Confirm(Question[bool]):
    """A yes/no question: ``y`` or ``n`` (Esc), or the buttons."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", "Yes"),
        Binding("n,escape", "answer(False)", "No"),
    ]

    def __init__(self, question: str, yes: str) -> None:
        super().__init__()
        self.question = question
        self.yes = yes

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm-box"):
            yield Label(self.question, markup=False)
            with Horizontal(id="confirm-buttons"):
                yield Button(f"{self.yes} (y)", id="yes", variant="error")
                yield Button("No (n)", id="no")

    def action_answer(self, answer: bool) -> None:
        self.dismiss(answer)

    @on(Button.Pressed)
    def pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")


class Choose(Question[int | None]):
    """A question with numbered answers (at most 9): a number picks one, Esc none."""

    BINDINGS: ClassVar[list[BindingType]] = [
        *(Binding(str(k), f"answer({k - 1})", "Choose that one", show=False)
          for k in range(1, 10)),
        Binding("escape,n", "answer(None)", "Cancel"),
    ]

    def __init__(self, question: str, answers: Sequence[str]) -> None:
        super().__init__()
        self.question = question
        self.answers = tuple(answers[:9])

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm-box"):
            yield Label(self.question, markup=False)
            for k, answer in enumerate(self.answers, start=1):
                yield Label(f" {k}  {answer}", markup=False, classes="choice")
            yield Label(" Esc  cancel", markup=False, classes="choice")

    def action_answer(self, index: int | None) -> None:
        if index is None or 0 <= index < len(self.answers):
            self.dismiss(index)
