"""The SSH listener: authentication, what a connection may ask for, and every live session.

Build one with :func:`start_server`; it returns a :class:`GameServer` that knows its port,
its host key fingerprint and its sessions, and that shuts down gracefully with
:meth:`GameServer.close`.

A connection may open sessions (a shell, or ``ssh -t host CODE``) and nothing else: no
SFTP or SCP, no port, agent or X11 forwarding. Environment variables a client sends are
never read: the terminal type comes from the PTY request only.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import os
import socket
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import asyncssh

from server import gc_tuning
from server.access_log import auth_failed, connection_line
from server.admission import AppSlots
from server.algorithms import algorithm_options
from server.app_guard import TaskFactory, configure_process
from server.auth import AccessPolicy, Identity, fingerprint
from server.context import AppFactory
from server.gate import BANNED, BLOCKED, GUESTS_FULL, NO_SESSION, ConnectionGate, network_of
from server.host_keys import DEFAULT_HOST_KEY, load_or_create_host_key
from server.limits import ConnectionLimits, SessionLimits
from server.session import NEEDS_TERMINAL, NO_FILES, NOT_A_CODE, SERVER_FULL, GameSession

log = logging.getLogger(__name__)

RESTARTING = "The Mission Impractical server is restarting. Reconnect in a minute to carry on."
REFUSAL_REASONS = {NEEDS_TERMINAL: "no terminal", SERVER_FULL: "server full",
                   NOT_A_CODE: "not a table code", GUESTS_FULL: "guests from the network",
                   NO_FILES: "no file transfer"}
"""What the operator's log says for each refusal a player is shown."""
SERVER_VERSION = "MissionImpractical_0.1"
FORWARDING_OFF = "Mission Impractical forwards no ports: port forwarding is off on this server"


@dataclass(frozen=True)
class ServerConfig:
    """Everything :func:`start_server` needs besides the app factory."""

    host: str = ""
    """Address to listen on; ``""`` is every address."""
    port: int = 2222
    """Port to listen on; 0 picks a free one (see :attr:`GameServer.port`)."""
    host_key_path: Path = DEFAULT_HOST_KEY
    access: AccessPolicy = field(default_factory=AccessPolicy)
    limits: SessionLimits = field(default_factory=SessionLimits)
    connection_limits: ConnectionLimits = field(default_factory=ConnectionLimits)
    """Per-address limits before and after login (see :class:`ConnectionGate`)."""
    max_sessions: int = 300
    """Sessions at once, across all connections."""
    sessions_per_connection: int = 4
    """Sessions at once on one connection (``ssh`` opens one; multiplexing may open more)."""
    login_timeout_s: float = 15.0
    keepalive_interval_s: float = 15.0
    keepalive_count_max: int = 4
    color_system: str = "truecolor"
    invite: str | Callable[[], str] = "ssh -t HOST"
    """The command friends type to join (``ssh -t -p 2222 game.example.com``), or what
    says it once the server listens (with port 0 the port is known only then): told to a
    client that sent a command instead of a table code."""


class HostSide(Protocol):
    """What the server asks and tells whoever runs it: who is kept out, who came and went.
    ``mission-impractical serve`` passes :class:`server.admin.control.HostControl` (bans,
    kicks, the record of who is connected); :class:`NoHostSide` otherwise."""

    def ban_on(self, peer: str, player_id: str | None) -> str | None:
        """The ban that keeps this client (``address:port``, and once known, its player
        id) out, for the log; or None."""
        ...

    def session_began(self, session: GameSession) -> None: ...

    def session_ended(self, session: GameSession) -> None: ...

    def known_player(self, player_id: str) -> bool:
        """Has ``player_id`` (``key:SHA256:...``) played here before? Such players may
        take the places kept for known keys."""
        ...


class NoHostSide:
    """Nobody banned, nothing recorded: a server built from code (tests, benches)."""

    def ban_on(self, peer: str, player_id: str | None) -> str | None:
        return None

    def session_began(self, session: GameSession) -> None:
        pass

    def session_ended(self, session: GameSession) -> None:
        pass

    def known_player(self, player_id: str) -> bool:
        return False


