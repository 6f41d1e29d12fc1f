"""The durable record of accepted table commands, in SQLite (standard library only).

The hub calls :meth:`SqliteJournal.record` for every table command the engine accepted,
and tells nobody of it until it is committed, with ``synchronous=FULL`` in WAL mode, so
what anyone was told of survives a crash and a power cut. At start,
:meth:`SqliteJournal.records` hands back every record of every table that is not closed,
which :meth:`engine.hub.Hub.replay` turns back into the same tables.

Finished games are stored apart (:meth:`SqliteJournal.game_over`) for the hall of fame and
the list of recent games (see :mod:`engine.records`, the read side).

The database file is never replaced: a file that is not one of ours, is damaged, or was
written by a newer version stops the start with a :class:`JournalError` saying which file
and what is wrong. The schema carries its version in ``PRAGMA user_version`` and moves
forward through :data:`MIGRATIONS` (a copy of the file is kept before each upgrade).

One process: a lock file next to the database keeps a second server off the same data
directory. The server commits from a thread of its own (:meth:`SqliteJournal.write_behind`,
:mod:`engine.journal_writer`): the loop queues each write and goes on, and the hub tells
nobody of a change until the disk has it. Without it (tools, tests, benches), each write is
committed before the call returns, on the caller's thread.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import sqlite3
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from engine.journal_writer import JournalWriter, Write
from engine.text import inert_payload

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: no advisory lock, one server by trust
    # mypy: the module or None where it does not exist (checked before each use)
    fcntl = None  # type: ignore[assignment]

log = logging.getLogger(__name__)

DEFAULT_DATA_DIR = Path("data")
DB_NAME = "mission.sqlite3"
LOCK_NAME = "mission.lock"
APPLICATION_ID = 0x4D495353  # "MISS": marks the file as ours (PRAGMA application_id)
SYNC_MODES = ("FULL", "NORMAL", "OFF", "EXTRA")
QUICK_CHECK_LINES = 5  # problems quoted in the error for a damaged file

Record = tuple[str, int, str, dict[str, Any]]
"""One journal record: ``(table code, seq, kind, payload)``."""


class JournalError(Exception):
    """The journal cannot be opened or written; ``str(error)`` names the file and the fix."""


# --- schema ------------------------------------------------------------------------------

Migration = Callable[[sqlite3.Connection], None]


def _migrate_to_v1(db: sqlite3.Connection) -> None:
    """Version 1, the first layout: tables, their records, finished games and their seats.

    ``tables`` has one row per table ever created; a code may come back after its table
    was closed, so records hang off the table's row id, not its code. Only one table per
    code may be open at a time.
    """
    for statement in (
        f"PRAGMA application_id = {APPLICATION_ID}",
        """CREATE TABLE tables (
               id INTEGER PRIMARY KEY,
               code TEXT NOT NULL,
               created_at REAL NOT NULL,
               closed_at REAL
           )""",
        "CREATE UNIQUE INDEX tables_open_code ON tables (code) WHERE closed_at IS NULL",
        """CREATE TABLE records (
               table_id INTEGER NOT NULL REFERENCES tables (id),
               seq INTEGER NOT NULL,
               kind TEXT NOT NULL,
               payload TEXT NOT NULL,
               at REAL NOT NULL,
               PRIMARY KEY (table_id, seq)
           ) WITHOUT ROWID""",
        """CREATE TABLE games (
               id INTEGER PRIMARY KEY,
               table_id INTEGER NOT NULL REFERENCES tables (id),
               code TEXT NOT NULL,
               game_no INTEGER NOT NULL,
               finished_at REAL NOT NULL,
               result TEXT NOT NULL,
               UNIQUE (table_id, game_no)
           )""",
        "CREATE INDEX games_finished ON games (finished_at)",
        """CREATE TABLE game_players (
               game_id INTEGER NOT NULL REFERENCES games (id),
               seat INTEGER NOT NULL,
               player_id TEXT NOT NULL,
               name TEXT NOT NULL,
               is_bot INTEGER NOT NULL,
               score INTEGER NOT NULL,
               won INTEGER NOT NULL,
               PRIMARY KEY (game_id, seat)
           )""",
        "CREATE INDEX game_players_player ON game_players (player_id)",
    ):
        db.execute(statement)


def _migrate_to_v2(db: sqlite3.Connection) -> None:
    """Version 2: what the host's tools share with the running server (see
    ``server/admin/control.py``). ``live_sessions`` is who is connected now (the server
    writes it, ``mission-impractical status`` reads it); ``bans`` holds banned key
    fingerprints (``key:SHA256:...``) and addresses (``address:203.0.113.9``); ``kicks``
    are requests the server picks up, carries out and marks done."""
    for statement in (
        """CREATE TABLE live_sessions (
               id INTEGER PRIMARY KEY,
               address TEXT NOT NULL,
               player_id TEXT NOT NULL,
               name TEXT NOT NULL,
               since REAL NOT NULL
           )""",
        """CREATE TABLE bans (
               target TEXT PRIMARY KEY,
               reason TEXT NOT NULL,
               since REAL NOT NULL
           )""",
        """CREATE TABLE kicks (
               id INTEGER PRIMARY KEY,
               target TEXT NOT NULL,
               asked_at REAL NOT NULL,
               done_at REAL,
               sessions INTEGER
           )""",
    ):
        db.execute(statement)


def _migrate_to_v3(db: sqlite3.Connection) -> None:
    """Version 3: a game ended before its first round was scored is no game (it counted as
    a shared win for every seat before): remove the ones already stored."""
    unplayed = ("SELECT id FROM games WHERE json_valid(result) AND"
                " coalesce(json_array_length(result, '$.rounds'), 0) = 0")
    db.execute(f"DELETE FROM game_players WHERE game_id IN ({unplayed})")
    db.execute(f"DELETE FROM games WHERE id IN ({unplayed})")


def _migrate_to_v4(db: sqlite3.Connection) -> None:
    """Version 4: where each connected person is, for ``status``: ``table_code`` is the
    table their screen shows (NULL: the lobby), ``seated`` whether they have a seat there
    (else they watch)."""
    db.execute("ALTER TABLE live_sessions ADD COLUMN table_code TEXT")
    db.execute("ALTER TABLE live_sessions ADD COLUMN seated INTEGER NOT NULL DEFAULT 0")


MIGRATIONS: list[Migration] = [_migrate_to_v1, _migrate_to_v2, _migrate_to_v3, _migrate_to_v4]
"""``MIGRATIONS[v]`` moves a database from version ``v`` to ``v + 1``; append, never edit."""


def schema_version() -> int:
    """The version this code writes: the number of migrations."""
    return len(MIGRATIONS)


# --- opening ------------------------------------------------------------------------------


def open_journal(data_dir: Path | str = DEFAULT_DATA_DIR, *, synchronous: str = "FULL",
                 clock: Callable[[], float] = time.time) -> SqliteJournal:
    """Open (creating on first start) the journal in ``data_dir``/``mission.sqlite3``.

    Raises :class:`JournalError` when the directory cannot be made, another server holds
    it, or the file is not a sound journal of a version this code knows. ``synchronous``
    is for benchmarks and tests; keep ``"FULL"`` in service. ``clock`` (Unix seconds)
    stamps records and finished games.
    """
    mode = synchronous.upper()
    if mode not in SYNC_MODES:
        raise ValueError(f"synchronous must be one of {', '.join(SYNC_MODES)}")
    data_dir = Path(data_dir)
    path = data_dir / DB_NAME
    try:
        data_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError as error:
        raise JournalError(f"cannot create the data directory {data_dir}: "
                           f"{error.strerror or error}") from error
    lock = _lock(data_dir)
    try:
        db = _connect(path)
        try:
            _check(db, path)
            _set_modes(db, path, mode)
            _migrate(db, path)
            check_tables(db, path)
        except BaseException:
            db.close()
            raise
    except BaseException:
        _unlock(lock)
        raise
    return SqliteJournal(db, path, lock, clock)


def _lock(data_dir: Path) -> int | None:
    """Hold ``mission.lock`` for as long as the journal is open: one writer per directory."""
    if fcntl is None:  # pragma: no cover
        return None
    lock_path = data_dir / LOCK_NAME
    try:
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o600)
    except OSError as error:
        raise JournalError(f"cannot open the lock file {lock_path}: "
                           f"{error.strerror or error}") from error
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        holder = os.read(fd, 32).decode("ascii", "replace").strip() or "unknown"
        os.close(fd)
        raise JournalError(f"{data_dir} is in use by another server (process {holder} holds "
                           f"{lock_path}): stop it, or give this one another data "
                           "directory") from None
    os.ftruncate(fd, 0)
    os.write(fd, f"{os.getpid()}\n".encode("ascii"))
    return fd


def _unlock(fd: int | None) -> None:
    if fd is not None:
        with contextlib.suppress(OSError):
            os.close(fd)  # closing the descriptor releases the flock


def _connect(path: Path) -> sqlite3.Connection:
    if not path.exists():
        try:  # private from the start: names, chat and key fingerprints live here
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
        except FileExistsError:
            pass
        except OSError as error:
            raise JournalError(f"cannot create {path}: {error.strerror or error}") from error
    try:
        # autocommit: one statement is one transaction unless we BEGIN ourselves
        return sqlite3.connect(path, isolation_level=None)
    except sqlite3.Error as error:
        raise JournalError(f"cannot open {path} ({error}): check its permissions") from error


def _damaged(path: Path, what: str) -> JournalError:
    return JournalError(f"{path} is not a valid database ({what}): "
                        "move it away or restore a backup")


def _check(db: sqlite3.Connection, path: Path) -> None:
    """Refuse, before writing a byte, a file that is not ours, is damaged or is too new."""
    try:
        version = db.execute("PRAGMA user_version").fetchone()[0]
        app_id = db.execute("PRAGMA application_id").fetchone()[0]
        names = [row[0] for row in db.execute(
            "SELECT name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'")]
        problems = [row[0] for row in db.execute("PRAGMA quick_check")]
    except sqlite3.DatabaseError as error:
        raise _damaged(path, str(error)) from error
    if problems != ["ok"]:
        shown = "; ".join(problems[:QUICK_CHECK_LINES])
        more = len(problems) - QUICK_CHECK_LINES
        raise _damaged(path, f"quick_check: {shown}" + (f"; and {more} more" if more > 0 else ""))
    if app_id != APPLICATION_ID and (app_id != 0 or version != 0 or names):
        raise JournalError(f"{path} is a database, but not a Mission Impractical journal "
                           f"(application_id {app_id}, user_version {version}, tables: "
                           f"{', '.join(names[:5]) or 'none'}): move it away")
    if version > schema_version():
        raise JournalError(f"{path} was written by a newer version (schema {version}; this "
                           f"version knows up to {schema_version()}): upgrade the server, or "
                           "restore a backup")


REQUIRED_TABLES = ("tables", "records", "games", "game_players")
"""The tables every journal holds, since schema 1 (a file missing one is damaged)."""


def check_tables(db: sqlite3.Connection, path: Path) -> None:
    """Refuse, in one line, a journal of this schema that lacks one of its tables."""
    try:
        names = {row[0] for row in db.execute("SELECT name FROM sqlite_master")}
    except sqlite3.DatabaseError as error:
        raise _damaged(path, str(error)) from error
    missing = [name for name in REQUIRED_TABLES if name not in names]
    if missing:
        raise _damaged(path, f"its {', '.join(missing)} table{'s' * (len(missing) > 1)} "
                             "missing")


def _set_modes(db: sqlite3.Connection, path: Path, synchronous: str) -> None:
    try:
        mode = db.execute("PRAGMA journal_mode = WAL").fetchone()[0]
        db.execute(f"PRAGMA synchronous = {synchronous}")
        db.execute("PRAGMA busy_timeout = 5000")
    except sqlite3.DatabaseError as error:
        raise JournalError(f"cannot set up {path}: {error}") from error
    if str(mode).lower() != "wal":
        raise JournalError(f"{path} cannot use write-ahead logging (journal_mode is {mode}); "
                           "keep the data directory on a local disk")


def _migrate(db: sqlite3.Connection, path: Path) -> None:
    """Run every migration from the file's version to ours, each in its own transaction."""
    version = db.execute("PRAGMA user_version").fetchone()[0]
    target = schema_version()
    if version == target:
        return
    if version > 0:
        _backup(db, path, version)
    for step in range(version, target):
        try:
            db.execute("BEGIN IMMEDIATE")
            MIGRATIONS[step](db)
            db.execute(f"PRAGMA user_version = {step + 1}")
            db.execute("COMMIT")
        except Exception as error:
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise JournalError(f"cannot upgrade {path} from schema {step} to {step + 1} "
                               f"({error}); the file is unchanged at schema {step}") from error
        if version > 0:
            log.info("journal %s upgraded to schema %d", path, step + 1)
    if version == 0:
        log.info("journal %s created (schema %d)", path, target)


