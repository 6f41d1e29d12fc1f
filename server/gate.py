"""The books the server keeps per source address: who may connect, log in, open a session.

:class:`ConnectionGate` holds counts, login failures, blocks and session-open budgets per
address, and answers each question with ``None`` (go ahead) or a one-line reason. It has
no network in it and takes its clock as an argument, so every limit is tested directly;
the SSH server asks it at each stage (see :mod:`server.ssh_server`).
"""

from __future__ import annotations

import asyncio
import ipaddress
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache

from server.limits import ConnectionLimits

BUSY = "Mission Impractical is busy with other logins; try again in a moment."
TOO_MANY_LOGINS = "Too many connections logging in from your address; try again in a moment."
BLOCKED = "Too many failed logins from your address; try again later."
TOO_MANY_CONNECTIONS = "Too many connections from your address: close one and try again."
TOO_MANY_SESSIONS = "Too many games open from your address: close one and try again."
TOO_FAST = "Games are being opened too fast from your address: wait a few seconds."
NO_SESSION = "Logged in but no game was opened: closing the connection."
BANNED = "You are banned from this server."
GUESTS_FULL = ("Mission Impractical has no more room for guests from your network right now: "
               "try again in a little while, or connect with an SSH key.")


@lru_cache(maxsize=4096)
def network_of(address: str) -> str:
    """The network ``address`` is counted in for guests: its /24 (IPv4) or /64 (IPv6)."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    prefix = 24 if ip.version == 4 else 64
    return str(ipaddress.ip_network(f"{ip}/{prefix}", strict=False))


@dataclass(eq=False)
class _Pending:
    """One connection still logging in."""

    key: object
    since: float
    evict: Callable[[], None] | None
    heard: bool = False
    """Has the client begun to log in (asked for a user)? A silent one is evicted first."""


@dataclass
class _Source:
    """One address: what it holds open now and what it has tried lately."""

    pending: list[_Pending] = field(default_factory=list)
    """Its connections still logging in, oldest first."""
    connected: int = 0
    failures: int = 0
    failures_since: float = 0.0
    failed_at: float = 0.0
    blocked_until: float = 0.0
    tokens: float = 0.0
    tokens_at: float = 0.0
    checking: asyncio.Lock | None = None
    """Held while one of its passwords is being checked (made when first needed)."""
    guest_refused_at: float = float("-inf")
    """When a guest of its was last refused for its network's share (see
    :meth:`ConnectionGate.guest_refused`)."""

    @property
    def logging_in(self) -> int:
        return len(self.pending)

    def take(self, key: object) -> _Pending | None:
        """Remove and return the pending connection ``key`` (any, if None)."""
        for n, pending in enumerate(self.pending):
            if key is None or pending.key is key:
                return self.pending.pop(n)
        return None

    def holds_open(self) -> bool:
        return bool(self.pending or self.connected)

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
            and now - self.guest_refused_at >= limits.guest_refusal_hold_s
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

    def connection_opened(self, address: str, key: object = None,
                          evict: Callable[[], None] | None = None) -> str | None:
        """A client connected; ``None`` lets it log in (it then counts until it logs in
        or closes), else why not. ``key`` names the connection in later calls; ``evict``
        closes it, should a fairer claim need its place (see :meth:`_make_room`)."""
        limits, now = self.limits, self._clock()
        source = self._sources.get(address)
        if source is not None and source.blocked_until > now:
            return BLOCKED
        if source is not None and now - source.guest_refused_at < limits.guest_refusal_hold_s:
            return GUESTS_FULL
        source = self._source(address)
        if source.logging_in >= limits.max_unauthenticated_per_source:
            return TOO_MANY_LOGINS
        if not self._make_room(source, now):
            return BUSY
        source.pending.append(_Pending(key, now, evict))
        self.logging_in += 1
        return None

    def _make_room(self, source: _Source, now: float) -> bool:
        """Is there a place for one more connection logging in from ``source``?

        Anyone may take the first ``max_unauthenticated - unauthenticated_reserve``
        places; the reserve only an address with none logging in, so a new address always
        gets a try. Past that, the address holding the most places (if it holds at least
        two more than this one would) gives up its oldest silent connection (else its
        oldest), or failing that a connection silent for ``silent_evict_s`` goes: each
        address's share stays fair however many connections a few addresses open."""
        limits = self.limits
        reserve = min(limits.unauthenticated_reserve, limits.max_unauthenticated // 4)
        if self.logging_in < limits.max_unauthenticated - reserve:
            return True
        if self.logging_in < limits.max_unauthenticated and not source.logging_in:
            return True
        hog = max(self._sources.values(), key=lambda s: s.logging_in)
        victim: _Pending | None = None
        if hog.logging_in > source.logging_in + 1:
            victim = min(hog.pending, key=lambda p: (p.heard, p.since))
        else:
            silent = [p for s in self._sources.values() for p in s.pending
                      if not p.heard and now - p.since >= limits.silent_evict_s]
            victim = min(silent, key=lambda p: p.since, default=None)
        if victim is None or victim.evict is None:
            return False
        for holder in self._sources.values():
            if victim in holder.pending:
                holder.pending.remove(victim)
                break
        self.logging_in -= 1
        victim.evict()
        return True

    def heard(self, address: str, key: object) -> None:
        """The connection ``key`` has begun to log in: no longer silent."""
        source = self._sources.get(address)
        for pending in source.pending if source is not None else ():
            if pending.key is key:
                pending.heard = True

    def password_turn(self, address: str) -> asyncio.Lock:
        """Held around each password check from ``address``: one at a time per address,
        whatever the connections (and one at a time per connection with it)."""
        source = self._source(address)
        if source.checking is None:
            source.checking = asyncio.Lock()
        return source.checking

    def wait_before_check(self, address: str) -> float:
        """How long the next password from ``address`` waits before it is checked: none
        after no recent failure, else ``auth_delay_s`` after the last one, doubling with
        every failure up to ``auth_delay_max_s``. Applied before each check (while the
        turn is held), a guess sent before the answer to the last gains nothing."""
        limits, now = self.limits, self._clock()
        source = self._sources.get(address)
        if source is None or not source.failures:
            return 0.0
        if now - source.failures_since > limits.auth_failure_window_s:
            return 0.0
        return max(0.0, source.failed_at + self.delay_after(source.failures) - now)

    def delay_after(self, failures: int) -> float:
        """The wait that ``failures`` recent failures earn (no overflow, however many)."""
        limits = self.limits
        return min(limits.auth_delay_s * 2.0 ** min(failures - 1, 64), limits.auth_delay_max_s)

    def login_failed(self, address: str) -> None:
        """A wrong password. Enough failures block the address (:meth:`blocked` says so
        from then on)."""
        limits, now = self.limits, self._clock()
        source = self._source(address)
        if not source.failures or now - source.failures_since > limits.auth_failure_window_s:
            source.failures, source.failures_since = 0, now
        source.failures += 1
        source.failed_at = now
        if source.failures >= limits.auth_failures_to_block:
            source.blocked_until = now + limits.block_s

    def failures(self, address: str) -> int:
        """Recent failed logins from ``address``."""
        source = self._sources.get(address)
        return source.failures if source is not None else 0

    def blocked(self, address: str) -> bool:
        """Is ``address`` turned away for now?"""
        source = self._sources.get(address)
        return source is not None and source.blocked_until > self._clock()

    def guest_refused(self, address: str) -> None:
        """A guest from ``address`` was refused: its network holds its share of guest
        games. For ``guest_refusal_hold_s`` the address's next connections are closed
        as they open, before the key exchange: a flood's refused guests cost the server
        a handshake each (about 10 ms of the one loop every player shares), again and
        again. A player with a key from that address waits as long, and is let in then."""
        self._source(address).guest_refused_at = self._clock()

    # -- after login -----------------------------------------------------------------------

    def may_log_in(self, address: str) -> str | None:
        """Asked as a client starts to log in: a reason if its address is at its cap
        (said before login, so that the client shows it)."""
        source = self._sources.get(address)
        if source is not None and source.connected >= self.limits.max_connections_per_source:
            return TOO_MANY_CONNECTIONS
        return None

    def logged_in(self, address: str, key: object = None) -> str | None:
        """A connection from ``address`` logged in; a reason if it is one too many (it
        counts as connected either way, until :meth:`connection_closed`)."""
        source = self._source(address)
        if source.take(key) is not None:
            self.logging_in -= 1
        source.connected += 1
        if source.connected > self.limits.max_connections_per_source:
            return TOO_MANY_CONNECTIONS
        return None

    def connection_closed(self, address: str, logged_in: bool, key: object = None) -> None:
        """A connection admitted by :meth:`connection_opened` has gone (one evicted has
        already given up its place)."""
        source = self._sources.get(address)
        if source is None:
            return
        if logged_in:
            source.connected = max(0, source.connected - 1)
        elif source.take(key) is not None:
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
