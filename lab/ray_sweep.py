"""A sweep's runs as Ray tasks: each plays into a SQLite file of its own, and the driver merges
every finished run into the sweep's database through the export/import path (hash-checked).

No database is shared over the network: a task gets the plan of one run (and, for a run an
earlier sweep left unfinished, its export so far), plays it in a temporary file on whichever
node Ray picks, and returns the run's export. The driver imports a new run whole, or appends a
continued run's new events after checking that the export extends what is stored; so the
database holds exactly what a local sweep would, with the same final hashes, and a run is
merged as soon as its task ends (an interrupted sweep keeps every merged run, and the same
command plays the rest). Progress follows Ray's task states: a run counts when its task is done.

Model keys reach the tasks as environment variables of the task (never in the database).
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Sequence
from typing import Any

from campus.agents.providers import PROVIDERS
from campus.kernel.store import open_store
from campus.lab.sweep import AGAIN, AgentFactory, PlannedRun, Progress, SweepError, SweepSettings
from campus.replays.export import append_lines, export_lines, import_lines
from campus.scenarios.play import RunSpec, open_run, start_run

LOCAL = "local"
"""``--ray local``: start a Ray instance on this machine for the sweep (and stop it after)."""

POLL_SECONDS = 0.5

KEY_VARIABLES = ("OPENAI_API_KEY", "OPENAI_BASE_URL", "CAMPUS_MODEL") + tuple(
    p.key_variable for p in PROVIDERS.values() if p.key_variable)


def play_remote(settings: SweepSettings, planned: PlannedRun, factory: AgentFactory, partial: list[str] | None) -> list[str]:
    """Play one run to its end in a temporary database and return its export (runs in a Ray task)."""
    with tempfile.TemporaryDirectory(prefix="campus-ray-") as folder:
        store = open_store(os.path.join(folder, "run.db"))
        try:
            if partial is None:
                spec = RunSpec(seed=planned.seed, scale=settings.scale, agent=planned.agent.name,
                               round_limit=settings.rounds, branch_id=planned.run_id, disruptions=settings.disruptions,
                               busy_days=settings.busy_days)
                current = start_run(store, spec)
            else:
                current = import_lines(store, partial, branch_id=planned.run_id)
            current.session(factory(planned.agent, store, current.term, current.world)).run()
            return list(export_lines(current))
        finally:
            store.close()


def play_on_ray(settings: SweepSettings, planned: Sequence[PlannedRun], address: str, factory: AgentFactory,
                progress: Progress | None = None) -> None:
    """Play every run not marked ``keep`` as a Ray task and merge each into ``settings.db`` as it ends;
    raises ``SweepError`` naming the first run that failed (finished runs are kept)."""
    try:
        import ray
    except ImportError:
        raise SweepError("--ray needs the ray package: pip install 'campus[ray]'") from None
    runs = [run for run in planned if run.action != "keep"]
    if not runs:
        return
    started = not ray.is_initialized()
    if started:
        try:
            ray.init(address=None if address == LOCAL else address, include_dashboard=False, log_to_driver=False)
        except (ConnectionError, RuntimeError, ValueError) as error:
            raise SweepError(f"cannot reach the Ray cluster at {address!r}: {error}") from None
    try:
        _run_tasks(ray, settings, runs, factory, progress)
    finally:
        if started:
            ray.shutdown()


def _run_tasks(ray: Any, settings: SweepSettings, runs: list[PlannedRun], factory: AgentFactory,
               progress: Progress | None) -> None:
    keys = {name: value for name in KEY_VARIABLES if (value := os.environ.get(name))}
    task = ray.remote(num_cpus=1, max_retries=0)(play_remote)
    if keys:
        task = task.options(runtime_env={"env_vars": keys})
    store = open_store(settings.db)
    try:
        pending: dict[Any, PlannedRun] = {}
        for run in runs:
            partial = list(export_lines(open_run(store, run.run_id))) if run.action == "resume" else None
            pending[task.remote(settings, run, factory, partial)] = run
            if progress is not None:
                progress(("start", run.run_id, 0, 0))
        while pending:
            ready, _ = ray.wait(list(pending), num_returns=1, timeout=POLL_SECONDS)
            for ref in ready:
                run = pending.pop(ref)
                try:
                    lines = ray.get(ref)
                except ray.exceptions.RayError as error:
                    for other in pending:
                        ray.cancel(other, force=True)
                    cause = getattr(error, "cause", None) or error
                    said = " ".join(str(cause).split())
                    raise SweepError(f"run {run.run_id} failed on Ray: {type(cause).__name__}: {said}; {AGAIN}") from None
                if run.action == "new":
                    import_lines(store, lines, branch_id=run.run_id)
                else:
                    append_lines(store, lines, run.run_id)
                if progress is not None:
                    progress(("done", run.run_id))
    finally:
        store.close()
