"""Memory modules for model-backed agents: what an agent carries from one task to the next.

The StuLife protocol makes every task a fresh chat, so by default (``none``) an agent knows
only what it wrote into the world. A memory module is fed every ended task through
``remember`` (the session does this live, and again from the log on resume or fork) and adds
a section to the system prompt of later tasks through ``recall``. Each module is a pure
function of the tasks it was given, so a resumed or forked run rebuilds exactly the memory the
original had at that point.

- ``none``: nothing carried over (the paper's isolated tasks).
- ``history``: the transcripts of the most recent tasks, newest first, within a token budget.
- ``bm25``: the passages of past tasks (each action with what came back) most relevant to the
  current task's conversation, ranked by BM25 (``agents/bm25.py``).
- ``scratchpad``: a notepad the agent keeps itself by writing ``<note>...</note>`` and
  ``<forget>N</forget>`` in its replies; since replies are recorded verbatim, the notepad is a
  function of the log.
- ``light`` (or ``light:k=10,retrieval=off,...``): BEAM's LIGHT without a model: BM25 over one
  document per past step, working memory of the latest steps, and a scratchpad projected from
  the tasks' events (``agents/light.py``).

Token counts are estimated as characters / 4 (rounded up), close enough for English prose and
tool output to keep a prompt within a model's window without a tokenizer dependency.
"""

from __future__ import annotations

import re
from collections import deque
from dataclasses import dataclass
from typing import Any, Protocol

from campus.kernel.agent import AgentView, TaskMemory, Turn
from campus.kernel.clock import label
from campus.agents.options import MEMORIES

DEFAULT_BUDGET = 4_000
"""Tokens of memory added to a prompt, by default."""


def estimate_tokens(text: str) -> int:
    return (len(text) + 3) // 4


class Memory(Protocol):
    name: str
    guidance: str
    """Instructions the agent needs to use this memory (added to the system prompt; may be empty)."""

    def remember(self, past: TaskMemory) -> None: ...

    def recall(self, view: AgentView) -> str: ...


def make_memory(name: str, budget: int = DEFAULT_BUDGET) -> Memory:
    """A fresh memory module by name; ``ValueError`` naming the choices for anything else."""
    if budget < 1:
        raise ValueError(f"a memory budget must be at least 1 token, not {budget}")
    if name == "light" or name.startswith("light:"):
        from campus.agents.light import LightMemory, LightSwitches  # it builds on this module

        return LightMemory(budget, LightSwitches.parse(name))
    kinds: dict[str, Any] = {"none": NoMemory, "history": HistoryMemory, "bm25": RetrievalMemory,
                             "scratchpad": Scratchpad}
    if name not in kinds:
        raise ValueError(f"unknown memory {name!r}; choose one of: {', '.join(MEMORIES)}")
    return kinds[name](budget)


def _heading(past: TaskMemory) -> str:
    return f"{past.task_id} ({past.scenario}, {label(past.released)})"


def _render_turn(turn: Turn) -> str:
    return f"[{turn.role}] {turn.content}"


# ---------------------------------------------------------------- none


class NoMemory:
    name = "none"
    guidance = ""

    def __init__(self, budget: int = DEFAULT_BUDGET) -> None:
        pass

    def remember(self, past: TaskMemory) -> None:
        pass

    def recall(self, view: AgentView) -> str:
        return ""


# ---------------------------------------------------------------- history


class HistoryMemory:
    """The latest tasks' transcripts that fit the budget, newest first; a task is shown whole or not at all."""

    name = "history"
    guidance = ""

    def __init__(self, budget: int = DEFAULT_BUDGET) -> None:
        self.budget = budget
        self.tasks: deque[tuple[str, int]] = deque()  # (rendered task, its tokens), oldest first
        self.tokens = 0

    def remember(self, past: TaskMemory) -> None:
        text = f"### Task {_heading(past)}\n" + "\n".join(_render_turn(t) for t in past.messages)
        cost = estimate_tokens(text)
        self.tasks.append((text, cost))
        self.tokens += cost
        while self.tokens > self.budget and self.tasks:  # what can never be shown again is dropped
            self.tokens -= self.tasks.popleft()[1]

    def recall(self, view: AgentView) -> str:
        if not self.tasks:
            return ""
        newest_first = [text for text, _ in reversed(self.tasks)]
        return "Your most recent earlier tasks, newest first:\n\n" + "\n\n".join(newest_first)


# ---------------------------------------------------------------- bm25


_WORD = re.compile(r"[a-z0-9]+")
TOP_K = 5


