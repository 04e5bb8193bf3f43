"""Counterfactual hints (Trainee-Bench's human guidance, at the price of a fork).

A hint is a ``hint_given`` event appended where a fork starts, inside the task open there: free
words (``--hint``), or a rung of the hint ladder the errand generator wrote for every errand of a
busy day that is posted and not yet reported at that point (``--hint-level``: 1 a nudge, 2 whom
to ask, 3 the answer). The agent sees it as a message in the task's conversation and continues;
``hint_unlocks`` then tells, task by task, which checkpoints the hinted branch passed that its
parent missed.
"""

from __future__ import annotations

from typing import Any

from campus.events import HintGiven
from campus.kernel.history import state_at
from campus.kernel.tasks import events_of
from campus.scenarios.busy_days import hint_text
from campus.scenarios.play import Run

LEVELS = (1, 2, 3)


def make_hint(run: Run, seq: int, *, text: str | None = None, level: int | None = None) -> HintGiven:
    """The hint for the task open after event ``seq`` of ``run``; raises ``ValueError`` with a one-line reason."""
    if (text is None) == (level is None):
        raise ValueError("give either free words (--hint) or a rung of the ladder (--hint-level), not both")
    state = state_at(run.kernel, run.store, run.branch.id, seq)
    task_id = state.session.task_id
    if not task_id:
        raise ValueError(f"no task is open at seq {seq}: a hint is told inside a task")
    if text is not None:
        if not text.strip():
            raise ValueError("the hint is empty")
        return HintGiven(task_id=task_id, text=text.strip())
    if level not in LEVELS:
        raise ValueError(f"--hint-level must be 1, 2 or 3, got {level}")
    task = run.term.by_id[task_id]
    posted = state.people.errands
    open_ = [e["id"] for e in task.ground_truth.get("errands", ())
             if e.get("hints") and e["id"] in posted and posted[e["id"]].reported < 0]
    if not open_:
        raise ValueError(f"task {task_id} has no open errand with hints at seq {seq} (hint levels are for busy days)")
    return HintGiven(task_id=task_id, text=hint_text(task, open_, level), level=level, errands=tuple(open_))


def give_hint(run: Run, hint: HintGiven) -> int:
    """Append ``hint`` at the head of ``run`` (a fork not yet played); returns its seq."""
    seq, _ = run.store.head(run.branch.id)
    t = state_at(run.kernel, run.store, run.branch.id, seq).now
    run.store.lease(run.branch.id)
    try:
        return run.store.append(run.branch.id, [(t, hint, None)], expect=seq)[0]
    finally:
        run.store.release(run.branch.id)


def hint_unlocks(a: Run, b: Run) -> list[dict[str, Any]]:
    """For each hint either run was given: its task's checkpoints (of the hinted errands) one run passed and the other
    missed, from ``a`` to ``b``."""
    marks_a = {e.task_id: e.marks for e in a.ended_tasks()}
    marks_b = {e.task_id: e.marks for e in b.ended_tasks()}
    hints = {(h.task_id, h.text): h for run in (a, b) for h in events_of(run.store, run.branch.id, HintGiven)}
    out = []
    for hint in hints.values():
        left, right = marks_a.get(hint.task_id, {}), marks_b.get(hint.task_id, {})
        keys = [k for k in sorted(left.keys() | right.keys()) if not k.endswith("/late")
                and (not hint.errands or k.split("/", 1)[0] in hint.errands)]
        out.append({"task_id": hint.task_id, "level": hint.level, "errands": list(hint.errands),
                    "unlocked": [k for k in keys if not left.get(k, 0) and right.get(k, 0)],
                    "lost": [k for k in keys if left.get(k, 0) and not right.get(k, 0)]})
    return out

