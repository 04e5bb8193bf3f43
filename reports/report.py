"""One self-contained HTML page for a run, or for two runs side by side.

The page is the template in ``report_assets`` with its stylesheet, its script and the
report's data (``reports.report_data``) inlined: it opens from the file with no network.
The data is JSON inside a ``<script type="application/json">`` element, with every ``<``
written as ``\\u003c`` so no text from a run (an agent's reply is untrusted) can close the
element or inject markup.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import Any

import msgspec

from campus.kernel.outputs import check_output, write_output
from campus.replays.prices import Price
from campus.reports.report_data import report_data
from campus.scenarios.play import Run

_MARKER = re.compile(r"\{\{(title|style|script|data)\}\}")


class ReportError(ValueError):
    """A report that cannot be built (e.g. a damaged template)."""


def render_report(a: Run, b: Run | None = None, *, price_of: Callable[[str], Price | None] | None = None) -> str:
    """The HTML page for run ``a`` (compared with ``b`` if given); ``price_of`` prices a run's agent for its cost."""
    return render_page(report_data(a, b, price_of=price_of))


def write_report(path: str | Path, a: Run, b: Run | None = None, *,
                 price_of: Callable[[str], Price | None] | None = None) -> int:
    """Write the page to ``path`` (new, or a report written before: ``OutputError`` for any other file); its size in bytes."""
    check_output(path, is_report, "a campus report")
    page = render_report(a, b, price_of=price_of).encode("utf-8")
    write_output(path, page, is_report, "a campus report")
    return len(page)


def is_report(head: bytes) -> bool:
    """Whether a file that starts with ``head`` is a page ``write_report`` wrote (its generator tag)."""
    return b'<meta name="generator" content="campus report">' in head[:1024]


def render_page(data: dict[str, Any]) -> str:
    """Fill the template once (inserted text is never scanned for markers again)."""
    runs = data["runs"]
    title = "campus report: " + " vs ".join(run["id"] for run in runs)
    parts = {
        "title": html.escape(title),
        "style": _asset("report.css", "</style"),
        "script": _asset("report.js", "</script"),
        "data": _embedded_json(data),
    }
    return _MARKER.sub(lambda match: parts[match.group(1)], _asset("report.html", None))


def _asset(name: str, forbidden: str | None) -> str:
    text = resources.files("campus.reports").joinpath("report_assets", name).read_text(encoding="utf-8")
    if forbidden is not None and forbidden in text.lower():
        raise ReportError(f"report asset {name} contains {forbidden!r}, which would end its element early")
    return text


def _embedded_json(data: dict[str, Any]) -> str:
    """The data as JSON text safe inside a script element.

    Event payloads are spliced in as stored: the kernel wrote them with the canonical
    encoder and the hash chain covers them (``campus verify`` is the check for a tampered
    file), so they are not decoded again here; that would double the build time.
    """
    return msgspec.json.encode(data).decode("utf-8").replace("<", "\\u003c")
