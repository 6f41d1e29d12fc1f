"""The screens that show the session's table: setup, game and results.

The app calls :meth:`TableStage.show` with the session's :class:`~engine.tables.TableView`
on every hub change. A view that arrives before the screen is mounted is held; the subclass
calls :meth:`TableStage.ready` at the end of its ``on_mount``, once its widgets exist, and
from then on every view goes straight to :meth:`TableStage.update_view` with the one shown
before it, so each subclass touches only what changed.
"""

from __future__ import annotations

from textual import events

from engine.session import Session
from engine.tables import TableView
from lean_textual.steady import SteadyScreen


class TableStage(SteadyScreen[None]):
    """Holds views until mounted; passes ``(old, new)`` to :meth:`update_view` after."""

    def __init__(self, session: Session, *, name: str | None = None,
                 id: str | None = None) -> None:
        super().__init__(name=name, id=id)
        self.session = session
        self.view: TableView | None = None  # the view on screen (or held until ready)
        self._ready = False

    def accepts(self, view: TableView) -> bool:
        """Whether this screen shows ``view`` at all (others are ignored)."""
        return True

    def show(self, view: TableView | None) -> None:
        """Bring the screen up to date with ``view``."""
        if view is None or not self.accepts(view):
            return
        old, self.view = self.view, view
        if self._ready:
            self.update_then_paint(lambda: self.update_view(old, view))

    def ready(self, fallback: TableView | None = None) -> None:
        """Widgets exist: show the held view (or ``fallback`` when none came yet)."""
        if not self.children:
            return  # the app closed while this screen was built: it has nothing to show
        self._ready = True
        view, self.view = self.view or fallback, None
        self.show(view)

    def take_key(self, event: events.Key) -> bool:
        """Play ``event`` now, from the app's own turn, if this screen plays it on sight
        (the game's Stop!); False (nothing done) otherwise."""
        return False

    def update_view(self, old: TableView | None, view: TableView) -> None:
        """Repaint what differs between ``old`` (None: nothing shown yet) and ``view``."""
        raise NotImplementedError
