"""Finished games watched again: the list of past games, and one game step by step.

:class:`PastGamesScreen` lists finished games (the player's first, then the server's,
newest first: :func:`engine.replay.past_games`); Enter opens one. :class:`ReplayScreen`
shows a :class:`~engine.replay.Replay` round by round (left, right, Home, End) and step
by step (up, down, Space). Both are opened over the lobby by the app
(:meth:`tui.app.MissionApp.open_replay`), which reads the replay on a worker thread.

The replay screen is built as the game screen is (``docs/architecture.md``, "Changing the
game screen"): fixed heights, every changing part a line widget fed plain lines from
:mod:`tui.replay_text`, a step's change painted in its turn (``update_then_paint``).
"""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.widgets import Static

from engine.records import GameSummary
from engine.replay import PastGames, Place, Replay
from lean_textual.steady import SteadyScreen
from tui.board import Lines
from tui.keybar import KeyBar
from tui.messages import OpenReplay
from tui.replay_text import (
    game_line,
    grid_lines,
    score_lines,
    story_lines,
    task_lines,
    title,
    where_line,
)
from tui.row_list import RowList


class GameList(RowList):
    """Finished games, one row each, keyed by the game's row in the journal."""

    COLUMNS = (("When", 12), ("Table", 6), ("Rounds", 9), ("Winner", 14), ("Players", 0))

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(self.COLUMNS, zebra=True, id=id, empty=(
            "No finished games yet: finish one and it can be watched again here."))


class PastGamesScreen(SteadyScreen[None]):
    """The finished games to watch again; Enter opens one, Esc goes back to the lobby."""

    TITLE = "Past games"
    AUTO_FOCUS = "#games"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "open", "Watch again"),
        Binding("escape", "back", "Back to the lobby"),
    ]

    def __init__(self, games: PastGames) -> None:
        super().__init__()
        self.games = games
        self._by_key: dict[str, GameSummary] = {}

    def compose(self) -> ComposeResult:
        yield Static("Mission Impractical  ·  past games: watch one again", id="title-bar",
                     markup=False)
        yield GameList(id="games")
        yield KeyBar()

    def on_mount(self) -> None:
        rows = []
        mine = {game.game_id for game in self.games.mine}
        for game in (*self.games.mine, *self.games.others):
            key = str(game.game_id)
            self._by_key[key] = game
            cells = game_line(game)
            role = "strong" if game.game_id in mine else ""
            rows.append((key, tuple((cell, role) if role else cell for cell in cells)
                         if game.moves_kept else tuple((cell, "dim") for cell in cells)))
        games = self.query_one(GameList)
        games.border_title = ("Your games first (bold), then this server's"
                              if mine else "This server's latest games")
        games.border_subtitle = "⏎ watch again · esc back"
        games.set_rows(rows)

    def key_hints(self) -> list[tuple[str, str, str]]:
        """The key bar: Enter is the list's own key, so it is said here."""
        return [("⏎", "watch again", "open"), ("esc", "back to the lobby", "back"),
                ("?", "help", "app.help")]

    @property
    def selected(self) -> GameSummary | None:
        key = self.query_one(GameList).cursor_key
        return None if key is None else self._by_key.get(key)

    @on(RowList.Selected, "#games")
    def action_open(self) -> None:
        game = self.selected
        if game is None:
            return
        if not game.moves_kept:
            self.app.notify(f"Game {game.game_no} of table {game.code} cannot be replayed: "
                            "the host pruned its moves (only its scores are kept).",
                            severity="warning", markup=False)
            return
        self.app.post_message(OpenReplay(game))

    def action_back(self) -> None:
        self.dismiss()


class Story(Lines):
    """The round's log up to the step shown, wrapped to its width by the screen, which
    keeps its newest lines (a plan just revealed) when they do not all fit."""

    def on_resize(self) -> None:
        screen = self.screen
        if isinstance(screen, ReplayScreen) and screen.is_mounted:
            screen.show_story()


class ReplayScreen(SteadyScreen[None]):
    """One finished game, step by step. Nothing here changes but on the player's keys."""

    TITLE = "Replay"
    AUTO_FOCUS = ""
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("down,space", "step(1)", "Next step"),
        Binding("up", "step(-1)", "Step back"),
        Binding("right", "round(1)", "Next round"),
        Binding("left", "round(-1)", "Round back"),
        Binding("home", "home", "First", show=False),
        Binding("end", "end", "Last", show=False),
        Binding("escape", "back", "Back"),
    ]

    def __init__(self, replay: Replay, place: Place | None = None) -> None:
        super().__init__()
        self.replay = replay
        self.place = place or Place()
        self._ready = False

    def compose(self) -> ComposeResult:
        yield Static(title(self.replay), id="title-bar", markup=False)
        yield Lines(id="replay-where")
        with Horizontal(id="replay-top"):
            yield Lines(id="replay-tasks")
            yield Lines(id="replay-scores")
        yield Lines(id="replay-grid")
        yield Story(id="replay-story")
        yield KeyBar()

    def on_mount(self) -> None:
        self._ready = True
        self._show()

    def on_resize(self) -> None:
        if self._ready:
            self._show()

    @property
    def step(self) -> object:
        return self.replay.step_at(self.place)

    def go(self, place: Place) -> None:
        """Show the step at ``place`` (painted in this turn)."""
        if place == self.place:
            return
        self.place = place
        self.update_then_paint(self._show)

    def _show(self) -> None:
        replay, place = self.replay, self.place
        replay_round = replay.rounds[place.round]
        step = replay_round.steps[place.step]
        self.query_one("#replay-where", Lines).lines = (where_line(replay, replay_round,
                                                                    place.step),)
        self.query_one("#replay-tasks", Lines).lines = task_lines(replay_round, step)
        grid = self.query_one("#replay-grid", Lines)
        grid.lines = grid_lines(replay_round, step, grid.content_size.width or 78)
        self.query_one("#replay-scores", Lines).lines = score_lines(replay, replay_round, step)
        self.show_story()

    def show_story(self) -> None:
        story = self.query_one(Story)
        width, height = story.content_size
        lines = story_lines(self.replay.rounds[self.place.round], self.place.step, width)
        story.lines = lines[-height:] if height > 0 else lines

    def action_step(self, direction: int) -> None:
        replay = self.replay
        self.go(replay.forward(self.place) if direction > 0 else replay.back(self.place))

    def action_round(self, direction: int) -> None:
        replay = self.replay
        self.go(replay.next_round(self.place) if direction > 0
                else replay.previous_round(self.place))

    def action_home(self) -> None:
        self.go(Place())

    def action_end(self) -> None:
        self.go(self.replay.end())

    def action_back(self) -> None:
        self.dismiss()
