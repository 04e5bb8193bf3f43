"""The world's rules version a run is played under (``config["rules"]``, ``campus.events.rules_of``)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from campus.events import RULES, RULES_VERSION, rules_of
from campus.kernel.runner import SessionError, run_config
from campus.kernel.store import MemoryStore
from campus.scenarios.play import new_run
from campus.scenarios.task import Term
from tests.test_reservation import CAMPUS


def test_new_runs_write_the_current_version_and_version_1_writes_nothing() -> None:
    assert run_config(20)[RULES] == RULES_VERSION == rules_of(run_config(20))
    assert RULES not in run_config(20, rules=1) and rules_of(run_config(20, rules=1)) == 1
    assert rules_of({RULES: "2"}) == rules_of({RULES: True}) == 0


def test_a_run_of_an_unknown_rules_version_is_refused_before_anything_is_written() -> None:
    term = Term(name="empty", seed=0, world_hash=CAMPUS.hash, tasks=())
    store = MemoryStore()
    for bad in (RULES_VERSION + 1, 0, "2"):
        run = new_run(store, CAMPUS, term, agent_name="noop", seed=0, rules=run_config(20) | {RULES: bad}, branch_id=f"r{bad}")
        with pytest.raises(SessionError, match=f"follows rules version {rules_of(run.branch.config)}; this campus plays versions 1 to"):
            run.session(SimpleNamespace(name="noop"))
        assert store.head(run.branch.id)[0] == 0
