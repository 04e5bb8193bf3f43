"""Rebuild every request a model-backed run sent, from its log and its agent spec, and compare each
with the hash recorded beside the reply (``request_sha256``): ``campus verify --deep`` on a model's run;
or rebuild one of them, to read it (``campus prompt RUN --task ID --step N``).

The run is played again in memory from its genesis with its recorded replies, while an auditor
builds, at each decision, the request the spec's agent would have sent for that view (the same
variant, the same memory fed the same ended tasks). A reply recorded without a hash (an older
run, another agent) is not checked. Only root runs are checked: a fork's earlier replies may
come from another agent.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import msgspec

from campus.agents.llm import LLMConfig, build_request, request_hash
from campus.agents.memory import make_memory
from campus.agents.variants import load_variant
from campus.kernel.agent import AgentView, Reply, TaskMemory
from campus.kernel.recorded import RecordedAgent, replies_of
from campus.kernel.store import MemoryStore
from campus.scenarios.play import Run, new_run


@dataclass(frozen=True)
class PromptCheck:
    checked: int
    """Replies whose request was rebuilt and matched its recorded hash."""
    mismatch: str | None = None
    """The first reply whose rebuilt request does not hash to the recorded one, said in one line."""
    skipped: str | None = None
    """Why the run was not checked at all."""


@dataclass(frozen=True)
class RebuiltRequest:
    task_id: str
    step: int
    """The reply's number within its task (1 for the task's first reply)."""
    reply: int
    """The reply's number within the run."""
    request: dict[str, Any]
    sha256: str
    recorded: str | None
    """The hash stored beside the reply (``None`` if none was)."""


class _Meta(msgspec.Struct):
    request_sha256: str | None = None


class _Reply(msgspec.Struct):
    task_id: str


class _Auditor:
    def __init__(self, config: LLMConfig, recorded: RecordedAgent, hashes: list[str | None], capture: int | None = None) -> None:
        self.config = config
        self.variant = load_variant(config.variant)
        self.memory = make_memory(config.memory, config.memory_tokens)
        self.recorded = recorded
        self.hashes = hashes
        self.name = recorded.name
        self.checked = 0
        self.mismatch: str | None = None
        self.capture = capture
        self.captured: dict[str, Any] | None = None

    def remember(self, past: TaskMemory) -> None:
        self.memory.remember(past)
        self.recorded.remember(past)

    def act(self, view: AgentView) -> Reply:
        position = self.recorded.ended_replies + sum(turn.role == "assistant" for turn in view.messages)
        wanted = self.hashes[position] if position < len(self.hashes) else None
        if position == self.capture:
            self.captured = build_request(self.config, self.variant, self.memory, view)
        elif self.capture is None and wanted is not None and self.mismatch is None:
            rebuilt = request_hash(build_request(self.config, self.variant, self.memory, view))
            if rebuilt == wanted:
                self.checked += 1
            else:
                self.mismatch = (f"reply {position + 1} (task {view.task_id}): the request rebuilt from the log and the "
                                 f"agent spec hashes to {rebuilt[:16]}, the recorded request to {wanted[:16]}")
        return self.recorded.act(view)


def check_prompts(run: Run) -> PromptCheck:
    if not run.branch.agent.startswith("llm:"):
        return PromptCheck(0, skipped="not a model-backed run")
    if run.branch.parent is not None:
        return PromptCheck(0, skipped="a fork (its earlier replies may be another agent's)")
    hashes = [_hash_of(row.meta) for row in run.store.rows(run.branch.id) if row.kind == "agent_replied"]
    if not any(hashes):
        return PromptCheck(0, skipped="no request hashes were recorded")
    auditor = _auditor(run, hashes)
    _replay(run, auditor, len(hashes))
    return PromptCheck(auditor.checked, auditor.mismatch)


def rebuild_request(run: Run, task_id: str, step: int) -> RebuiltRequest:
    """The exact request the run's model was sent for its ``step``-th reply in task ``task_id``, rebuilt from the
    log and the agent spec. ``ValueError`` (one line) for a run that is no model's, a fork, or a step it does not have."""
    if not run.branch.agent.startswith("llm:"):
        raise ValueError(f"{run.branch.id} was played by {run.branch.agent}, not a model: it sent no requests")
    if run.branch.parent is not None:
        raise ValueError(f"{run.branch.id} is a fork of {run.branch.parent}; its requests are rebuilt from a root run only")
    rows = [row for row in run.store.rows(run.branch.id) if row.kind == "agent_replied"]
    positions = [index for index, row in enumerate(rows) if msgspec.json.decode(row.payload, type=_Reply).task_id == task_id]
    if not positions:
        raise ValueError(f"the model never replied in task {task_id!r} of {run.branch.id} (see its tasks with 'campus report')")
    if not 1 <= step <= len(positions):
        raise ValueError(f"task {task_id} of {run.branch.id} has steps 1 to {len(positions)}, not {step}")
    position = positions[step - 1]
    capturer = _auditor(run, [_hash_of(row.meta) for row in rows], capture=position)
    _replay(run, capturer, position + 1)
    assert capturer.captured is not None
    return RebuiltRequest(task_id, step, position + 1, capturer.captured, request_hash(capturer.captured),
                          _hash_of(rows[position].meta))


def _auditor(run: Run, hashes: list[str | None], capture: int | None = None) -> _Auditor:
    return _Auditor(LLMConfig.from_spec(run.branch.agent), RecordedAgent(run.branch.id, replies_of(run.store, run.branch.id)),
                    hashes, capture)


def _replay(run: Run, auditor: _Auditor, steps: int) -> None:
    again = new_run(MemoryStore(), run.world, run.term, agent_name=run.branch.agent, seed=run.branch.seed,
                    round_limit=run.branch.config["round_limit"], triggers=run.branch.config.get("triggers", True))
    again.session(auditor).run(max_steps=steps)


def _hash_of(meta: str | None) -> str | None:
    if not meta:
        return None
    try:
        return msgspec.json.decode(meta, type=_Meta).request_sha256
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
        return None
