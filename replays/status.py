"""Where a run stands: finished, stopped at a step (resumable), or abandoned before its agent's first reply.

An *abandoned* run is one whose agent never gave a reply of its own (a model that could not be
reached, a bad key): it holds only the events before the first decision. ``campus runs`` and
sweeps hide such runs by default, and ``campus run`` plays into an abandoned run of the same
agent, world, term, seed and rules instead of leaving it behind and making another.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

import msgspec

from campus.kernel.store import BranchInfo, EventStore

RunState = Literal["finished", "stopped", "abandoned"]

_WINDOW = 64


@dataclass(frozen=True)
class Status:
    state: RunState
    head: int
    """The run's last seq."""

    def __str__(self) -> str:
        if self.state == "stopped":
            return f"stopped at step {self.head}"
        return self.state


def run_status(store: EventStore, branch_id: str) -> Status:
    info = store.branch(branch_id)
    head = store.head(branch_id)[0]
    if head > 0 and store.rows(branch_id, head, head)[0].kind == "run_ended":
        return Status("finished", head)
    return Status("stopped" if _has_own_reply(store, info, head) else "abandoned", head)


def _has_own_reply(store: EventStore, info: BranchInfo, head: int) -> bool:
    """Whether an ``agent_replied`` event follows the fork point, searched in growing windows from it."""
    start, window = info.fork_seq + 1, _WINDOW
    while start <= head:
        stop = min(head, start + window - 1)
        if any(row.kind == "agent_replied" for row in store.rows(info.id, start, stop)):
            return True
        start, window = stop + 1, window * 4
    return False


def abandoned_twin(store: EventStore, base_id: str, agent: str, genesis: str) -> str | None:
    """An abandoned root run named ``base_id`` or ``base_id-N`` of ``agent`` whose genesis (binding
    world, term, seed and rules) is ``genesis``: the run a new one would repeat exactly."""
    numbered = re.compile(re.escape(base_id) + r"(-\d+)?")
    for info in store.branches():
        same = info.parent is None and info.agent == agent and info.genesis == genesis
        if same and numbered.fullmatch(info.id) and run_status(store, info.id).state == "abandoned":
            return info.id
    return None


class _TermName(msgspec.Struct):
    name: str


def term_scale(store: EventStore, term_hash: str) -> float | None:
    """The scale a generated term was made at (from its name, ``term-SEED-xSCALE``); ``None`` for other terms."""
    name = msgspec.json.decode(store.get_blob(term_hash), type=_TermName).name
    found = re.fullmatch(r"term-\d+(?:-x(?P<scale>[0-9.e+-]+))?", name)
    if found is None:
        return None
    return float(found.group("scale")) if found.group("scale") else 1.0
