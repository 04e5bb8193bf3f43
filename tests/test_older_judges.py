"""A log made before a judge was made stricter keeps being judged, and verified, as it was played.

The fixture is a run of seed 0's term at ``--scale 0.05`` exported on 2026-11-29 before three judges were made
stricter: a red-team's lazy student that sprayed bookings on the disruption tasks (booking the planned seat at every
hour and a dozen listed seats, and writing every seat id to the group), wrote each advisor application to every
advisor of the field, and reported every busy-day errand done without doing any. Its term carries the evaluators and
checks of then (``disruption_diagnosed``, email parts without ``sole``, reports without ``done``): DRS 0.44, busy-day CS
0.17 and 2.29 advisor points, which it keeps. Its replies played on the same term with today's judges score DRS 0.36
(what is left is its last booking taken from a fresh listing, the re-planning the tasks ask for), CS 0 and no advisor
point.
"""

from __future__ import annotations

import gzip
from pathlib import Path
from typing import Any

import msgspec

from campus.agents.recorded import recorded_agent
from campus.kernel.store import MemoryStore, SQLiteStore
from campus.replays.export import import_lines
from campus.replays.verify import verify
from campus.scenarios.busy_days import SCENARIO as BUSY
from campus.scenarios.disruptions import DIAGNOSED, FINAL, SCENARIO as DISRUPTIONS
from campus.scenarios.play import new_run, open_run
from campus.scenarios.scorecard import scorecard
from campus.scenarios.task import Task, Term

LAZY_EXPORT = Path(__file__).parent / "fixtures" / "judges1-lazy-x0.05.jsonl.gz"


def test_a_lazy_run_judged_before_the_stricter_judges_verifies_with_the_scores_it_had(tmp_path: Path) -> None:
    with gzip.open(LAZY_EXPORT, "rt") as lines:
        recorded = lines.read().splitlines()
    run = open_run(store := SQLiteStore(tmp_path / "old.db"), import_lines(store, recorded).branch.id)
    term = run.term
    assert {t.evaluator for t in term.tasks if t.scenario == DISRUPTIONS} == {DIAGNOSED}
    assert not any(p.get("sole") for t in term.tasks for p in t.ground_truth.get("parts", ()) if p["check"] == "email")
    assert not any(c["check"].get("done") for t in term.tasks if t.scenario == BUSY for e in t.ground_truth["errands"]
                   for c in e["checkpoints"])
    assert verify(run).ok and verify(run, deep=True).ok
    card = scorecard(term, run.ended_tasks())
    assert card["drs"] > 0.4 and card["busy_days"]["cs"] > 0.15 and card["stugpa"]["points"]["advisor"] > 0
    now = _judged_as_now(term)
    again = new_run(MemoryStore(), run.world, now, agent_name="lazy", seed=0)
    again.session(recorded_agent(store, run.branch.id)).run()
    today = scorecard(now, again.ended_tasks())
    assert today["drs"] < 0.4 and today["busy_days"]["cs"] == 0.0 and today["stugpa"]["points"]["advisor"] == 0.0, \
        "the fixture would not tell the judges apart"


def _judged_as_now(term: Term) -> Term:
    """The term with the judges of terms made now: the last booking counts, one recipient per subject, a report only
    of an errand done."""
    def part(p: dict[str, Any], library: bool) -> dict[str, Any]:
        if p["check"] == "email":
            return p | {"sole": True}
        return p | {"last": True} if p["check"] == "booking" and library else p

    def errand(e: dict[str, Any]) -> dict[str, Any]:
        return e | {"checkpoints": [c | {"check": c["check"] | {"done": True}} if c["check"]["check"] == "reported" else c
                                    for c in e["checkpoints"]]}

    def task(t: Task) -> Task:
        if t.scenario == DISRUPTIONS:
            return msgspec.structs.replace(t, evaluator=FINAL, ground_truth=t.ground_truth | {"planned_seats": []})
        if t.scenario == BUSY:
            return msgspec.structs.replace(t, ground_truth=t.ground_truth | {"errands": [errand(e) for e in t.ground_truth["errands"]]})
        if "parts" in t.ground_truth:
            parts = [part(p, t.scenario == "library_study") for p in t.ground_truth["parts"]]
            return msgspec.structs.replace(t, ground_truth=t.ground_truth | {"parts": parts})
        return t

    return msgspec.structs.replace(term, tasks=tuple(task(t) for t in term.tasks))
