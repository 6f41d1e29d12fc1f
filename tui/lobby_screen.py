"""The lobby: who you are, the open tables, the ways to sit down at one, and past games.

Past games (:class:`~tui.history_panel.HistoryPanel`) sit in a column beside the tables on a
wide terminal; on a narrow one (80 columns) ``h`` shows them in place of the list. They are
read from the hub when the lobby is shown (at connection and on coming back from a table),
not on every change of the list of tables. ``r`` lists the finished games to watch again
(:mod:`tui.replay_screen`), over the lobby.
"""

from __future__ import annotations

from typing import ClassVar

from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.content import Content
from textual.style import Style
from textual.widgets import Input, Static

from engine.session import Session
from engine.tables import TableOptions, TableSummary
from engine.text import NAME_MAX
from lean_textual.steady import SteadyScreen
from tui.form_row import FormRow
from tui.history_panel import HistoryPanel
from tui.inputs import QuietInput
from tui.keybar import Hint, KeyBar, binding_hints
from tui.messages import attempt
from tui.row_list import RowList

TITLE = Content.assemble("Mission Impractical  ", ("·  the lobby", Style(dim=True)))
"""Built once: as markup, every new lobby parsed it (and its style) again."""
STATUS_WORDS = {"lobby": "waiting", "playing": "playing", "finished": "game over"}
WIDE = 110  # from this many columns, past games get a column beside the tables


