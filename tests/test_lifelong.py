"""Appendix-B lifelong metrics: probes as forks, the matrix they fill and the formulas over it."""

from __future__ import annotations

import pytest

from campus.agents.oracle import OracleAgent
from campus.kernel.agent import AgentView, Reply, TaskMemory
from campus.kernel.store import MemoryStore
from campus.lab.lifelong import LifelongReport, Probe, _report, blocks_of, lifelong, questions, revisions, still_true
from campus.replays.verify import verify
from campus.scenarios.play import Run, new_run, open_run
from campus.scenarios.task import Term
from campus.world.index import WorldIndex

WRONG = {"A": "B", "B": "C", "C": "D", "D": "A"}


class Forgetful(OracleAgent):
    """Knows a re-tested question only while the original task is among the last ``keep`` it remembers."""

    def __init__(self, term: Term, world: WorldIndex, keep: int) -> None:
        super().__init__(term, world)
        self.keep = keep
        self.memory: list[str] = []

    def remember(self, past: TaskMemory) -> None:
        self.memory = (self.memory + [past.task_id])[-self.keep :] if self.keep else []

    def act(self, view: AgentView) -> Reply:
        reply = super().act(view)
        original = view.task_id.partition("-")[2] if view.task_id.startswith("retest") else None
        if original is None or original in self.memory or not reply.startswith("<action>Answer: "):
            return reply
        letter = reply[len("<action>Answer: ")]
        return f"<action>Answer: {WRONG[letter]}</action>"


@pytest.fixture(scope="module")
def oracle_run(world: WorldIndex, small_term: Term) -> Run:
    store = MemoryStore()
    run = new_run(store, world, small_term, agent_name="oracle", seed=0)
    run.session(OracleAgent(small_term, world)).run()
    return run


def test_the_oracle_never_forgets(oracle_run: Run) -> None:
    report = lifelong(oracle_run, lambda probe: OracleAgent(probe.term, probe.world), blocks=3, per_block=4)
    assert report.matrix[0] == [1.0, 1.0, 1.0]
    assert report.matrix[1][0] == 1.0 and report.matrix[1][1:] == [None, None]
    assert report.matrix[3] == [1.0, 1.0, 1.0]
    assert (report.ap, report.aip, report.fgt, report.bwt, report.fwt) == ([1.0, 1.0, 1.0], 1.0, 0.0, 0.0, 0.0)
    assert len(report.probes) == 3 + 1 + 2 + 3


def test_probes_are_forks_that_verify(oracle_run: Run) -> None:
    report = lifelong(oracle_run, lambda probe: OracleAgent(probe.term, probe.world), blocks=2, per_block=2)
    for probe in report.probes:
        branch = open_run(oracle_run.store, probe.branch)
        assert branch.branch.parent == oracle_run.branch.id
        assert verify(branch).ok
        ended = [e.task_id for e in branch.ended_tasks()]
        assert ended[-probe.tasks :] == [t.id for t in branch.term.tasks[-probe.tasks :]]
        assert all(task_id.startswith(f"retest{probe.after_block}-") for task_id in ended[-probe.tasks :])


@pytest.mark.parametrize("keep", [0, 25, 10_000])
def test_a_forgetful_agent_scores_what_its_memory_holds(oracle_run: Run, keep: int) -> None:
    report = lifelong(oracle_run, lambda probe: Forgetful(probe.term, probe.world, keep), blocks=3, per_block=5)
    term = oracle_run.term
    parts = blocks_of(term, 3)
    for probe in report.probes:
        done = 0 if probe.after_block == 0 else term.tasks.index(parts[probe.after_block - 1][-1]) + 1
        held = {t.id for t in term.tasks[:done][-keep:]} if keep else set()
        branch = open_run(oracle_run.store, probe.branch)
        asked = [t.id.partition("-")[2] for t in branch.term.tasks[done:]]
        assert probe.succeeded == sum(task_id in held for task_id in asked)
    if keep == 10_000:
        assert report.fgt == 0.0 and report.bwt == 0.0 and report.fwt == 1.0 and report.matrix[0] == [0.0, 0.0, 0.0]
    if keep == 0:
        assert report.aip == 0.0 and report.fwt == 0.0
    if keep == 25:
        assert report.fgt is not None and report.fgt > 0 and report.bwt is not None and report.bwt < 0


def test_formulas_on_a_hand_computed_matrix() -> None:
    scores = {(0, 0): 0.5, (0, 1): 0.0, (0, 2): 0.25, (1, 0): 1.0, (2, 0): 0.5, (2, 1): 1.0,
              (3, 0): 0.75, (3, 1): 0.5, (3, 2): 1.0}
    probes = [Probe(after_block=t, block=i + 1, branch="", tasks=4, succeeded=int(v * 4)) for (t, i), v in scores.items()]
    report: LifelongReport = _report("x", 3, probes)
    assert report.ap == [1.0, 0.75, 0.75]
    assert report.aip == pytest.approx(2.5 / 3)
    assert report.fgt == pytest.approx(((1.0 - 0.75) + (1.0 - 0.5)) / 2)
    assert report.bwt == pytest.approx(((0.75 - 1.0) + (0.5 - 1.0)) / 2)
    assert report.fwt == pytest.approx(((1.0 - 0.0) + (1.0 - 0.25)) / 2)


def test_only_answer_questions_are_retested_and_revised_answers_are_dropped(small_term: Term) -> None:
    asked = questions(small_term)
    assert asked and all(not t.flags.delivery_only for t in asked)
    assert all({p["check"] for p in t.ground_truth["parts"]} <= {"answer", "attended"} for t in asked)
    revised = revisions(small_term)
    protocol, [when, *_] = next(iter(revised.items()))
    before = next(t for t in asked if (t.ground_truth.get("item") or {}).get("protocol") == protocol and t.release < when)
    assert still_true(before, when - 1, revised) and not still_true(before, when, revised)


def test_a_run_that_has_not_reached_a_block_is_refused(world: WorldIndex, small_term: Term) -> None:
    store = MemoryStore()
    run = new_run(store, world, small_term, agent_name="oracle", seed=0)
    run.session(OracleAgent(small_term, world)).run(max_steps=30)
    with pytest.raises(ValueError, match="has not reached the end of block"):
        lifelong(run, lambda probe: OracleAgent(probe.term, probe.world), blocks=2, per_block=2)
