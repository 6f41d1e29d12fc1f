"""Per-address books: who may connect, log in and open a game, checked on a fake clock."""

from __future__ import annotations

from server.gate import (
    BLOCKED,
    BUSY,
    GUESTS_FULL,
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


def test_an_address_whose_guest_was_refused_is_closed_before_the_handshake() -> None:
    """Each refused guest of a flood cost a whole SSH handshake, again and again: the
    table playing meanwhile saw its pick p95 go from 175 to 341 ms."""
    books, clock = gate(guest_refusal_hold_s=3.0)
    assert books.connection_opened("6.6.6.6", "first") is None
    books.logged_in("6.6.6.6", "first")
    books.guest_refused("6.6.6.6")  # its network holds its share of guest games
    books.connection_closed("6.6.6.6", logged_in=True, key="first")
    clock.now += 2.9
    assert books.connection_opened("6.6.6.6") == GUESTS_FULL  # no handshake
    assert books.connection_opened("6.6.6.7") is None  # its neighbour: not refused yet
    clock.now += 0.2
    assert books.connection_opened("6.6.6.6") is None  # a try again, a key may get in


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


class Conn:
    """A connection as the gate sees it: evicted or not."""

    def __init__(self) -> None:
        self.evicted = False

    def evict(self) -> None:
        self.evicted = True


def test_a_new_address_always_gets_a_try_however_full_the_logins() -> None:
    """Found: 64 silent connections from 7 addresses kept a friend out 23 times of 23."""
    books, _ = gate(max_unauthenticated=64, max_unauthenticated_per_source=10,
                        unauthenticated_reserve=8)
    hogs = {f"6.6.6.{n}": [Conn() for _ in range(10)] for n in range(7)}
    for address, conns in hogs.items():
        for conn in conns:
            books.connection_opened(address, conn, conn.evict)
    shares = [sum(not c.evicted for c in conns) for conns in hogs.values()]
    assert books.logging_in == 57 and max(shares) - min(shares) <= 2  # shares evened out
    for n in range(7):  # the rest of the reserve: one each for addresses holding none
        conn = Conn()
        assert books.connection_opened(f"5.5.5.{n}", conn, conn.evict) is None
    assert books.logging_in == 64
    before = sum(c.evicted for conns in hogs.values() for c in conns)
    friend = Conn()
    assert books.connection_opened("1.2.3.4", friend, friend.evict) is None
    evicted = [c for conns in hogs.values() for c in conns if c.evicted]
    assert len(evicted) == before + 1  # the oldest silent one of an address holding most
    assert books.logging_in == 64 and not friend.evicted
    books.connection_closed("6.6.6.0", logged_in=False, key=evicted[0])  # no double count
    assert books.logging_in == 64


def test_a_silent_connection_goes_before_one_that_is_logging_in() -> None:
    books, clock = gate(max_unauthenticated=8, max_unauthenticated_per_source=8,
                        unauthenticated_reserve=2)
    conns = [Conn() for _ in range(6)]
    for conn in conns:
        assert books.connection_opened("6.6.6.6", conn, conn.evict) is None
        clock.now += 1
    books.heard("6.6.6.6", conns[0])  # the oldest is logging in, not silent
    for n in range(2):
        assert books.connection_opened(f"5.5.5.{n}", Conn()) is None
    assert books.connection_opened("1.2.3.4", Conn()) is None
    assert [c.evicted for c in conns] == [False, True, False, False, False, False]


def test_when_every_address_holds_one_the_longest_silent_goes() -> None:
    books, clock = gate(max_unauthenticated=4, unauthenticated_reserve=1,
                        silent_evict_s=5)
    conns = [Conn() for _ in range(4)]
    for n, conn in enumerate(conns):
        assert books.connection_opened(f"6.6.6.{n}", conn, conn.evict) is None
    assert books.connection_opened("1.2.3.4", Conn()) == BUSY  # nobody silent for long
    clock.now += 6
    books.heard("6.6.6.0", conns[0])
    assert books.connection_opened("1.2.3.4", Conn()) is None
    assert [c.evicted for c in conns] == [False, True, False, False]
