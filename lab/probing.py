"""Memory probes asked in forks: BEAM's ability vector over the agent's own life.

At each point probed (right after a task ended), the run is forked, and in the fork the
student is asked the probes generated from the log so far (``scenarios.probes``), as tasks
released at once, wherever it is. The agent of a fork is a fresh instance; a persistent agent
rebuilds its memory from the shared past, exactly as the lifelong harness does, so it answers
with what it knew at that point. The notes the contradiction, instruction and preference
probes rest on are the term's own when it planted them (a term with check-ins); otherwise they
are given first, as unscored tasks in the fork. Answers are scored exactly; the
parent run is never written.
Probe branches stay in the store (``<run>~probe-<seq>``) to replay, verify and diff.

The report is BEAM's: a score per ability (None where no probe was asked), their unweighted
mean, the same per evidence-distance bin (events and simulated days between the earliest
evidence and the question), and the kernel's own sub-scores: the stale-answer rate of
knowledge updates, the over-abstention rate of answerable twins, ordering coverage, and
summarization precision and recall.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import msgspec

from campus.events import Answered, decode_events
from campus.kernel.agent import Agent
from campus.kernel.clock import day_of
from campus.kernel.tasks import iter_tasks
from campus.lab.lifelong import probe_term
from campus.scenarios.play import Run, open_run, store_inputs, unique_branch_id
from campus.scenarios.probe_answers import NoRecord, Score
from campus.scenarios.probes import (
    ABILITIES, DAY_BINS, EVENT_BINS, FACT_KINDS, IN_FORK, NO_EVIDENCE, PROBE_TASK, Ability, Logged, Past, Probe,
    distance_bins, generate, in_fork, instructed_word, plant_task, probe_set_hash, probe_task, score_probe, standing_of,
)

AgentFactory = Callable[[Run], Agent]


class Asked(msgspec.Struct, frozen=True, kw_only=True):
    probe: Probe
    said: str | None
    score: Score
    events_bin: str
    days_bin: str


class Point(msgspec.Struct, frozen=True, kw_only=True):
    branch: str
    asked_at_seq: int
    asked_at_t: int
    probe_set: str
    """The hash of the probe set (a pure function of the log prefix, the seed and the generator version)."""
    asked: list[Asked]


class ProbeReport(msgspec.Struct, frozen=True, kw_only=True):
    run: str
    agent: str
    abilities: dict[str, float | None]
    """All ten of BEAM's abilities, None where nothing was asked."""
    overall: float | None
    """The unweighted mean of the abilities asked."""
    by_events: dict[str, dict[str, float | None]]
    by_days: dict[str, dict[str, float | None]]
    stale_rate: float | None
    over_abstention: float | None
    ordering_coverage: float | None
    summary_precision: float | None
    summary_recall: float | None
    points: list[Point]
    skipped: list[int] = []
    """The steps (weekly points) where the log held nothing to ask about yet, so no fork was made."""