def tokenize(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def query_words(view: AgentView) -> list[str]:
    """A BM25 query: the words of the task's conversation so far, each once, in the order first said."""
    return list(dict.fromkeys(tokenize(" ".join(t.content for t in view.messages))))


def passages(past: TaskMemory) -> list[str]:
    """A task cut into retrievable pieces: its opening message, then each reply with what came back."""
    heading = f"(from task {_heading(past)})"
    turns = past.messages
    pieces: list[str] = []
    start = 0
    if turns and turns[0].role == "user":
        pieces.append(f"{heading}\n{_render_turn(turns[0])}")
        start = 1
    for i in range(start, len(turns), 2):
        pair = turns[i : i + 2]
        pieces.append(heading + "\n" + "\n".join(_render_turn(t) for t in pair))
    return pieces


class RetrievalMemory:
    """BM25 over every passage of every past task; the query is the current task's conversation."""

    name = "bm25"
    guidance = ""

    def __init__(self, budget: int = DEFAULT_BUDGET, top_k: int = TOP_K) -> None:
        self.budget = budget
        self.top_k = top_k
        from campus.agents.bm25 import Okapi  # numpy: loaded by the runs that rank, not by every command

        self.passages: list[str] = []
        self._index = Okapi()

    def remember(self, past: TaskMemory) -> None:
        for piece in passages(past):
            self.passages.append(piece)
            self._index.add(tokenize(piece))

    def recall(self, view: AgentView) -> str:
        query = query_words(view)
        if not self.passages or not query:
            return ""
        shown: list[str] = []
        used = 0
        for i in self._index.top(query, self.top_k):
            cost = estimate_tokens(self.passages[i])
            if used + cost > self.budget:
                break
            shown.append(self.passages[i])
            used += cost
        if not shown:
            return ""
        return "Passages from your earlier tasks that look relevant now, most relevant first:\n\n" + "\n\n".join(shown)


# ---------------------------------------------------------------- scratchpad


SCRATCHPAD_GUIDE = """\
You keep a notepad that is carried from task to task (nothing else is, apart from the world \
itself). To add an entry, put a note anywhere in a reply, next to your action:
<note>Commitment: Week 2, Tuesday 14:00-15:00, meet the advisor in room B012-204</note>
<note>Fact: the data science books are in the Grand Central Library</note>
Start a note with "Commitment:" for something you must do at a given time and "Fact:" for \
something worth knowing later. The notepad shows every entry with a number; when an entry is \
done or wrong, drop it with <forget>N</forget>. Notes are added when the task ends."""

_MARK = re.compile(r"<note>(?P<note>.*?)</note>|<forget>\s*(?P<forget>\d+)\s*</forget>", re.IGNORECASE | re.DOTALL)
_KIND = re.compile(r"\s*(?P<kind>commitment|fact)\s*:\s*", re.IGNORECASE)
MAX_NOTE = 1_000
"""Characters kept of one note."""


@dataclass(frozen=True)
class Note:
    number: int
    kind: str
    text: str
    task: str


class Scratchpad:
    """Entries written and dropped by the agent's own replies, in the order it wrote them."""

    name = "scratchpad"
    guidance = SCRATCHPAD_GUIDE

    def __init__(self, budget: int = DEFAULT_BUDGET) -> None:
        self.budget = budget
        self.notes: dict[int, Note] = {}
        self.written = 0

    def remember(self, past: TaskMemory) -> None:
        for turn in past.messages:
            if turn.role == "assistant":
                self.read(turn.content, past.task_id)

    def read(self, reply: str, task_id: str) -> None:
        for mark in _MARK.finditer(reply):
            if mark["forget"] is not None:
                self.notes.pop(int(mark["forget"]), None)
                continue
            text = mark["note"].strip()
            if not text:
                continue
            kind_match = _KIND.match(text)
            kind = kind_match["kind"].lower() if kind_match else "fact"
            body = text[kind_match.end() :] if kind_match else text
            self.written += 1
            self.notes[self.written] = Note(self.written, kind, body[:MAX_NOTE], task_id)

    def recall(self, view: AgentView) -> str:
        lines = {n.number: f"[{n.number}] {n.text} (noted in {n.task})" for n in self.notes.values()}
        kept = list(self.notes.values())
        while kept and estimate_tokens("\n".join(lines[n.number] for n in kept)) > self.budget:
            kept.pop(0)  # the oldest entries give way first
        if not self.notes:
            return "Your notepad is empty."
        sections = []
        for kind, title in (("commitment", "Commitments"), ("fact", "Facts")):
            entries = [lines[n.number] for n in kept if n.kind == kind]
            if entries:
                sections.append(f"{title}:\n" + "\n".join(entries))
        hidden = len(self.notes) - len(kept)
        tail = f"\n({hidden} older entries are not shown; drop entries you no longer need.)" if hidden else ""
        return "Your notepad:\n" + "\n".join(sections) + tail
