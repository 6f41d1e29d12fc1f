"""The access log: one line per connection, and one per failed login.

Connection lines go to the ``connections`` logger in a stable format (documented in
docs/hosting.md; the fail2ban filter in contrib/ depends on it)::

    connection from 203.0.113.9 port 51234 user "alice" key SHA256:abc...: joined
    connection from 203.0.113.9 port 51234 user "alice" key SHA256:abc...: left after 42 s
    connection from 203.0.113.9 port 51234 user "bob" guest: refused: no terminal
    auth failed from 203.0.113.9 port 51234 user "mallory": wrong password

Text a client chose (a user name, a subsystem's or a URL's) is written by :func:`quoted`:
one JSON string, ASCII only, with quotes, backslashes, control characters and spaces
escaped and at most ``QUOTED_CHARS`` characters. So it can never start another line, never
hold a space-separated phrase of the server's own, and never reach the fixed prefix the
fail2ban filter in contrib/ is anchored on (``WARNING connections: auth failed from``,
right after the time). Each line also
carries its facts as ``fields`` on the log record, for a formatter that writes them
(``mission-impractical serve --log-format json``, :mod:`server.admin.oplog`).
"""

from __future__ import annotations

import json
import logging
from typing import Any

log = logging.getLogger("connections")

QUOTED_CHARS = 40
"""Characters of a client's text written at most (the rest becomes ``...``)."""


def quoted(text: str, limit: int = QUOTED_CHARS) -> str:
    """``text`` as a log line may hold it: a JSON string (ASCII, with quotes, control
    characters and spaces escaped), cut at ``limit`` characters."""
    cut = text[:limit] + ("..." if len(text) > limit else "")
    return json.dumps(cut, ensure_ascii=True).replace(" ", "\\u0020")


def split_peer(peer: str) -> tuple[str, int]:
    """``"203.0.113.9:51234"`` (or ``"::1:51234"``) -> address and port."""
    address, _, port = peer.rpartition(":")
    return (address or peer), int(port) if port.isdigit() else 0


def _who(peer: str, user: str, key: str | None, authenticated: bool) -> tuple[str, dict[str, Any]]:
    address, port = split_peer(peer)
    name = quoted(user)
    identity = f"key {key}" if key else ("guest" if authenticated else "not logged in")
    fields = {"address": address, "port": port, "user": user[:QUOTED_CHARS], "key": key,
              "guest": authenticated and not key}
    return f"from {address} port {port} user {name} {identity}", fields


def connection_line(event: str, peer: str, user: str, key: str | None, *,
                    authenticated: bool = True, seconds: float | None = None,
                    reason: str = "") -> None:
    """Log one connection's ``event``: ``joined``, ``left`` (after ``seconds``) or
    ``refused`` (because of ``reason``)."""
    who, fields = _who(peer, user, key, authenticated)
    outcome = {"joined": "joined", "left": f"left after {round(seconds or 0)} s",
               "refused": f"refused: {reason}"}[event]
    fields.update(event=event, outcome=outcome)
    if seconds is not None:
        fields["seconds"] = round(seconds, 1)
    if reason:
        fields["reason"] = reason
    log.info("connection %s: %s", who, outcome, extra={"fields": fields})


def auth_failed(peer: str, user: str, reason: str) -> None:
    """One failed login attempt, in the format fail2ban's filter reads."""
    address, port = split_peer(peer)
    name = quoted(user)
    log.warning("auth failed from %s port %d user %s: %s", address, port, name, reason,
                extra={"fields": {"event": "auth_failed", "address": address, "port": port,
                                  "user": user[:QUOTED_CHARS], "reason": reason}})
