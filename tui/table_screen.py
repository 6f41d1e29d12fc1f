"""A table before its game (and between games): seats, options, and the start."""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import Static

from engine.commands import BOT_LEVELS
from engine.rules import MIN_PLAYERS, ROUNDS_BY_PLAYERS
from engine.session import Session
from engine.tables import TableOptions, TableView
from engine.text import plural
from tui.board import Lines
from tui.confirm import Confirm
from tui.keybar import Hint, KeyBar, binding_hints
from tui.messages import ShowSetup, attempt
from tui.options_form import OptionsForm
from tui.row_list import Cell, RowList
from tui.stage import TableStage

# A 3x5 pixel font drawn with half blocks, two columns per pixel: codes read from afar.
_GLYPHS = {
    "A": (".#.", "#.#", "###", "#.#", "#.#"), "B": ("##.", "#.#", "##.", "#.#", "##."),
    "C": (".##", "#..", "#..", "#..", ".##"), "D": ("##.", "#.#", "#.#", "#.#", "##."),
    "E": ("###", "#..", "##.", "#..", "###"), "F": ("###", "#..", "##.", "#..", "#.."),
    "G": (".##", "#..", "#.#", "#.#", ".##"), "H": ("#.#", "#.#", "###", "#.#", "#.#"),
    "J": ("..#", "..#", "..#", "#.#", ".#."), "K": ("#.#", "#.#", "##.", "#.#", "#.#"),
    "L": ("#..", "#..", "#..", "#..", "###"), "M": ("#.#", "###", "###", "#.#", "#.#"),
    "N": ("##.", "#.#", "#.#", "#.#", "#.#"), "P": ("##.", "#.#", "##.", "#..", "#.."),
    "Q": (".#.", "#.#", "#.#", "##.", ".##"), "R": ("##.", "#.#", "##.", "#.#", "#.#"),
    "S": (".##", "#..", ".#.", "..#", "##."), "T": ("###", ".#.", ".#.", ".#.", ".#."),
    "U": ("#.#", "#.#", "#.#", "#.#", "###"), "V": ("#.#", "#.#", "#.#", "#.#", ".#."),
    "W": ("#.#", "#.#", "###", "###", "#.#"), "X": ("#.#", "#.#", ".#.", "#.#", "#.#"),
    "Y": ("#.#", "#.#", ".#.", ".#.", ".#."), "Z": ("###", "..#", ".#.", "#..", "###"),
}
_HALF = {("#", "#"): "█", ("#", "."): "▀", (".", "#"): "▄", (".", "."): " "}
_BLANK = ("...",) * 5


def big_code(code: str) -> str:
    """``code`` in letters three lines high (unknown characters come out blank)."""
    lines = []
    for row in range(3):
        cells = []
        for ch in code.upper():
            glyph = (*_GLYPHS.get(ch, _BLANK), "...")
            top, bottom = glyph[2 * row], glyph[2 * row + 1]
            cells.append("".join(_HALF[a, b] * 2 for a, b in zip(top, bottom, strict=True)))
        lines.append("  ".join(cells))
    return "\n".join(lines)


def game_length(options: TableOptions, seated: int) -> str:
    """The game that starting now would be, in words ("a game of 8 rounds for 4 agents")."""
    if options.rounds == 0:
        return "an endless game (the host ends it)"
    if options.rounds is not None:
        return f"a game of {plural(options.rounds, 'round')}"
    if seated < MIN_PLAYERS:
        return "a game (its rounds set by how many agents sit)"
    total = ROUNDS_BY_PLAYERS.get(seated, seated)
    return f"a game of {plural(total, 'round')} for {seated} agents"


def _binding_state(view: TableView) -> tuple[object, ...]:
    """What the screen's keys depend on (the footer is redrawn only when it changes)."""
    return (view.is_host, view.my_seat is None, view.status, len(view.seats),
            view.options.bots_fill, view.options.max_seats, any(s.is_bot for s in view.seats))


