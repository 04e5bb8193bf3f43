"""Context-engineering variants: the text a model-backed agent adds to the task's instructions.

Each variant is a readable Markdown file in ``agents/prompts/`` (shipped as package data),
written for this project after the strategies of the StuLife paper's appendix E:

- ``vanilla``: the role alone;
- ``proactive``: time awareness, one calendar entry per occurrence, plans kept in the calendar;
- ``skill``: working habits for course selection, the library, commitments, class and questions;
- ``all-in-one``: the skills plus "the calendar decides what you do"; the paper runs it on a
  structured memory, so the agent's default memory for it is the scratchpad.
"""

from __future__ import annotations

from importlib import resources

DEFAULT_VARIANT = "vanilla"

PAIRED_MEMORY = {"all-in-one": "scratchpad"}
"""The memory a variant is run with when none is chosen (the paper's pairing); others get ``none``."""


def variant_names() -> tuple[str, ...]:
    folder = resources.files("campus.agents") / "prompts"
    return tuple(sorted(entry.name[: -len(".md")] for entry in folder.iterdir() if entry.name.endswith(".md")))


def load_variant(name: str) -> str:
    """The variant's prompt text; ``ValueError`` naming the choices for an unknown name."""
    choices = variant_names()
    if name not in choices:
        raise ValueError(f"unknown prompt variant {name!r}; choose one of: {', '.join(choices)}")
    return (resources.files("campus.agents") / "prompts" / f"{name}.md").read_text(encoding="utf-8").strip()


def default_memory(variant: str) -> str:
    return PAIRED_MEMORY.get(variant, "none")
