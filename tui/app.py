"""MissionApp: what one connected person runs, from the lobby to the last round.

The SSH server builds one ``MissionApp(hub, player, join_code)`` per session and runs it on
the shared loop; tests build it the same way. The app attaches to the hub when it loads and
detaches exactly once when it unmounts (a seat in a game in progress is kept for them).

Screens: the lobby is the bottom of the stack. While the player is at a table, one *stage*
screen sits over it: the table setup, the game, or the results, chosen from the table's
status every time the hub says something changed. The "terminal too small" screen covers
everything while the terminal is under 80x24; routing waits until it is gone.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path
from typing import Any, ClassVar

from rich.text import Text
from textual import events
from textual.app import App
from textual.binding import Binding, BindingType
from textual.dom import DOMNode
from textual.screen import Screen
from textual.theme import Theme

from engine.hub import Hub
from engine.identity import Player
from engine.records import GameSummary
from engine.replay import ReplayError, find_game, past_games, read_replay
from engine.rules import IllegalAction, Phase
from engine.session import Session
from engine.tables import TableView
from lean_textual import internals as door
from lean_textual.dropped import release
from lean_textual.internals import AppHooks, active_app
from lean_textual.steady import SteadyScreen
from tui.board import ItemGrid
from tui.end_screen import EndScreen
from tui.help import HelpScreen
from tui.inputs import QuietInput
from tui.lobby_screen import LobbyScreen
from tui.messages import HubChanged, HubNotice, OpenReplay, ShowResults, ShowSetup
from tui.replay_screen import PastGamesScreen, ReplayScreen
from tui.stage import TableStage
from tui.table_screen import TableScreen
from tui.too_small import TooSmallScreen, too_small
from tui.turn_text import last_round_over

log = logging.getLogger(__name__)

STAGE_OF_STATUS = {"lobby": "table", "playing": "game", "finished": "end"}


class Backdrop(SteadyScreen[None]):
    """The bottom of every player's screen stack, never seen: the lobby or the table's
    screen is always over it (so that either can replace the other and be freed). Steady,
    so the resizes of a new app's start lay it out once, not once each."""

    EXTRAS = False  # no tooltip and no notifications rack: nothing is ever shown here