class SeatList(RowList):
    """The seats, in play order; empty seats show as such."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "screen.start", "Start game", show=False),
    ]

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__((("#", 2), ("Agent", 16), ("", 0)), header=False, id=id)


class TableScreen(TableStage):
    """Seats and options of the player's table while no game runs. The host runs it."""

    TITLE = "Table"
    AUTO_FOCUS = "#seats"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("g", "start", "Start game"),
        Binding("b", "add_bot", "Add bot"),
        Binding("d", "bot_level", "Bot level"),
        Binding("x", "remove_seat", "Remove"),
        Binding("s", "sit", "Take a seat"),
        Binding("escape", "back", "Leave table"),
        Binding("escape", "results", "Results"),  # short: the bar fits 80 columns
        Binding("q", "leave", "Leave table", show=False),
    ]

    def __init__(self, session: Session, *, invite: str = "ssh -t host") -> None:
        super().__init__(session)
        self.invite = invite

    # -- layout ----------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield Static("", id="title-bar", markup=False)
        with Horizontal(id="table-body"):
            with Vertical(id="table-left"):
                yield Static("", id="big-code", markup=False)
                yield Static("", id="invite", markup=False)
                yield SeatList(id="seats")
                yield Lines(id="watchers")
                yield Static("", id="seat-code", markup=False)
            with Vertical(id="table-right"):
                yield OptionsForm(id="options")
        yield Lines(id="table-status")
        yield KeyBar()

    def on_mount(self) -> None:
        self.ready()

    # -- attributes down ------------------------------------------------------------------

    def update_view(self, old: TableView | None, view: TableView) -> None:
        """Bring the screen up to date with ``view`` (only what changed is touched)."""
        if old is None or (old.code, old.status) != (view.code, view.status):
            self.query_one("#big-code", Static).update(big_code(view.code))
            self.query_one("#invite", Static).update(
                f"Friends join with:\n{self.invite} {view.code}")  # a line to copy whole
            where = "between games" if view.status == "finished" else "waiting for agents"
            self.query_one("#title-bar", Static).update(
                f"Mission Impractical  ·  table {view.code}  ·  {where}")
        if old is None or (old.seats, old.options.max_seats) != (view.seats,
                                                                   view.options.max_seats):
            self._show_seats(view)
        if old is None or old.spectators != view.spectators:
            watchers = {0: "No one is watching", 1: "1 spectator is watching"}
            text = watchers.get(view.spectators, f"{view.spectators} spectators are watching")
            self.query_one("#watchers", Lines).lines = (((text, ""),),)
        if old is None or old.seat_code != view.seat_code:
            code_line = self.query_one("#seat-code", Static)
            code_line.display = bool(self.session.player.is_guest and view.seat_code)
            if view.seat_code:
                code_line.update(f"Seat code {view.seat_code}: use it to come back to "
                                 "this seat")
        self._sync_form(view)
        self._show_status(view)
        if old is None or _binding_state(old) != _binding_state(view):
            self.refresh_bindings()

    def _show_seats(self, view: TableView) -> None:
        rows: list[tuple[str, tuple[Cell, ...]]] = []
        for i, seat in enumerate(view.seats):
            marks = []
            if seat.is_host:
                marks.append("host")
            if seat.is_bot:  # "normal bot": "bot, normal" was cut in the list's column
                marks.append(f"{seat.level} bot")
            if not seat.connected:
                marks.append("away")
            if i == view.my_seat:
                marks.append("you")
            name: Cell = (seat.name, "strong") if i == view.my_seat else seat.name
            rows.append((f"seat-{i}", (str(i + 1), name, (", ".join(marks), "dim"))))
        for i in range(len(view.seats), max(view.options.max_seats, len(view.seats))):
            rows.append((f"empty-{i}", (str(i + 1), ("(empty)", "dim"), "")))
        self.query_one(SeatList).set_rows(rows)

    def _show_status(self, view: TableView) -> None:
        seated = len(view.seats)
        enough = seated >= MIN_PLAYERS or view.options.bots_fill
        if view.my_seat is None:
            text = ("You are watching: press s to take a seat" if
                    seated < view.options.max_seats else "You are watching: the table is full")
        elif view.is_host:
            length = game_length(view.options, max(seated, MIN_PLAYERS)
                                 if view.options.bots_fill else seated)
            text = (f"Ready: press g to start {length}" if enough else
                    f"{seated} of {MIN_PLAYERS} agents: invite friends or press b for a bot")
        else:
            host = next((s.name for s in view.seats if s.is_host), "the host")
            text = f"Waiting for {host} to start {game_length(view.options, seated)}"
        self.query_one("#table-status", Lines).lines = (((text, ""),),)

    def _sync_form(self, view: TableView) -> None:
        """Show the table's options in the form (read only unless the player hosts)."""
        self.query_one(OptionsForm).show_options(view.options, locked=not view.is_host)

    # -- options up ------------------------------------------------------------------------

    @on(OptionsForm.Changed)
    def _options_changed(self, message: OptionsForm.Changed) -> None:
        view = self.view
        if view is None or not view.is_host or message.options == view.options:
            return
        if not attempt(self, self.session.set_options, message.options):
            self._sync_form(view)  # refused: the form shows the table's options again

    # -- actions ---------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        view = self.view
        if view is None:
            return True
        if action in ("start", "add_bot", "remove_seat", "bot_level"):
            if not view.is_host:
                return False
            if action == "bot_level":
                return any(s.is_bot for s in view.seats) or None
            if action == "start":
                return len(view.seats) >= MIN_PLAYERS or view.options.bots_fill or None
            if action == "add_bot":
                return len(view.seats) < view.options.max_seats or None
            if action == "remove_seat":  # someone besides the host to remove
                return any(i != view.my_seat for i in range(len(view.seats))) or None
        if action == "sit":
            return view.my_seat is None and (len(view.seats) < view.options.max_seats
                                             or None)
        if action == "results":
            return view.status == "finished"
        if action == "back":
            return view.status != "finished"
        return True

    def action_start(self) -> None:
        attempt(self, self.session.start)

    def action_add_bot(self) -> None:
        attempt(self, self.session.add_bot)

    def action_bot_level(self) -> None:
        """The bot at the cursor plays the next level: easy, normal, sharp, easy..."""
        view = self.view
        row = self.query_one(SeatList).cursor_row
        if view is None:
            return
        if not 0 <= row < len(view.seats) or not view.seats[row].is_bot:
            self.app.notify("move to a bot's seat to change its level", severity="warning")
            return
        level = view.seats[row].level
        after = BOT_LEVELS[(BOT_LEVELS.index(level) + 1) % len(BOT_LEVELS)]
        attempt(self, self.session.set_bot_level, row, after)

    def action_remove_seat(self) -> None:
        seats = self.query_one(SeatList)
        view = self.view
        if view is None or not seats.row_count:
            return
        row = seats.cursor_row
        if row >= len(view.seats):
            self.app.notify("that seat is empty already", severity="warning")
            return
        seat = view.seats[row]
        if seat.is_bot or row == view.my_seat:  # a bot goes at once; your own seat is refused
            attempt(self, self.session.remove_seat, row)
            return
        def answered(answer: bool | None) -> None:
            if answer:
                attempt(self, self.session.remove_seat, row)

        self.app.push_screen(Confirm(f"Give {seat.name}'s seat away? They stay at the table "
                                     "as a watcher (and may sit again while a seat is free).",
                                     "Yes, free the seat"), answered)

    def action_sit(self) -> None:
        if self.view is not None:
            attempt(self, self.session.join, self.view.code)

    def action_results(self) -> None:
        self.app.post_message(ShowSetup(False))

    def key_hints(self) -> list[Hint]:
        """The bindings' keys; Esc says where it goes from the options form."""
        hints = binding_hints(self)
        if isinstance(self.focused, OptionsForm):
            hints = [(key, "Back to the seats" if action == "back" else label, action)
                     for key, label, action in hints]
        return hints

    def action_back(self) -> None:
        """Esc: out of the options form first, then out of the table. (A host who had
        typed a timer and pressed Esc to be done with the field left the table, handing
        it to someone else.)"""
        if isinstance(self.focused, OptionsForm):
            self.set_focus(self.query_one(SeatList))
            return
        self.action_leave()

    def action_leave(self) -> None:
        attempt(self, self.session.leave)