class _Connection(asyncssh.SSHServer):
    """One client connection: authenticates it and opens its sessions."""

    def __init__(self, game: GameServer) -> None:
        self._game = game
        self._identity = Identity()
        self._conn: asyncssh.SSHServerConnection | None = None
        self._peer = "?"
        self.address = "?"
        """The client's address, the unit of every per-source limit."""
        self._since = time.monotonic()
        self._open: set[GameSession] = set()
        """Sessions asked for on this connection whose channels are still open."""
        self._played = False
        self._refusals: dict[str, None] = {}
        """Why sessions of this connection ran no game (a few, in order), for the log."""
        self._refusal = "left before logging in"
        """Why the connection ended without a game, for the operator's log."""
        self._admitted = self._logged_in = False
        self._idle_timer: asyncio.TimerHandle | None = None

    def connection_made(self, conn: asyncssh.SSHServerConnection) -> None:
        self._conn = conn
        peer = conn.get_extra_info("peername") or ("?", 0)
        self._peer = f"{peer[0]}:{peer[1]}"
        self.address = str(peer[0])
        self._game.connections.add(conn)
        refusal = self._game.gate.connection_opened(self.address, self, self._evict)
        if refusal is not None:  # before the handshake there is no way to say why
            log.info("%s: refused before login: %s", self._peer, refusal)
            asyncio.get_running_loop().call_soon(conn.abort)
            return
        self._admitted = True

    def connection_lost(self, exc: Exception | None) -> None:
        if self._conn is not None:
            self._game.connections.discard(self._conn)
            # gone: nothing more to close, and a session that ends after this (its app
            # takes a moment) arms no timer that would hold it, through this connection
            self._conn = None
        if self._idle_timer is not None:
            self._idle_timer.cancel()
        if self._admitted:
            self._admitted = False
            self._game.gate.connection_closed(self.address, self._logged_in, self)
        self._log_outcome()

    def _log_outcome(self) -> None:
        """The connection's one closing line in the operator's log."""
        key = self._identity.key if self._logged_in else None
        for session in self._open:
            self._note(session)
        # a session refused before it started stays among those opening until the next
        # session asked for: with its connection, channel and ciphers (27 after a flood)
        self._game.opening.difference_update(self._open)
        self._open.clear()
        if self._played:
            connection_line("left", self._peer, self._identity.username, key,
                            seconds=time.monotonic() - self._since)
            return
        connection_line("refused", self._peer, self._identity.username, key,
                        authenticated=self._logged_in,
                        reason=", ".join(self._refusals) or self._refusal)

    def _note(self, session: GameSession) -> None:
        """Remember what became of one session, for the connection's closing line."""
        if session.terminal is not None:
            self._played = True
        elif len(self._refusals) < 4:
            refusal = session.refusal or ""
            self._refusals[REFUSAL_REASONS.get(refusal, refusal or "no session")] = None

    def _sessions_open(self) -> int:
        """Sessions asked for on this connection and not closed yet, started or not."""
        for session in [s for s in self._open if s.closed]:
            self._note(session)
            self._open.discard(session)
        return len(self._open)

    def _evict(self) -> None:
        """Give up this connection's place among those logging in (the gate has already
        counted it gone): a fairer claim needs it."""
        self._admitted = False
        self._refusal = "evicted: others waited to log in"
        if self._conn is not None:
            self._conn.abort()

    def hang_up(self) -> None:
        """Disconnect this client (after a kick or a ban)."""
        if self._conn is not None:
            self._conn.close()

    def _keep_out(self, player_id: str | None) -> bool:
        """Disconnect a banned client with a short message; True if it was."""
        ban = self._game.host.ban_on(self._peer, player_id)
        if ban is None or self._conn is None:
            return False
        self._refusal = f"banned ({ban})"
        self._conn.disconnect(asyncssh.DISC_HOST_NOT_ALLOWED_TO_CONNECT, BANNED)
        return True

    def auth_completed(self) -> None:
        self._logged_in = True
        self._refusal = "no session"
        refusal = self._game.gate.logged_in(self.address, self)
        if refusal is not None:
            self._refusal = refusal
            self._disconnect(asyncssh.DISC_TOO_MANY_CONNECTIONS, refusal)
        else:
            self.sessions_changed()

    def sessions_changed(self) -> None:
        """A session of this connection ended (or none began yet): one that keeps none
        open for ``session_wait_s`` is closed."""
        if self._idle_timer is None and self._conn is not None:
            wait = self._game.gate.limits.session_wait_s
            # A context of its own: called as a session ends, from the task that ran its
            # app, whose context still names the app; a timer holding that context would
            # keep the whole app alive until it fires.
            self._idle_timer = asyncio.get_running_loop().call_later(
                wait, self._idle_check, context=contextvars.Context())

    def _idle_check(self) -> None:
        self._idle_timer = None
        if not any(session.connection is self for session in self._game.sessions):
            log.info("%s: logged in but opened no game; closed", self._peer)
            self._disconnect(asyncssh.DISC_SERVICE_NOT_AVAILABLE, NO_SESSION)

    def _disconnect(self, code: int, reason: str) -> None:
        if self._conn is not None:
            self._conn.disconnect(code, reason)

    async def _check_password(self, attempt: str) -> bool:
        """Check one password, in its address's turn and after its address's wait.

        A client that sends its next guess before the answer to the last has its last
        one withdrawn by asyncssh (the task is cancelled): a guess is checked only once it
        has waited, so the waits bound the guesses answered, however fast they come and
        over however many connections from one address. A block is looked at before each
        check too. A wrong password is logged (in the stable format fail2ban reads)."""
        gate = self._game.gate
        async with gate.password_turn(self.address):
            await asyncio.sleep(gate.wait_before_check(self.address))
            if not gate.blocked(self.address):
                if self._game.config.access.password_ok(attempt):
                    self._identity.proved_nothing()
                    return True
                auth_failed(self._peer, self._identity.username, "wrong password")
                self._refusal = "wrong password"
                gate.login_failed(self.address)
            if gate.blocked(self.address):
                log.warning("%s: address blocked for %.0f s after %d failed logins",
                            self._peer, gate.limits.block_s, gate.failures(self.address))
                self._refusal = "blocked after failed logins"
                self._disconnect(asyncssh.DISC_NO_MORE_AUTH_METHODS_AVAILABLE, BLOCKED)
            return False

    def begin_auth(self, username: str) -> bool:
        self._identity.username = username
        self._game.gate.heard(self.address, self)
        if self._keep_out(None):
            return True
        refusal = self._game.gate.may_log_in(self.address)
        if refusal is not None:
            log.info("%s: refused at login: %s", self._peer, refusal)
            self._refusal = refusal
            self._disconnect(asyncssh.DISC_TOO_MANY_CONNECTIONS, refusal)
        return True

    def public_key_auth_supported(self) -> bool:
        return self._game.config.access.keys_accepted

    def validate_public_key(self, username: str, key: asyncssh.SSHKey) -> bool:
        key_fingerprint = fingerprint(key)
        if self._keep_out(f"key:{key_fingerprint}"):
            return False
        if not self._game.config.access.key_allowed(key_fingerprint):
            self._refusal = "key not allowed"
            return False
        self._identity.proved_key(key_fingerprint)
        return True

    def kbdint_auth_supported(self) -> bool:
        access = self._game.config.access
        return access.open_to_guests or access.password is not None

    def get_kbdint_challenge(
        self, username: str, lang: str, submethods: str
    ) -> bool | tuple[str, str, str, list[tuple[str, bool]]]:
        if self._game.config.access.open_to_guests:
            self._identity.proved_nothing()
            return True
        return ("Mission Impractical", "", "", [("Password: ", False)])

    async def validate_kbdint_response(self, username: str, responses: list[str]) -> bool:
        return await self._check_password(responses[0] if len(responses) == 1 else "")

    def password_auth_supported(self) -> bool:
        return self._game.config.access.password is not None

    async def validate_password(self, username: str, password: str) -> bool:
        return await self._check_password(password)

    def session_requested(self) -> GameSession | bool:
        if self._sessions_open() >= self._game.config.sessions_per_connection:
            log.info("%s: refused another session on the same connection", self._peer)
            return False
        session = GameSession(self._game, self._identity.player(self.address), self._peer,
                              connection=self)
        self._open.add(session)
        opening = self._game.opening
        opening.difference_update([s for s in opening if s.started or s.closed])
        open_here = sum(1 for s in (*self._game.sessions, *opening) if s.address == self.address)
        opening.add(session)
        refusal = self._game.gate.session_opened(self.address, open_here)
        if refusal is not None:
            log.info("%s: refused a session: %s", self._peer, refusal)
            session.refuse_with(refusal)
        return session

    def connection_requested(self, dest_host: str, dest_port: int, orig_host: str,
                             orig_port: int) -> bool:
        """``ssh -L`` and ``-D``: refused, saying why (asyncssh's own refusal reads
        "connect failed: Connection refused", as if the far end were down)."""
        raise asyncssh.ChannelOpenError(asyncssh.OPEN_ADMINISTRATIVELY_PROHIBITED,
                                        FORWARDING_OFF)

    # server_requested (-R), unix_*, tun/tap: asyncssh's defaults refuse them all.


