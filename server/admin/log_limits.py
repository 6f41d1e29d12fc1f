"""Logs that cannot fill the disk: a line that repeats is written a few times per interval,
then counted, and the count rides on the next one written.

A flood repeats the same few lines (``accept failed: too many open files``, a failed login)
thousands of times a second. :class:`RepeatFilter` lets ``per_interval`` lines of one kind
through per ``interval_s``; a line's kind is its logger, level and message template, and
for lines about a client, the client's address (so one address cannot hide another's).
"""

from __future__ import annotations

import logging
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass


@dataclass
class _Kind:
    since: float
    written: int = 0
    dropped: int = 0


def _kind_of(record: logging.LogRecord) -> tuple[str, int, str, str]:
    template = str(record.msg).split("\n", 1)[0][:120]
    address = ""
    fields = getattr(record, "fields", None)  # the operator log's lines say what they are
    if isinstance(fields, dict) and isinstance(fields.get("address"), str):
        address = fields["address"][:64]
        template += f" {fields.get('event', '')}: {fields.get('reason', '')}"[:120]
    elif isinstance(record.args, tuple) and record.args and isinstance(record.args[0], str):
        address = record.args[0].rsplit(":", 1)[0][:64]  # "ip:port" -> ip
    return record.name, record.levelno, template, address


class RepeatFilter(logging.Filter):
    """Writes at most ``per_interval`` lines of each kind per ``interval_s``."""

    def __init__(
        self,
        per_interval: int = 5,
        interval_s: float = 60.0,
        kinds_remembered: int = 2000,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__()
        self.per_interval = per_interval
        self.interval_s = interval_s
        self.kinds_remembered = kinds_remembered
        self._clock = clock
        self._kinds: OrderedDict[tuple[str, int, str, str], _Kind] = OrderedDict()

    def filter(self, record: logging.LogRecord) -> bool:
        now, key = self._clock(), _kind_of(record)
        kind = self._kinds.get(key)
        if kind is None:
            kind = self._kinds[key] = _Kind(since=now)
            while len(self._kinds) > self.kinds_remembered:
                self._kinds.popitem(last=False)
        else:
            self._kinds.move_to_end(key)
        if now - kind.since >= self.interval_s:
            if kind.dropped:
                record.msg = f"{record.msg} [{kind.dropped} more like this were not logged]"
            kind.since, kind.written, kind.dropped = now, 0, 0
        if kind.written >= self.per_interval:
            kind.dropped += 1
            return False
        kind.written += 1
        return True


def limit_repeats(logger: logging.Logger | None = None, **settings: float) -> RepeatFilter:
    """Put one :class:`RepeatFilter` on every handler of ``logger`` (the root logger)."""
    repeat = RepeatFilter(**settings)  # type: ignore[arg-type]
    for handler in (logger or logging.getLogger()).handlers:
        handler.addFilter(repeat)
    return repeat
