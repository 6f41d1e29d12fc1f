"""Per-address books: who may connect, log in and open a game, checked on a fake clock."""

from __future__ import annotations

from server.gate import (
    BLOCKED,
    BUSY,
    TOO_FAST,
    TOO_MANY_CONNECTIONS,
    TOO_MANY_LOGINS,
    TOO_MANY_SESSIONS,
    ConnectionGate,
)
from server.limits import ConnectionLimits


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def gate(**limits: float) -> tuple[ConnectionGate, Clock]:
    clock = Clock()
    return ConnectionGate(ConnectionLimits(**limits), clock), clock  # type: ignore[arg-type]


def test_one_address_cannot_hold_every_login_slot() -> None:
    books, _ = gate(max_unauthenticated_per_source=3, max_unauthenticated=5)
    assert [books.connection_opened("6.6.6.6") for _ in range(4)] == [None] * 3 + [
        TOO_MANY_LOGINS
    ]
    assert books.connection_opened("1.2.3.4") is None
    assert books.connection_opened("1.2.3.5") is None
    assert books.connection_opened("1.2.3.6") == BUSY  # five logging in, in total
    books.connection_closed("6.6.6.6", logged_in=False)
    assert books.connection_opened("1.2.3.6") is None


def test_wrong_passwords_cost_more_each_time_then_block_the_address() -> None:
    books, clock = gate(auth_delay_s=0.5, auth_delay_max_s=4, auth_failures_to_block=5,
                        block_s=60)
    waits = [books.wait_before_check("6.6.6.6")]
    for _ in range(5):
        books.login_failed("6.6.6.6")
        waits.append(books.wait_before_check("6.6.6.6"))
    assert waits == [0.0, 0.5, 1.0, 2.0, 4.0, 4.0]
    clock.now += 1.5
    assert books.wait_before_check("6.6.6.6") == 2.5  # counted from the last failure
    assert books.blocked("6.6.6.6")
    assert books.connection_opened("6.6.6.6") == BLOCKED
    assert books.connection_opened("1.2.3.4") is None  # others are not punished
    clock.now += 61
    assert books.connection_opened("6.6.6.6") is None


def test_old_failures_are_forgiven_after_the_window() -> None:
    books, clock = gate(auth_failures_to_block=3, auth_failure_window_s=100)
    books.login_failed("6.6.6.6")
    books.login_failed("6.6.6.6")
    clock.now += 101
    assert books.wait_before_check("6.6.6.6") == 0.0
    books.login_failed("6.6.6.6")
    assert books.wait_before_check("6.6.6.6") == books.limits.auth_delay_s
    assert not books.blocked("6.6.6.6")


def test_the_wait_never_overflows_however_many_failures() -> None:
    """Found: the 1,025th failure raised OverflowError (0.5 * 2 ** 1024)."""
    books, _ = gate(auth_failures_to_block=10**9, auth_delay_max_s=8)
    for _ in range(1100):
        books.login_failed("6.6.6.6")
    assert books.wait_before_check("6.6.6.6") == 8.0
    assert books.delay_after(10**6) == 8.0


def test_connections_per_address_are_capped_after_login() -> None:
    books, _ = gate(max_connections_per_source=2)
    for _ in range(3):
        assert books.connection_opened("6.6.6.6") is None
    assert [books.logged_in("6.6.6.6") for _ in range(3)] == [None, None, TOO_MANY_CONNECTIONS]
    books.connection_closed("6.6.6.6", logged_in=True)
    books.connection_closed("6.6.6.6", logged_in=True)
    books.connection_opened("6.6.6.6")
    assert books.logged_in("6.6.6.6") is None


def test_sessions_are_capped_and_opened_no_faster_than_the_budget() -> None:
    books, clock = gate(max_sessions_per_source=3, session_burst=2, session_interval_s=5)
    assert books.session_opened("6.6.6.6", open_now=3) == TOO_MANY_SESSIONS
    assert [books.session_opened("6.6.6.6", 0) for _ in range(3)] == [None, None, TOO_FAST]
    clock.now += 5
    assert books.session_opened("6.6.6.6", 0) is None
    assert books.session_opened("1.2.3.4", 0) is None  # another address has its own budget


def test_the_books_forget_quiet_addresses_and_stay_bounded() -> None:
    books, clock = gate(sources_remembered=100)
    for n in range(1000):
        address = f"10.0.{n // 256}.{n % 256}"
        books.connection_opened(address)
        books.login_failed(address)
        books.connection_closed(address, logged_in=False)
    assert books.sources <= 100
    assert books.logging_in == 0
    books.connection_opened("1.1.1.1")
    books.connection_closed("1.1.1.1", logged_in=False)
    clock.now += 3600
    books.connection_opened("1.1.1.1")
    books.connection_closed("1.1.1.1", logged_in=False)
    assert books.sources <= 100
