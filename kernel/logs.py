"""Operator logs (structlog). The event log is the record; these lines are only for people.

Logs go to stderr, so ``--json`` output on stdout stays machine-readable.
"""

from __future__ import annotations

import logging
import sys

import structlog


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
        logger_factory=structlog.PrintLoggerFactory(sys.stderr),
        cache_logger_on_first_use=True,
    )
