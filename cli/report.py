"""``campus report``: one self-contained HTML page for a run, or two runs side by side.

Kept apart from ``cli/main.py`` (which registers it); the page is built by ``reports.report``.
"""

from __future__ import annotations

import time
from pathlib import Path

import typer

from campus.cli.common import DB, PRICES, fail, json_option, open_db, pairing_warning, price_lookup


def report(
    run_id: str = typer.Argument(..., metavar="RUN", help="The run (branch) to show."),
    html: Path = typer.Option(None, "--html", help="The HTML file to write (one file, opens with no network)."),
    csv_dir: Path = typer.Option(None, "--csv", metavar="DIR", help="Also (or only) write RUN's tasks.csv and "
                                                                    "tool_calls.csv into this folder, for triage."),
    vs: str = typer.Option(None, "--vs", metavar="RUN2", help="Compare with this run: side by side, first divergence highlighted."),
    db: str = DB,
    force: bool = typer.Option(False, "--force", help="With --vs: compare runs of different worlds, terms or rules anyway."),
    prices: Path = PRICES,
    as_json: bool = json_option("Print what was written as JSON."),
) -> None:
    """Write an HTML report: scorecard and charts, a per-tool failure table, a day-by-day timeline
    with filters over the whole term, each task's transcript (click a task; each reply's tokens,
    request hash and cost) and the student's walks on the campus map. With --vs, two runs aligned
    by task and step by step, with every flipped task listed. REPORT.html#task=ID opens at a task.
    With --csv DIR, the run's tasks and tool calls as CSV files too. --prices FILE prices the model.
    """
    import msgspec
    from campus.kernel.outputs import OutputError, check_output
    from campus.reports.csv_export import check_tables, write_csv
    from campus.reports.report import is_report, write_report
    from campus.scenarios.play import open_run

    if html is None and csv_dir is None:
        fail("say what to write: --html FILE, --csv DIR or both")
    try:  # both outputs checked before either is written
        if html is not None:
            check_output(html, is_report, "a campus report")
        if csv_dir is not None:
            check_tables(csv_dir)
    except OutputError as error:
        fail(str(error))
    price_of = price_lookup(prices)
    with open_db(db, read_only=True) as store:
        started = time.perf_counter()
        first = open_run(store, run_id)
        second = open_run(store, vs) if vs is not None else None
        if second is not None:
            pairing_warning(first, second, force)
        size = write_report(html, first, second, price_of=price_of) if html is not None else 0
        rows = write_csv(first, csv_dir, price_of(first.branch.agent)) if csv_dir is not None else None
        seconds = time.perf_counter() - started
    runs = [run_id] + ([vs] if vs else [])
    if as_json:
        typer.echo(msgspec.json.encode({"html": None if html is None else str(html), "bytes": size, "runs": runs,
                                        "csv": rows, "seconds": round(seconds, 3)}).decode())
        return
    if html is not None:
        typer.echo(f"wrote {html} ({size / 1e6:.1f} MB, {' vs '.join(runs)}) in {seconds:.2f} s")
    if rows is not None:
        typer.echo(f"wrote {csv_dir}/tasks.csv ({rows['tasks']} tasks) and {csv_dir}/tool_calls.csv "
                   f"({rows['tool_calls']} tool calls) of {run_id}")