class GameServer:
    """A running server: its listener, connections and sessions."""

    def __init__(self, app_factory: AppFactory, config: ServerConfig, host_key: Any,
                 host_side: HostSide) -> None:
        self.app_factory = app_factory
        self.config = config
        self.limits = config.limits
        self.host_key_fingerprint: str = fingerprint(host_key)
        self.sessions: set[GameSession] = set()
        self.opening: set[GameSession] = set()
        """Sessions asked for and not started yet (nor closed): counted per address too."""
        self.connections: set[asyncssh.SSHServerConnection] = set()
        self.gate = ConnectionGate(config.connection_limits)
        self.app_slots = AppSlots(config.connection_limits)
        self.task_factory: TaskFactory = asyncio.get_running_loop().get_task_factory()
        self._host_key = host_key
        self._listeners: list[asyncssh.SSHAcceptor] = []
        self._closing = False
        self.host = host_side
        """Bans and the record of who is connected (see :class:`HostSide`)."""
        self.when_empty: Callable[[float], object] | None = None
        """Told the RSS (MB) once everyone has left and the memory is collected."""

    async def _listen(self, sockets: Sequence[socket.socket] = ()) -> None:
        """Listen on ``config.host`` and ``config.port``, or on ``sockets`` already
        listening (handed over by the process this one replaced: :mod:`server.recycle`)."""
        self._listeners = [await self._acceptor(sock) for sock in sockets] or \
            [await self._acceptor(None)]

    async def _acceptor(self, sock: socket.socket | None) -> asyncssh.SSHAcceptor:
        config = self.config
        return await asyncssh.listen(
            config.host if sock is None else "",
            config.port if sock is None else (),
            sock=sock,
            server_factory=lambda: _Connection(self),
            server_host_keys=[self._host_key],
            server_version=SERVER_VERSION,
            config=None,
            encoding=None,
            line_editor=False,
            allow_pty=True,
            agent_forwarding=False,
            x11_forwarding=False,
            allow_scp=False,
            sftp_factory=None,
            host_based_auth=False,
            gss_kex=False,
            gss_auth=False,
            login_timeout=config.login_timeout_s,
            keepalive_interval=config.keepalive_interval_s,
            keepalive_count_max=config.keepalive_count_max,
            reuse_address=True,
            **algorithm_options(),
        )

    @property
    def port(self) -> int:
        """The port the server listens on."""
        return self._listeners[0].get_port()

    @property
    def addresses(self) -> list[tuple[str, int]]:
        """``(address, port)`` of each listening socket."""
        return [(addr[0], addr[1]) for listener in self._listeners
                for addr in listener.get_addresses()]

    def keep_sockets(self) -> list[socket.socket]:
        """Copies of the listening sockets, still listening once this server has closed:
        a player who connects meanwhile waits in the kernel's queue for whoever takes
        them over (:mod:`server.recycle`), instead of being refused."""
        return [socket.socket(fileno=os.dup(sock.fileno()))
                for listener in self._listeners for sock in listener.sockets]

    @property
    def live_apps(self) -> int:
        """Sessions whose app is running right now."""
        return sum(1 for session in self.sessions if session.app is not None)

    # -- SessionHost -----------------------------------------------------------------------

    def room_for(self, session: GameSession) -> str | None:
        """The server's places: ``max_sessions`` in all, the last few kept for known keys,
        and guests from one network capped (see :class:`ConnectionLimits`)."""
        config, limits = self.config, self.gate.limits
        if self._closing or len(self.sessions) >= config.max_sessions:
            return SERVER_FULL
        player = session.player.id
        kept = min(limits.places_for_known_keys, config.max_sessions // 10)
        if len(self.sessions) >= config.max_sessions - kept and not self._known(player):
            return SERVER_FULL
        if player.startswith("guest:"):
            network = network_of(session.address)
            guests = sum(1 for s in self.sessions if s.player.id.startswith("guest:")
                         and network_of(s.address) == network)
            if guests >= limits.guest_sessions_per_network:
                self.gate.guest_refused(session.address)
                return GUESTS_FULL
        return None

    def _known(self, player_id: str) -> bool:
        if not player_id.startswith("key:"):
            return False
        allowed = self.config.access.allowed_keys
        return (allowed is not None and player_id[4:] in allowed) or \
            self.host.known_player(player_id)

    def invite(self) -> str:
        invite = self.config.invite
        return invite if isinstance(invite, str) else invite()

    def session_began(self, session: GameSession) -> None:
        self.opening.discard(session)
        self.sessions.add(session)
        gc_tuning.follow_load(len(self.sessions))
        key = session.player.id[4:] if session.player.id.startswith("key:") else None
        connection_line("joined", session.peer, session.player.name, key)
        self.host.session_began(session)

    def session_ended(self, session: GameSession) -> None:
        self.sessions.discard(session)
        gc_tuning.follow_load(len(self.sessions))
        self.host.session_ended(session)
        log.info("%s: %s left (%d playing)", session.peer, session.player.id, len(self.sessions))
        if isinstance(session.connection, _Connection):
            session.connection.sessions_changed()
        if not self.sessions and not self._closing:
            gc_tuning.collect_when_empty(lambda: not self.sessions and not self._closing,
                                         then=self.when_empty)

    def is_empty(self) -> bool:
        """Nobody playing, nobody logging in or asking for a session, not closing."""
        return not (self.sessions or self.opening or self.connections or self._closing)

    # -- shutdown --------------------------------------------------------------------------

    async def close(self, message: str = RESTARTING, timeout: float = 5.0) -> None:
        """Stop listening, end every session showing ``message``, close every connection."""
        self._closing = True
        for listener in self._listeners:
            listener.close()
        tasks = [session.task for session in self.sessions if session.task is not None]
        for session in list(self.sessions):
            session.stop(message)
        if tasks:
            await asyncio.wait(tasks, timeout=timeout)
        # Each session has said goodbye and closed its channel; clients hang up on their
        # own once they have read it. Whoever has not, after a moment, is disconnected.
        waits = [asyncio.ensure_future(conn.wait_closed()) for conn in self.connections]
        if waits:
            _, pending = await asyncio.wait(waits, timeout=self.limits.hangup_wait_s)
            for conn in list(self.connections):
                conn.close()
            if pending:
                await asyncio.wait(pending, timeout=timeout)
        for listener in self._listeners:
            await asyncio.wait_for(listener.wait_closed(), timeout)


async def start_server(app_factory: AppFactory, config: ServerConfig | None = None,
                       host_side: HostSide | None = None,
                       sockets: Sequence[socket.socket] = ()) -> GameServer:
    """Listen for players (on ``sockets`` when given: already bound and listening);
    each session runs ``app_factory(context)`` on this loop, and ``host_side`` hears of
    every session and keeps banned clients out."""
    config = config or ServerConfig()
    configure_process(config.color_system)
    host_key = load_or_create_host_key(config.host_key_path)
    server = GameServer(app_factory, config, host_key, host_side or NoHostSide())
    await server._listen(sockets)
    return server
