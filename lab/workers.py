"""Worker processes that leave Ctrl-C to the process that started them."""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from multiprocessing import resource_tracker


@contextmanager
def interrupts_ignored() -> Iterator[None]:
    """Start worker processes inside this block: they begin with SIGINT ignored, so a terminal's Ctrl-C, which reaches
    the whole process group, stops only the parent, which then stops them.

    An ignored signal stays ignored across ``exec`` and CPython keeps it so, so a spawned worker ignores it from its
    first instruction. Setting that in the worker itself (a pool's initializer) came too late: a Ctrl-C while a
    worker was still importing (seconds on a busy machine) printed its traceback beside the parent's one line.
    SIGINT is also blocked in the block, so a Ctrl-C that comes while the workers start waits (Linux never discards a
    blocked signal as ignored) and reaches the parent as it leaves the block, a ``KeyboardInterrupt`` raised there:
    ignored alone, it was lost, and the parent went on to the end. The workers inherit the blocked mask too, which
    changes nothing for a process that ignores the signal. The first pool of a process starts multiprocessing's
    resource tracker, which unblocks SIGINT once its own process is up: inside the block, a Ctrl-C after that was
    ignored and lost again (the suite's Ctrl-C test saw an audit run to its end on a busy machine), so the tracker
    starts before it. From a thread other than the main one the parent's handler cannot change, and the block runs
    as it is."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    resource_tracker.ensure_running()
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
