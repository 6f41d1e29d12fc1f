"""After the last round: who won, how every round went, and what next."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Static

from engine.rules import MIN_PLAYERS, RoundResult, View
from engine.session import Session
from engine.tables import TableView
from engine.text import join_names, plural
from tui.keybar import KeyBar
from tui.messages import ShowSetup, attempt
from tui.stage import TableStage


def _rematch_possible(view: TableView) -> bool:
    """Enough seats for a game (or the table fills them with bots)."""
    return len(view.seats) >= MIN_PLAYERS or view.options.bots_fill


def verdict(game: View) -> Text:
    """The headline: one winner, a shared victory, or a game ended before its time."""
    if not game.history:
        return Text("The game was ended early, before any round was finished: no winner "
                    "this time.")
    winners = [game.players[s] for s in game.winners()]
    points = plural(max(game.scores), "point")
    early = (game.total_rounds is not None and len(game.history) < game.total_rounds)
    opening = Text(f"The game was ended early after {plural(len(game.history), 'round')}. "
                   if early else "")
    if len(winners) == 1:
        return Text.assemble(opening, (winners[0], "bold"), f" wins with {points}!")
    return Text.assemble(opening, (join_names(winners), "bold"),
                         f" share the victory with {points}!")


def ranking(game: View) -> Text:
    """Standings with shared places: 1. Ann 5 / 1. Bob 5 / 3. Cy 2."""
    order = sorted(range(len(game.players)), key=lambda s: (-game.scores[s], s))
    width = max(len(name) for name in game.players)
    text = Text()
    place = 0
    for n, seat in enumerate(order):
        if n == 0 or game.scores[seat] != game.scores[order[n - 1]]:
            place = n + 1
        if n:
            text.append("\n")
        style = "bold" if place == 1 else ""
        text.append(f"{place}. ", style=style)
        text.append(game.players[seat].ljust(width), style=style)
        text.append(f" {game.scores[seat]:>3}", style=style)
        if seat == game.seat:
            text.append("  you", style="dim")
    return text


def round_story(result: RoundResult, players: Sequence[str]) -> Text:
    """One round in a few lines: lead and mission, items, guesses, the plans, points."""
    text = Text()
    text.append(f"Round {result.round}", style="bold")
    text.append(" · lead ")
    text.append(players[result.lead], style="bold")
    text.append(f" · mission {result.secret}: ")
    text.append(result.task, style="italic")
    text.append("\n  Items: ")
    text.append(" · ".join(result.items))
    text.append("\n  Guesses: ")
    guesses = [s for s, g in enumerate(result.guesses) if g is not None and s != result.lead]
    for n, seat in enumerate(guesses):
        if n:
            text.append(" · ")
        card = result.guesses[seat]
        right = card == result.secret
        text.append(players[seat])
        text.append(f" {card} ")
        text.append("right" if right else "wrong", style="green" if right else "red")
        if seat in result.stop:
            text.append(" (Stop!)", style="bold")
    if not guesses:
        text.append("none")
    if result.best_plan is not None:
        text.append("\n  Best plan: ")
        text.append(players[result.best_plan])
    for seat in (*guesses, result.lead):  # every plan of the round, whole
        plan = result.plans[seat] if seat < len(result.plans) else ""
        if plan:
            text.append(f"\n  {players[seat]}'s plan: ", style="bold")
            text.append(plan, style="italic")
    text.append("\n  Points: ")
    lines = [line for line in result.lines if line.points or "stop" in line.reason]
    for n, line in enumerate(lines):
        if n:
            text.append(" · ")
        text.append(players[line.seat])
        text.append(f" {line.points:+d} {line.reason}" if line.points else f" ±0 {line.reason}")
    if not lines:
        text.append("nobody scored")
    return text


def replay_command(view: TableView) -> str:
    """What follows the server's command to watch this game again: ``replay CODE`` for a
    table's first game, ``replay CODE N`` once it has played more (without the number,
    the line would open whichever game the table finished last: a rematch's, by then)."""
    if view.game_no > 1:
        return f"replay {view.code} {view.game_no}"
    return f"replay {view.code}"


class EndScreen(TableStage):
    """The final ranking and a round-by-round breakdown; rematch or back to the lobby."""

    TITLE = "Game over"
    AUTO_FOCUS = "#rounds"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("r", "rematch", "Rematch"),
        Binding("o", "setup", "Table setup"),
        Binding("l", "leave", "Back to lobby"),
        Binding("escape", "leave", "Back to lobby", show=False),
    ]

    def __init__(self, session: Session, *, invite: str = "ssh -t host") -> None:
        super().__init__(session)
        self.invite = invite  # the command that reaches this server: replays follow it


    def compose(self) -> ComposeResult:
        yield Static("", id="title-bar", markup=False)
        yield Static("", id="verdict")
        with Horizontal(id="end-body"):
            with Vertical(id="ranking-box"):
                yield Static("Final ranking", classes="box-title")
                yield Static("", id="ranking")
            with VerticalScroll(id="rounds"):
                yield Static("Round by round", classes="box-title")
                yield Static("", id="round-list")
        yield Static("", id="end-status", markup=False)
        yield Static("", id="end-replay", markup=False)
        yield KeyBar()

    def on_mount(self) -> None:
        self.ready()

    def update_view(self, old: TableView | None, view: TableView) -> None:
        """Bring the screen up to date with ``view``."""
        game = view.game
        if game is not None and (old is None or old.game != game):
            self.query_one("#title-bar", Static).update(
                f"Mission Impractical  ·  table {view.code}  ·  game over")
            self.query_one("#end-replay", Static).update(  # a line to copy whole
                f"Watch it again: {self.invite} {replay_command(view)}" if game.history
                else "")  # no round scored: no game is kept, nothing to watch
            self.query_one("#verdict", Static).update(verdict(game))
            self.query_one("#ranking", Static).update(ranking(game))
            stories = Text("\n\n").join(round_story(r, game.players) for r in game.history)
            self.query_one("#round-list", Static).update(
                stories if game.history else Text("The game ended before a round was scored."))
        if view.is_host and _rematch_possible(view):
            status = "Press r for a rematch with the same seats, o to change the table first."
        elif view.is_host:
            status = (f"Too few seats left for a rematch ({len(view.seats)} of "
                      f"{MIN_PLAYERS}): press o to add a bot or wait for a friend.")
        else:
            host = next((s.name for s in view.seats if s.is_host), "")
            status = (f"Waiting for the host{f' ({host})' if host else ''} to start a rematch."
                      if view.my_seat is not None else "You watched this game.")
        self.query_one("#end-status", Static).update(status)
        if old is None or (old.is_host, _rematch_possible(old)) != (
                view.is_host, _rematch_possible(view)):
            self.refresh_bindings()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "rematch":  # offered only when it would start a game
            return self.view is None or (self.view.is_host and _rematch_possible(self.view))
        return True

    def action_rematch(self) -> None:
        attempt(self, self.session.start)

    def action_setup(self) -> None:
        self.app.post_message(ShowSetup(True))

    def action_leave(self) -> None:
        attempt(self, self.session.leave)
