"""What a client's environment requests may leave in the server's memory: almost nothing.

SSH lets a client send any number of ``env`` requests on a session channel, each with a
value up to a packet long (about 256 KB), and asyncssh keeps every one in the channel's
environment for the channel's lifetime, with no limit of its own: 10,000 such requests
took a server from 67 to 1,978 MB. A game reads only a few names (``NO_COLOR`` and
``COLORTERM`` today; ``TERM``, ``LANG`` and ``LC_*`` are what ``ssh`` sends by default), so
:class:`BoundedEnvironment` keeps only those, at most ``max_env_bytes`` long each, and
counts the requests: past ``max_env_requests`` on one channel the connection is dropped
(no client sends that many: OpenSSH sends one per ``SendEnv``/``SetEnv`` name).

asyncssh offers no hook for env requests, so :func:`bound_environment` swaps the channel's
own dict (``SSHServerChannel._env``, where ``_process_env_request`` stores each one) for a
bounded one as the channel opens, before any request can arrive. A test floods a real
server (``tests/ssh/test_hardening.py``) and fails if asyncssh ever stores them elsewhere.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from server.limits import SessionLimits

KEPT_NAMES = frozenset({b"TERM", b"LANG", b"NO_COLOR", b"COLORTERM"})
"""The variables kept (with every ``LC_*``); all others are dropped as they arrive."""
MAX_KEPT = 32
"""Names kept at most (``LANG``, the thirteen ``LC_*`` of glibc and a few more)."""


def is_kept(name: bytes) -> bool:
    """Is ``name`` one of the variables a game may read?"""
    return name in KEPT_NAMES or (name.startswith(b"LC_") and len(name) <= 32)


class BoundedEnvironment(dict[bytes, bytes]):
    """A channel's environment that keeps only :data:`KEPT_NAMES` and ``LC_*``, each value
    at most ``limits.max_env_bytes``, and calls ``on_flood`` (once) when a client sends
    more than ``limits.max_env_requests`` requests."""

    def __init__(self, limits: SessionLimits, on_flood: Callable[[], None]) -> None:
        super().__init__()
        self._limits = limits
        self._on_flood = on_flood
        self.requests = 0
        """Env requests received (kept or not)."""

    def __setitem__(self, name: bytes, value: bytes) -> None:
        self.requests += 1
        if self.requests > self._limits.max_env_requests:
            if self.requests == self._limits.max_env_requests + 1:
                self._on_flood()
            return
        if (is_kept(name) and len(value) <= self._limits.max_env_bytes
                and (name in self or len(self) < MAX_KEPT)):
            super().__setitem__(name, value)


def bound_environment(chan: Any, limits: SessionLimits,
                      on_flood: Callable[[], None]) -> BoundedEnvironment:
    """Give ``chan`` (an ``asyncssh.SSHServerChannel`` just opened) a bounded environment,
    keeping what the server's own key options put there; returns it."""
    current = getattr(chan, "_env", None)
    if not isinstance(current, dict):
        raise RuntimeError("asyncssh keeps a channel's environment elsewhere now: "
                           "server/environment.py needs a new way to bound it")
    bounded = BoundedEnvironment(limits, on_flood)
    dict.update(bounded, {k: v for k, v in current.items() if is_kept(k)})
    chan._env = bounded
    return bounded
