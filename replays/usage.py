"""What a run's model replies cost: tokens and latency, per run and per task, from the metadata kept
beside each reply (outside the hash chain; see ``agents.llm``). Agents that report nothing count zero."""

from __future__ import annotations

from dataclasses import dataclass, field

import msgspec

from campus.kernel.store import EventStore
from campus.kernel.tasks import row_batches


class UsageMeta(msgspec.Struct):
    """What a reply's metadata says it spent (zero for what it does not say)."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_s: float = 0.0

    @classmethod
    def read(cls, meta: str | None) -> UsageMeta:
        try:
            return msgspec.json.decode(meta, type=cls) if meta else cls()
        except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
            return cls()  # metadata an agent wrote in another shape: the reply still counts


class _Reply(msgspec.Struct):
    task_id: str


@dataclass
class Usage:
    replies: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_s: float = 0.0

    def add(self, meta: UsageMeta) -> None:
        self.replies += 1
        self.prompt_tokens += meta.prompt_tokens
        self.completion_tokens += meta.completion_tokens
        self.latency_s = round(self.latency_s + meta.latency_s, 4)


@dataclass
class RunUsage:
    total: Usage = field(default_factory=Usage)
    by_task: dict[str, Usage] = field(default_factory=dict)

    def add(self, task_id: str, meta: UsageMeta) -> None:
        self.total.add(meta)
        self.by_task.setdefault(task_id, Usage()).add(meta)


def run_usage(store: EventStore, branch_id: str) -> RunUsage:
    """Token and latency totals of every reply in the run's history (a fork counts its parent's replies too)."""
    found = RunUsage()
    for row in (row for rows in row_batches(store, branch_id) for row in rows):
        if row.kind != "agent_replied":
            continue
        found.add(msgspec.json.decode(row.payload, type=_Reply).task_id, UsageMeta.read(row.meta))
    return found


def usage_line(usage: Usage) -> str:
    return (f"{usage.replies} replies: {usage.prompt_tokens:,} prompt + {usage.completion_tokens:,} completion tokens, "
            f"{usage.latency_s:.1f} s waiting on the model")
