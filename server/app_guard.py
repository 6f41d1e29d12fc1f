"""Running an app written for one terminal as one of many apps in the server's process.

A Textual app assumes it owns the process. Here it does not, so before it runs:

- its driver is the session's :class:`~server.driver.SSHDriver`;
- ``print`` capture is turned off: every running app swaps ``sys.stdout``/``sys.stderr``
  for its own and puts back what it found, which with many apps starting and stopping at
  different times leaves the process writing into a finished app;
- suspend (Ctrl+Z would stop the whole server) and saving screenshots (it would act on
  the server machine) do nothing; opening a URL is refused by the session's driver;
- its exit message (``app.exit(message=...)``) and crash report are kept for the session to
  show the player, instead of being printed on the server's stderr;
- Textual's own help panel (the "Keys" command) is never mounted on a closing app: junk
  typed while an app closed raised "Can't mount widget(s) before Screen is mounted" and
  crashed it;
- its notifications are bounded, and a toast that ends goes whole (see
  :func:`bound_notices`): otherwise a flood of refused chat lines grows one app for as
  long as it runs (``docs/security.md``).

These are instance attributes set once per app: the app's own code is not changed, and the
tui needs to know nothing about them.
"""

from __future__ import annotations

import asyncio
import io
import logging
import sys
from collections.abc import Callable
from functools import partial
from typing import Any

from rich.console import Console, RenderableType
from textual import constants
from textual.app import App, ScreenStackError
from textual.css.query import NoMatches
from textual.filter import ANSIToTruecolor
from textual.notifications import Notification, Notifications

from lean_textual import dropped, patches
from lean_textual import internals as door
from lean_textual.internals import ToastHolder, ToastRack
from server.driver import SSHDriver
from server.limits import SessionLimits
from server.terminal import SessionTerminal

log = logging.getLogger(__name__)

TaskFactory = Any  # what loop.get_task_factory() returns


def configure_process(color_system: str = "truecolor") -> None:
    """Once per process, before any app is built: Textual's rendering made lean for many
    apps (:func:`lean_textual.patches.install`), and one colour depth for every session.

    Rich's render caches are shared by every app in the process, so all sessions use the
    same depth. An explicit ``TEXTUAL_COLOR_SYSTEM`` in the server's environment wins.
    """
    patches.install()
    door.note_widgets_of_apps()
    if constants.COLOR_SYSTEM in (None, "auto"):
        constants.COLOR_SYSTEM = color_system  # type: ignore[misc]


class ExitNotes:
    """What an app had to say as it closed: its exit message or its crash report."""

    def __init__(self) -> None:
        self.renderables: list[RenderableType] = []

    def collect(self, renderables: list[RenderableType]) -> None:
        """Take the app's exit renderables (instead of Textual printing them)."""
        self.renderables.extend(renderables)

    def as_text(self, width: int) -> str:
        """The exit message as terminal text, ``width`` columns wide."""
        if not self.renderables:
            return ""
        buffer = io.StringIO()
        console = Console(
            file=buffer,
            width=max(20, min(width, 120)),
            force_terminal=True,
            color_system="truecolor",
            markup=False,
            highlight=False,
            emoji=False,
            legacy_windows=False,
        )
        for renderable in self.renderables:
            console.print(renderable)
        return buffer.getvalue()


def _ignore(*_args: object, **_kwargs: object) -> None:
    return None


def _refuse_screenshot(*_args: object, **_kwargs: object) -> None:
    log.info("app asked to save a screenshot on the server; refused")
    return None


def _guard_help_panel(app: App[Any]) -> None:
    """Textual's ``show_help_panel`` mounts a panel on the current screen; once the app is
    closing (``exit``, a kick, the player's Ctrl+Q) no screen takes a mount any more, and
    ``mount`` raises. A help panel asked for then is not shown."""
    show = app.action_show_help_panel

    def show_unless_closing() -> None:
        try:
            open_screen = app.screen.is_attached  # False once the app is closing
        except ScreenStackError:
            open_screen = False
        if open_screen:
            show()

    app.action_show_help_panel = show_unless_closing  # type: ignore[method-assign]


class ShownNotices(Notifications):
    """An app's notifications, bounded: a notice with the same text as one still showing
    is not shown again, and at most ``most`` show at once (a new one pushes out the
    oldest)."""

    def __init__(self, most: int) -> None:
        super().__init__()
        self.most = most

    def add(self, notification: Notification) -> ShownNotices:
        showing = door.showing(self)
        said = (notification.message, notification.title)
        if any((shown.message, shown.title) == said for shown in showing.values()):
            return self
        while showing and len(showing) >= self.most:
            del showing[next(iter(showing))]  # the oldest: dicts keep their order
        showing[notification.identity] = notification
        return self


