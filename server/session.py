"""One SSH session: a PTY is required, the channel feeds one app, and the app's end is clean.

A session either runs the app (``ssh host`` or ``ssh -t host CODE``) or says in one line
why not and closes. Whatever happens inside the app, including a crash, stays inside this
session: the player's terminal is restored, they are told, and nobody else notices.
"""

from __future__ import annotations

import asyncio
import logging
import re
from typing import Any, Protocol

import asyncssh
from textual.app import App

from engine.identity import Player
from server.access_log import quoted
from server.admission import AppSlots
from server.app_guard import (
    ExitNotes,
    TaskFactory,
    crash_of,
    guard_app,
    release_shared_caches,
    run_app,
)
from server.colours import cannot_draw, colour_depth
from server.context import AppFactory, SessionContext
from server.environment import bound_environment
from server.limits import SessionLimits
from server.terminal import SessionTerminal

log = logging.getLogger(__name__)

NEEDS_TERMINAL = "Mission Impractical needs a terminal: use ssh -t"
NOT_A_CODE = "Mission Impractical runs no commands."
"""A command that is no table code; the player reads :func:`not_a_code`."""
SERVER_FULL = "Mission Impractical is full right now. Try again in a little while."
NO_FILES = ("Mission Impractical transfers no files (no sftp, no scp): it is a game. "
            "Play it with: ssh -t HOST")
IN_LINE = "Mission Impractical is starting other players' games; yours is next in line..."
CRASHED = (
    "Sorry: the game hit a problem on the server and your session had to close.\n"
    "Everyone else is still playing. Reconnect to carry on."
)
_JOIN_CODE = re.compile(r"[A-Za-z]{4}")
_REPLAY = re.compile(r"replay\s+([A-Za-z]{4})(?:\s+([1-9][0-9]{0,5}))?", re.IGNORECASE)


def not_a_code(invite: str) -> str:
    """What a client that sent a command is told: the command that joins a table on this
    server (``invite``, such as ``ssh -t -p 2222 game.example.com``), whole."""
    return (f"{NOT_A_CODE} To join a table: {invite} CODE (CODE is the table's 4 letters)."
            f" To watch its last game again: {invite} replay CODE.")


def parse_join_code(command: str | None) -> tuple[bool, str | None]:
    """``(ok, code)`` for the command string of ``ssh -t host COMMAND``.

    No command is fine (no code); four letters are a table code; anything else is refused.
    """
    if command is None or not command.strip():
        return True, None
    word = command.strip()
    if _JOIN_CODE.fullmatch(word):
        return True, word.upper()
    return False, None


def parse_replay(command: str | None) -> tuple[str, int | None] | None:
    """``(CODE, N)`` for ``ssh -t host replay CODE [N]`` (N: the table's game number, None
    for its last finished game), or None when the command asks for no replay."""
    match = _REPLAY.fullmatch(command.strip()) if command else None
    if match is None:
        return None
    return match.group(1).upper(), int(match.group(2)) if match.group(2) else None


class SessionHost(Protocol):
    """What a session needs from the server that accepted it."""

    app_factory: AppFactory
    limits: SessionLimits
    task_factory: TaskFactory
    app_slots: AppSlots

    def room_for(self, session: GameSession) -> str | None:
        """Why ``session`` finds no place (shown to its player), or None."""
        ...

    def invite(self) -> str: ...  # the command friends type, the table's code after it

    def session_began(self, session: GameSession) -> None: ...

    def session_ended(self, session: GameSession) -> None: ...


