"""The host's tools: ``mission-impractical status | backup | restore | prune | kick | ban |
unban``, each on the data directory the server uses, each safe while it runs.

``status`` and ``backup`` only read (a read-only connection: WAL lets them see a consistent
database while the server writes). ``prune``, ``kick``, ``ban`` and ``unban`` write small
things the server is built to share (see :mod:`server.admin.db`); ``restore`` refuses while
the server runs. Each returns an exit status: 0 done, 1 nothing to do or could not, 2 bad
input (with a message, and nothing changed).
"""

from __future__ import annotations

import os
import re
import sqlite3
import time
from collections.abc import Callable
from contextlib import closing
from datetime import UTC, datetime
from pathlib import Path
from typing import TextIO

from engine.journal import (
    APPLICATION_ID,
    DB_NAME,
    LOCK_NAME,
    JournalError,
    SqliteJournal,
    schema_version,
)
from engine.records import open_records
from engine.tables import Table
from engine.text import plural
from server.admin import db as host_db

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

KICK_WAIT_S = 10.0
DURATION = re.compile(r"^(\d+)\s*([hdw])$")
UNITS_S = {"h": 3600, "d": 86400, "w": 7 * 86400}


class HostToolError(Exception):
    """A tool cannot do what it was asked; ``str(error)`` says why and what to do."""


# -- helpers --------------------------------------------------------------------------------


def server_pid(data_dir: Path) -> int | None:
    """The process id of the server running on ``data_dir``, or None if none is."""
    lock = data_dir / LOCK_NAME
    if fcntl is None or not lock.exists():
        return None
    with lock.open("rb") as file:
        try:
            fcntl.flock(file.fileno(), fcntl.LOCK_SH | fcntl.LOCK_NB)
        except OSError:
            text = file.read(32).decode("ascii", "replace").strip()
            return int(text) if text.isdigit() else -1
        fcntl.flock(file.fileno(), fcntl.LOCK_UN)
    return None


def _read_only(data_dir: Path) -> sqlite3.Connection:
    """A connection to read the database: read-only while the server runs. With no server,
    a plain one, which removes the ``-wal`` and ``-shm`` files when it closes rather than
    leave them behind owned by whoever ran the tool."""
    try:
        records = open_records(data_dir)  # checks: it exists, is ours, has our schema
    except JournalError as error:
        raise HostToolError(str(error)) from None
    if server_pid(data_dir) is not None:
        return records.connection
    records.close()
    return sqlite3.connect(data_dir / DB_NAME)


def _writable(data_dir: Path) -> sqlite3.Connection:
    """A connection for the small writes the tools make, beside the server's."""
    _read_only(data_dir).close()  # the same checks: it exists, is ours, has our schema
    db = sqlite3.connect(data_dir / DB_NAME, isolation_level=None, timeout=5.0)
    return db


def _when(timestamp: float) -> str:
    return datetime.fromtimestamp(timestamp, tz=UTC).strftime("%Y-%m-%d %H:%M UTC")