class MissionApp(AppHooks, App[str | None]):
    """One player's terminal. ``join_code`` lands them straight at that table."""

    CSS_PATH: ClassVar[list[str]] = ["app.tcss", "game.tcss"]  # read once, at start
    TITLE = "Mission Impractical"
    ENABLE_COMMAND_PALETTE = False
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+q", "quit", "Quit", show=False, priority=True),
        Binding("question_mark", "help", "Help"),
        Binding("f1", "help", "Help", show=False),
        Binding("ctrl+c", "help_quit", show=False, system=True),
    ]

    def __init__(self, hub: Hub, player: Player, join_code: str | None = None, *,
                 invite: str = "ssh -t host",
                 replay: tuple[str, int | None] | None = None) -> None:
        super().__init__()
        # No widget here has a tooltip, so no screen gets Textual's tooltip widget (a
        # widget costs about 14 KB, on every screen of every player; tests run so too).
        door.disable_tooltips(self)
        self.hub = hub
        self.player = player
        self.join_code = join_code
        self.invite = invite  # how friends reach this server, shown beside a table's code
        self.replay_at_start = replay
        """``ssh -t host replay CODE [N]``: ``(CODE, N)``, opened over the lobby."""
        self._replay_task: asyncio.Task[None] | None = None
        self.session: Session | None = None
        self.lobby_screen: LobbyScreen | None = None
        self.stage: TableStage | None = None
        self.stage_kind: str | None = None
        self._want_setup = False  # between games: the table setup instead of the results
        # the game (table code, game number) whose last round this player saw scored: its
        # summary stays on the game screen, as every round's did, until they ask for the
        # results (the last reveal is the game's climax; the results screen hid it)
        self._last_round_held: tuple[str, int] | None = None
        self._lobby_line = ""  # what the lobby said last, while it is not built
        self._too_small: TooSmallScreen | None = None
        self._started = False
        self._route_pending = False
        self._detached = False
        self._held_output: list[ExitStack] = []  # batches begun and not yet ended
        self.bell_on = True
        """Ring the terminal's bell when it becomes this player's turn (``b`` in the lobby)."""

    # -- life cycle -------------------------------------------------------------------------

    def on_load(self) -> None:
        # Nothing is sent until the first screen has settled (see _first_frame).
        self._hold_output()
        self.session = self.hub.attach(self.player, on_change=self._hub_changed,
                                       on_notice=self._hub_notice)
        # The lobby is built when it is first shown: a friend who came with a table's code
        # never sees it (built and dropped, it was cyclic garbage held until a rare full
        # collection: see server/gc_tuning.py).

    def _hold_output(self) -> None:
        """Hold the app's output back until :meth:`_let_output_go` (``batch_update``,
        begun here and ended in a later turn)."""
        stack = ExitStack()
        stack.enter_context(self.batch_update())
        self._held_output.append(stack)

    def _let_output_go(self) -> None:
        self._held_output.pop().close()

    def batch_ended(self) -> None:
        screen = self.screen
        screen.refresh_bindings()  # key bars left them unread while the batch lasted
        if isinstance(screen, SteadyScreen):
            screen.after_batch()  # what it held back while the batch lasted

    def update_styles(self, node: DOMNode, animate: bool = True) -> None:
        # A widget made in a compose and not mounted yet is styled when it is mounted;
        # Textual restyled it at each class set before that too (an Input sets three).
        if node is not self and node.parent is None:
            return
        super().update_styles(node, animate=animate)

    def get_default_screen(self) -> Screen[Any]:
        return Backdrop(id="backdrop")

    def get_theme(self, theme_name: str) -> Theme | None:
        """Textual's lookup without its two copies of every registered theme per call:
        drawing asks for the current theme once per line (``StylesCache`` filters), and
        the copies would be a third of each ask."""
        themes = door.registered_themes(self)
        for name in theme_name.split(","):
            theme = themes.get(name.strip())
            if theme is not None:
                return theme
        return None

    async def on_mount(self) -> None:
        self._started = True
        if self.replay_at_start is not None:
            self._open_replay_at_start(*self.replay_at_start)
        elif self.join_code:
            code = self.join_code.strip().upper()
            if self._session.may_reclaim(code):
                self.lobby_screen = LobbyScreen(self._session)
                self.lobby_screen.offer_reclaim(code)
            else:
                self._join_at_start(code)
        else:
            self._session.resume()  # a player with a key comes back to their running game
        if too_small(self.size):
            self._route_pending = True  # the lobby or the table, once the terminal fits
            await self._cover_small(self.size)
        else:
            await self._route()
        self.call_after_refresh(self.call_after_refresh, self._first_frame)

    def _join_at_start(self, code: str) -> None:
        """``ssh -t host CODE``: straight to that table, or the lobby saying why not."""
        try:
            self._session.join(code)
        except IllegalAction as refusal:
            why = str(refusal)  # "the host removed you from table ABCD", say
            self._lobby_line = (  # said by the lobby when it is built
                why[:1].upper() + why[1:] if code in self.hub.tables
                else f"No table has the code {code!r}: pick one below, "
                     "type another code, or press c to create a table.")

    # -- replays: finished games watched again, over the lobby ---------------------------------

    def _open_replay_at_start(self, code: str, game_no: int | None) -> None:
        """``ssh -t host replay CODE [N]``: the lobby, with that game's replay over it (or
        the lobby saying why not)."""
        records = self.hub.records
        try:
            if records is None:
                raise ReplayError("this server keeps no finished games")
            game = find_game(records, code, game_no)
        except ReplayError as error:
            self._lobby_line = f"No replay: {error}."
            return
        self.open_replay(game)

    def open_past_games(self) -> None:
        """The finished games, the player's first (a few indexed queries, on the loop)."""
        records = self.hub.records
        games = past_games(records, self._session.player.id) if records is not None else None
        if games is None:
            self.notify("this server keeps no finished games", severity="warning")
            return
        self.push_screen(PastGamesScreen(games))

    def open_replay(self, game: GameSummary) -> None:
        """Rebuild ``game`` from the journal on a worker thread (its moves go through the
        rules again: a few milliseconds the loop need not spend), then show it."""
        journal_path = getattr(self.hub.journal, "path", None)
        if journal_path is None:
            self.notify("this server keeps no finished games", severity="warning")
            return
        if self._replay_task is not None and not self._replay_task.done():
            return  # one at a time: a second Enter while it loads does nothing
        self._replay_task = asyncio.get_running_loop().create_task(
            self._load_replay(Path(journal_path).parent, game))

    def on_open_replay(self, message: OpenReplay) -> None:
        self.open_replay(message.game)

    async def _load_replay(self, data_dir: Path, game: GameSummary) -> None:
        try:
            replay = await asyncio.to_thread(read_replay, data_dir, game)
        except ReplayError as error:
            self.notify(str(error), severity="warning", markup=False)
            return
        except Exception:  # a journal the thread cannot read: say so, keep the session
            log.exception("replay of game %s could not be read", game.game_id)
            self.notify("that game could not be read from the journal", severity="error")
            return
        if door.is_exiting(self) or not self.is_running:
            return
        with door.app_context(self):
            await self.push_screen(ReplayScreen(replay))

    def _first_frame(self) -> None:
        """Draw the first screen once, whole, now that it has settled.

        While a new app starts, its first screen is laid out and painted several times
        (mounting, the size arriving, the notifications rack, the lobby filling in): over
        SSH, three frames of the same screen. While the app is in a batch,
        Textual's screen timer neither lays out nor paints; a layout still waiting is done
        here, inside the batch, so that ending the batch sends the settled screen as one
        full frame. (Textual internals: a test fails if they change.)"""
        screen = self.screen
        door.lay_out_if_asked_and_draw(screen)  # drops the layout's partial paint (a
        screen.refresh()  # SteadyScreen draws nothing in a batch: see SteadyScreen)
        self._let_output_go()

    def on_unmount(self) -> None:
        self._leave_hub()

    def _leave_hub(self) -> None:
        if self.session is not None and not self._detached:
            self._detached = True
            self.session.detach()

    async def action_quit(self) -> None:
        """Quit; a guest who leaves a seat in a game behind is told its seat code in the
        goodbye line, where it stays in their terminal after the connection closes."""
        self.leave()

    def leave(self) -> None:
        """Close as the quit key does, with its goodbye line: also what the server does
        when the client closes its input (its terminal can still be written to)."""
        text = self.goodbye()
        if text is None:
            self.exit()
        else:
            self.exit_with_message(text)

    def goodbye(self) -> str | None:
        """The line a player leaving now should keep: a guest who leaves a seat in a game
        behind is told its seat code (None: nothing to keep)."""
        view = self.session.view() if self.session is not None else None
        if (view is not None and view.seat_code and view.my_seat is not None
                and view.status == "playing" and self.session is not None
                and self.session.player.is_guest):
            return (f"Bye! Your seat at table {view.code} is kept for you. To sit back "
                    f"down, join table {view.code} again and type your seat code: "
                    f"{view.seat_code}")
        return None

    def exit_with_message(self, text: str) -> None:
        """Close the app and leave ``text`` for the server to print once the terminal is
        restored: it becomes the app's return value and its exit message."""
        self.exit(result=text, message=Text(text))

    @property
    def _session(self) -> Session:
        assert self.session is not None, "the app attaches to the hub when it loads"
        return self.session

    # -- from the hub (any app's code may be running: see _show_in_this_turn) ---------------

    def _hub_changed(self) -> None:
        if not self._show_in_this_turn():
            self.post_message(HubChanged().set_sender(self))

    def _show_in_this_turn(self) -> bool:
        """Bring the table's screen up to date and paint it here, in the hub's turn, when
        that is safe; False (nothing done) when the change must go through this app's
        queue (``HubChanged``).

        The hub tells a table's seats of a move once the journal has it on disk, from the
        loop's callback for the journal's report, where no app's code is running. A
        message to each app would wait for the next turn of the loop, behind everything
        else that became ready meanwhile (at 400 players, tens of milliseconds), then wake
        the app's queue only to call :meth:`TableStage.show`. Here the app's own code is
        not running either (no handler of its messages under way, none waiting, no batch),
        and the screen shown is the one for the table's status: only the change of a
        stage (a new screen to build), the lobby, and a change told while some app's code
        runs (a move not held for the disk) take the message."""
        stage = self.stage
        if stage is None or self.session is None or not self._idle_outside_any_app():
            return False
        view = self.session.view()
        if view is None:
            return False
        self._follow(view)
        if self._new_stage_for(view, self._stage_kind(view)):
            return False
        with door.app_context(self):
            try:
                self._show_on_stage(view)
            except Exception as error:  # as the app's queue would have it
                door.handle_exception(self, error)
        return True

    def _idle_outside_any_app(self) -> bool:
        """No app's code is running (a loop callback of its own), and this app has
        nothing under way or waiting: its screen may be changed and painted right here."""
        if (self.handling or door.in_batch(self) or not self._started
                or self._too_small is not None or door.is_exiting(self)
                or self.message_queue_size or not self.is_running):
            return False
        try:
            active_app.get()
            return False  # an app's code is running: its own call must not be re-entered
        except LookupError:
            return True

    def run_in_this_turn(self, callback: Callable[[], object]) -> bool:
        """Run ``callback`` now, as this app, from a loop callback where no app's code
        runs (a widget's timer), if this app is idle; False (nothing done) otherwise, and
        the caller goes through the widget's queue. Saves the wake of a queue per call:
        the countdown's tick every second of a turn's last minute, on every seat."""
        if not self._idle_outside_any_app():
            return False
        with door.app_context(self):
            try:
                callback()
            except Exception as error:  # as the app's queue would have it
                door.handle_exception(self, error)
        return True

    def _hub_notice(self, text: str) -> None:
        self.post_message(HubNotice(text).set_sender(self))

    async def on_hub_changed(self, _message: HubChanged) -> None:
        await self._route()

    def on_hub_notice(self, message: HubNotice) -> None:
        self.notify(message.text, markup=False)
        if self._session.table is None:  # sent back to the lobby: say why, there
            self._lobby_line = message.text
            if self.lobby_screen is not None:
                self.lobby_screen.say(message.text)

    async def on_show_setup(self, message: ShowSetup) -> None:
        self._want_setup = message.setup
        await self._route()

    async def on_show_results(self, _message: ShowResults) -> None:
        self._last_round_held = None
        await self._route()

    # -- routing: which screen shows the player's table -------------------------------------

    async def _route(self) -> None:
        if self._too_small is not None or not self._started or self.session is None:
            self._route_pending = True
            return
        self._route_pending = False
        view = self.session.view()
        self._follow(view)
        if view is None:
            lobby = await self._show_lobby()
            lobby.show_tables(self.session.lobby())
            return
        kind = self._stage_kind(view)
        if self._new_stage_for(view, kind):
            # One step for the player's terminal: nothing is drawn between the old screen
            # and the new one (without this the lobby flashed up while the game screen
            # was being built).
            self._hold_output()
            try:
                stage = self._new_stage(kind)
                await self._show_first(stage)
                self.stage, self.stage_kind = stage, kind
                stage.show(view)
            finally:
                # After Textual's own wait for the new screen's widgets (queued by the
                # switch): ended before it, the batch let out the screen half built, then
                # the whole screen again when its widgets were in (two full frames).
                self.call_next(self._let_output_go)
            return
        self._show_on_stage(view)

    def _show_on_stage(self, view: TableView) -> None:
        """The stage shows ``view``; but a player reading the last round when a rematch
        begins keeps reading it, told that the new game waits for their Enter: pulled into
        it at once, the keys they meant for the summary (Enter, "3", "lol") were moves in a
        game they had not seen start."""
        stage = self.stage
        assert stage is not None
        held = self._last_round_held
        if held is not None and self._reading_last_round(view) and view.game_no != held[1]:
            from tui.game_screen import GameScreen  # written beside this app

            if isinstance(stage, GameScreen):
                if stage.rematch is None:
                    self.notify(f"A rematch has begun: game {view.game_no}. Game {held[1]}'s "
                                f"results: {self.invite} replay {view.code} {held[1]}",
                                markup=False, timeout=30)
                stage.rematch_news(view)
            return
        stage.show(view)

    def _reading_last_round(self, view: TableView) -> bool:
        """The stage is the game screen holding the last round of ``view``'s table, which
        the player has not gone on from (whatever the table plays now)."""
        shown = self.stage.view if self.stage is not None else None
        return (shown is not None and shown.code == view.code
                and (shown.code, shown.game_no) == self._last_round_held)

    def _follow(self, view: TableView | None) -> None:
        """What the player chose between games lasts until the next game starts (the
        table setup instead of the results); a game's last round, seen scored, is held
        on the game screen."""
        held = self._last_round_held
        if view is None or (held is not None and held[0] != view.code):
            self._last_round_held = None  # left the table: nothing to go on from
        if view is None or view.status != "finished":
            self._want_setup = False  # (a rematch begun leaves a held round held)
            return
        shown = self.stage.view if self.stage_kind == "game" and self.stage else None
        if (shown is not None and shown.code == view.code and shown.game is not None
                and shown.game.phase not in (Phase.ROUND_OVER, Phase.GAME_OVER)
                and view.game is not None and last_round_over(view.game)):
            self._last_round_held = (view.code, view.game_no)

    def _new_stage_for(self, view: TableView, kind: str) -> bool:
        """Whether ``view`` needs a screen of its own: another kind of stage, or a new game
        (a game screen's focus and fields belong to its game); not while the player reads
        the last round (a rematch waits for their Enter)."""
        if self._reading_last_round(view):
            return False
        shown = self.stage.view if self.stage is not None else None
        return (kind != self.stage_kind or self.stage is None
                or (shown is not None and shown.game_no != view.game_no))

    def _stage_kind(self, view: TableView) -> str:
        """Which stage screen shows ``view``: the table setup, the game or the results."""
        kind = STAGE_OF_STATUS.get(view.status, "table")
        if self._reading_last_round(view):
            return "game"  # the last round's summary, until the player goes on
        return "table" if kind == "end" and self._want_setup else kind

    def _new_stage(self, kind: str) -> TableStage:
        if kind == "game":
            from tui.game_screen import GameScreen  # written beside this app

            return GameScreen(self._session)
        if kind == "end":
            return EndScreen(self._session, invite=self.invite)
        return TableScreen(self._session, invite=self.invite)

    async def _show_lobby(self) -> LobbyScreen:
        """The lobby, built again if the player was at a table (saying the last thing it
        said, or why the player was sent back)."""
        lobby = self.lobby_screen
        if lobby is None:
            lobby = self.lobby_screen = LobbyScreen(self._session)
            lobby.say(self._lobby_line)
        if lobby not in self.screen_stack:
            await self._show_first(lobby)
        # else: a change in the list of tables; what the player opened over the lobby
        # (the help, past games, a replay) stays open, and so does the cover of a
        # terminal too small
        self.stage, self.stage_kind = None, None
        return lobby

    async def _show_first(self, screen: Screen[Any]) -> None:
        """Make ``screen`` the one screen over the backdrop, under any covers: the one it
        replaces (the lobby, or the screen of the table's last status) is closed and freed.
        A seated player's app holds only its table's screen, not the lobby's 27 widgets."""
        await self._close_covers()
        if len(self.screen_stack) == 1:
            await self.push_screen(screen)
        else:
            closing = list(self.screen.walk_children(with_self=True))
            await self.switch_screen(screen)
            release(closing)  # its drawn lines go now, not at the next full collection
        if self.lobby_screen is not None and self.lobby_screen is not screen:
            self._lobby_line = self.lobby_screen.said
            self.lobby_screen = None

    async def _close_covers(self) -> None:
        """Close anything opened over the lobby or the table's screen (help, a question)."""
        while len(self.screen_stack) > 2:
            await self.pop_screen()

    # -- terminal size ------------------------------------------------------------------------

    async def on_resize(self, event: events.Resize) -> None:
        if not self._started:
            return  # on_mount looks at the size
        if too_small(event.size):
            await self._cover_small(event.size)
        elif self._too_small is not None:
            cover, self._too_small = self._too_small, None
            while cover in self.screen_stack:
                await self.pop_screen()
            if self._route_pending:
                await self._route()

    async def _cover_small(self, size: Any) -> None:
        if self._too_small is None:
            self._too_small = TooSmallScreen(size)
            await self.push_screen(self._too_small)
        else:
            self._too_small.show_size(size)

    # -- app-wide keys ------------------------------------------------------------------------

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, events.Key) and not event.is_forwarded:
            focused = self.focused
            # A lead's pick is played in this turn: forwarded, the key would wait on the
            # grid's queue first. (No priority binding uses the grid's keys: see
            # ItemGrid.take_key.)
            if isinstance(focused, ItemGrid) and focused.take_key(event):
                self.app_focus = True
                return
            # So is a Stop! (see GameScreen.take_key).
            screen = self.screen
            if isinstance(screen, TableStage) and screen.take_key(event):
                self.app_focus = True
                return
            # A key for a text field is typed or played and painted in this turn: it would
            # wait on the field's queue (see QuietInput.key_event), then for the screen's
            # update timer, and the key bar's count of characters would be painted a second
            # time.
            if isinstance(focused, QuietInput) and focused.can_take(event):
                self.app_focus = True
                if await door.check_bindings(self, event.key, priority=True):
                    return
                screen = self.screen
                if isinstance(screen, SteadyScreen) and focused.can_type_at_end(event):
                    # typed and painted in one go, the cells straight to the terminal
                    screen.update_then_paint(lambda: self._type_after_text(screen, focused,
                                                                           event))
                    return
                await focused.take_key(event)
                if isinstance(screen, SteadyScreen):
                    screen.after_typing(focused)
                    screen.paint_now()
                return
        await super().on_event(event)

    @staticmethod
    def _type_after_text(screen: SteadyScreen, field: QuietInput, event: events.Key) -> None:
        """Type ``event`` after the field's text (it can) and update what shows it."""
        field.type_at_end(event)
        screen.after_typing(field)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "help":
            return not isinstance(self.screen, HelpScreen | TooSmallScreen)
        return True

    def action_show_help_panel(self) -> None:
        """Textual's own help panel (its "Keys" command) opens our help instead."""
        if self.check_action("help", ()):
            self.action_help()

    def action_hide_help_panel(self) -> None:
        """Our help closes with Escape; Textual's panel is never shown."""

    def action_help(self) -> None:
        self.push_screen(HelpScreen(self.keys_of(self.screen), getattr(self.screen, "TITLE", "")
                                    or ""))

    def keys_of(self, screen: Screen[Any]) -> list[tuple[str, str]]:
        """The keys that work on ``screen`` now, with what they do: its own bindings, the
        app's, and those a focused widget puts in the footer. Keys that do the same thing
        share a line ("esc, q")."""
        by_description: dict[str, list[str]] = {}
        for active in screen.active_bindings.values():
            binding = active.binding
            own = active.node is screen or active.node is self
            if (not binding.description or binding.system or not (own or binding.show)
                    or binding.action.endswith("copy_text")):
                continue
            shown = by_description.setdefault(binding.description, [])
            key = self.get_key_display(binding)
            if key not in shown:
                shown.append(key)
        return [(", ".join(keys), description) for description, keys in by_description.items()]

    # -- things that would act on the server machine, not the player's ----------------------

    def open_url(self, url: str, *, new_tab: bool = True) -> None:
        self.notify("links cannot be opened from here", severity="warning")

    def action_screenshot(self, filename: str | None = None, path: str | None = None) -> None:
        self.notify("use your terminal to take a screenshot", severity="warning")
