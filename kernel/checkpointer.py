"""Moving committed pages from a WAL file into its database on a thread of its own.

In WAL mode a commit appends pages to the ``-wal`` file; a checkpoint later copies them into the
database and fsyncs both files (``synchronous=NORMAL`` syncs only there). SQLite runs that checkpoint
on the committing connection once the WAL holds 1,000 pages, so every few megabytes one commit of a
session waited for it: measured on the default term's oracle play, the session spent 0.15-0.17 s of
its ~1 s (at 1.8x the quiet pace) in ``COMMIT``, 0.035 s of it the commits themselves; on ``campus
bench calls``' durable mix, 0.36-0.38 s of ~1.7 s.

A ``Checkpointer`` runs a passive checkpoint on its own connection once about ``EVERY_BYTES`` have
been committed (``nudge``; a nudge that comes while one runs makes one more). A passive checkpoint
never blocks the writer or a reader, and SQLite's C code lets go of the GIL while it copies and
syncs. The same play then spent 0.04-0.06 s in ``COMMIT`` and its wall time fell 6-9 %, the mix 0.20-0.22 s
(6-10 % more calls/s); the process's CPU rose 3-5 %, the copying on the other core.
What a commit guarantees is unchanged: it is durable in the WAL once ``COMMIT`` returns, whoever copies
it later. Should the thread fail (the file gone, no thread to be had), the writer's own checkpoints
go on as before. The thread opens the file the writer opened, by its absolute path, only if that path
still names the same file (device and inode): another program's database put in its place is left
unread, so its WAL is never checkpointed into it.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Callable

BACKSTOP_PAGES = 4_000
"""The writer's own automatic checkpoint, in WAL pages (SQLite's default is 1,000). A checkpoint lets the writer start
the WAL over only if it ends before the writer's next transaction begins, which one on another thread, taking two
fsyncs, mostly does not: the WAL grows until the writer's own checkpoint, with little left to copy, lets it start over.
At 1,000 pages that came every few megabytes and still cost the play ~0.03 s; at 4,000 the WAL reaches ~16 MB."""

EVERY_BYTES = 1 << 20
"""About how much a writer commits between two checkpoints. At ~1 MB the default term's play ran 14 checkpoints and
spent 0.03-0.07 s in ``COMMIT``; at ~4 MB (SQLite's own interval) 4 and 0.08 s, one of them a backstop checkpoint with
its fsyncs; the thread's CPU was 0.05-0.065 s against 0.035-0.04 s, nearly all of it system time (the kernel writing hot
pages copied more often, and the fsyncs' writeback)."""


class Checkpointer:
    """Passive checkpoints of one database file after its commits, on a daemon thread."""

    def __init__(self, path: str, identity: tuple[int, int] | None, connect: Callable[[], sqlite3.Connection]) -> None:
        """``path``: the database file's absolute path; ``identity``: the file's ``file_identity`` when the writer
        opened it; ``connect``: a read-write connection to that path that makes no file. The thread checkpoints only
        that file: not one made or put there since (whose WAL is not ours)."""
        self.path = path
        self.identity = identity
        self._connect = connect
        self.checkpoints = 0
        """Checkpoints run so far (those another connection's checkpoint made busy included)."""
        self._unsaved = 0
        self._wake = threading.Event()
        self._stopping = False
        self._thread: threading.Thread | None = threading.Thread(target=self._run, name=f"campus-checkpoint:{path}",
                                                                 daemon=True)
        try:
            self._thread.start()
        except RuntimeError:  # no thread to be had: the writer's own checkpoints serve
            self._thread = None

    def nudge(self, written: int) -> None:
        """A commit of about ``written`` bytes has landed: once ``EVERY_BYTES`` have since the last checkpoint, copy
        them into the database when the thread is free. Called from the writer's thread only."""
        self._unsaved += written
        if self._unsaved >= EVERY_BYTES:
            self._unsaved = 0
            self._wake.set()

    def stop(self) -> None:
        """End the thread once any checkpoint under way is done, and close its connection."""
        self._stopping = True
        self._wake.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join()

    def _run(self) -> None:
        if not self._ours():
            return
        try:
            conn = self._connect()
        except sqlite3.Error:
            return
        try:
            if not self._ours():  # put there while connecting: closed unread, so its WAL is not checkpointed
                return
            while True:
                self._wake.wait()
                self._wake.clear()
                if self._stopping:
                    return
                conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
                self.checkpoints += 1
        except sqlite3.Error:
            return
        finally:
            conn.close()

    def _ours(self) -> bool:
        return self.identity is not None and file_identity(self.path) == self.identity


def file_identity(path: str) -> tuple[int, int] | None:
    """The file at ``path`` as the file system knows it (device and inode), ``None`` if there is none."""
    try:
        status = os.stat(path)
    except OSError:
        return None
    return status.st_dev, status.st_ino