def probe_points(run: Run, *, at_step: int | None = None, every_week: bool = False) -> list[tuple[int, int, int]]:
    """``(seq, time, tasks done)`` of each point to probe: right after the last task that ended at or
    before ``at_step`` (default: the last one), or after the last task of every week."""
    head = run.store.head(run.branch.id)[0]
    if at_step is not None and at_step > head:
        raise ValueError(f"{run.branch.id} ends at step {head}; --at-step {at_step} is past its end")
    tasks = iter_tasks(run.store, run.branch.id, kinds=("task_released", "task_ended"))
    ended = [task.events[-1] for task in tasks if task.ended is not None]
    ends = [(seq, t, done) for done, (seq, t, _) in enumerate(ended, start=1)]
    if every_week:
        last: dict[int, tuple[int, int, int]] = {}
        for end in ends:
            last[day_of(end[1]) // 7] = end
        points = list(last.values())
    else:
        points = [end for end in ends if at_step is None or end[0] <= at_step][-1:]
    if not points:
        where = f" by step {at_step}" if at_step is not None else ""
        raise ValueError(f"{run.branch.id} has no ended task{where} to probe after")
    return points


def log_prefix(run: Run, upto: int) -> list[Logged]:
    """The rows the probes are about, up to seq ``upto``, decoded."""
    rows = [row for row in run.store.rows(run.branch.id, 1, upto) if row.kind in FACT_KINDS]
    return [(row.seq, row.t, event) for row, event in zip(rows, decode_events([row.payload for row in rows]))]


def probe_run(run: Run, make_agent: AgentFactory, agent_name: str, *, at_step: int | None = None,
              every_week: bool = False, abilities: Sequence[Ability] = ABILITIES, per_ability: int = 2) -> ProbeReport:
    """Fork ``run`` at each point, ask the probes there with the agent ``make_agent`` builds, and score them; a point
    whose log holds nothing to ask about yet (an early week of a small term) is skipped, unless no point holds any."""
    chosen = probe_points(run, at_step=at_step, every_week=every_week)
    points, skipped = [], []
    for point in chosen:
        asked = _point(run, make_agent, agent_name, point, abilities, per_ability)
        if asked is None:
            skipped.append(point[0])
        else:
            points.append(asked)
    if not points:
        raise ValueError(f"the log of {run.branch.id} up to step {chosen[-1][0]} holds nothing to ask about")
    return report(run.branch.id, agent_name, points, skipped)


def _point(run: Run, make_agent: AgentFactory, agent_name: str, point: tuple[int, int, int],
           abilities: Sequence[Ability], per_ability: int) -> Point | None:
    """The probes asked at ``point`` on a fork of their own, or None when its log holds nothing to ask about."""
    seq, now, done = point
    prefix, standing = log_prefix(run, seq), standing_of(run.term.tasks)
    probes = generate(prefix, seed=run.branch.seed, describe=run.world.describe,
                      abilities=abilities, per_ability=per_ability, at=(seq, now), standing=standing, world=run.world)
    if not probes:
        return None
    branch = unique_branch_id(run.store, f"{run.branch.id}~probe-{seq}")
    plants = list({plant.task_id: plant for probe in probes for plant in in_fork(probe.query)}.values())
    word = instructed_word(probes, standing, Past.of(prefix))
    asked = [plant_task(plant, now) for plant in plants]
    asked += [probe_task(probe, now, run.branch.id, word) for probe in probes]
    term = probe_term(run.term, done, asked)
    store_inputs(run.store, run.world, term)
    run.store.fork(run.branch.id, seq, branch, agent=agent_name, term_hash=term.hash,
                   label=f"memory probes of {run.branch.id} after step {seq}")
    fork = open_run(run.store, branch)
    fork.session(make_agent(fork)).run()
    said = _answers(fork, seq)
    scored = [_asked(probe, said.get(f"{PROBE_TASK}{probe.probe_id}"), word) for probe in probes]
    return Point(branch=branch, asked_at_seq=seq, asked_at_t=now, probe_set=probe_set_hash(probes), asked=scored)


def _answers(fork: Run, after: int) -> dict[str, str]:
    said: dict[str, str] = {}
    for task in iter_tasks(fork.store, fork.branch.id, kinds=("task_released", "answered", "task_ended")):
        if task.events[0][0] > after:
            said.update({e.task_id: e.answer for _, _, e in task.events if isinstance(e, Answered)})
    return said


def _asked(probe: Probe, said: str | None, instructed: str | None) -> Asked:
    result = score_probe(probe, said, instructed=instructed) if said is not None else Score(value=0.0)
    events_bin, days_bin = distance_bins(probe)
    return Asked(probe=probe, said=said, score=result, events_bin=events_bin, days_bin=days_bin)


def report(run_id: str, agent: str, points: list[Point], skipped: Sequence[int] = ()) -> ProbeReport:
    asked = [a for point in points for a in point.asked]
    vector = _vector(asked)
    present = [value for value in vector.values() if value is not None]
    updates = [a for a in asked if a.probe.ability == "knowledge_update"]
    twins = [a for a in asked if a.probe.ability == "abstention" and not isinstance(a.probe.answer, NoRecord)]
    ordering = [a.score.coverage for a in asked if a.score.coverage is not None]
    summaries = [a.score for a in asked if a.probe.ability == "summarization"]
    return ProbeReport(
        run=run_id, agent=agent, abilities=vector, overall=_mean(present),
        by_events={name: _vector([a for a in asked if a.events_bin == name]) for name in _bins(asked, "events_bin")},
        by_days={name: _vector([a for a in asked if a.days_bin == name]) for name in _bins(asked, "days_bin")},
        stale_rate=_mean([float(a.score.stale) for a in updates]),
        over_abstention=_mean([float(a.score.abstained) for a in twins]),
        ordering_coverage=_mean(ordering),
        summary_precision=_mean([s.precision for s in summaries if s.precision is not None]),
        summary_recall=_mean([s.recall for s in summaries if s.recall is not None]),
        points=points, skipped=list(skipped),
    )


def _vector(asked: Sequence[Asked]) -> dict[str, float | None]:
    return {ability: _mean([a.score.value for a in asked if a.probe.ability == ability]) for ability in ABILITIES}


def _bins(asked: Sequence[Asked], field: str) -> list[str]:
    order = [name for _, name in EVENT_BINS + DAY_BINS] + [NO_EVIDENCE, IN_FORK]
    return sorted({getattr(a, field) for a in asked}, key=order.index)


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None
