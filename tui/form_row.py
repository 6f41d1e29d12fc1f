"""A row of text fields, each after its label, the labels drawn by the row itself.

The lobby's rows ("Your agent name [....]", "Table code [....]  Seat code [....]") hold
text fields with a label before each. A ``Label`` per label would be a widget for every new
player, with its own compose, mount, styles, layout and drawing (a good share of a new
lobby's cost). A :class:`FormRow` is the container and the labels at once:
its own line of text lies under its fields, each label ending one cell before its field.
The stylesheet leaves each field a left margin as wide as its label and that cell; the row
reads where its fields were laid out, so the labels follow the stylesheet, not the other
way round.
"""

from __future__ import annotations

from typing import ClassVar

from rich.cells import cell_len
from textual.app import ComposeResult
from textual.content import Content
from textual.widget import Widget

from lean_textual.cached_lines import CachedLines


class FormRow(CachedLines):
    """Fields laid out left to right, each with its label drawn just before it."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {"form-row--label"}
    DEFAULT_CSS = """
    FormRow { layout: horizontal; height: 1; }
    FormRow > .form-row--label { color: $text-muted; }
    """

    def __init__(self, *fields: tuple[str, Widget], id: str | None = None,
                 classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._fields = fields

    def compose(self) -> ComposeResult:
        for _label, field in self._fields:
            yield field

    @property
    def labels(self) -> list[str]:
        return [label for label, _field in self._fields]

    def on_resize(self) -> None:
        """Laid out (again): put each label where its field now starts."""
        self.show_contents([self._label_line()])

    def _label_line(self) -> Content:
        style = self.component_style("form-row--label")
        left = self.content_region.x
        parts: list[str | tuple[str, object]] = []
        x = 0
        for label, field in self._fields:
            start = field.region.x - left - cell_len(label) - 1
            if not field.display or start < x:
                continue  # hidden, or no room left for its label: the field alone
            parts += [" " * (start - x), (label, style)]
            x = start + cell_len(label)
        return Content.assemble(*parts)  # type: ignore[arg-type]
