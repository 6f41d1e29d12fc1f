"""Screens that lay themselves out once per terminal size.

When an app starts, Textual lays the first screen out when it is shown, then again for
each ``Resize`` that reaches it while it settles (the driver's opening size, the app's,
the screen's own): three more full layouts and full repaints of a screen that has not
changed size. Over SSH each full repaint of the lobby is about 8 KB. A
:class:`SteadyScreen` remembers the size it was last laid out at and lets a resize to that
same size pass without another layout. It also starts with the notifications rack hidden
(Textual shows it until it is first told there is nothing to show, a layout of its own).

A change pushed from the hub is painted in the same turn of the loop (:meth:`paint_now`).
Textual paints a widget's refresh three hops later: the widget's own message queue wakes
to find itself idle, posts an update to the screen, whose queue wakes to start the
screen's update timer, whose task wakes to draw. Each hop waits for every other ready
task on the loop, so on a busy server a pick reached the other seats' terminals tens of
milliseconds after the hub had it, most of it spent queueing (``docs/performance.md``).

While the app holds its output back (a batch: a new app's first screen, or a table's
next screen being built), Textual still draws every layout and repaint of the top screen,
then drops what it drew (``App._display`` sends nothing in a batch), and the lines drawn
are not drawn again unless something asks. A :class:`SteadyScreen` draws nothing while the
app is in a batch; it is drawn whole, once, when the batch ends (the app calls
:meth:`after_batch`). A full layout also answers every layout asked for before it began:
Textual's layout on showing a screen left the request that mounting made standing, and the
screen was laid out a second time for it.

Moving the focus does not repaint the whole screen either. Textual's ``Screen.focused``
repaints every line of the screen when it changes, though the two widgets that lose and
gain the focus repaint themselves (their ``:focus`` styles change): opening and sending a
chat line would repaint the player's whole screen twice.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol, TypeVar, cast

from textual import events
from textual.geometry import Region, Size
from textual.reactive import Reactive
from textual.screen import Screen
from textual.widget import Widget

from lean_textual import internals as door
from lean_textual.internals import ScreenHooks, ToastRack
from lean_textual.partial_paint import shown_whole

ResultType = TypeVar("ResultType")

_held_prompts: list[Widget] | None = None
"""The widgets whose prompts wait while a screen is brought up to date (see the module)."""


class PaintsRows(Protocol):
    """A widget that can draw some of its rows straight to the terminal
    (:class:`~lean_textual.cached_lines.CachedLines`): ``paint_rows`` gives the pieces of terminal
    text that draw them, each whole escape sequences (a row's text is a piece of its own:
    the driver fits each piece to the terminal's colours once for every seat)."""

    def paint_rows(self, rows: list[int], region: Region) -> list[str] | None: ...

    def refresh_rows(self, rows: list[int]) -> None: ...


_row_queue: list[tuple[PaintsRows, list[int]]] | None = None
"""The rows widgets asked to have drawn while a screen is brought up to date, painted
after the update by :meth:`SteadyScreen.paint_now` (None outside such an update)."""


def queue_rows(widget: PaintsRows, rows: list[int]) -> bool:
    """Leave ``rows`` of ``widget`` to the paint that ends the screen update under way;
    False (nothing queued) when no update is under way."""
    queue = _row_queue
    if queue is None:
        return False
    queue.append((widget, rows))
    return True


class PaintedInTurn(Widget):
    """A widget whose refreshes wake nothing while its screen is brought up to date and
    painted in the same turn (:meth:`SteadyScreen.update_then_paint`)."""

    def check_idle(self) -> None:
        held = _held_prompts
        if held is not None:
            held.append(self)
            return
        super().check_idle()


def _leave_to_textual(rows: Sequence[tuple[PaintsRows, list[int]]]) -> None:
    for widget, lines in rows:
        widget.refresh_rows(lines)


class SteadyScreen(ScreenHooks, Screen[ResultType]):
    """A screen that re-lays itself out on a resize only when its size really changed."""

    _laid_out_at: Size | None = None
    _walked: tuple[object, list[Widget]] | None = None
    """The compositor's map of the last layout, and every widget of the screen then
    (:meth:`_widgets`)."""
    focused: Reactive[Widget | None] = Reactive(None, repaint=False)

    def on_mount(self) -> None:
        for rack in self.query_children(ToastRack):
            rack.display = False

    _held_in_batch = False
    _shown = False

    def before_compose(self) -> None:
        # Textual sets the breakpoint classes (HORIZONTAL_BREAKPOINTS) at the first Resize,
        # when every widget is styled: a restyle of the whole screen. Set before any
        # widget exists, they restyle the screen alone, and the Resize finds them set.
        self._set_breakpoints(self.app.size)

    def _set_breakpoints(self, size: Size) -> None:
        """The breakpoint classes for ``size``, as ``Screen._on_resize`` sets them."""
        app = self.app
        horizontal = (app.HORIZONTAL_BREAKPOINTS if self.HORIZONTAL_BREAKPOINTS is None
                      else self.HORIZONTAL_BREAKPOINTS) or []
        vertical = (app.VERTICAL_BREAKPOINTS if self.VERTICAL_BREAKPOINTS is None
                    else self.VERTICAL_BREAKPOINTS) or []
        classes = {name: False for _, name in (*horizontal, *vertical)}
        for name in (*door.breakpoint_classes(self, size.width, horizontal),
                     *door.breakpoint_classes(self, size.height, vertical)):
            classes[name] = True
        if classes:
            self.update_classes(classes, animate=False)

    def on_screen_resume(self, event: events.ScreenResume) -> None:
        # Runs before Textual's handler. The first time the screen is shown, every widget
        # was styled as it was mounted, by the whole stylesheet (the app reads every
        # .tcss at start): Textual's restyle of the whole screen changed nothing (a test
        # compares) and was a tenth of the cost of building the screen.
        if not self._shown:
            self._shown = True
            event.refresh_styles = False

    def lay_out(self, size: Size | None = None, scroll: bool = False) -> None:
        self._laid_out_at = self.outer_size if size is None else size
        super().lay_out(size, scroll)

    def full_layout_starts(self) -> None:
        door.layout_done(self)  # asked again if anything asks during it

    def refresh_compositor(self) -> None:
        app = self.app
        if door.in_batch(app) and self is app.screen and not app.is_inline:
            self._held_in_batch = True  # drawn now, it would be dropped: drawn after
            door.dirty_widgets(self).clear()
            return
        super().refresh_compositor()

    def after_batch(self) -> None:
        """The app's batch has ended: if anything was held back, draw the whole screen now,
        in one frame (laid out first if it needs it). Textual would draw the layout it
        queued during the batch, then repaint the whole screen: two frames."""
        if not self._held_in_batch:
            return
        self._held_in_batch = False
        door.whole_screen_dirty(self)  # drawn whole
        door.repaint_done(self)
        for widget in self.walk_children(Widget):  # their lines are in the whole frame
            door.repaint_done(widget)  # (the key bar reads its keys just before)
        if self.layout_pending:
            self.lay_out(scroll=door.scroll_asked(self))
            door.scroll_done(self)
        else:
            self.refresh_compositor()

    def after_typing(self, field: Widget) -> None:
        """The app has just typed a character into ``field``, in its own turn (before
        the field's ``Changed`` message is handled): update what shows it, so that one
        paint carries it all."""

    def update_then_paint(self, update: Callable[[], object]) -> None:
        """Run ``update`` (which changes what widgets show), then paint what it changed,
        now (:meth:`paint_now`); the prompts line widgets would have posted themselves
        meanwhile are posted only for those that still need anything."""
        global _held_prompts, _row_queue
        held: list[Widget] = []
        rows: list[tuple[PaintsRows, list[int]]] = []
        outer_held, outer_rows = _held_prompts, _row_queue
        _held_prompts, _row_queue = held, rows
        try:
            update()
        finally:
            _row_queue = outer_rows
            try:
                self.paint_now(rows)
            finally:
                _held_prompts = outer_held
                for widget in dict.fromkeys(held):  # once each, in order
                    if door.asks_anything(widget):
                        widget.check_idle()

    def paint_now(self, rows: Sequence[tuple[PaintsRows, list[int]]] = ()) -> bool:
        """Draw the repaints this screen's widgets asked for, now, as the screen's update
        timer would have, and ``rows`` (queued by widgets while the screen was brought up
        to date) straight to the terminal where :meth:`_painted_rows` can; False when
        something needs more than a repaint: a layout, a scroll, a restyle, or the screen
        is not the one shown (then ``rows`` are left to Textual)."""
        app = self.app
        if (not self.is_current or door.in_batch(app) or self.layout_pending
                or door.recompose_asked(self)):
            _leave_to_textual(rows)
            return False
        repaint: list[Widget] = []
        for widget in self._all_widgets():
            if door.asks_more_than_a_repaint(widget):
                _leave_to_textual(rows)
                return False
            if door.repaint_asked(widget):
                repaint.append(widget)
        drawn = self._painted_rows(rows, repaint) if rows else []
        dirty = door.dirty_widgets(self)
        for widget in repaint:
            door.repaint_done(widget)
            if widget.display:
                dirty.add(widget)
        drawn.extend(self._painted_whole())
        if drawn:
            self._write_rows(drawn)
        if dirty or door.repaint_asked(self):
            ScreenHooks.timer_update(self)  # the rest, by the compositor
        if drawn:  # one frame, with what the compositor drew if it drew anything
            door.flush_driver(app)
        return True

    def _all_widgets(self) -> list[Widget]:
        """Every widget of the screen, shown or not, walked once per layout (the
        compositor's map is a new one after each), not on every paint. A widget mounted
        since is not in the list; its
        parent, which is, asks for a layout (so :meth:`paint_now` leaves the paint to
        Textual), and until that layout the compositor has nowhere to draw it anyway."""
        visible = door.compositor_of(self).visible_widgets
        walked = self._walked
        if walked is None or walked[0] is not visible:
            walked = self._walked = (visible, list(self.walk_children(Widget)))
        return walked[1]

    def timer_update(self) -> None:
        """Textual's paint of what its widgets asked for, except that a widget shown whole
        draws its own dirty regions straight to the terminal (:meth:`_painted_whole`);
        the compositor draws the rest, in the same frame."""
        drawn = self._painted_whole()
        if drawn:
            self._write_rows(drawn)
        super().timer_update()
        if drawn:
            door.flush_driver(self.app)

    def _writes_itself(self) -> bool:
        """Whether this screen may write to the terminal without the compositor: it is
        the one shown, not under a dialog (a dialog is composited with the screens it
        covers), and the app draws to a real terminal."""
        app = self.app
        return app.screen is self and door.writes_to_a_terminal(app)

    def _painted_whole(self) -> list[str]:
        """What draws, skipping the compositor, each widget that asked for a repaint and
        is shown whole with nothing over it (its focus moved, its styles changed, a field
        took a Backspace): the regions it asked for, as it draws them. The compositor
        would ask it for the same lines and send them as they are, having first worked
        out, cell by cell, which widget is in front (about 0.7 ms for one widget). Those
        drawn are taken out of the screen's dirty widgets."""
        dirty = door.dirty_widgets(self)
        app = self.app
        if (not dirty or self.layout_pending or door.repaint_asked(self)
                or door.in_batch(app) or not self._writes_itself()):
            return []
        compositor = door.compositor_of(self)
        visible = compositor.visible_widgets
        console = app.console
        drawn: list[str] = []
        for widget in list(dirty):
            geometry = visible.get(widget)
            if (geometry is None or widget is self or not shown_whole(compositor, widget)
                    or (widget.auto_links and widget.hover_style._link_id)):
                continue  # (a link under the mouse: Textual styles it as it draws)
            region = geometry[0]
            whole = Region(0, 0, region.width, region.height)
            for asked in door.repaint_regions(widget):
                crop = whole.intersection(asked)
                if not crop:
                    continue
                left = region.x + crop.x + 1  # the terminal counts from 1
                top = region.y + crop.y + 1
                for row, strip in enumerate(widget.render_lines(crop)):
                    drawn.append(f"\x1b[{top + row};{left}H")
                    drawn.append(strip.render(console))
            dirty.discard(widget)
        return drawn

    def _painted_rows(self, rows: Sequence[tuple[PaintsRows, list[int]]],
                      repaint: list[Widget]) -> list[str]:
        """What draws ``rows`` on the terminal, skipping the compositor: each widget's
        changed rows, each row as the widget finishes it (the seats at a table share
        finished rows, and the terminal text Textual keeps on each). A widget that is not
        shown whole with nothing over it, or cannot paint its rows itself, is refreshed
        and added to ``repaint`` instead."""
        direct = self._writes_itself()
        wanted: dict[PaintsRows, set[int]] = {}
        for widget, lines in rows:
            wanted.setdefault(widget, set()).update(lines)
        compositor = door.compositor_of(self)
        visible = compositor.visible_widgets if direct else {}
        drawn: list[str] = []
        for widget, wanted_rows in wanted.items():
            shown = cast(Widget, widget)  # a widget that paints rows (PaintsRows)
            geometry = visible.get(shown)
            pieces = None
            if geometry is not None and shown_whole(compositor, shown):
                pieces = widget.paint_rows(sorted(wanted_rows), geometry[0])
            if pieces is None:
                widget.refresh_rows(sorted(wanted_rows))
                if shown not in repaint:
                    repaint.append(shown)
            else:
                drawn.extend(pieces)
        return drawn

    def _write_rows(self, drawn: list[str]) -> None:
        """Write ``drawn`` (pieces) as ``App._display`` writes a compositor's update: in
        a synchronized update, the cursor put back where the app has it (the caller
        flushes, once the compositor has written what it draws). Each piece is written
        on its own, for the driver to fit it to the terminal's colours by itself."""
        app = self.app
        door.write_in_update(app, drawn, self.outer_size.clamp_offset(app.cursor_position))

    def resized(self, size: Size) -> None:
        if size == self._laid_out_at:
            return
        super().resized(size)
