"""``--agent recorded:RUN``: a run's recorded replies played again (see ``kernel.recorded``).

``campus fork RUN --at-step N --agent recorded:RUN`` is RUN again from N; ``campus run --agent
recorded:RUN`` replays RUN on its own world, term and seed and reproduces its hash chain.
"""

from __future__ import annotations

from campus.kernel.recorded import RecordedAgent, RecordedFailure, RecordingError, replies_of
from campus.kernel.store import EventStore

PREFIX = "recorded:"

__all__ = ["PREFIX", "RecordedAgent", "RecordedFailure", "RecordingError", "recorded_agent", "replies_of"]


def recorded_agent(store: EventStore, source: str) -> RecordedAgent:
    return RecordedAgent(source, replies_of(store, source))