class TableList(RowList):
    """The open tables, one row each, keyed by table code."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "select", "Join", show=True),
    ]
    COLUMNS = (("Code", 4), ("Host", 16), ("Seats", 5), ("Status", 9), ("Players", 0))

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(self.COLUMNS, zebra=True, id=id, empty=(
            "No tables yet: press c to create one, then give friends its code."))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "select":  # no table, no Join in the key bar
            return self.row_count > 0
        return True


class LobbyScreen(SteadyScreen[None]):
    """The first screen: the app lays its table screens over this one."""

    TITLE = "Lobby"
    AUTO_FOCUS = "#tables"  # focused as it is built: no focus on the name field first
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("c", "create", "Create table"),
        Binding("w", "watch", "Watch"),
        Binding("j", "focus_code", "Join by code"),
        Binding("n", "focus_name", "Rename"),
        Binding("r", "replays", "Replays"),
        Binding("h", "toggle_history", "Past games: show or hide", show=False),
        Binding("b", "toggle_bell", "Bell when it is your turn: on or off", show=False),
        Binding("q", "app.quit", "Quit"),
        Binding("escape", "back_to_list", "Back to the list", show=False),
    ]

    def __init__(self, session: Session) -> None:
        super().__init__()
        self.session = session
        self._shown: tuple[TableSummary, ...] | None = None
        self._message = ""
        self._ready = False  # columns are in place
        self._wide: bool | None = None
        self.history_toggled = False  # narrow: shown instead of the list; wide: hidden
        self._reclaim_code: str | None = None

    # -- layout ----------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        # The width classes go on before any child exists: set later, they restyle every
        # widget of the screen (a fifth of the cost of a new connection).
        self._wide = self.app.size.width >= WIDE
        self.set_class(self._wide, "-wide")
        self.set_class(not self._wide, "-narrow")
        yield Static(TITLE, id="title-bar")
        yield FormRow(("Your agent name", QuietInput(
            value=self.session.player.name, max_length=NAME_MAX, placeholder="your name",
            id="name")), id="name-row", classes="form-row")
        if self._message:  # else built when first said: most players never see one
            yield self._message_line()
        with Horizontal(id="lobby-body"):
            yield TableList(id="tables")  # its own box: a container around it drew 23 lines
            yield HistoryPanel(id="history")
        yield FormRow(("Table code", QuietInput(max_length=4, placeholder="ABCD", id="code")),
                      ("Guest's seat code",
                       QuietInput(max_length=6, placeholder="if any", id="seat-code")),
                      id="code-row", classes="form-row")
        yield KeyBar()

    def on_mount(self) -> None:
        self._ready = True
        if self._message:
            self._mount_message_line()  # said while the screen was being built
        self.query_one(TableList).border_title = "Tables"
        self.query_one(HistoryPanel).border_title = "Past games"
        self._set_history_toggled(False)
        self.show_tables(self.session.lobby())

    def on_screen_resume(self) -> None:
        """The lobby is on screen again (at connection, or back from a table): re-read the
        past games, which may have grown meanwhile (only if they are in view: behind ``h``
        they are read when shown)."""
        self._fit(self.app.size.width)
        if self._history_visible:
            self.show_history()

    @property
    def _history_visible(self) -> bool:
        return self._wide != self.history_toggled

    def on_resize(self, event: events.Resize) -> None:
        self._fit(event.size.width)

    def _fit(self, width: int) -> None:
        """Lay past games beside the list (wide) or behind ``h`` (narrow)."""
        wide = width >= WIDE
        if wide == self._wide:
            return
        self._wide = wide
        self.set_class(wide, "-wide")
        self.set_class(not wide, "-narrow")
        self._set_history_toggled(False)  # each layout starts with its own default
        if self._history_visible and self.is_mounted:
            self.show_history()  # the column came into view: read what it shows

    def _set_history_toggled(self, toggled: bool) -> None:
        self.history_toggled = toggled
        self.set_class(toggled, "-history-toggled")
        history_visible = self._history_visible
        if history_visible and toggled and self.is_mounted:
            self.show_history()
        self.query_one(TableList).border_subtitle = (
            "" if history_visible else "h: past games")
        self.query_one(HistoryPanel).border_subtitle = (
            "r: replays · h: hide" if self._wide else "r: replays · h: back to the tables")
        if isinstance(self.focused, Input):
            return
        if self._wide and history_visible:
            return  # the column came in beside the list: focus stays where it was
        self.query_one(HistoryPanel if history_visible else TableList).focus()

    # -- attributes down ------------------------------------------------------------------

    def show_tables(self, summaries: tuple[TableSummary, ...]) -> None:
        """Show the hub's list of tables (cheap when nothing changed)."""
        if not self._ready:
            return  # on_mount reads the list
        if summaries == self._shown:
            return
        self._shown = summaries
        tables = self.query_one(TableList)
        tables.set_rows([(t.code, (t.code, t.host, f"{t.seated}/{t.max_seats}",
                                   STATUS_WORDS.get(t.status, t.status), ", ".join(t.names)))
                         for t in summaries])  # the cursor stays on its table
        self.refresh_bindings()  # Join and Watch are offered only when there is a table

    def show_history(self) -> None:
        """Ask the hub for past games (a few queries: only when the lobby is shown)."""
        self.query_one(HistoryPanel).show(self.session.history())

    def offer_reclaim(self, code: str) -> None:
        """A guest came with ``ssh -t host CODE`` to a game with an empty seat: ask for the
        seat code (Enter without one watches the game instead)."""
        self._reclaim_code = code
        self.say(f"Table {code} is playing. Had a seat there? Type its seat code and press "
                 "Enter to take it back. Enter with no code: watch the game.")
        if self.is_mounted:
            self._focus_reclaim()
        else:
            self.call_after_refresh(self._focus_reclaim)

    def _focus_reclaim(self) -> None:
        self.query_one("#code", Input).value = self._reclaim_code or ""
        self.query_one("#seat-code", Input).focus()

    @property
    def said(self) -> str:
        """The line above the list now ("" when it is quiet)."""
        return self._message

    def say(self, text: str) -> None:
        """A line above the list that stays until the next one (e.g. an unknown code)."""
        self._message = text
        # Not composed yet (the app speaks while it starts): compose reads _message.
        # Composed without the line (nothing was said then): mounted now, or when the
        # screen is.
        for line in self.query("#lobby-message").results(Static):
            line.update(text)
            line.set_class(not text, "-quiet")
            return
        if text and self.is_mounted:
            self._mount_message_line()

    def _message_line(self) -> Static:
        return Static(self._message, id="lobby-message", markup=False,
                      classes="" if self._message else "-quiet")

    def _mount_message_line(self) -> None:
        if not self.query("#lobby-message"):
            self.mount(self._message_line(), before=self.query_one("#lobby-body"))

    def key_hints(self) -> list[Hint]:
        """The key bar: in a text field, what Enter and Esc do there (letters are typed,
        not keys); elsewhere the keys that work now."""
        field = self.focused
        if not isinstance(field, Input):
            code = self._selected_code() if self._ready else None
            if code is not None and self.session.would_only_watch(code):
                # Enter would only watch: w says so; "Join" would be a promise it breaks
                return [h for h in binding_hints(self) if h[2] != "select"]
            return binding_hints(self)
        if field.id == "name":
            enter = "keep this name"
        elif field.id == "seat-code" and field.value.strip():
            enter = "take your seat back"
        else:
            enter = "go to that table"
        return [("⏎", enter, ""), ("esc", "back to the list", "back_to_list")]

    @on(Input.Changed, "#seat-code")
    @on(RowList.Highlighted, "#tables")
    def _hints_changed(self) -> None:
        self.query_one(KeyBar).update_hints()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "watch":
            return bool(self._shown)
        return True

    # -- helpers -----------------------------------------------------------------------------

    def _selected_code(self) -> str | None:
        return self.query_one(TableList).cursor_key

    def _rename(self) -> None:
        field = self.query_one("#name", Input)
        if field.value.strip() == self.session.player.name:
            return
        attempt(self, self.session.rename, field.value)
        field.value = self.session.player.name

    # -- actions ---------------------------------------------------------------------------

    @on(RowList.Selected, "#tables")
    def _join_selected(self, event: RowList.Selected) -> None:
        self.say("")
        attempt(self, self.session.join, event.key)

    def action_toggle_bell(self) -> None:
        app = self.app
        app.bell_on = not getattr(app, "bell_on", True)  # type: ignore[attr-defined]
        state = "on" if app.bell_on else "off"  # type: ignore[attr-defined]
        self.say(f"The bell when it is your turn is {state} (b switches it).")

    def action_watch(self) -> None:
        code = self._selected_code()
        if code is None:
            self.app.notify("no table to watch yet", severity="warning")
            return
        self.say("")
        attempt(self, self.session.join, code, spectate=True)

    def action_create(self) -> None:
        self._rename()
        self.say("")
        attempt(self, self.session.create_table, TableOptions())

    def action_focus_code(self) -> None:
        self.query_one("#code", Input).focus()

    def action_focus_name(self) -> None:
        self.query_one("#name", Input).focus()

    def action_replays(self) -> None:
        """The finished games, to watch one again (over the lobby)."""
        self.app.open_past_games()  # type: ignore[attr-defined]

    def action_toggle_history(self) -> None:
        self._set_history_toggled(not self.history_toggled)

    def action_back_to_list(self) -> None:
        if isinstance(self.focused, Input):
            if self.focused.id == "name":
                self.focused.value = self.session.player.name
            self._focus_main()
        elif self.history_toggled and not self._wide:
            self._set_history_toggled(False)

    def _focus_main(self) -> None:
        """Focus what fills the middle of the lobby: the list, or the past games instead."""
        if self.history_toggled and not self._wide:
            self.query_one(HistoryPanel).focus()
        else:
            self.query_one(TableList).focus()

    @on(Input.Submitted, "#name")
    def _name_submitted(self) -> None:
        self._rename()
        self._focus_main()

    @on(Input.Blurred, "#name")
    def _name_left(self) -> None:
        self._rename()

    @on(Input.Submitted, "#code")
    @on(Input.Submitted, "#seat-code")
    def _code_submitted(self) -> None:
        code = self.query_one("#code", Input).value.strip()
        seat_code = self.query_one("#seat-code", Input).value.strip()
        if not code:
            self.app.notify("type the table's four-letter code first", severity="warning")
            self.query_one("#code", Input).focus()
            return
        self.say("")
        if seat_code:
            done = attempt(self, self.session.reclaim, code, seat_code)
        else:
            done = attempt(self, self.session.join, code)
        if done:
            self.query_one("#code", Input).value = ""
            self.query_one("#seat-code", Input).value = ""
            self._focus_main()
