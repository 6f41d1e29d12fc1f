"""Repeated log lines are written a few times per interval, then counted."""

from __future__ import annotations

import logging

from server.access_log import connection_line
from server.admin.log_limits import RepeatFilter


class Clock:
    now = 0.0

    def __call__(self) -> float:
        return self.now


def _record(msg: str, *args: object) -> logging.LogRecord:
    return logging.LogRecord("server", logging.WARNING, __file__, 1, msg, args, None)


def test_a_flood_of_one_line_writes_a_few_then_says_how_many_were_dropped() -> None:
    clock = Clock()
    repeat = RepeatFilter(per_interval=3, interval_s=60, clock=clock)
    written = [r for r in (_record("accept failed: too many open files") for _ in range(10_000))
               if repeat.filter(r)]
    assert len(written) == 3
    clock.now = 61
    later = _record("accept failed: too many open files")
    assert repeat.filter(later)
    assert "9997 more like this were not logged" in later.getMessage()


def test_one_address_failing_does_not_hide_another() -> None:
    repeat = RepeatFilter(per_interval=2, interval_s=60, clock=Clock())
    line = "%s: failed login as %r"
    noisy = [repeat.filter(_record(line, f"6.6.6.6:{port}", "root")) for port in range(100)]
    assert sum(noisy) == 2
    assert repeat.filter(_record(line, "10.0.0.7:5000", "alice"))


def test_the_filter_remembers_a_bounded_number_of_kinds() -> None:
    repeat = RepeatFilter(per_interval=1, kinds_remembered=50, clock=Clock())
    for n in range(5000):
        repeat.filter(_record("%s: hello", f"10.{n // 65536}.{n // 256 % 256}.{n % 256}:1"))
    assert len(repeat._kinds) == 50


def test_connection_lines_from_one_address_are_limited_whatever_their_port() -> None:
    """Found by bench.flood: a blocked address guessing passwords wrote a "refused" line
    per connection (each with its own port), 15,000 in 20 s."""
    repeat = RepeatFilter(per_interval=5, interval_s=60, clock=Clock())
    lines: list[logging.LogRecord] = []
    handler = logging.Handler()
    handler.emit = lines.append  # type: ignore[method-assign]
    handler.addFilter(repeat)
    oplog_logger = logging.getLogger("connections")
    level = oplog_logger.level
    oplog_logger.addHandler(handler)
    oplog_logger.setLevel(logging.INFO)
    try:
        for port in range(1000):
            connection_line("refused", f"6.6.6.6:{port}", "", None, authenticated=False,
                            reason="left before logging in")
        connection_line("refused", "10.0.0.7:5000", "", None, authenticated=False,
                        reason="left before logging in")
        connection_line("joined", "6.6.6.6:7", "alice", None)
    finally:
        oplog_logger.removeHandler(handler)
        oplog_logger.setLevel(level)
    assert [r.getMessage().split(" port")[0] for r in lines] == [
        "connection from 6.6.6.6"] * 5 + ["connection from 10.0.0.7", "connection from 6.6.6.6"]
