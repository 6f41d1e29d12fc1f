"""The in-game screen: one round as one seat (or a spectator) sees it.

Contract with the app: ``GameScreen(session)`` is pushed when the table is playing; on
every hub change the app calls :meth:`GameScreen.show` with ``session.view()``. ``show``
hands each widget its own slice of the view; a widget repaints only if its slice changed.

Moves go to the hub through the session; a refusal (:class:`IllegalAction`) is shown as a
notification and nothing else changes. Stop! and the lead's picks carry the time the key's
bytes reached the server (:func:`tui.timing.arrival_ms`), so they are handled in
``on_key``, where the event is at hand; their bindings exist for the help screen.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from functools import partial
from typing import ClassVar

from rich.cells import cell_len
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Input

from engine.clock import now_ms
from engine.rules import TASKS_ON_BAR, IllegalAction, Phase, View
from engine.session import Session
from engine.tables import TableView
from engine.text import plural
from lean_textual.wake import wake_later
from tui import board_text, turn_text
from tui.board import ItemGrid, Lines, WrappedLines
from tui.chat import CHAT_HINT, ChatLog, ChatPanel, GameLog
from tui.confirm import Choose, Confirm
from tui.countdown import Countdown
from tui.inputs import QuietInput
from tui.keybar import KeyBar
from tui.messages import ShowResults
from tui.stage import TableStage
from tui.timing import arrival_ms

SHOUT_KEYS = ("s", "S", "exclamation_mark")
PLAN_MAX = 160
MAX_GUESSERS = 7
COUNT_NEAR = 0.75  # the key bar counts the characters left once this share of a field is used


def _characters_left(field: Input) -> int | None:
    """How many characters ``field`` still takes, once it is near its limit; else None."""
    limit = field.max_length
    if not limit or len(field.value) < limit * COUNT_NEAR:
        return None
    return limit - len(field.value)


SPARED_FIRST = ("PgUp", "^e", "x", "?")
"""Keys the key bar leaves out, in this order, when the hints do not fit its width (the
help lists them all)."""


def _fitted(hints: list[tuple[str, str, str]], width: int) -> list[tuple[str, str, str]]:
    """``hints`` without the ones :data:`SPARED_FIRST` names, one by one, until they fit
    ``width`` as the key bar draws them (`` key label ``)."""
    def length(hint: tuple[str, str, str]) -> int:
        key, label, _ = hint
        return (cell_len(key) + 2 if key else 0) + (cell_len(label) + 1 if label else 0)

    spared = list(SPARED_FIRST)
    while width and sum(map(length, hints)) > width and spared:
        key = spared.pop(0)
        hints = [hint for hint in hints if hint[0] != key]
    return hints


def _number_bindings() -> list[BindingType]:
    """Number keys mean one thing per role and phase; check_action enables the one that
    applies, so help lists only that. A shared description puts "1, 2, 3, 4" on one line."""
    bindings: list[BindingType] = []
    for k in range(1, 5):
        bindings.append(Binding(str(k), f"pick_row({k})", "Pick the item in that row of the "
                                "current column (lead)", show=False))
        bindings.append(Binding(str(k), f"hide_guess({k})", "Hide that guessing card "
                                "(after Stop!, or once four items are down)", show=False))
    for k in range(1, MAX_GUESSERS + 1):
        bindings.append(Binding(str(k), f"choose_best({k})", "Name that player's plan the "
                                "best (lead)", show=False))
    return bindings


class GameScreen(TableStage):
    """A round in progress, for the seat of ``session`` (or a spectator)."""

    CSS_PATH = "game.tcss"
    AUTO_FOCUS = "#grid"
    HORIZONTAL_BREAKPOINTS: ClassVar[list[tuple[int, str]]] = [(0, "-narrow"), (120, "-wide")]
    VERTICAL_BREAKPOINTS: ClassVar[list[tuple[int, str]]] = [(0, "-short"), (32, "-tall")]
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("s", "shout", "Stop! (shout before the 4th item is down)"),
        Binding("exclamation_mark", "shout", "Stop! (shout before the 4th item is down)",
                show=False),
        *_number_bindings(),
        Binding("enter,n", "next_round", "Next round (when the round is over); the results "
                "after the last"),
        Binding("c", "chat", "Chat with the table"),
        Binding("pageup", "log_page(-1)", "Scroll the log back (PgUp), to read earlier "
                "plans", show=False),
        Binding("pagedown", "log_page(1)", "Scroll the log forward (PgDn)", show=False),
        Binding("escape", "board", "Back to the board (leave the chat or plan input)"),
        Binding("ctrl+e", "end_game", "End the game for everyone (host only)"),
        Binding("x", "remove_player", "Remove a person from the game: a bot plays their "
                "seat (host only)"),
        Binding("l", "leave", "Back to the lobby (a seat is kept for your return)"),
    ]

    def __init__(self, session: Session, *, name: str | None = None,
                 id: str | None = None) -> None:
        super().__init__(session, name=name, id=id)
        self.rematch: int | None = None  # a rematch's game number, begun under this summary
        self._rematch_waits = False  # and its table waits for this seat's move
        self._banner: board_text.Line | None = None
        self._banner_timer: asyncio.TimerHandle | None = None
        self._counted: tuple[Widget, object] | None = None  # a field, its value counted
        self._count_shown = False  # the key bar shows how many characters are left
        self._plan_moment: str | None = None  # turn_text.plan_moment, as last shown
        self._keys_queued = 0  # keys bubbled up to this screen and not handled yet
        self._takes_seat_code = False  # the plan's field takes a guest's seat code

    # -- layout ------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        with Horizontal(id="status-row"):
            yield Lines(id="status")
            yield Countdown(id="countdown")
        with Horizontal(id="top"):
            yield Lines(id="tasks")
            yield Lines(id="players")
        yield ItemGrid(id="grid")
        with Vertical(id="turn"):
            yield WrappedLines(id="turn-text")
            yield QuietInput(id="plan", max_length=PLAN_MAX, disabled=True)
        with Horizontal(id="bottom"):
            yield GameLog(id="log")
            yield ChatPanel(id="chat")
        yield KeyBar()

    def on_mount(self) -> None:
        self.query_one("#tasks").border_title = "Tasks"
        self.query_one("#players").border_title = "Players · points"
        self.query_one("#log").border_title = "Log"
        self.query_one("#chat").border_title = "Chat"
        lines = {w.id: w for w in self.query(Lines)}
        self._status, self._tasks, self._players = (lines["status"], lines["tasks"],
                                                    lines["players"])
        self._turn = lines["turn-text"]
        self._grid = self.query_one(ItemGrid)
        self._countdown = self.query_one(Countdown)
        self._plan = self.query_one("#plan", Input)
        self._chat_input = self.query_one("#chat-input", Input)
        self._log = self.query_one(GameLog)
        self._chat_log = self.query_one(ChatLog)
        self._keybar = self.query_one(KeyBar)
        self.ready(fallback=self.session.view())

    def rematch_news(self, view: TableView) -> None:
        """A rematch (``view``) began while this player reads the last round: the summary
        stays, and says that the new game waits for their Enter (and when its table waits
        for them); the chat shows the table's lines, theirs among them."""
        waits = view.game is not None and view.my_seat in view.game.waiting_for
        news = (view.game_no, waits)
        if news == (self.rematch, self._rematch_waits) and self._chat_log.shown == view.chat:
            return
        self.rematch, self._rematch_waits = news

        def update() -> None:
            if self.view is not None:
                self.update_view(self.view, self.view)
            self._chat_log.show_lines(view.chat)

        self.update_then_paint(update)

    # -- the contract: one view in, changed widgets out -------------------------------------

    def accepts(self, view: TableView) -> bool:
        return view.game is not None

    def update_view(self, old: TableView | None, view: TableView) -> None:
        """Show ``view`` (this session's TableView). Each widget gets its own slice and
        repaints only if that slice changed; the countdown wakes only when what it shows
        changes, and only while a deadline exists."""
        game = view.game
        assert game is not None
        self._big_moments(old, view)
        if self._banner is None:
            self._status.lines = (board_text.status_line(view),)
        self._countdown.deadline = view.deadline_ms
        self._tasks.lines = board_text.task_lines(view)
        self._players.lines = board_text.score_lines(view)
        if old is None or old.game is None or len(old.game.players) != len(game.players):
            self.set_class(len(game.players) > TASKS_ON_BAR, "-five")  # a row per player
        grid = self._grid
        grid.view = game
        grid.show_title(board_text.grid_title(game))
        if old is not None and old.game is not None and old.game.round != game.round:
            grid.cursor_row = 0
        # reveals (or the round's points) first, then what this seat does next, just above
        # the plan input
        self._turn.fit = (partial(turn_text.fit_round_over, players=len(game.players))
                          if (game.phase is Phase.ROUND_OVER and game.history)
                          or turn_text.last_round_over(game) else None)
        self._turn.lines = turn_text.reveal_lines(view) + self._own_lines(view)
        self._show_plan_input(view)
        self._log.show_lines(view.log)
        self._chat_log.show_lines(view.chat)
        if old is None or old.my_seat != view.my_seat or old.seat_code != view.seat_code:
            self._chat_input.disabled = view.my_seat is None
            tasks_title = "Tasks"
            if self.session.player.is_guest and view.seat_code:  # to come back after a drop
                tasks_title += f" · your seat code {view.seat_code}"
            self._tasks.border_title = tasks_title
        placeholder = ("spectators read the chat" if view.my_seat is None
                       else "muted while you pick: no hints!" if self._lead_picking()
                       else CHAT_HINT)
        if self._chat_input.placeholder != placeholder:
            self._chat_input.placeholder = placeholder
        self._keybar.update_hints()

    # -- the big moments: a banner on the status row, a bell for your turn ---------------

    BANNER_SECONDS = 3.0

    def _big_moments(self, old: TableView | None, view: TableView) -> None:
        """A Stop! and a reveal get their moment on every screen: a banner across the
        status row for a few seconds. A player whose turn it now is hears the terminal
        bell once (unless they turned it off in the lobby)."""
        game, before = view.game, old.game if old is not None else None
        if game is None or before is None or before.round != game.round:
            return
        banner = board_text.moment_line(before, game)
        if banner is not None:
            self._show_banner(banner)
        mine_now, mine_before = (board_text.waiting_text(game)[1],
                                 board_text.waiting_text(before)[1])
        if mine_now and not mine_before and getattr(self.app, "bell_on", True):
            self.app.bell()

    def _show_banner(self, line: board_text.Line) -> None:
        self._banner = line
        self._status.lines = (line,)
        if self._banner_timer is not None:
            self._banner_timer.cancel()
        self._banner_timer = wake_later(self, self.BANNER_SECONDS, self._end_banner)

    def _end_banner(self) -> None:
        """The banner's time is up: the status row again, painted in this turn (on the
        update timer, every seat's screen woke three times for it)."""
        self._banner, self._banner_timer = None, None
        view = self.view
        if view is not None and view.game is not None:

            def show_status() -> None:
                self._status.lines = (board_text.status_line(view),)

            self.update_then_paint(show_status)

    def _own_lines(self, view: TableView) -> tuple[board_text.Line, ...]:
        """What this seat does now; for a guest watching a game where a person's seat is
        empty, how to come back: the field below takes the seat code at once (one step
        back to the seat)."""
        if self._reclaimable(view):
            return turn_text.reclaim_lines()
        if self.rematch is not None:
            return ((("A rematch has begun: game ", "title"), (f"{self.rematch}", "title"),
                     (", and the table waits for you" if self._rematch_waits else "", "warn"),
                     (". Press ", ""), ("Enter", "key"), (" to play it", "")),)
        return turn_text.turn_lines(view)

    def _guest_code_now(self, view: TableView) -> str | None:
        """A guest's seat code at the round's summary, shown in the plan's row (idle then)
        at every size, where the summary may take every row of the panel above."""
        game = view.game
        if (game is not None and game.phase is Phase.ROUND_OVER and view.seat_code
                and self.session.player.is_guest):
            return view.seat_code
        return None

    def _reclaimable(self, view: TableView) -> bool:
        """A guest watching a game in which someone's seat waits for its person."""
        return view.my_seat is None and self.session.may_reclaim(view.code)

    def _show_plan_input(self, view: TableView) -> None:
        """The plan input is always in its place (the layout never moves). It is enabled
        and focused as soon as this seat has nothing to do but wait for its reveal (so a
        plan typed ahead stays in the field, not on the board, where its letters are keys),
        focused again when the turn comes, and disabled and emptied after the reveal. Text
        never turns into moves: the focus never leaves the chat but by Esc, and a plan
        field closing under the player's keys hands them to the chat, not the board; only
        a lead left to name the best plan gets the board (its one move is a number)."""
        plan = self._plan
        self._takes_seat_code = self._reclaimable(view)
        if self._takes_seat_code:  # the field takes a guest's seat code
            if plan.placeholder != turn_text.SEAT_CODE_PROMPT:
                plan.placeholder = turn_text.SEAT_CODE_PROMPT
            if plan.disabled:
                plan.disabled = False
                self.set_focus(plan)
            return
        moment = turn_text.plan_moment(view)
        before, self._plan_moment = self._plan_moment, moment
        guest_code = self._guest_code_now(view)
        prompt = (turn_text.seat_code_prompt(guest_code) if guest_code
                  else turn_text.plan_prompt(view))
        if plan.placeholder != prompt:
            plan.placeholder = prompt
        if moment is None:
            if not plan.disabled:
                had_focus = plan.has_focus
                plan.value = ""
                plan.disabled = True
                if had_focus:  # keys typed on after the reveal stay text (in the chat),
                    chat = self._chat_input  # but a lead's best-plan number is a move
                    names_best = view.game is not None and view.game.phase is \
                        Phase.BEST_PLAN and view.game.is_lead
                    self.set_focus(self._grid if chat.disabled or names_best else chat)
            return
        if plan.disabled:
            plan.disabled = False
            if not plan.value and (draft := self.session.draft()):  # back after a drop
                plan.value = draft
                plan.cursor_position = len(draft)
        if moment != before and not plan.has_focus and not self._chat_input.has_focus:
            self.set_focus(plan)

    def key_hints(self) -> list[tuple[str, str, str]]:
        """The key bar: the keys that do something for this seat now, and the ones that
        always do (chat, help, quit)."""
        game = self.game
        hints: list[tuple[str, str, str]] = []
        typing = isinstance(self.focused, Input)
        self._count_shown = False
        if isinstance(self.focused, Input):
            field = self.focused
            # where the keys go, first: typing is text until Esc, never a move
            if field is not self._plan:
                hints.append(("", " typing in chat:", ""))
                if self._ready_to_go_on():  # what an empty line does, as the summary asks
                    empty = " (empty: ready)"
                elif self._game_over():
                    empty = (" (empty: results)" if self.rematch is None
                             else " (empty: the new game)")
                else:
                    empty = "" if field.value else " (empty: board)"
                hints.append(("Enter", "send" + empty, ""))
            elif self._takes_seat_code:
                hints.append(("", " typing your seat code:", ""))
                hints.append(("Enter", "sit back down", ""))
            else:
                hints.append(("", " typing your plan:", ""))
                if self._plan_moment == turn_text.PLAN_NOW:
                    hints.append(("Enter", "reveal", ""))
            moves = game is not None and self._seated() and board_text.waiting_text(game)[1]
            hints.append(("Esc", "back to the board to play" if moves and field is not self._plan
                          else "back to the board", "board"))
            left = _characters_left(field)
            if left is not None:  # the limit, visible before it bites
                hints.append(("", f" {plural(left, 'character')} left", ""))
                self._count_shown = True
        elif game is not None and self._seated():
            phase = game.phase
            if self._lead_picking() and game.can_pick():
                hints.append(("1-4", "pick a row", ""))
                hints.append(("↑↓ Enter", "pick", ""))
            if self.check_action("shout", ()):
                hints.append(("s", "Stop!", "shout"))
            if game.can_guess():  # after your Stop!, or once the four items are down
                hints.append(("1-4", "hide your guess", ""))
            if game.is_lead and phase is Phase.BEST_PLAN:
                hints.append((f"1-{len(game.guessers)}", "best plan", ""))
            if self._ready_to_go_on():
                hints.append(("Enter", "next round", "next_round"))
        if not typing and self._game_over():  # seated or watching
            hints.append(("Enter", "final results" if self.rematch is None
                          else f"play game {self.rematch}", "next_round"))
        if not typing:
            if self._plan_moment is not None:  # left with Esc: Tab goes back to it
                hints.append(("Tab", "your plan", ""))
            if self._seated():
                hints.append(("c", "chat", "chat"))
            hints.append(("PgUp", "log", "log_page(-1)"))
            hints.append(("?", "help", "app.help"))
            if self.view is not None and self.view.is_host and not self._game_over():
                hints.append(("^e", "end game", "end_game"))
                hints.append(("x", "remove", "remove_player"))
            if self.rematch is None:
                hints.append(("l", "lobby", "leave"))
        return _fitted(hints, self.size.width)

    @on(Input.Changed)
    def _count(self, event: Input.Changed) -> None:
        if self._counted != (event.input, event.value):  # not counted as it was typed
            self._keybar.update_hints()

    @on(Input.Changed, "#plan")
    def _keep_draft(self, event: Input.Changed) -> None:
        """The plan as written so far outlasts a dropped connection (kept by the hub for
        this seat; a seat code typed by a guest without a seat is no plan)."""
        if self.view is not None and self.view.my_seat is not None:
            self.session.keep_draft(event.value)

    def after_typing(self, field: Widget) -> None:
        # Only the count of characters left changes the key bar as a player types, and
        # only near the limit: elsewhere a key draws the field alone, and neither reads
        # the hints nor draws the key bar.
        if self._count_shown or (isinstance(field, Input)
                                 and _characters_left(field) is not None):
            self._keybar.update_hints()  # in the same paint as the text
        # The field's Changed for this key comes next, through the screen's queue: it
        # need not read the keys again.
        self._counted = (field, getattr(field, "value", None))

    def on_unmount(self) -> None:
        if self._banner_timer is not None:
            self._banner_timer.cancel()

    def on_descendant_focus(self) -> None:
        self._keybar.update_hints()

    def on_descendant_blur(self) -> None:
        self._keybar.update_hints()

    # -- helpers -----------------------------------------------------------------------------

    @property
    def game(self) -> View | None:
        """This seat's game view, as last shown."""
        return None if self.view is None else self.view.game

    def _do(self, command: Callable[..., object], *args: object) -> bool:
        """Run a session command; a refusal becomes a notification. True if accepted.
        Under a rematch begun (this screen still shows the game before) only a chat line:
        a move would land in a game the player has not seen."""
        if self.rematch is not None and command != self.session.chat:
            self.notify(f"A rematch has begun: press Enter to play game {self.rematch}.",
                        severity="warning", markup=False)
            return False
        try:
            command(*args)
        except IllegalAction as refusal:
            self.notify(str(refusal), severity="warning", markup=False)
            return False
        return True

    def _seated(self) -> bool:
        return self.view is not None and self.view.my_seat is not None

    def _lead_picking(self) -> bool:
        game = self.game
        return game is not None and game.is_lead and game.phase is Phase.PICKING

    # -- keys that carry their arrival time -------------------------------------------------

    def on_key(self, event: events.Key) -> None:
        self._keys_queued = max(0, self._keys_queued - 1)
        self.play_key(event)

    def play_key(self, event: events.Key) -> None:
        """Shout, or pick a row, if ``event`` is a key for that here."""
        if self._shouts(event):
            event.stop()
            event.prevent_default()
            self.shout(arrival_ms(event))
        elif (event.key in ("1", "2", "3", "4") and self._lead_picking()
              and not isinstance(self.focused, Input)):
            event.stop()
            event.prevent_default()
            self.pick_row(int(event.key), arrival_ms(event))

    def take_key(self, event: events.Key) -> bool:
        """A Stop! key is shouted from the app's own turn (the app calls this), as the
        lead's pick is (ItemGrid.take_key): forwarded, it would wait on the focused
        widget's queue, then bubble up to this screen's, and the race is decided by the
        order of arrival. Only while nothing waits in the focused widget's queue and no
        key bubbled up into this screen's (counted by :meth:`post_message`, which is
        public, where the queue's contents are not): keys of a burst keep their order."""
        focused = self.focused
        if (not self._shouts(event) or self._keys_queued
                or (focused is not None and focused.message_queue_size)):
            return False
        self.play_key(event)
        return True

    def post_message(self, message: Message) -> bool:
        posted = super().post_message(message)
        if posted and isinstance(message, events.Key):  # bubbled up from the focused widget
            self._keys_queued += 1
        return posted

    def _shouts(self, event: events.Key) -> bool:
        """Whether ``event`` is a Stop! this screen shouts (not a letter for the chat)."""
        return (event.key in SHOUT_KEYS and not isinstance(self.focused, Input)
                and self.game is not None and self._seated() and self.rematch is None)

    def shout(self, at_ms: float) -> None:
        self._do(self.session.shout, at_ms)

    def pick_row(self, row: int, at_ms: float) -> None:
        game = self.game
        if game is None:
            return
        if game.can_pick():
            self._grid.cursor_row = row - 1
        self._do(self.session.pick, len(game.picks), row - 1, at_ms)

    @on(ItemGrid.Picked)
    def picked(self, message: ItemGrid.Picked) -> None:
        self._do(self.session.pick, message.column, message.row, message.at_ms)

    # -- actions -----------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        game = self.game
        if game is None:
            return action in ("chat", "board")
        if self.rematch is not None and action == "leave":  # Enter first: "lol yes" left
            return False
        seated = self._seated()
        if action == "shout":  # only while it can still work: before the 4th item, and
            return seated and game.can_shout()  # before anyone holds the token
        if action == "pick_row":
            return self._lead_picking()
        if action == "hide_guess":  # early, the rules say why not (the key bar says nothing)
            return (seated and not game.is_lead and game.my_guess is None
                    and game.phase in (Phase.PICKING, Phase.GUESSING))
        if action == "choose_best":
            (k,) = parameters
            return (game.is_lead and game.phase is Phase.BEST_PLAN
                    and isinstance(k, int) and k <= len(game.guessers))
        if action == "next_round":  # or, the game over, on to its results
            return (seated and game.phase is Phase.ROUND_OVER) or self._game_over()
        if action in ("end_game", "remove_player"):
            return self.view is not None and self.view.is_host and not self._game_over()
        if action == "chat":
            return seated
        return True

    def action_shout(self) -> None:
        self.shout(now_ms())

    def action_pick_row(self, row: int) -> None:
        self.pick_row(row, now_ms())

    def action_hide_guess(self, card: int) -> None:
        self._do(self.session.guess, card)

    def action_choose_best(self, k: int) -> None:
        game = self.game
        if game is not None and 1 <= k <= len(game.guessers):
            self._do(self.session.best_plan, game.guessers[k - 1])

    def action_next_round(self) -> None:
        if self._game_over():
            self.app.post_message(ShowResults())
            return
        self._do(self.session.next_round)

    def action_chat(self) -> None:
        chat = self._chat_input
        if chat.disabled:
            self.notify("Spectators read the chat; take a seat to talk.", markup=False)
            return
        if self._lead_picking():  # told before typing; the keys still go to the chat box
            self.notify("You are the lead agent: muted while you pick (no hints!). "
                        "You can talk again once the four items are down.", markup=False)
        self.set_focus(chat)  # at once: the next key of a burst goes to the chat

    def action_leave(self) -> None:
        """Back to the lobby. A spectator just goes, and so does anyone once the game is
        over; a player is asked first, and their seat waits for them (a bot plays it after
        a while)."""
        if not self._seated() or (self._game_over() and self.rematch is None):
            self.session.leave()  # nothing left to come back to
            return

        def answered(answer: bool | None) -> None:
            if answer:
                self.session.leave()

        self.app.push_screen(Confirm("Leave the game for the lobby? Your seat is kept: "
                                     "come back to it from the lobby (a bot plays it "
                                     "while you are away).", "Yes, leave"), answered)

    def action_log_page(self, direction: int) -> None:
        """A page of the log back (-1) or forward (1), a line kept from the last page."""
        self._log.scroll_page(direction)

    def action_board(self) -> None:
        self.set_focus(self._grid)

    def action_end_game(self) -> None:
        def answered(answer: bool | None) -> None:
            if answer:
                self._do(self.session.end_game)

        self.app.push_screen(Confirm("End the game now, for everyone at the table?",
                                     "Yes, end it"), answered)

    def action_remove_player(self) -> None:
        """The host picks a person (not a bot, not themselves), confirms, and a bot plays
        that seat to the end of the game; the person goes back to the lobby."""
        view = self.view
        if view is None:
            return
        people = [(i, s.name) for i, s in enumerate(view.seats)
                  if not s.is_bot and i != view.my_seat]
        if not people:
            self.notify("nobody else to remove: the other seats are bots", markup=False)
            return

        def chosen(k: int | None) -> None:
            if k is None:
                return
            seat, name = people[k]

            def answered(answer: bool | None) -> None:
                if answer:
                    self._do(self.session.remove_seat, seat)

            self.app.push_screen(Confirm(f"Remove {name} from the game? A bot plays their "
                                         "seat, and they go back to the lobby.",
                                         "Yes, remove"), answered)

        self.app.push_screen(Choose("Remove whom from the game? (a bot plays their seat)",
                                    [name for _, name in people]), chosen)

    # -- inputs ------------------------------------------------------------------------------

    @on(Input.Submitted, "#chat-input")
    def send_chat(self, event: Input.Submitted) -> None:
        """Send the line; the chat keeps the keys, as every chat does, so that whatever is
        typed next, however fast, is text ("nice one", Enter, "so what" never shouts
        Stop!). Esc gives the keys back to the board, and the key bar says where they go.
        A line the table refuses (the lead while picking) is cleared and the reason
        shown. Enter on an empty line gives the keys back to the board too (the line
        said nothing: the player is done typing), and at the round's summary it is what
        the summary asks for, wherever the keys are: ready for the next round."""
        if event.value.strip():
            self._do(self.session.chat, event.value)
        else:
            if self._ready_to_go_on() or self._game_over():
                self.action_next_round()
            self.set_focus(self._grid)
        event.input.value = ""

    def _game_over(self) -> bool:
        """The game ended as this screen showed it: the last round's summary is up."""
        game = self.game
        return game is not None and game.phase is Phase.GAME_OVER

    def _ready_to_go_on(self) -> bool:
        """The round's points are up and this seat has not said it is ready."""
        view, game = self.view, self.game
        return (game is not None and view is not None and game.phase is Phase.ROUND_OVER
                and view.my_seat is not None and view.my_seat not in view.ready)

    @on(Input.Submitted, "#plan")
    def reveal(self, event: Input.Submitted) -> None:
        game, view = self.game, self.view
        if game is None or view is None:
            return
        if view.my_seat is None:  # a guest's seat code, to sit back down
            if self._do(self.session.reclaim, view.code, event.value):
                event.input.value = ""
            return
        if self._plan_moment == turn_text.PLAN_AHEAD:
            self.notify("Your plan is kept here: Enter reveals it when your turn comes.",
                        markup=False)
            return
        command = self.session.lead_reveal if game.is_lead else self.session.reveal
        if self._do(command, event.value):
            event.input.value = ""
