"""The books the server keeps per source address: who may connect, log in, open a session.

:class:`ConnectionGate` holds counts, login failures, blocks and session-open budgets per
address, and answers each question with ``None`` (go ahead) or a one-line reason. It has
no network in it and takes its clock as an argument, so every limit is tested directly;
the SSH server asks it at each stage (see :mod:`server.ssh_server`).
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

from server.limits import ConnectionLimits

BUSY = "Mission Impractical is busy with other logins; try again in a moment."
TOO_MANY_LOGINS = "Too many connections logging in from your address; try again in a moment."
BLOCKED = "Too many failed logins from your address; try again later."
TOO_MANY_CONNECTIONS = "Too many connections from your address: close one and try again."
TOO_MANY_SESSIONS = "Too many games open from your address: close one and try again."
TOO_FAST = "Games are being opened too fast from your address: wait a few seconds."
NO_SESSION = "Logged in but no game was opened: closing the connection."
BANNED = "You are banned from this server."


@dataclass
class _Source:
    """One address: what it holds open now and what it has tried lately."""

    logging_in: int = 0
    connected: int = 0
    failures: int = 0
    failures_since: float = 0.0
    blocked_until: float = 0.0
    tokens: float = 0.0
    tokens_at: float = 0.0

    def holds_open(self) -> bool:
        return bool(self.logging_in or self.connected)

    def idle(self, now: float, limits: ConnectionLimits) -> bool:
        """Nothing open, nothing held against it, its session budget full again."""
        refilled = now - self.tokens_at >= (limits.session_burst - self.tokens) * (
            limits.session_interval_s
        )
        return (
            not self.holds_open()
            and self.blocked_until <= now
            and not self.failures
            and refilled
        )


class ConnectionGate:
    """Per-address limits before and after login (see :class:`ConnectionLimits`)."""

    def __init__(
        self, limits: ConnectionLimits, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.limits = limits
        self._clock = clock
        self._sources: OrderedDict[str, _Source] = OrderedDict()
        self.logging_in = 0
        """Connections that have not logged in yet, from every address."""

    def _source(self, address: str) -> _Source:
        source = self._sources.get(address)
        if source is None:
            source = _Source(tokens=self.limits.session_burst, tokens_at=self._clock())
            self._sources[address] = source
            self._forget_some()
        else:
            self._sources.move_to_end(address)
        return source

    def _forget_some(self) -> None:
        """Keep the books bounded: past ``sources_remembered`` addresses, forget the least
        recent ones that hold nothing open (their failures and blocks with them)."""
        excess = len(self._sources) - self.limits.sources_remembered
        for address in list(self._sources):
            if excess <= 0:
                break
            if not self._sources[address].holds_open():
                del self._sources[address]
                excess -= 1

    def _settle(self, address: str) -> None:
        source = self._sources.get(address)
        if source is not None:
            now = self._clock()
            if source.failures and now - source.failures_since > self.limits.auth_failure_window_s:
                source.failures = 0
            if source.idle(now, self.limits):
                del self._sources[address]

    # -- before login ----------------------------------------------------------------------

    def connection_opened(self, address: str) -> str | None:
        """A client connected; ``None`` lets it log in (it then counts until it closes)."""
        limits, now = self.limits, self._clock()
        source = self._sources.get(address)
        if source is not None and source.blocked_until > now:
            return BLOCKED
        if self.logging_in >= limits.max_unauthenticated:
            return BUSY
        source = self._source(address)
        if source.logging_in >= limits.max_unauthenticated_per_source:
            return TOO_MANY_LOGINS
        source.logging_in += 1
        self.logging_in += 1
        return None

    def login_failed(self, address: str) -> float:
        """A wrong password: how long to make the client wait for the answer.

        Enough failures block the address (:meth:`blocked` says so from then on).
        """
        limits, now = self.limits, self._clock()
        source = self._source(address)
        if not source.failures or now - source.failures_since > limits.auth_failure_window_s:
            source.failures, source.failures_since = 0, now
        source.failures += 1
        if source.failures >= limits.auth_failures_to_block:
            source.blocked_until = now + limits.block_s
        return min(limits.auth_delay_s * 2 ** (source.failures - 1), limits.auth_delay_max_s)

    def failures(self, address: str) -> int:
        """Recent failed logins from ``address``."""
        source = self._sources.get(address)
        return source.failures if source is not None else 0

    def blocked(self, address: str) -> bool:
        """Is ``address`` turned away for now?"""
        source = self._sources.get(address)
        return source is not None and source.blocked_until > self._clock()

    # -- after login -----------------------------------------------------------------------

    def may_log_in(self, address: str) -> str | None:
        """Asked as a client starts to log in: a reason if its address is at its cap
        (said before login, so that the client shows it)."""
        source = self._sources.get(address)
        if source is not None and source.connected >= self.limits.max_connections_per_source:
            return TOO_MANY_CONNECTIONS
        return None

    def logged_in(self, address: str) -> str | None:
        """A connection from ``address`` logged in; a reason if it is one too many (it
        counts as connected either way, until :meth:`connection_closed`)."""
        source = self._source(address)
        if source.logging_in:
            source.logging_in -= 1
            self.logging_in -= 1
        source.connected += 1
        if source.connected > self.limits.max_connections_per_source:
            return TOO_MANY_CONNECTIONS
        return None

    def connection_closed(self, address: str, logged_in: bool) -> None:
        """A connection admitted by :meth:`connection_opened` has gone."""
        source = self._sources.get(address)
        if source is None:
            return
        if logged_in:
            source.connected = max(0, source.connected - 1)
        elif source.logging_in:
            source.logging_in -= 1
            self.logging_in -= 1
        self._settle(address)

    def session_opened(self, address: str, open_now: int) -> str | None:
        """``address``, with ``open_now`` sessions running, wants one more: ``None`` if it
        may have it (and its budget is spent), or why not."""
        limits, now = self.limits, self._clock()
        source = self._source(address)
        if open_now >= limits.max_sessions_per_source:
            return TOO_MANY_SESSIONS
        earned = (now - source.tokens_at) / limits.session_interval_s
        source.tokens = min(limits.session_burst, source.tokens + earned)
        source.tokens_at = now
        if source.tokens < 1:
            return TOO_FAST
        source.tokens -= 1
        return None

    @property
    def sources(self) -> int:
        """Addresses the books hold now."""
        return len(self._sources)