def bound_notices(app: App[Any], most: int) -> None:
    """Bound the toasts on ``app``'s screen and drop each one whole when it ends.

    Every notification is a widget on the player's screen (a toast in a holder), laid out
    and drawn with the screen. A player whose chat lines are refused twenty times a second
    piled up a hundred of them, and more: when Textual's toast rack drops a toast whose
    notice ran out before the toast's own timer fired (any busy moment), it removes the
    toast and leaves its holder in the rack for as long as the app runs. Here the notices
    are bounded (:class:`ShownNotices`), and whenever the toasts are brought up to date,
    the holder of every notice no longer showing is removed first.
    """
    door.replace_notifications(app, ShownNotices(most))
    door.wrap_notification_refresh(app, partial(_without_stale_holders, app))


def _without_stale_holders(app: App[Any], refresh: Callable[[], None]) -> Callable[[], None]:
    """``refresh`` (Textual's refresh of ``app``'s toasts), the stale holders removed first."""

    def refresh_without_stale_holders() -> None:
        try:
            rack = app.screen.get_child_by_type(ToastRack)
        except (ScreenStackError, NoMatches):
            pass
        else:
            showing = {door.toast_id(notice) for notice in door.notifications_of(app)}
            for holder in rack.children:
                if (isinstance(holder, ToastHolder) and holder.id not in showing
                        and not door.being_removed(holder)):
                    holder.remove()
        refresh()

    return refresh_without_stale_holders


def guard_app(app: App[Any], terminal: SessionTerminal,
              max_notices: int = SessionLimits.max_notices) -> ExitNotes:
    """Prepare ``app`` to run on ``terminal`` inside the shared server process, with at
    most ``max_notices`` notifications showing at once."""
    app.driver_class = partial(SSHDriver, terminal=terminal)  # type: ignore[assignment]
    # redirect_stdout(x) with x the stream already in place is a no-op, so apps starting
    # and stopping in any order always put back the same streams.
    door.keep_process_streams(app, sys.stdout, sys.stderr)
    app.action_suspend_process = _ignore  # type: ignore[method-assign]
    # URLs: the session's driver refuses them (SSHDriver.open_url); the app may say so.
    app.save_screenshot = _refuse_screenshot  # type: ignore[method-assign]
    app.deliver_screenshot = _refuse_screenshot  # type: ignore[method-assign]
    _guard_help_panel(app)
    bound_notices(app, max_notices)
    notes = ExitNotes()
    door.on_exit_renderables(app, notes.collect)
    return notes


def free_app(app: App[Any]) -> None:
    """After ``app`` has ended: break its reference cycles, so that its memory is freed
    now, by reference counts, rather than by a full collection that would pause every
    player. Its widgets' caches are emptied first (their rings of lists unlinked,
    :func:`lean_textual.dropped.release`), then their attributes
    (:func:`lean_textual.internals.dismantle`)."""
    widgets = door.widgets_of(app)
    dropped.release([*widgets, app])  # the app's own query cache holds widgets too
    door.dismantle(widgets)


def release_shared_caches() -> None:
    """After an app has ended: let go of what Textual's process-wide caches hold of it.

    ``StylesCache.get_inner_outer`` is an ``lru_cache`` on a method, so its keys hold up to
    1,024 widgets' style caches (each with its rendered strips) long after their apps have
    gone. Its values are two ``Style`` objects, cheap to make again.
    ``ANSIToTruecolor.truecolor_style`` is another: its keys hold every app's line filter
    (270 after a guest flood, with 540 styles), each made again on the next frame.
    Allocated among the players' objects, such leftovers keep the memory around them from
    going back to the system.
    """
    door.clear_inner_outer_cache()
    ANSIToTruecolor.truecolor_style.cache_clear()


def _restore_task_factory(loop: asyncio.AbstractEventLoop, factory: TaskFactory) -> None:
    loop.set_task_factory(factory)


async def run_app(app: App[Any], task_factory: TaskFactory) -> None:
    """Run ``app`` to its end on the current loop.

    On Python 3.12+ ``App.run_async`` installs an eager task factory on the running loop,
    which every session and asyncssh share. It is put back to the server's own
    ``task_factory`` as soon as the app's first step has run, so the loop behaves the same
    on 3.11 and later, whatever order apps start in.
    """
    loop = asyncio.get_running_loop()
    loop.call_soon(_restore_task_factory, loop, task_factory)
    await app.run_async(mouse=True)


def crash_of(app: App[Any]) -> BaseException | None:
    """The exception that ended ``app``, if it crashed."""
    return door.crash_of(app)
