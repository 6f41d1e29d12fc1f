"""A tiny stand-in for the real app, to test GameScreen alone.

Hub callbacks post messages (``HubChanged`` coalesces), and on every change the screen gets
``session.view()`` through ``show``: the path the real app takes when a change is told
inside some app's call. Its hub has no journal, so every change is told that way; the real
app's other path, painting in the journal report's turn (``MissionApp._show_in_this_turn``),
is tested with :class:`tui.app.MissionApp` itself (``tests/tui/test_screen_costs.py``).
"""

from __future__ import annotations

import contextlib
import io
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from typing import Any

from rich.console import Console
from textual.app import App
from textual.pilot import Pilot

from engine.cards import load_deck
from engine.hub import Hub
from engine.identity import Player
from engine.rules import Action
from engine.session import Session
from engine.tables import TableOptions
from tui.game_screen import GameScreen
from tui.messages import HubChanged, HubNotice

NAMES = ("Ann", "Bob", "Cy", "Dee", "Eve")


class GameHost(App[None]):
    """One seat's app: a GameScreen fed by the hub."""

    def __init__(self, session: Session) -> None:
        super().__init__()
        self.session = session
        self.shows = 0
        session.on_change = self._changed
        session.on_notice = lambda text: self.post_message(HubNotice(text))

    def _changed(self) -> None:
        self.post_message(HubChanged())

    def on_mount(self) -> None:
        self.push_screen(GameScreen(self.session))

    def on_hub_changed(self, _message: HubChanged) -> None:
        screen = self.screen
        if isinstance(screen, GameScreen):
            self.shows += 1
            screen.show(self.session.view())

    def on_hub_notice(self, message: HubNotice) -> None:
        self.notify(message.text, markup=False)

    @property
    def game_screen(self) -> GameScreen:
        screen = self.screen
        assert isinstance(screen, GameScreen), screen
        return screen


@dataclass
class Table:
    """A hub with a started game and one session per seat."""

    hub: Hub
    sessions: list[Session]
    code: str

    def state(self) -> Any:
        return self.hub.tables[self.code].state

    @property
    def lead(self) -> int:
        return self.state().lead

    def seat_session(self, seat: int) -> Session:
        return next(s for s in self.sessions if s.seat == seat)

    def guessers(self) -> tuple[int, ...]:
        return self.state().guessers

    def submit(self, action: Action) -> None:
        self.hub.submit(self.hub.tables[self.code], action)


class IdleBot:
    """A bot that never moves (the real ones live in engine.bots)."""

    def act(self, view: Any, now_ms: int) -> None:
        return None


def make_table(players: int = 3, options: TableOptions | None = None,
               names: Sequence[str] = NAMES, seed: str = "test",
               spectators: int = 0, bots: int = 0) -> Table:
    """``players`` seated humans (Ann hosts), ``bots`` idle bots, a started game, and
    ``spectators`` watching."""
    hub = Hub(deck=load_deck(), seed=seed, settle_ms=0, bot_delay=0.0,
              bot_factory=lambda _seed: IdleBot())
    sessions = [hub.attach(Player(id=f"key:{name}", name=name)) for name in names[:players]]
    code = sessions[0].create_table(options or TableOptions(turn_seconds=0))
    for session in sessions[1:]:
        session.join(code)
    for _ in range(bots):
        sessions[0].add_bot()
    sessions[0].start()
    for k in range(spectators):
        watcher = hub.attach(Player(id=f"key:watcher{k}", name=f"Watcher{k}"))
        watcher.join(code, spectate=True)
        sessions.append(watcher)
    return Table(hub, sessions, code)


def screen_text(app: App[Any]) -> str:
    """The screen as plain text, as the player's terminal would show it."""
    width, height = app.size
    console = Console(width=width, height=height, file=io.StringIO(), force_terminal=True,
                      color_system="truecolor", record=True, legacy_windows=False)
    console.print(app.screen._compositor.render_update(
        full=True, screen_stack=app._background_screens))
    return console.export_text()


@contextlib.asynccontextmanager
async def running(apps: Sequence[GameHost], size: tuple[int, int] = (80, 24)
                  ) -> AsyncIterator[list[Pilot[None]]]:
    """Run several seats' apps at once on this loop, as the server does."""
    async with contextlib.AsyncExitStack() as stack:
        pilots = [await stack.enter_async_context(app.run_test(size=size)) for app in apps]
        await settle(pilots)
        yield pilots


def screen_cells(app: App[Any]) -> list[tuple[str, object]]:
    """The screen as (text, style) segments: two screens that look alike compare equal."""
    update = app.screen._compositor.render_update(full=True,
                                                  screen_stack=app._background_screens)
    return [(segment.text, segment.style) for line in update.strips for strip in line
            for segment in strip]


async def settle(pilots: Sequence[Pilot[None]]) -> None:
    """Let every app handle what the hub told it. Waiting for idle is process-wide, so one
    real pause serves all apps; the quick rounds flush each app's own screen."""
    for pilot in pilots:
        await pilot.pause(0)
    await pilots[0].pause()
    for pilot in pilots:
        await pilot.pause(0)


def notices(app: App[Any]) -> list[str]:
    """The texts of the notifications the app is showing."""
    return [n.message for n in app._notifications]
