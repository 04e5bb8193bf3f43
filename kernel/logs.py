"""Operator logs (structlog). The event log is the record; these lines are only for people.

Logs go to stderr, so ``--json`` output on stdout stays machine-readable.
"""

from __future__ import annotations

import logging
import sys

import structlog


class _StderrLogger:
    """Writes to whatever ``sys.stderr`` is at the moment of writing (tests swap and close streams)."""

    def msg(self, message: str) -> None:
        print(message, file=sys.stderr, flush=True)

    debug = info = warning = warn = error = critical = exception = fatal = log = msg


def _stderr_logger(*args: object) -> _StderrLogger:
    return _StderrLogger()


def configure(*, json: bool = False, level: int = logging.WARNING) -> None:
    renderer = structlog.processors.JSONRenderer() if json else structlog.dev.ConsoleRenderer(colors=False)
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(level),
        logger_factory=_stderr_logger,
        cache_logger_on_first_use=False,
    )


def configure_default() -> None:
    """Warnings only, on stderr, unless the program has configured structlog itself.

    structlog's own default prints every level to stdout, which would put a line per task
    into the output of any program that uses the kernel as a library (an ``Env`` loop).
    """
    if not structlog.is_configured():
        configure()


def debug_enabled() -> bool:
    """Whether structlog, as configured now, prints debug lines (True where the configuration cannot tell).

    For code with a debug line per step or task, asked once: making a line the filter then drops (a logger bound
    for it, its fields formatted) costs ~8 µs, 0.5-1 % of a term played with one per task."""
    if not hasattr(structlog.get_config()["wrapper_class"], "is_enabled_for"):  # a wrapper with no level filter
        return True
    return bool(structlog.get_logger().bind().is_enabled_for(logging.DEBUG))

