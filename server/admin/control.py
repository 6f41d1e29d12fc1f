"""The running server's side of the host's tools: who is connected, bans and kicks.

The server records each session in the database while it runs (``status`` reads them from
another process) and looks at the ``bans`` and ``kicks`` tables every ``poll_s`` seconds:
a new ban ends the sessions it names and keeps them out from then on, a kick ends the
sessions it names once. Both work on the running server, with no restart. Without a
database (tests, benches) nobody is banned and nothing is recorded.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import time
from collections.abc import Callable, Iterable
from typing import Any, Protocol

from server.access_log import split_peer
from server.admin import db as host_db
from server.gate import BANNED

log = logging.getLogger(__name__)

KICKED = "The host has disconnected you."
HANG_UP_AFTER_S = 2.0  # after the goodbye, a client that stays is disconnected


class LiveSession(Protocol):
    """What this module needs of a :class:`server.session.GameSession`."""

    peer: str
    connection: Any  # the SSH connection object, with hang_up()

    @property
    def player(self) -> Any: ...  # .id, .name

    @property
    def where(self) -> tuple[str | None, bool]: ...  # (table code or None, seated)

    def stop(self, message: str | None) -> None: ...


class HostControl:
    """Bans, kicks and the record of live sessions for one server."""

    def __init__(self, clock: Callable[[], float] = time.time,
                 seated: Callable[[str], bool] = lambda player_id: False) -> None:
        self._db: sqlite3.Connection | None = None
        self._clock = clock
        self._seated = seated
        self._rows: dict[int, int] = {}  # id(session) -> live_sessions row
        self._shown: dict[int, tuple[Any, ...]] = {}
        """id(session) -> (player id, name, table code, seated), as the database has it"""
        self._bans: list[str] = []
        self._task: asyncio.Task[None] | None = None

    def attach(self, db: sqlite3.Connection, sessions: Callable[[], Iterable[LiveSession]],
               poll_s: float = 1.0) -> None:
        """Use ``db`` (the journal's connection, on this loop); poll it every ``poll_s``.
        ``sessions`` lists the server's live sessions."""
        self._db = db
        self._write(host_db.clear_sessions)
        self.poll(sessions())
        self._task = asyncio.get_running_loop().create_task(self._run(sessions, poll_s))

    def close(self) -> None:
        """Stop polling; the database says nobody is connected."""
        if self._task is not None:
            self._task.cancel()
            self._task = None
        if self._db is not None:
            self._write(host_db.clear_sessions)
            self._db = None

    # -- asked by the SSH server -------------------------------------------------------------

    def ban_on(self, peer: str, player_id: str | None) -> str | None:
        """The ban that keeps this client out, or None."""
        address, _ = split_peer(peer)
        return next((t for t in self._bans if host_db.matches(t, address, player_id)), None)

    def known_player(self, player_id: str) -> bool:
        """Has ``player_id`` finished a game here, or a seat at an open table (``seated``,
        from the hub)?"""
        if self._seated(player_id):
            return True
        if self._db is None:
            return False
        try:
            return self._db.execute("SELECT 1 FROM game_players WHERE player_id = ? LIMIT 1",
                                    (player_id,)).fetchone() is not None
        except sqlite3.Error:
            return False

    def session_began(self, session: LiveSession) -> None:
        if self._db is not None:
            row = self._write(host_db.add_session, split_peer(session.peer)[0],
                              session.player.id, session.player.name, self._clock())
            if row is not None:
                self._rows[id(session)] = row
                self._shown[id(session)] = (session.player.id, session.player.name, None,
                                            False)

    def session_ended(self, session: LiveSession) -> None:
        self._shown.pop(id(session), None)
        row = self._rows.pop(id(session), None)
        if row is not None and self._db is not None:
            self._write(host_db.remove_session, row)

    # -- polling -----------------------------------------------------------------------------

    async def _run(self, sessions: Callable[[], Iterable[LiveSession]], poll_s: float) -> None:
        while True:
            await asyncio.sleep(poll_s)
            try:
                self.poll(sessions())
            except sqlite3.Error as error:  # busy or locked by a host tool: next time
                log.warning("could not read bans and kicks: %s", error)

    def poll(self, sessions: Iterable[LiveSession]) -> None:
        """Read bans and kicks; end the sessions they name."""
        if self._db is None:
            return
        live = list(sessions)
        self._follow_identities(live)
        bans = [ban.target for ban in host_db.bans(self._db)]
        for target in set(bans) - set(self._bans):
            if ended := self._end(live, target, BANNED):
                log.info("ban on %s: %d sessions ended", target, ended)
        self._bans = bans
        for kick, target in host_db.pending_kicks(self._db):
            ended = self._end(live, target, KICKED)
            self._write(host_db.kick_done, kick, ended, self._clock())
            log.info("kick of %s: %d sessions ended", target, ended)

    def _follow_identities(self, live: list[LiveSession]) -> None:
        """A guest who took their seat back is that seat's guest, names change, people
        sit, watch and go back to the lobby: the record of who is connected follows. A
        guest whose seat's identity is banned is sent away (a seat code does not get
        round a ban)."""
        for session in live:
            key = id(session)
            now = (session.player.id, session.player.name, *session.where)
            shown = self._shown.get(key)
            if key in self._rows and shown != now:
                self._write(host_db.update_session, self._rows[key], *now)
                self._shown[key] = now
                if shown is not None and shown[0] != now[0] and \
                        self.ban_on(session.peer, now[0]) is not None:
                    self._end([session], now[0], BANNED)

    def _end(self, live: list[LiveSession], target: str, message: str) -> int:
        ended = 0
        for session in live:
            if host_db.matches(target, split_peer(session.peer)[0], session.player.id):
                session.stop(message)
                hang_up = getattr(session.connection, "hang_up", None)
                if hang_up is not None:
                    asyncio.get_running_loop().call_later(HANG_UP_AFTER_S, hang_up)
                ended += 1
        return ended

    def _write(self, action: Callable[..., Any], *args: Any) -> Any:
        assert self._db is not None
        try:
            return action(self._db, *args)
        except sqlite3.Error as error:  # the game goes on; status is out of date
            log.warning("could not update the host's records: %s", error)
            return None