def _backup(db: sqlite3.Connection, path: Path, version: int) -> None:
    """Before an upgrade: a consistent copy beside the file (``...sqlite3.v1.bak``)."""
    copy = path.with_name(f"{path.name}.v{version}.bak")
    if copy.exists():
        return
    try:
        target = sqlite3.connect(copy)
        try:
            db.backup(target)
        finally:
            target.close()
        copy.chmod(0o600)
    except (sqlite3.Error, OSError) as error:
        raise JournalError(f"cannot back up {path} to {copy} before upgrading it: "
                           f"{error}") from error


# --- the journal --------------------------------------------------------------------------


class SqliteJournal:
    """The hub's journal. Use it from one thread (the event loop); see :func:`open_journal`.

    Every write either commits whole or raises :class:`JournalError` and changes nothing;
    once :meth:`write_behind` is on, a write that fails on the disk is reported to its
    ``on_lost`` instead, with every write queued after it.
    """

    def __init__(self, db: sqlite3.Connection, path: Path, lock: int | None,
                 clock: Callable[[], float]) -> None:
        self.connection = db
        self.path = path
        self._lock = lock
        self._clock = clock
        self._closed = False
        self.writer: JournalWriter | None = None
        """The thread committing writes, once :meth:`write_behind` is on."""
        # code -> [table row id, last seq] of every open table: checks without reading
        self._open: dict[str, list[int]] = {}
        self._next_id = 1  # the next table's row id (ids are ours: writes are queued)
        self._read_open()

    def _read_open(self) -> None:
        """What is open, as the database has it."""
        self._open.clear()
        for table_id, code, last in self.connection.execute(
                "SELECT t.id, t.code, (SELECT MAX(seq) FROM records WHERE table_id = t.id)"
                " FROM tables t WHERE t.closed_at IS NULL ORDER BY t.id"):  # creation order
            self._open[code] = [table_id, last or 0]
        self._next_id = self.connection.execute(
            "SELECT COALESCE(MAX(id), 0) + 1 FROM tables").fetchone()[0]

    def write_behind(self, loop: Any, on_saved: Callable[[], None],
                     on_lost: Callable[[set[str], str], None]) -> JournalWriter:
        """From now on, commit on a thread of its own (see :mod:`engine.journal_writer`):
        each write is queued and the call returns at once. ``on_saved()`` runs on ``loop``
        after each commit; ``on_lost(codes, error)`` after a failed one, once this journal
        has read again what the database holds (the tables ``codes`` lost their latest
        writes and must be rebuilt from it)."""
        self._usable()
        if self.writer is not None:
            return self.writer
        synchronous = self.connection.execute("PRAGMA synchronous").fetchone()[0]

        def connect() -> sqlite3.Connection:
            db = _connect(self.path)
            db.execute(f"PRAGMA synchronous = {int(synchronous)}")
            db.execute("PRAGMA busy_timeout = 5000")
            return db

        def lost(codes: set[str], error: str) -> None:
            self._read_open()
            on_lost(codes, error)

        self.writer = JournalWriter(connect, loop, on_saved, lost, self.path)
        return self.writer

    def _store(self, code: str, what: str, write: Write) -> None:
        """Queue ``write`` for the writer, or commit it now in a transaction of its own."""
        if self.writer is not None:
            self.writer.submit(code, write)
            return
        with self._write(what):
            self.connection.execute("BEGIN IMMEDIATE")
            write(self.connection)
            self.connection.execute("COMMIT")

    def _flushed(self) -> None:
        """Before a read that must see every write made so far: wait for the writer."""
        if self.writer is not None:
            self.writer.flush()

    # -- writing ---------------------------------------------------------------------------

    def record(self, code: str, seq: int, kind: str, payload: dict[str, Any]) -> None:
        """Store one accepted command durably. Without a writer thread the command is
        committed (``synchronous=FULL``) when this returns, and survives a crash or a power
        cut; in write-behind mode (:meth:`write_behind`, the server's) it is only queued
        for the writer's next commit, and the hub tells nobody of it until that commit is
        reported (:meth:`engine.hub.Hub.changed`). ``seq`` must follow the table's last
        one (``"create"`` is 1): a gap means the hub and the journal disagree, and the record
        is refused rather than stored in a history that would replay differently. A
        ``"close"`` record also closes the table (see :meth:`close_table`)."""
        self._usable()
        text = _encode(payload, f"the payload of {kind!r} at table {code}")
        now = self._clock()
        insert = "INSERT INTO records (table_id, seq, kind, payload, at) VALUES (?, ?, ?, ?, ?)"
        if kind == "create":
            if code in self._open:
                raise JournalError(f"table {code} is already open in {self.path}: a second "
                                   "table cannot take its code until it is closed")
            if seq != 1:
                raise JournalError(f"table {code} must start at seq 1, not {seq}")
            table_id = self._next_id

            def create(db: sqlite3.Connection) -> None:
                db.execute("INSERT INTO tables (id, code, created_at) VALUES (?, ?, ?)",
                           (table_id, code, now))
                db.execute(insert, (table_id, seq, kind, text, now))

            self._store(code, "record the creation of table " + code, create)
            self._next_id += 1
            self._open[code] = [table_id, seq]
            return
        entry = self._open.get(code)
        if entry is None:
            raise JournalError(f"table {code} is not open in {self.path} (never created, or "
                               "closed): its command cannot be recorded")
        if seq != entry[1] + 1:
            raise JournalError(f"table {code}: command {seq} ({kind}) does not follow "
                               f"command {entry[1]} in {self.path}")
        table_id = entry[0]
        if kind == "close":  # the hub forgets the table: so does replay, atomically

            def close(db: sqlite3.Connection) -> None:
                db.execute(insert, (table_id, seq, kind, text, now))
                db.execute("UPDATE tables SET closed_at = ? WHERE id = ?", (now, table_id))

            self._store(code, f"record {kind} at table {code}", close)
            del self._open[code]
            return
        self._store(code, f"record {kind} at table {code}",
                    lambda db: db.execute(insert, (table_id, seq, kind, text, now)))
        entry[1] = seq

    def game_over(self, code: str, game_no: int, seats: Sequence[tuple[str, str]],
                  result: dict[str, Any]) -> None:
        """Store a finished game of the open table ``code``. ``seats`` are ``(player_id,
        name)`` by seat; ``result`` is :func:`engine.rules.game_summary`'s (``scores`` by
        seat and ``winners`` as seat numbers are required; ``rounds`` is kept as it is).
        Idempotent: recording the same ``game_no`` of the same table again stores nothing,
        so the hub may call it again after a restart to be sure. A game ended before its
        first round was scored (no ``rounds``) counts for nobody: nothing is stored."""
        self._usable()
        if not result.get("rounds"):
            return
        entry = self._open.get(code)
        if entry is None:
            raise JournalError(f"table {code} is not open in {self.path}: cannot record its "
                               "finished game")
        scores, winners = result.get("scores"), result.get("winners")
        if (not isinstance(scores, list | tuple) or len(scores) != len(seats)
                or not all(isinstance(p, int) for p in scores)
                or not isinstance(winners, list | tuple)
                or not all(isinstance(w, int) and 0 <= w < len(seats) for w in winners)):
            raise JournalError(f"table {code} game {game_no}: the result needs one integer "
                               f"score per seat ({len(seats)}) and winners as seat numbers")
        text = _encode(result, f"the result of game {game_no} at table {code}")
        table_id, now = entry[0], self._clock()

        def store(db: sqlite3.Connection) -> None:
            cursor = db.execute(
                "INSERT OR IGNORE INTO games (table_id, code, game_no, finished_at, result)"
                " VALUES (?, ?, ?, ?, ?)", (table_id, code, game_no, now, text))
            if cursor.rowcount == 0:  # stored before
                return
            game_id = cursor.lastrowid
            db.executemany(
                "INSERT INTO game_players (game_id, seat, player_id, name, is_bot, score, won)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                [(game_id, seat, pid, name, pid.startswith("bot:"), scores[seat],
                  seat in winners) for seat, (pid, name) in enumerate(seats)])

        self._store(code, f"record game {game_no} at table {code}", store)

    def has_game(self, code: str, game_no: int) -> bool:
        """Whether game ``game_no`` of the open table ``code`` is stored."""
        entry = self._open.get(code)
        self._flushed()
        return entry is not None and self.connection.execute(
            "SELECT 1 FROM games WHERE table_id = ? AND game_no = ?",
            (entry[0], game_no)).fetchone() is not None

    def close_table(self, code: str) -> bool:
        """Mark the open table ``code`` closed: replay skips it and its code is free again.
        Its records and finished games stay. Returns False when no such table is open."""
        self._usable()
        entry = self._open.get(code)
        if entry is None:
            return False
        table_id, now = entry[0], self._clock()
        self._store(code, f"close table {code}", lambda db: db.execute(
            "UPDATE tables SET closed_at = ? WHERE id = ?", (now, table_id)))
        del self._open[code]
        return True

    # -- reading ---------------------------------------------------------------------------

    def records(self) -> Iterator[Record]:
        """Every record of every open table, table by table in creation order, each table's
        records in seq order starting with its ``"create"``: what :meth:`Hub.replay` takes.
        A table whose records are not a whole sequence raises :class:`JournalError`."""
        self._usable()
        self._flushed()
        tables = self.connection.execute(
            "SELECT id, code FROM tables WHERE closed_at IS NULL ORDER BY id").fetchall()
        for table_id, code in tables:
            yield from self._table(table_id, code)

    def table_records(self, code: str) -> Iterator[Record]:
        """The records of the one open table ``code`` (to rebuild it alone)."""
        self._usable()
        entry = self._open.get(code)
        if entry is None:
            raise JournalError(f"table {code} is not open in {self.path}")
        self._flushed()
        yield from self._table(entry[0], code)

    def open_tables(self) -> dict[str, int]:
        """Code -> last seq of every open table, in the order they were created (a
        restarted server lists them, and finds a player's newest game, as before)."""
        return {code: entry[1] for code, entry in self._open.items()}

    def _table(self, table_id: int, code: str) -> Iterator[Record]:
        rows = self.connection.execute(
            "SELECT seq, kind, payload FROM records WHERE table_id = ? ORDER BY seq",
            (table_id,)).fetchall()
        for expected, (seq, kind, text) in enumerate(rows, start=1):
            if seq != expected or (seq == 1) != (kind == "create"):
                raise JournalError(f"{self.path}: table {code} has a broken history at "
                                   f"record {seq} ({kind}): move the file away or restore "
                                   "a backup")
            try:  # player text was cleaned as it was written; a crafted file's is cleaned here
                payload = inert_payload(json.loads(text))
            except ValueError as error:
                raise JournalError(f"{self.path}: table {code} record {seq} is not JSON "
                                   f"({error})") from error
            yield code, seq, kind, payload

    # -- closing ---------------------------------------------------------------------------

    def close(self) -> None:
        """Fold the write-ahead log into the database file, close it, release the lock.
        Safe to call twice."""
        if self._closed:
            return
        self._closed = True
        if self.writer is not None:  # what is queued is committed first
            self.writer.close()
        try:
            busy, _, _ = self.connection.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
            if busy:
                log.info("journal %s: a reader kept the checkpoint from finishing", self.path)
        except sqlite3.Error as error:
            log.warning("journal %s: checkpoint at close failed: %s", self.path, error)
        finally:
            self.connection.close()
            _unlock(self._lock)
            self._lock = None

    def __enter__(self) -> SqliteJournal:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    # -- helpers ---------------------------------------------------------------------------

    def _usable(self) -> None:
        if self._closed:
            raise JournalError(f"the journal {self.path} is closed")

    @contextlib.contextmanager
    def _write(self, what: str) -> Iterator[None]:
        try:
            yield
        except sqlite3.Error as error:
            if self.connection.in_transaction:
                with contextlib.suppress(sqlite3.Error):
                    self.connection.execute("ROLLBACK")
            raise JournalError(f"cannot {what} in {self.path}: {error}") from error


def _encode(data: Any, what: str) -> str:
    if not isinstance(data, dict):
        raise JournalError(f"{what} must be a dict, not {type(data).__name__}")
    try:
        return json.dumps(data, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    except (TypeError, ValueError) as error:
        raise JournalError(f"{what} is not JSON-ready: {error}") from error
