"""The agent is part of the record: a root's genesis binds it, and a fork that changes agent binds the
new one where its own events start. Editing the name in a branch row fails plain ``verify``; runs recorded
under rules that did not bind the agent still verify."""

from __future__ import annotations

import io
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import msgspec
import pytest

from campus.agents import make_agent
from campus.events import genesis_hash
from campus.kernel.store import BranchInfo, MemoryStore, SQLiteStore, Verbatim
from campus.replays.export import import_lines, write_export
from campus.replays.fork import fork_run
from campus.replays.verify import verify
from campus.scenarios.play import Run, new_run, open_run
from campus.scenarios.task import Term
from campus.world.index import WorldIndex
from tests.harness import acting_step

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory, world: WorldIndex, small_term: Term) -> tuple[Path, str, str, int]:
    """An oracle run and a fork of it played by the no-op agent from its middle, in one file."""
    path = tmp_path_factory.mktemp("binding") / "runs.db"
    store = SQLiteStore(path)
    run = new_run(store, world, small_term, agent_name="oracle", seed=0)
    run.session(make_agent("oracle", small_term, world)).run()
    fork, point = fork_run(run, acting_step(run, store.head(run.branch.id)[0] // 2), agent_name="noop")
    fork.session(make_agent("noop", fork.term, fork.world)).run()
    ids = run.branch.id, fork.branch.id
    store.close()
    return path, *ids, point.seq


def _edited(recorded: tuple[Path, str, str, int], tmp_path: Path, branch: str, agent: str) -> Path:
    copy = tmp_path / "edited.db"
    shutil.copy(recorded[0], copy)
    conn = sqlite3.connect(copy, isolation_level=None)
    for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'").fetchall():
        conn.execute(f"DROP TRIGGER {name}")
    conn.execute("UPDATE branches SET agent = ? WHERE id = ?", (agent, branch))
    conn.close()
    return copy


def _verify(path: Path, branch: str, *, deep: bool = False) -> tuple[bool, str]:
    store = SQLiteStore(path)
    try:
        report = verify(open_run(store, branch), deep=deep)
        return report.ok, msgspec.json.encode(report.mismatch).decode()
    finally:
        store.close()


def test_a_root_and_a_fork_that_changes_agent_both_verify(recorded: tuple[Path, str, str, int]) -> None:
    path, root, fork, _ = recorded
    assert _verify(path, root) == (True, "null")
    assert _verify(path, fork, deep=True) == (True, "null")


def test_an_edited_agent_name_in_a_root_row_fails_verify_naming_the_agent(
        recorded: tuple[Path, str, str, int], tmp_path: Path) -> None:
    path, root, _, _ = recorded
    copy = _edited(recorded, tmp_path, root, "diligent")
    result = subprocess.run([sys.executable, "-m", "campus.cli.main", "verify", root, "--db", str(copy)],
                            capture_output=True, text=True, env=os.environ | {"PYTHONPATH": str(ROOT)}, timeout=300)
    assert result.returncode == 1
    assert "seq 0 (genesis)" in result.stderr and '"agent":"diligent"' in result.stderr


def test_an_edited_agent_name_in_a_fork_row_fails_verify_where_the_fork_begins(
        recorded: tuple[Path, str, str, int], tmp_path: Path) -> None:
    _, _, fork, point = recorded
    ok, mismatch = _verify(_edited(recorded, tmp_path, fork, "stateless"), fork)
    assert not ok
    found = msgspec.json.decode(mismatch)
    assert found["seq"] == point + 1 and found["check"] == "hash chain (from here played by agent 'stateless')"


def test_a_fork_that_keeps_its_parents_agent_shares_its_hashes(world: WorldIndex, small_term: Term) -> None:
    """No binding where the agent does not change: an identical continuation is an identical chain."""
    store = MemoryStore()
    run = new_run(store, world, small_term, agent_name="oracle", seed=0)
    run.session(make_agent("oracle", small_term, world)).run()
    fork, _ = fork_run(run, acting_step(run, 40), agent_name="oracle")
    fork.session(make_agent("oracle", fork.term, fork.world)).run()
    assert store.head(fork.branch.id) == store.head(run.branch.id)
    assert store.agent_links(fork.branch.id) == {}


def test_a_run_recorded_before_agents_were_bound_still_verifies(world: WorldIndex, small_term: Term) -> None:
    """Rules without ``agent_bound`` give the genesis of old runs; such a run's agent is not in its record."""
    store = MemoryStore()
    template = new_run(store, world, small_term, agent_name="oracle", seed=0, branch_id="template").branch
    config = {k: v for k, v in template.config.items() if k != "agent_bound"}
    old = BranchInfo(id="old", parent=None, fork_seq=0, agent="oracle", world_hash=template.world_hash,
                     term_hash=template.term_hash, seed=0, config=config,
                     genesis=genesis_hash(template.world_hash, template.term_hash, 0, config, "anyone"))
    store.create_branch(old)
    run = open_run(store, "old")
    run.session(make_agent("oracle", small_term, world)).run()
    assert verify(run).ok and store.agent_links("old") == {}
    renamed = msgspec.structs.replace(old, id="renamed", agent="noop")
    store.create_branch(renamed, [(r.t, Verbatim(r.kind, r.payload.encode()), None) for r in store.rows("old")])
    assert verify(open_run(store, "renamed")).ok, "under the old rules the agent is not bound (the README says so)"


def test_a_fork_that_changed_agent_exports_and_imports_with_its_agents(recorded: tuple[Path, str, str, int]) -> None:
    path, root, fork, point = recorded
    store = SQLiteStore(path)
    try:
        buffer = io.StringIO()
        write_export(open_run(store, fork), buffer)
    finally:
        store.close()
    target = MemoryStore()
    imported: Run = import_lines(target, buffer.getvalue().splitlines(), branch_id="copy")
    assert imported.branch.agent == "noop" and verify(imported, deep=True).ok
    assert target.agent_links("copy") == {point + 1: "noop"}
    assert target.head("copy")[1] == msgspec.json.decode(buffer.getvalue().splitlines()[-1])["end"]["head"]