class GameSession(asyncssh.SSHServerSession[bytes]):
    """The app for one player, on one SSH channel."""

    def __init__(
        self, host: SessionHost, player: Player, peer: str, connection: object = None
    ) -> None:
        self._login = player
        self.peer = peer
        self.address = peer.rsplit(":", 1)[0]
        """The client's address (``peer`` without the port)."""
        self.connection = connection
        """Whatever opened this session (the server counts sessions per connection)."""
        self.join_code: str | None = None
        self.replay: tuple[str, int | None] | None = None
        """``ssh -t host replay CODE [N]``: ``(CODE, N)``, handed to the app factory."""
        self.app: App[Any] | None = None
        self.terminal: SessionTerminal | None = None
        self.task: asyncio.Task[None] | None = None
        self._host = host
        self._chan: asyncssh.SSHServerChannel[bytes] | None = None
        self._term_type: str | None = None
        self._size = (80, 24)
        self._command: str | None = None
        self._lost = False
        self._grace: asyncio.TimerHandle | None = None
        self.refusal: str | None = None
        """What this session was refused with (shown to the player), if it was."""
        self._refused_with: str | None = None
        self.started = False
        """Has the client started the session (shell or command), refused or not?"""

    @property
    def player(self) -> Player:
        """Who plays here: who logged in, or who they became since (a guest who took their
        seat back is that seat's guest again; a new name). Read from the game's session
        when the app has one (the host's ``status`` shows it)."""
        now = getattr(getattr(self.app, "session", None), "player", None)
        return now if isinstance(now, Player) else self._login

    @property
    def closed(self) -> bool:
        """Has this session's channel closed?"""
        return self._lost

    @property
    def where(self) -> tuple[str | None, bool]:
        """``(table code, seated)``: the table the game's session is at (None: the lobby,
        or no app yet) and whether they sit there or watch (the host's ``status``)."""
        game = getattr(self.app, "session", None)
        table = getattr(game, "table", None)
        if table is None:
            return None, False
        return str(table.code), game.seat is not None  # type: ignore[union-attr]

    def refuse_with(self, reason: str) -> None:
        """Run no app: tell the client ``reason`` in one line once the session starts."""
        self._refused_with = reason

    # -- asyncssh callbacks --------------------------------------------------------------

    def connection_made(self, chan: asyncssh.SSHServerChannel[bytes]) -> None:
        self._chan = chan
        bound_environment(chan, self._host.limits, self._drop_env_flood)

    def pty_requested(
        self, term_type: str, term_size: tuple[int, int, int, int], term_modes: Any
    ) -> bool:
        self._term_type = term_type
        self._size = (term_size[0], term_size[1])
        return True

    def shell_requested(self) -> bool:
        return True

    def exec_requested(self, command: str) -> bool:
        self._command = command
        return True  # accepted so that a refusal can be explained in words

    def subsystem_requested(self, subsystem: str) -> bool:
        log.info("%s: refused subsystem %s", self.peer, quoted(subsystem))
        self._refused_with = NO_FILES  # accepted so that the refusal can be said in words
        return True

    def session_started(self) -> None:
        self.started = True
        refusal = self.refusal = self._refusal()
        if refusal is not None:
            self._refuse(not_a_code(self._host.invite()) if refusal == NOT_A_CODE
                         else refusal)
            return
        assert self._chan is not None and self._term_type is not None
        self.terminal = SessionTerminal(
            self._chan, self._size, self._host.limits, on_stuck=self._drop_stuck_client,
            on_resize_flood=self._drop_resize_flood,
        )
        # The only variables read from the client: whether NO_COLOR is set, and COLORTERM
        # (a terminal that says it shows true colour).
        sent = self._chan.get_environment()
        self.terminal.colours = colour_depth(self._term_type, {
            name: str(sent.get(name, ""))[:20] for name in ("NO_COLOR", "COLORTERM")})
        self._host.session_began(self)
        self.task = asyncio.get_running_loop().create_task(
            self._run(), name=f"session {self.peer} {self.player.id}"
        )

    def data_received(self, data: bytes, datatype: asyncssh.DataType) -> None:
        if self.terminal is not None:
            self.terminal.received(data)

    def terminal_size_changed(
        self, width: int, height: int, pixwidth: int, pixheight: int
    ) -> None:
        self._size = (width, height)
        if self.terminal is not None:
            self.terminal.resized(width, height)

    def eof_received(self) -> bool:
        """The client closed its input (its standard input ran out, or it was told to
        send EOF): the session is over, but the terminal can still be written to. The
        app closes as on its quit key, so its goodbye line (a guest's seat code) reaches
        the terminal before the channel closes; True keeps the channel open until then."""
        app, task = self.app, self.task
        if app is None or task is None or task.done() or self.terminal is None:
            return False
        leave = getattr(app, "leave", None)
        if leave is None:
            self.stop(None)
        else:
            leave()
        return True

    def break_received(self, msec: int) -> bool:
        return False

    def connection_lost(self, exc: Exception | None) -> None:
        self._lost = True
        if self.terminal is not None:
            self.terminal.close()
        self.stop(None)

    # -- lifecycle -----------------------------------------------------------------------

    def _refusal(self) -> str | None:
        """Why this session cannot run the app, or None (and the table code is kept)."""
        if self._refused_with is not None:
            return self._refused_with
        replay = parse_replay(self._command)
        ok, code = (True, None) if replay is not None else parse_join_code(self._command)
        if not ok:
            return NOT_A_CODE
        if self._term_type is None:
            return NEEDS_TERMINAL
        if (reason := cannot_draw(self._term_type)) is not None:
            return reason
        if (full := self._host.room_for(self)) is not None:
            return full
        self.join_code, self.replay = code, replay
        return None

    def _refuse(self, message: str) -> None:
        chan = self._chan
        if chan is None or chan.is_closing():
            return
        newline = "\n" if self._term_type is None else "\r\n"
        chan.write_stderr((message + newline).encode())
        chan.exit(1)

    def _context(self) -> SessionContext:
        assert self.terminal is not None
        return SessionContext(
            player=self._login,
            join_code=self.join_code,
            term_type=self._term_type or "xterm",
            size=self.terminal.size,
            peer=self.peer,
            replay=self.replay,
        )

    async def _run(self) -> None:
        assert self.terminal is not None
        notes: ExitNotes | None = None
        crashed, status = False, 0
        slots = self._host.app_slots
        if not slots.free_now():
            self.terminal.say(IN_LINE)
        slot = await slots.take()
        self.terminal.when_drawn(slot.release)
        try:
            app = self._host.app_factory(self._context())
            notes = guard_app(app, self.terminal, self._host.limits.max_notices)
            self.app = app
            await run_app(app, self._host.task_factory)
            status = app.return_code or 0
            error = crash_of(app)
            if error is not None:
                crashed, status = True, 1
                log.error("%s: app crashed", self.peer, exc_info=error)
        except Exception:
            crashed, status = True, 1
            log.exception("%s: session failed", self.peer)
        finally:
            slot.release()
            self.app = None
            release_shared_caches()
            self._finish(crashed, status, notes)

    def _finish(self, crashed: bool, status: int, notes: ExitNotes | None) -> None:
        """Restore the terminal, say goodbye, close the channel, leave the server's books."""
        terminal, chan = self.terminal, self._chan
        try:
            if self._grace is not None:
                self._grace.cancel()
            if terminal is not None and not self._lost:
                terminal.restore()
                terminal.say(self._goodbye(crashed, notes, terminal.size[0]))
            if terminal is not None:
                terminal.close()
            if chan is not None and not chan.is_closing():
                chan.exit(status)
        finally:
            self._host.session_ended(self)

    @staticmethod
    def _goodbye(crashed: bool, notes: ExitNotes | None, width: int) -> str:
        if crashed:
            return CRASHED
        return notes.as_text(width) if notes is not None else ""

    def stop(self, message: str | None) -> None:
        """End the session: the app exits showing ``message``, or is cancelled if it hangs."""
        app, task = self.app, self.task
        if task is None or task.done():
            return
        if app is not None:
            app.exit(message=message)
        else:
            task.cancel()
        if self._grace is None:
            loop = asyncio.get_running_loop()
            self._grace = loop.call_later(self._host.limits.exit_grace_s, self._cancel_if_running)

    def _cancel_if_running(self) -> None:
        if self.task is not None and not self.task.done():
            log.warning("%s: app did not exit in time; cancelled", self.peer)
            self.task.cancel()

    def _drop_stuck_client(self) -> None:
        log.info("%s: client stopped reading; disconnecting", self.peer)
        self._abort_connection()

    def _drop_resize_flood(self) -> None:
        log.info("%s: window changes beyond %d a second; disconnecting", self.peer,
                 self._host.limits.max_resizes_per_s)
        self._abort_connection()

    def _drop_env_flood(self) -> None:
        log.info("%s: more than %d environment requests; disconnecting", self.peer,
                 self._host.limits.max_env_requests)
        self._abort_connection()

    def _abort_connection(self) -> None:
        if self._chan is not None:
            conn = self._chan.get_extra_info("connection")
            if conn is not None:
                conn.abort()
