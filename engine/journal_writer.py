"""The journal's writes, committed off the event loop, many to a commit.

A commit with ``synchronous=FULL`` waits for the disk to say the bytes are down (an
fsync): a fraction of a millisecond on an SSD, tens of milliseconds on an SD card or a
busy disk. Made on the loop, every player on the server waits for it. A
:class:`JournalWriter` is a thread with its own connection to the journal. The loop hands
it each write, in order, as a function of a connection; the thread commits everything
waiting in one transaction (so one fsync covers every move made meanwhile: under load,
many) and reports each commit back on the loop. The hub tells nobody of a change until the
writes queued before it are committed (:meth:`engine.hub.Hub.changed`), so a move is still
on disk before anyone hears of it; only the loop no longer waits.

Each write gets a *ticket* (1, 2, 3...). ``saved`` is the last ticket committed, as the
loop knows it. If a commit fails, that transaction's writes and every write queued after
them are lost to the disk: the thread refuses the rest of that *epoch* and reports the
failure, and the loop, on hearing it, starts a new epoch and hands the codes of the
tables whose writes were lost to ``on_lost`` (the hub rebuilds them from what was saved).

The thread's SQLite calls release the GIL, so the loop runs Python while the disk works.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import logging
import queue
import sqlite3
import threading
from collections.abc import Callable
from pathlib import Path

from engine.text import plural

log = logging.getLogger(__name__)

Write = Callable[[sqlite3.Connection], object]
"""One write: statements run on the writer's connection inside its transaction."""

_STOP = object()


class JournalWriter:
    """A thread committing the journal's writes in order, as many to a transaction as are
    waiting. Every method but the thread's own runs on ``loop``."""

    def __init__(self, connect: Callable[[], sqlite3.Connection],
                 loop: asyncio.AbstractEventLoop, on_saved: Callable[[], None],
                 on_lost: Callable[[set[str], str], None], path: Path | str = "") -> None:
        self._connect = connect
        self._loop = loop
        self._on_saved = on_saved
        self._on_lost = on_lost
        self._path = path
        self._queue: queue.SimpleQueue[object] = queue.SimpleQueue()
        self.queued = 0
        """The last ticket handed out."""
        self.saved = 0
        """The last ticket committed, as far as the loop has heard."""
        self.commits = 0
        """Transactions committed (each one fsync)."""
        self._epoch = 0
        self._waiting: collections.deque[tuple[int, str]] = collections.deque()
        self._reports: collections.deque[tuple[str, int, str]] = collections.deque()
        self._ready = threading.Event()
        self._start_error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="journal-writer",
                                        daemon=True)
        self._thread.start()
        self._ready.wait()
        if self._start_error is not None:
            raise self._start_error

    @property
    def pending(self) -> bool:
        """Whether some write handed over is not committed yet."""
        return self.saved < self.queued

    def submit(self, code: str, write: Write) -> int:
        """Queue ``write`` (for table ``code``); returns its ticket."""
        if not self._thread.is_alive():
            raise RuntimeError(f"the journal writer of {self._path} has stopped")
        self.queued += 1
        self._waiting.append((self.queued, code))
        self._queue.put((self._epoch, self.queued, write))
        return self.queued

    def flush(self) -> None:
        """Block until everything queued so far is committed or refused (the loop waits:
        for reads that must see the writes, and for closing)."""
        if not self._thread.is_alive():
            return
        done = threading.Event()
        self._queue.put(done)
        done.wait()
        self._hear_reports()

    def close(self) -> None:
        """Commit what is queued, then stop the thread. Safe to call twice."""
        if self._thread.is_alive():
            self._queue.put(_STOP)
            self._thread.join()
        self._hear_reports()

    # -- on the loop -----------------------------------------------------------------------

    def _hear_reports(self) -> None:
        """Take in what the thread reported (also called by the loop's callback)."""
        while self._reports:
            kind, value, error = self._reports.popleft()
            if kind == "saved":
                if value > self.saved:
                    self.saved = value
                    while self._waiting and self._waiting[0][0] <= value:
                        self._waiting.popleft()
                    self._call(self._on_saved)
            elif value >= self._epoch:  # a failed epoch not heard of yet
                self._epoch = value + 1
                lost = {code for _ticket, code in self._waiting}
                self._waiting.clear()
                self.saved = self.queued  # nothing more will come of them
                log.error("journal %s: a commit failed, the latest moves of %s are not "
                          "saved: %s", self._path, plural(len(lost), "table"), error)
                self._call(self._on_lost, lost, error)

    @staticmethod
    def _call(callback: Callable[..., None], *args: object) -> None:
        try:
            callback(*args)
        except Exception:
            log.exception("journal writer callback %r failed", callback)

    def _report(self, kind: str, value: int, error: str = "") -> None:
        """From the thread: queue a report and wake the loop to hear it."""
        self._reports.append((kind, value, error))
        with contextlib.suppress(RuntimeError):  # the loop is closed: flush/close hear it
            self._loop.call_soon_threadsafe(self._hear_reports)

    # -- on the thread ---------------------------------------------------------------------

    def _run(self) -> None:
        try:
            db = self._connect()
        except BaseException as error:
            self._start_error = error
            self._ready.set()
            return
        self._ready.set()
        refused = -1  # writes of this epoch and before are lost: a commit of theirs failed
        try:
            while True:
                items = [self._queue.get()]
                with contextlib.suppress(queue.Empty):
                    while True:
                        items.append(self._queue.get_nowait())
                batch: list[tuple[int, int, Write]] = []
                for item in items:
                    if isinstance(item, tuple):
                        if item[0] > refused:
                            batch.append(item)
                        continue
                    refused = self._commit(db, batch, refused)
                    batch = []
                    if item is _STOP:
                        return
                    assert isinstance(item, threading.Event)
                    item.set()
                self._commit(db, batch, refused)
        finally:
            db.close()

    def _commit(self, db: sqlite3.Connection, batch: list[tuple[int, int, Write]],
                refused: int) -> int:
        """Commit ``batch`` in one transaction; returns the epoch now refused."""
        if not batch:
            return refused
        try:
            db.execute("BEGIN IMMEDIATE")
            for _epoch, _ticket, write in batch:
                write(db)
            db.execute("COMMIT")
        except Exception as error:  # sqlite3.Error, or a write's own bug: nothing is kept
            if db.in_transaction:
                with contextlib.suppress(sqlite3.Error):
                    db.execute("ROLLBACK")
            epoch = max(item[0] for item in batch)
            self._report("lost", epoch, str(error) or type(error).__name__)
            return max(refused, epoch)
        self.commits += 1
        self._report("saved", batch[-1][1])
        return refused
