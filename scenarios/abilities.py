"""The memory abilities a probe tests (after BEAM), apart from ``scenarios.probes`` so that a command can list them cheaply."""

from __future__ import annotations

from typing import Literal, get_args

Ability = Literal[
    "abstention", "contradiction_resolution", "event_ordering", "information_extraction", "instruction_following",
    "knowledge_update", "multi_session_reasoning", "preference_following", "summarization", "temporal_reasoning",
]
ABILITIES: tuple[Ability, ...] = get_args(Ability)
