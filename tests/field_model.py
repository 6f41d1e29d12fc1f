"""What a one-line text field shows after each key, as a player expects: the model that
tests of typing (over SSH, and into the game's fields) compare the real field with."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class FieldModel:
    """What a text field shows after each key, as a player expects."""

    text: str = ""
    cursor: int = 0
    sent: list[str] = field(default_factory=list)

    def apply(self, token: tuple[str, str]) -> None:
        kind, value = token
        if kind in ("char", "paste"):
            self.text = self.text[: self.cursor] + value + self.text[self.cursor :]
            self.cursor += len(value)
        elif value == "backspace" and self.cursor:
            self.text = self.text[: self.cursor - 1] + self.text[self.cursor :]
            self.cursor -= 1
        elif value == "delete":
            self.text = self.text[: self.cursor] + self.text[self.cursor + 1 :]
        elif value == "left":
            self.cursor = max(0, self.cursor - 1)
        elif value == "right":
            self.cursor = min(len(self.text), self.cursor + 1)
        elif value == "home":
            self.cursor = 0
        elif value == "end":
            self.cursor = len(self.text)
        elif value == "enter":
            self.sent.append(self.text)
            self.text, self.cursor = "", 0
