"""The numbers that keep one session from costing every other session."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SessionLimits:
    """Per-session budgets for input, output and lifetime.

    Input is parsed ``slice_bytes`` at a time, at most ``slices_per_turn`` slices before
    yielding to the loop, and events are handed on one at a time, only while the app (with
    the focused widget and every parent between) has fewer than ``max_app_queue`` messages
    waiting: Textual handles a whole queue without yielding, so this bounds how long one
    session holds the loop, and at 1 no key can overtake the one before it.
    A session's events (keys, clicks; a whole paste is one) reach its app at most
    ``keys_per_s`` a second after a burst of ``key_burst``: a person types and key repeat
    runs well below that, a flood waits its turn. Reading from the channel pauses above
    ``input_pause_bytes`` of unparsed input and
    resumes below ``input_resume_bytes``. A bracketed paste is cut at ``paste_max_chars``;
    a paste left open for ``paste_quiet_s`` without input is closed.

    Output frames are dropped while more than ``output_high_water`` bytes wait to reach the
    client; once the backlog is back under ``output_low_water`` the app repaints in full. A
    client still behind after ``stuck_timeout_s`` is disconnected.

    A terminal is laid out at most ``max_columns`` by ``max_rows`` (a bigger window shows
    the game in its top left corner), and window changes reach the app at most once per
    ``resize_interval_s``, the last size winning; a client that sends more than
    ``max_resizes_per_s`` in a second (no window manager does) is disconnected: even
    unused, each one costs the server a packet to decrypt.

    At most ``max_notices`` notifications show at once in one app (each is a widget on
    the player's screen): a notice the same as one still showing is not shown again, and
    a new one beyond the limit pushes out the oldest.

    A session keeps at most ``max_env_bytes`` of each environment variable it reads
    (``TERM``, ``LANG``, ``LC_*``, ``NO_COLOR``, ``COLORTERM``; others are dropped), and a
    client sending more than ``max_env_requests`` env requests on one channel is
    disconnected (see :mod:`server.environment`).

    An app told to exit has ``exit_grace_s`` before its task is cancelled; at shutdown,
    clients get ``hangup_wait_s`` to hang up by themselves before they are disconnected.
    """

    slice_bytes: int = 256
    slices_per_turn: int = 4
    max_app_queue: int = 1
    keys_per_s: float = 40.0
    key_burst: int = 80
    input_pause_bytes: int = 64 * 1024
    input_resume_bytes: int = 8 * 1024
    paste_max_chars: int = 16 * 1024
    paste_quiet_s: float = 2.0
    output_high_water: int = 512 * 1024
    output_low_water: int = 64 * 1024
    backlog_poll_s: float = 0.1
    stuck_timeout_s: float = 20.0
    max_columns: int = 240
    max_rows: int = 80
    resize_interval_s: float = 0.25
    max_resizes_per_s: int = 200
    max_notices: int = 3
    max_env_requests: int = 64
    max_env_bytes: int = 256
    exit_grace_s: float = 5.0
    hangup_wait_s: float = 1.0


@dataclass(frozen=True)
class ConnectionLimits:
    """What one source address (and everyone together) may hold open or try, before and
    after logging in. The defaults suit friends on a home server, a few per household.

    Before login: at most ``max_unauthenticated`` connections still logging in, in total,
    and ``max_unauthenticated_per_source`` from one address (in the spirit of OpenSSH's
    ``MaxStartups``); more are closed at once, but fairly: the last
    ``unauthenticated_reserve`` places are kept for addresses with none logging in, and
    when every place is taken an address holding more than its share gives up its oldest
    silent one, or else a connection silent for ``silent_evict_s`` goes (see
    :meth:`server.gate.ConnectionGate.connection_opened`). A wrong password costs the client
    ``auth_delay_s``, doubling with every failure up to ``auth_delay_max_s``; after
    ``auth_failures_to_block`` failures within ``auth_failure_window_s`` the address is
    turned away for ``block_s`` (like ``PerSourcePenalties``).

    After login: at most ``max_connections_per_source`` connections and
    ``max_sessions_per_source`` sessions from one address; a connection that has no session
    open for ``session_wait_s`` is closed; an address may open ``session_burst`` sessions at
    once and then one every ``session_interval_s``.

    Places: the last ``places_for_known_keys`` of the server's sessions (at most a tenth of
    them) are kept for players whose key the server knows (it played here, or is listed in
    ``--authorized-keys``); guests (no key) from one network (/24, IPv6 /64) hold at most
    ``guest_sessions_per_network`` sessions; an address whose guest was refused for
    that is closed before the key exchange (its cost) for ``guest_refusal_hold_s``.

    On the event loop: at most ``apps_starting_at_once`` apps build their first screen at
    the same time (others wait in line, and are told so); one holds its place at most
    ``app_start_wait_s``.
    """

    max_unauthenticated: int = 64
    max_unauthenticated_per_source: int = 10
    unauthenticated_reserve: int = 8
    silent_evict_s: float = 5.0
    auth_delay_s: float = 0.5
    auth_delay_max_s: float = 8.0
    auth_failures_to_block: int = 10
    auth_failure_window_s: float = 600.0
    block_s: float = 600.0
    max_connections_per_source: int = 20
    max_sessions_per_source: int = 12
    session_wait_s: float = 5.0
    session_burst: int = 10
    session_interval_s: float = 2.0
    places_for_known_keys: int = 30
    guest_sessions_per_network: int = 64
    guest_refusal_hold_s: float = 3.0
    apps_starting_at_once: int = 2
    app_start_wait_s: float = 10.0
    sources_remembered: int = 10_000

    @classmethod
    def for_load_tests(cls) -> ConnectionLimits:
        """Every per-address cap lifted: for benchmarks that connect hundreds of clients
        from one address. Apps still start a few at a time."""
        many = 1_000_000
        return cls(max_unauthenticated=many, max_unauthenticated_per_source=many,
                   max_connections_per_source=many, max_sessions_per_source=many,
                   session_burst=many, guest_sessions_per_network=many)


LIMIT_CLASSES = (SessionLimits, ConnectionLimits)


def _defaults() -> dict[str, int | float]:
    return {
        name: value
        for cls in LIMIT_CLASSES
        for name, value in vars(cls()).items()
    }


def parse_limit(text: str) -> tuple[str, int | float]:
    """``"name=value"`` for any field of :class:`SessionLimits` or :class:`ConnectionLimits`,
    checked: the name must be known and the value a positive number of the field's kind."""
    name, sep, raw = text.partition("=")
    defaults = _defaults()
    name = name.strip()
    if not sep or name not in defaults:
        known = ", ".join(sorted(defaults))
        raise ValueError(f"unknown limit {name!r}: use NAME=VALUE with NAME one of {known}")
    kind = type(defaults[name])
    try:
        value = kind(raw.strip())
    except ValueError:
        what = "a whole number" if kind is int else "a number"
        raise ValueError(f"limit {name} needs {what}, not {raw!r}") from None
    if value <= 0:
        raise ValueError(f"limit {name} must be more than 0, not {raw!r}")
    return name, value


def build_limits(settings: dict[str, int | float]) -> tuple[SessionLimits, ConnectionLimits]:
    """The two sets of limits with ``settings`` (from :func:`parse_limit`) over the defaults."""
    built = []
    for cls in LIMIT_CLASSES:
        fields = vars(cls())
        built.append(cls(**{k: v for k, v in settings.items() if k in fields}))
    session, connection = built
    assert isinstance(session, SessionLimits) and isinstance(connection, ConnectionLimits)
    return session, connection