def _for(seconds: float) -> str:
    minutes = int(seconds // 60)
    if minutes < 60:
        return f"{minutes} min"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min" if hours < 48 else f"{hours // 24} days"


def parse_age(text: str) -> float:
    """``90d``, ``12h``, ``2w`` -> seconds."""
    match = DURATION.match(text.strip().lower())
    if match is None or int(match[1]) == 0:
        raise HostToolError(f"{text!r} is not an age: write a number and h, d or w "
                            "(hours, days, weeks), such as 90d")
    return int(match[1]) * UNITS_S[match[2]]


# -- status ---------------------------------------------------------------------------------


def open_tables(db: sqlite3.Connection, path: Path) -> tuple[list[Table], dict[str, str]]:
    """Every open table as the server would rebuild it from the journal (read-only), and
    those it would set aside (code -> why), one bad table at a time, as it does."""
    from engine.hub import Hub

    hub = Hub(journal=None, seed="status")
    set_aside: dict[str, str] = {}
    try:
        reader = SqliteJournal(db, path, None, time.time)  # only read from: never closed
        codes = list(reader.open_tables())
    except (JournalError, sqlite3.DatabaseError) as error:
        raise HostToolError(f"{path} cannot be read ({error}): move it away or restore "
                            "a backup") from None
    for code in codes:
        try:
            hub.replay(reader.table_records(code))
        except Exception as error:
            set_aside[code] = str(error) or type(error).__name__
    return list(hub.tables.values()), set_aside


def _table_line(table: Table, live: list[host_db.LiveSession]) -> str:
    """``QWER  game 1, round 2, picking: alice (host), bob (away, seat code K7PQ), Bot
    Ada (bot); 1 watching``: a seat is away unless its person is connected and at this
    table; a guest's seat away gives its seat code, for the host to tell a guest who lost
    it (the host checks who asks: the code is the seat)."""
    here = {s.player_id for s in live if s.table_code == table.code and s.seated}
    watching = sum(1 for s in live if s.table_code == table.code and not s.seated)
    state = table.state
    if table.status == "playing" and state is not None:
        what = f"game {table.games}, round {state.round}, {state.phase.value}"
    elif table.status == "finished":
        what = f"game {table.games} finished"
    else:
        what = "waiting to start"
    seats = []
    for seat in table.seats:
        marks = []
        if seat.player_id == table.host_id:
            marks.append("host")
        if seat.is_bot:
            marks.append("bot")
        elif seat.player_id not in here:
            marks.append("away")
            if seat.player_id.startswith("guest:"):
                marks.append(f"seat code {seat.seat_code}")
        seats.append(seat.name + (f" ({', '.join(marks)})" if marks else ""))
    watchers = f"; {watching} watching" if watching else ""
    return f"  {table.code}  {what}: {', '.join(seats) or 'no seats'}{watchers}"


def status(data_dir: Path, out: TextIO, now: Callable[[], float] = time.time) -> int:
    """Print the server's state: running or not, who is connected, tables, bans, games."""
    db = _read_only(data_dir)
    try:
        pid = server_pid(data_dir)
        path = data_dir / DB_NAME
        size = sum(p.stat().st_size for p in data_dir.glob(DB_NAME + "*") if p.is_file()
                   and not p.name.endswith(".bak"))
        print(f"Data: {path} ({size // 1024} KB)", file=out)
        print("Server: " + (f"running (process {pid})" if pid else "not running"), file=out)
        live = host_db.live_sessions(db) if pid else []
        tables, set_aside = open_tables(db, path)
        print(f"\nConnected ({len(live)}):", file=out)
        for s in live:
            print(f"  {s.name}  {s.who}  from {s.address}  since {_when(s.since)} "
                  f"({_for(now() - s.since)})  {s.place}", file=out)
        playing = sum(1 for t in tables if t.status == "playing")
        print(f"\nOpen tables ({len(tables)}, {playing} playing):", file=out)
        for table in tables:
            print(_table_line(table, live), file=out)
        for code, why in set_aside.items():
            print(f"  {code}  set aside: its journal cannot be replayed ({why})", file=out)
        bans = host_db.bans(db)
        print(f"\nBans ({len(bans)}):", file=out)
        for ban in bans:
            reason = f": {ban.reason}" if ban.reason else ""
            print(f"  {ban.target}  since {_when(ban.since)}{reason}", file=out)
        games, last = db.execute("SELECT count(*), max(finished_at) FROM games").fetchone()
        latest = f", the latest {_when(last)}" if last else ""
        print(f"\nFinished games: {games}{latest}", file=out)
    finally:
        db.close()
    return 0


# -- backup, restore, prune ---------------------------------------------------------------


def _copy(source: sqlite3.Connection, target: Path) -> None:
    """A consistent copy of ``source`` at ``target`` (mode 600), whole or not at all."""
    partial = target.with_name(target.name + ".partial")
    partial.unlink(missing_ok=True)
    os.close(os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    with closing(sqlite3.connect(partial)) as copy:
        source.backup(copy)
        copy.execute("PRAGMA journal_mode = DELETE")  # one self-contained file
    os.replace(partial, target)


def backup(data_dir: Path, file: Path, out: TextIO) -> int:
    """Copy the database to ``file`` with SQLite's backup API (safe while the server runs)."""
    if file.exists():
        raise HostToolError(f"{file} already exists: choose another name, or remove it first")
    if not file.parent.is_dir():
        raise HostToolError(f"{file.parent} is not a directory")
    db = _read_only(data_dir)
    try:
        _copy(db, file)
        games = db.execute("SELECT count(*) FROM games").fetchone()[0]
    finally:
        db.close()
    print(f"Backed up {data_dir / DB_NAME} to {file} ({file.stat().st_size // 1024} KB, "
          f"{games} finished games)", file=out)
    return 0


def _check_backup(file: Path) -> None:
    if not file.is_file():
        raise HostToolError(f"{file} does not exist")
    try:
        db = sqlite3.connect(f"{file.resolve().as_uri()}?mode=ro", uri=True)
        try:
            app_id = db.execute("PRAGMA application_id").fetchone()[0]
            version = db.execute("PRAGMA user_version").fetchone()[0]
            check = db.execute("PRAGMA quick_check").fetchone()[0]
        finally:
            db.close()
    except sqlite3.DatabaseError as error:
        raise HostToolError(f"{file} is not a valid database ({error})") from None
    if app_id != APPLICATION_ID or check != "ok":
        raise HostToolError(f"{file} is not a sound Mission Impractical backup")
    if version > schema_version():
        raise HostToolError(f"{file} was written by a newer version (schema {version}): "
                            "upgrade the server first")


def restore(data_dir: Path, file: Path, out: TextIO, now: Callable[[], float] = time.time
            ) -> int:
    """Put the backup ``file`` in place of the database; the server must be stopped. The
    database it replaces is kept beside it (``mission.sqlite3.before-restore-...``)."""
    if (pid := server_pid(data_dir)) is not None:
        raise HostToolError(f"the server is running (process {pid}) on {data_dir}: stop it "
                            "first (systemctl stop mission-impractical), then restore")
    _check_backup(file)
    data_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
    path = data_dir / DB_NAME
    if path.exists():
        kept = path.with_name(f"{DB_NAME}.before-restore-"
                              f"{datetime.fromtimestamp(now(), tz=UTC):%Y%m%dT%H%M%S}")
        with closing(sqlite3.connect(path)) as current:  # with its write-ahead log
            _copy(current, kept)
        print(f"Kept the database it replaces as {kept}", file=out)
    with closing(sqlite3.connect(f"{file.resolve().as_uri()}?mode=ro", uri=True)) as source, \
            closing(sqlite3.connect(path)) as target:
        source.backup(target)
    print(f"Restored {file} to {path}: start the server", file=out)
    return 0


def prune(data_dir: Path, older_than: str, out: TextIO,
          now: Callable[[], float] = time.time) -> int:
    """Delete the move-by-move records of tables closed longer ago than ``older_than``.
    Finished games' results and every player's totals stay; open tables are untouched."""
    cutoff = now() - parse_age(older_than)
    db = _writable(data_dir)
    try:
        db.execute("BEGIN IMMEDIATE")
        tables = db.execute(
            "SELECT count(DISTINCT r.table_id), count(*) FROM records r JOIN tables t"
            " ON t.id = r.table_id WHERE t.closed_at IS NOT NULL AND t.closed_at < ?",
            (cutoff,)).fetchone()
        db.execute("DELETE FROM records WHERE table_id IN (SELECT id FROM tables"
                   " WHERE closed_at IS NOT NULL AND closed_at < ?)", (cutoff,))
        db.execute("COMMIT")
    except sqlite3.Error as error:
        if db.in_transaction:
            db.execute("ROLLBACK")
        raise HostToolError(f"could not prune {data_dir / DB_NAME}: {error}") from None
    finally:
        db.close()
    print(f"Removed {plural(tables[1], 'record')} of {plural(tables[0], 'table')} closed before "
          f"{_when(cutoff)}. Finished games' scores and players' totals are kept.", file=out)
    return 0


# -- kick, ban, unban -----------------------------------------------------------------------


def _target(text: str) -> str:
    try:
        return host_db.parse_target(text)
    except host_db.BadTarget as error:
        raise HostToolError(str(error)) from None


def _connected(data_dir: Path) -> list[host_db.LiveSession]:
    """Who is connected to the running server now (nobody without one)."""
    if server_pid(data_dir) is None:
        return []
    db = _read_only(data_dir)
    try:
        return host_db.live_sessions(db)
    finally:
        db.close()


def _who(data_dir: Path, text: str) -> tuple[str, list[host_db.LiveSession]]:
    """``WHO`` as the host typed it -> the target to ban or kick, and the sessions it
    names now. ``WHO`` is a key fingerprint, a guest (``guest:...``), an address or
    network, or the name of one person connected now, as ``status`` shows it (a name is
    turned into that person's key or guest identity: names change and repeat)."""
    live = _connected(data_dir)
    try:
        target = host_db.parse_target(text)
    except host_db.BadTarget as error:
        named = [s for s in live if s.name.casefold() == text.strip().casefold()]
        people = {s.player_id: s for s in named}
        if not people:
            raise HostToolError(f"{error}; nor is it the name of anyone connected now "
                                "(status lists who is)") from None
        if len(people) > 1:
            listed = "; ".join(f"{s.name} {s.who} from {s.address}"
                               for s in people.values())
            raise HostToolError(f"{len(people)} people connected now are called "
                                f"{text.strip()!r} ({listed}): name one by its key or guest "
                                "identity") from None
        target = next(iter(people))
    return target, [s for s in live if host_db.matches(target, s.address, s.player_id)]


def _people(sessions: list[host_db.LiveSession]) -> list[str]:
    """The people behind ``sessions``, once each: ``alice (SHA256:...)``."""
    seen: dict[str, str] = {}
    for s in sessions:
        seen.setdefault(s.player_id, f"{s.name} ({s.who})")
    return list(seen.values())


def _check_shared(action: str, target: str, sessions: list[host_db.LiveSession],
                  yes: bool) -> None:
    """An address or network several people are connected from (a home behind one
    router, a proxy, this machine's own 127.0.0.1) takes them all: the host says so."""
    people = _people(sessions)
    if len(people) > 1 and not yes:
        raise HostToolError(
            f"{len(people)} people are connected from {target.removeprefix('address:')}: "
            f"{', '.join(people)}. An address is shared by everyone behind it (a home's "
            f"router, a proxy, this machine itself): {action} one of them by name, key or "
            f"guest identity (status lists them), or add --yes to {action} them all")


def kick(data_dir: Path, who: str, out: TextIO, wait_s: float = KICK_WAIT_S, *,
         yes: bool = False) -> int:
    """End the sessions of ``who`` on the running server (they may come back)."""
    if server_pid(data_dir) is None:
        _target(who)  # a bad WHO is said first
        raise HostToolError(f"no server is running on {data_dir}: nobody to kick")
    target, sessions = _who(data_dir, who)
    _check_shared("kick", target, sessions, yes)
    db = _writable(data_dir)
    try:
        kick_id = host_db.ask_kick(db, target, time.time())
        deadline = time.monotonic() + wait_s
        while (ended := host_db.kick_result(db, kick_id)) is None:
            if time.monotonic() > deadline:
                host_db.withdraw_kick(db, kick_id)
                raise HostToolError(f"the server did not carry out the kick in {wait_s:.0f} s")
            time.sleep(0.1)
    finally:
        db.close()
    if ended == 0:
        print(f"Nobody matching {target} is connected.", file=out)
        return 1
    gone = f" ({', '.join(_people(sessions))})" if sessions else ""
    print(f"Kicked {target}: {ended} session{'s' * (ended != 1)} ended{gone}.", file=out)
    return 0


def ban(data_dir: Path, who: str, reason: str, out: TextIO, *, yes: bool = False) -> int:
    """Keep ``who`` out from now on; their running sessions end within a second or two."""
    target, sessions = _who(data_dir, who)
    _check_shared("ban", target, sessions, yes)
    db = _writable(data_dir)
    try:
        added = host_db.add_ban(db, target, reason, time.time())
    finally:
        db.close()
    if not added:
        print(f"{target} was already banned.", file=out)
        return 1
    running = ""
    if sessions:
        running = f" (the running server ends their sessions now: {', '.join(_people(sessions))})"
    print(f"Banned {target}{running}. Lift it with: mission-impractical unban {target}",
          file=out)
    if target.startswith("guest:"):
        print("A guest has no key: this keeps that guest and their seat out, but not a new "
              "guest connection from the same place (ban the address for that, or serve "
              "with --authorized-keys).", file=out)
    return 0


def unban(data_dir: Path, who: str, out: TextIO) -> int:
    """Lift a ban."""
    target = _target(who)
    db = _writable(data_dir)
    try:
        lifted = host_db.lift_ban(db, target)
    finally:
        db.close()
    if not lifted:
        print(f"{target} is not banned.", file=out)
        return 1
    print(f"Lifted the ban on {target}.", file=out)
    return 0
