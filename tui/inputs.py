"""One-line text inputs that cost nothing while idle and never move the screen around.

Textual's ``Input`` sets its virtual size on every change of its value, and the virtual
size is a layout reactive: each key typed would re-lay out the whole screen (on the game
screen a layout costs about ten repaints). A one-line input's size never depends on
its text, so :class:`QuietInput` keeps the virtual size as data (horizontal scrolling still
follows the cursor) and only repaints. Its cursor does not blink: a blinking cursor costs
CPU on every idle session. A paste keeps all its lines, joined, and nothing but text.
"""

from __future__ import annotations

from itertools import pairwise
from typing import Any

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.geometry import Region, Size
from textual.message import Message
from textual.reactive import Reactive
from textual.strip import Strip
from textual.widgets import Input
from textual.widgets.input import Selection

from engine.text import clean_text, inert
from lean_textual import internals as door
from lean_textual.internals import InputHooks
from lean_textual.steady import queue_rows
from lean_textual.styles import SharedComponentRichStyles


class QuietInput(SharedComponentRichStyles, InputHooks):
    """A compact one-line Input: no blink, no select-on-focus, no re-layout per key, and
    its cursor's and placeholder's styles shared with every other player's. The app types
    a character into it in the app's own turn (:meth:`take_key`)."""

    virtual_size: Reactive[Size] = Reactive(Size(0, 0), layout=False)

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("compact", True)
        kwargs.setdefault("select_on_focus", False)
        super().__init__(**kwargs)
        self.cursor_blink = False
        if not self.validators:  # Textual sets it on the first key typed: a restyle
            self.add_class("-valid")

    def render_line(self, y: int) -> Strip:
        """Textual's drawing of the field, without the rich console: Textual builds a
        ``Text`` of the value, styles the selection and the cursor, renders it through the
        console, then crops it to the field. That was a sixth of the cost of a key typed
        into the plan. The same runs of text and styles are made here directly (a test
        draws fields of every kind both ways); a placeholder, a suggestion, a password, a
        highlighter or an unprintable character still go Textual's way."""
        value = self.value
        if not value:
            return self._placeholder_line(y)
        if (y != 0 or self.password or self.highlighter is not None
                or (self.suggesting and self.has_focus) or not value.isprintable()):
            return super().render_line(y)
        text, selection, cursor = value, (0, 0), -1
        if self.has_focus:
            if not self.selection.is_empty:
                selection = sorted(self.selection)  # type: ignore[assignment]
            if self.cursor_shown:
                cursor = self.cursor_position
                if self.cursor_at_end:
                    text += " "
        cuts = sorted({0, len(text), *selection, cursor, cursor + 1} - {-1, len(text) + 1})
        segments = []
        for start, end in pairwise(cuts):
            parts = []
            if selection[0] <= start < selection[1]:
                parts.append(self.get_component_rich_style("input--selection"))
            if start == cursor:
                parts.append(self.get_component_rich_style("input--cursor"))
            segments.append(Segment(text[start:end], Style.combine(parts) if parts else None))
        width = self.scrollable_content_region.width + 1
        scroll_x = int(self.scroll_offset.x)
        strip = Strip(segments).crop(scroll_x, scroll_x + width).extend_cell_length(width)
        return strip.apply_style(self.rich_style)

    def _placeholder_line(self, y: int) -> Strip:
        """An empty field: its placeholder (the cursor on its first cell when focused),
        as Textual draws it through the console; none, or one that does not fit, goes
        that way."""
        placeholder = self.placeholder
        width = self.scrollable_content_region.width
        if (y != 0 or not placeholder or cell_len(placeholder) > width
                or not placeholder.isprintable()):
            return super().render_line(y)
        style = self.get_component_rich_style("input--placeholder")
        segments = []
        rest = placeholder
        if self.has_focus and self.cursor_shown:
            first, rest = placeholder[:1], placeholder[1:]
            segments.append(Segment(first, style + self.get_component_rich_style(
                "input--cursor")))
        if rest:
            segments.append(Segment(rest, style))
        return Strip(segments).extend_cell_length(width + 1).apply_style(self.rich_style)

    def can_take(self, event: events.Key) -> bool:
        """Whether :meth:`take_key` may take ``event`` now: while nothing waits in this
        input's queue (the keys of a burst, and a paste, keep their order)."""
        return not self.message_queue_size

    async def take_key(self, event: events.Key) -> None:
        """Take ``event`` now, from the app's own turn, as this input would when the key
        reached its queue. The app calls this so that a key's echo waits in no queue:
        forwarded, a key waits its turn on this input's queue, then the screen's update
        timer draws it."""
        if not self._type_at_end(event):
            await self.key_event(event)

    def can_type_at_end(self, event: events.Key) -> bool:
        """Whether :meth:`_type_at_end` types ``event`` (nothing is done here)."""
        char = event.character
        value = self.value
        if (not value or char is None or len(char) != 1 or not event.is_printable
                or not char.isprintable() or cell_len(char) != 1
                or self.selection != Selection.cursor(len(value))
                or (self.max_length and len(value) >= self.max_length)
                or self.password or self.highlighter is not None or self.suggester is not None
                or self.validators or self.restrict or self.type != "text"
                or self.has_initial_value or not self.cursor_shown or not self.has_focus
                or self.scroll_offset.x or self.styles.auto_dimensions):
            return False
        # Near the right edge the cursor would leave the view: Textual scrolls the field.
        return cell_len(value) + 2 < self.scrollable_content_region.width

    def _type_at_end(self, event: events.Key) -> bool:
        """Type ``event``'s character after the text, the cursor at the end and in view,
        and leave the field as Textual's typing would (its value, selection, virtual size,
        the terminal's cursor, a ``Changed``), repainting the two cells that change: the
        character where the cursor was, and the cursor after it (:meth:`paint_rows`, when
        the screen paints them straight to the terminal). False (nothing done) for
        anything else, which Textual types.

        This is most keys typed into a plan or a chat line. Textual's typing sets the
        value and then the selection, whose watchers repaint the whole field, post the
        change, place the terminal's cursor and scroll the cursor into view (where it
        already is): a quarter of a key's CPU, and every cell of the field sent again."""
        if not self.can_type_at_end(event):
            return False
        self.type_at_end(event)
        return True

    def type_at_end(self, event: events.Key) -> None:
        """:meth:`_type_at_end` for a key :meth:`can_type_at_end` has just accepted."""
        value = self.value
        column = cell_len(value)  # the cursor's cell, where the character goes
        event.stop()
        event.prevent_default()
        value += event.character  # type: ignore[operator]
        self.set_reactive(Input.value, value)
        self.set_reactive(Input.selection, Selection.cursor(len(value)))
        self.set_reactive(QuietInput.virtual_size, Size(column + 2, 1))  # text + cursor
        app = self.app
        if self.screen.selections:
            app.clear_selection()
        app.cursor_position = self.cursor_screen_offset
        self._typed_at = column
        if not queue_rows(self, [0]):
            self.refresh_rows([0])
        self.post_message(self.Changed(self, value, None))

    _typed_at: int | None = None
    """The cell a character was just typed into quietly, until it is painted."""

    def paint_rows(self, rows: list[int], region: Region) -> list[str] | None:
        """What draws the two cells a character typed at the end changed (the field
        shown whole at ``region``, nothing over it): the field's row finished by Textual's
        cache, the two cells cut from it. None for anything else (Textual paints it)."""
        column, self._typed_at = self._typed_at, None
        if column is None or rows != [0]:
            self._typed_at = column
            return None
        styles = self.styles
        top, left = styles.gutter.top, styles.gutter.left
        row = Region(0, top, region.width, 1)
        door.styles_cache_of(self).set_dirty(row)
        strip = self.render_lines(row)[0].crop(left + column, left + column + 2)
        return [f"\x1b[{region.y + top + 1};{region.x + left + column + 1}H"
                + strip.render(self.app.console)]

    def refresh_rows(self, rows: list[int]) -> None:
        """Repaint the cells typed into (the whole field when none are known)."""
        column, self._typed_at = self._typed_at, None
        if column is None:
            self.refresh()
        else:
            self.refresh(Region(column, 0, 2, 1))

    async def key_event(self, event: events.Key) -> None:
        """A character is typed (Textual's own typing). Any other key is played here, as
        the app would play it once it had bubbled up to it: the first binding for it from
        this field up (Backspace, the arrows, Enter are the field's own; Escape and Tab
        the screen's). Textual lets such a key bubble through every container's queue to
        the app (a Backspace cost twice a character over SSH), and a key typed after it
        could overtake it. No container around a text field handles keys itself."""
        await super().key_event(event)
        if not event.is_printable:
            event.stop()
            await door.check_bindings(self.app, event.key)

    def post_message(self, message: Message) -> bool:
        """A ``Changed`` goes straight to the screen, where the handlers of a field's
        changes are (the key bar's count of characters, the lobby's seat code). Textual
        bubbles it from the field's queue through every container's to the screen's and
        then the app's: a wake of the loop at each, for every key typed."""
        if type(message) is Input.Changed and self.is_attached:
            message.stop()  # nothing above the screen handles it
            return self.screen.post_message(message)
        return super().post_message(message)

    def paste_event(self, event: events.Paste) -> None:
        """A paste of several lines keeps them all, joined by spaces (Textual's Input keeps
        only the first); escape sequences and control characters are dropped, runs of
        spaces become one, and a space at either end stays (a word pasted after another).
        A paste longer than the field takes is kept up to its limit, with a note."""
        raw = inert(" ".join(event.text.splitlines()))
        text = clean_text(raw, len(raw) + 1)
        if text:
            text = f"{' ' if raw[0].isspace() else ''}{text}{' ' if raw[-1].isspace() else ''}"
            if self.max_length:  # Textual drops a paste that would pass the limit whole
                start, end = sorted(self.selection)
                room = max(0, self.max_length - len(self.value) + (end - start))
                if len(text) > room:
                    self.notify(f"The paste was cut to fit: {len(text) - room} of its "
                                f"characters left out (at most {self.max_length}).",
                                severity="warning", markup=False)
                    text = text[:room]
            if text and self.selection.is_empty:
                self.insert_text_at_cursor(text)
            elif text:
                self.replace(text, *self.selection)
        event.stop()
        event.prevent_default()
