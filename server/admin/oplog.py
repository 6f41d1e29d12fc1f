"""The operator's log: how the server's log is set up.

Text lines by default; ``--log-format json`` writes one JSON object a line instead, with
the facts the access log (:mod:`server.access_log`) puts on each record as fields.
"""

from __future__ import annotations

import json
import logging
import sys
from datetime import UTC, datetime
from typing import Any

LOG_FORMATS = ("text", "json")
TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


class JsonFormatter(logging.Formatter):
    """One JSON object a line: time (UTC, ISO 8601), level, logger, message, and for
    connection lines ``event``, ``address``, ``port``, ``user``, ``key`` (or null for a
    guest), ``outcome``, ``seconds``."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, tz=UTC).isoformat(
                timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        entry.update(getattr(record, "fields", {}))
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return json.dumps(entry, ensure_ascii=False)


class StderrHandler(logging.StreamHandler):  # type: ignore[type-arg]  # (typeshed: generic)
    """Writes to ``sys.stderr`` as it is when a line is logged, not as it was when the
    handler was made (as logging's own last resort does): a handler made while a test
    captured stderr would otherwise write to that closed capture ever after."""

    @property
    def stream(self) -> Any:
        return sys.stderr

    @stream.setter
    def stream(self, _value: Any) -> None:
        pass


def configure_logging(level: str, log_format: str = "text") -> None:
    """Log to stderr at ``level`` in ``log_format`` (``text`` or ``json``)."""
    handler = StderrHandler()
    if log_format == "json":
        handler.setFormatter(JsonFormatter())
    else:
        handler.setFormatter(logging.Formatter(TEXT_FORMAT))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
    if level != "DEBUG":
        logging.getLogger("asyncssh").setLevel(logging.WARNING)
