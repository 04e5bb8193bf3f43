"""Seek: the world of a run at any step or simulated time."""

from __future__ import annotations

from typing import Any

from campus.events import to_plain
from campus.kernel.clock import label, parse_moment
from campus.kernel.history import state_at
from campus.scenarios.play import Run


class SeekError(ValueError):
    """A position that does not exist in the run."""


def resolve_position(run: Run, *, step: int | None = None, at: str | None = None) -> int:
    """The seq a step number or a ``Week W, Day HH:MM`` label points at (the last event at or before it)."""
    head, _ = run.store.head(run.branch.id)
    if (step is None) == (at is None):
        raise SeekError("give exactly one of a step (seq) or a time such as 'Week 0, Monday 10:00'")
    if step is not None:
        if not 0 <= step <= head:
            raise SeekError(f"step {step} is outside the run, which has events 0..{head}")
        return step
    return run.store.seq_at_time(run.branch.id, parse_moment(at))  # type: ignore[arg-type]


def seek(run: Run, seq: int) -> Any:
    return state_at(run.kernel, run.store, run.branch.id, seq)


def describe_state(run: Run, state: Any) -> dict[str, Any]:
    """The state as plain data for people and scripts: time, place, calendars, emails, session."""
    world = run.world
    geography = state.geography
    return {
        "run": run.branch.id,
        "seq": state.seq,
        "t": state.now,
        "time": label(state.now),
        "location": {"id": geography.location, "name": world.name_of(geography.location)},
        "trail_today": geography.trail,
        "calendar": to_plain(state.calendar.calendars),
        "emails": to_plain(state.email.sent),
        "session": to_plain(state.session),
        "state_hash": run.kernel.projection.state_hash(state),
    }
