"""What the running server and the host's tools tell each other, through the database.

The server writes who is connected (``live_sessions``) and reads ``bans`` and ``kicks``;
the host's tools (``mission-impractical status``, ``kick``, ``ban``, ``unban``) do the
opposite from another process, on their own connection (WAL lets both work at once).
The tables are made by schema version 2 in :mod:`engine.journal`.

A *target* names who a ban or kick is for: ``key:SHA256:...`` (a key fingerprint, as
``ssh-keygen -l`` and the server's log print it), ``guest:...`` (one keyless guest, as
``status`` prints them: the identity of their seat) or ``address:203.0.113.9`` (an IP
address or a network such as ``address:203.0.113.0/24``: everyone connected from there).
A name is never a target (names change and repeat): the host's tools turn a name into the
identity of whoever has it now.
"""

from __future__ import annotations

import ipaddress
import sqlite3
from dataclasses import dataclass
from pathlib import Path

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def server_connection(path: Path) -> sqlite3.Connection:
    """The running server's own connection to the database at ``path``, beside the
    journal's. Who is connected changes with every arrival and departure and is written
    afresh at every start, so these writes need not reach the disk before the server goes
    on: ``synchronous=NORMAL``, with which WAL commits without a sync (a power cut may lose
    the last few, never the database's consistency). Through the journal's connection
    (``FULL``) every arrival and departure would wait for the disk, on the loop every
    player shares: tens of milliseconds on an SD card."""
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA synchronous = NORMAL")
    db.execute("PRAGMA busy_timeout = 5000")  # as the journal: the host's tools write too
    return db


class BadTarget(ValueError):
    """Not a key fingerprint or an address; ``str(error)`` says what is expected."""


def parse_target(text: str) -> str:
    """``SHA256:...``, ``key:SHA256:...``, ``guest:...``, ``203.0.113.9``,
    ``2001:db8::/32``... -> the target as stored (``key:SHA256:...``, ``guest:...`` or
    ``address:...``)."""
    text = text.strip()
    bare = text.removeprefix("key:")
    if bare.startswith("SHA256:") and len(bare) > len("SHA256:"):
        return f"key:{bare}"
    if text.startswith("guest:") and len(text) > len("guest:"):
        return text
    try:
        network = ipaddress.ip_network(text.removeprefix("address:"), strict=False)
    except ValueError:
        raise BadTarget(f"{text!r} is neither a key fingerprint (SHA256:..., as the log and "
                        "status print it), a guest (guest:...) nor an IP address or "
                        "network") from None
    single = network.prefixlen == network.max_prefixlen
    return f"address:{network.network_address if single else network}"


def matches(target: str, address: str, player_id: str | None) -> bool:
    """Does ``target`` name a client at ``address`` who is ``player_id`` (``key:...``,
    ``guest:...`` or None before login)?"""
    if target.startswith(("key:", "guest:")):
        return player_id == target
    try:
        return ipaddress.ip_address(address) in ipaddress.ip_network(
            target.removeprefix("address:"), strict=False)
    except ValueError:
        return False


@dataclass(frozen=True)
class LiveSession:
    """One connected terminal, as ``status`` shows it."""

    address: str
    player_id: str
    name: str
    since: float  # Unix seconds
    table_code: str | None = None  # the table their screen shows; None: the lobby
    seated: bool = False  # a seat at that table (else they watch it)

    @property
    def who(self) -> str:
        """Their identity as the host's tools take it: the key's fingerprint, or the
        guest's ``guest:...``."""
        return self.player_id if self.player_id.startswith("guest:") else self.player_id[4:]

    @property
    def place(self) -> str:
        if self.table_code is None:
            return "in the lobby"
        return f"{'seated at' if self.seated else 'watching'} {self.table_code}"


@dataclass(frozen=True)
class Ban:
    target: str
    reason: str
    since: float


# -- the server's side ----------------------------------------------------------------------


def clear_sessions(db: sqlite3.Connection) -> None:
    """At start and stop: nobody is connected."""
    db.execute("DELETE FROM live_sessions")


def add_session(db: sqlite3.Connection, address: str, player_id: str, name: str,
                since: float) -> int:
    cursor = db.execute("INSERT INTO live_sessions (address, player_id, name, since)"
                        " VALUES (?, ?, ?, ?)", (address, player_id, name, since))
    assert cursor.lastrowid is not None
    return cursor.lastrowid


def update_session(db: sqlite3.Connection, row: int, player_id: str, name: str,
                   table_code: str | None, seated: bool) -> None:
    db.execute("UPDATE live_sessions SET player_id = ?, name = ?, table_code = ?, seated = ?"
               " WHERE id = ?", (player_id, name, table_code, int(seated), row))


def remove_session(db: sqlite3.Connection, row: int) -> None:
    db.execute("DELETE FROM live_sessions WHERE id = ?", (row,))


def pending_kicks(db: sqlite3.Connection) -> list[tuple[int, str]]:
    return db.execute("SELECT id, target FROM kicks WHERE done_at IS NULL ORDER BY id").fetchall()


def kick_done(db: sqlite3.Connection, kick: int, sessions: int, now: float) -> None:
    db.execute("UPDATE kicks SET done_at = ?, sessions = ? WHERE id = ?", (now, sessions, kick))


# -- both sides ----------------------------------------------------------------------------


def bans(db: sqlite3.Connection) -> list[Ban]:
    return [Ban(*row) for row in db.execute(
        "SELECT target, reason, since FROM bans ORDER BY since, target")]


def live_sessions(db: sqlite3.Connection) -> list[LiveSession]:
    return [LiveSession(address, player_id, name, since, code, bool(seated))
            for address, player_id, name, since, code, seated in db.execute(
                "SELECT address, player_id, name, since, table_code, seated"
                " FROM live_sessions ORDER BY since, id")]


# -- the host's side -----------------------------------------------------------------------


def add_ban(db: sqlite3.Connection, target: str, reason: str, now: float) -> bool:
    """Ban ``target``; False if it already was (the first reason stays)."""
    cursor = db.execute("INSERT OR IGNORE INTO bans (target, reason, since) VALUES (?, ?, ?)",
                        (target, reason, now))
    return cursor.rowcount == 1


def lift_ban(db: sqlite3.Connection, target: str) -> bool:
    """Lift the ban on ``target``; False if there was none."""
    return db.execute("DELETE FROM bans WHERE target = ?", (target,)).rowcount == 1


def ask_kick(db: sqlite3.Connection, target: str, now: float) -> int:
    cursor = db.execute("INSERT INTO kicks (target, asked_at) VALUES (?, ?)", (target, now))
    assert cursor.lastrowid is not None
    return cursor.lastrowid


def kick_result(db: sqlite3.Connection, kick: int) -> int | None:
    """How many sessions the server ended for ``kick``; None while it has not got to it."""
    row = db.execute("SELECT done_at, sessions FROM kicks WHERE id = ?", (kick,)).fetchone()
    return None if row is None or row[0] is None else int(row[1])


def withdraw_kick(db: sqlite3.Connection, kick: int) -> None:
    db.execute("DELETE FROM kicks WHERE id = ? AND done_at IS NULL", (kick,))
