"""The convenience views, read with plain sqlite3 as any SQLite browser would, agree with the store."""

from __future__ import annotations

import json
import sqlite3

import pytest

from campus.agents import make_agent
from campus.events import ToolCalled, ToolResult, decode_events
from campus.kernel.store import SQLiteStore
from campus.replays.fork import fork_run
from campus.scenarios.scorecard import scorecard
from tests.conftest import play


@pytest.fixture(scope="module")
def database(tmp_path_factory, world, small_term):
    path = tmp_path_factory.mktemp("views") / "runs.db"
    store = SQLiteStore(path)
    parent = play(store, world, small_term, "oracle")
    head = store.head(parent.branch.id)[0]
    child, _ = fork_run(parent, head // 2, agent_name="noop", new_id="child")
    child.session(make_agent("noop", child.term, child.world)).run()
    grandchild, _ = fork_run(child, store.head("child")[0] - 40, agent_name="oracle", new_id="grandchild")
    grandchild.session(make_agent("oracle", grandchild.term, grandchild.world)).run()
    early, _ = fork_run(grandchild, store.branch("child").fork_seq // 2, agent_name="oracle", new_id="early")
    early.session(make_agent("oracle", early.term, early.world)).run()  # before its parent's fork point
    runs = {run.branch.id: run for run in (parent, child, grandchild, early)}
    yield path, runs
    store.close()


def _query(path, sql: str, *args):
    with sqlite3.connect(path) as conn:
        return conn.execute(sql, args).fetchall()


def test_run_events_is_each_runs_whole_history(database) -> None:
    path, runs = database
    for run_id, run in runs.items():
        rows = _query(path, "SELECT seq, t, kind, hash FROM run_events WHERE run = ? ORDER BY seq", run_id)
        assert rows == [(r.seq, r.t, r.kind, r.hash) for r in run.store.rows(run_id)]
        assert len(rows) == run.store.head(run_id)[0]


def test_tool_calls_pair_each_call_with_its_result(database) -> None:
    path, runs = database
    for run_id, run in runs.items():
        events = decode_events([r.payload for r in run.store.rows(run_id)])
        results = {e.call_id: e for e in events if isinstance(e, ToolResult)}
        expected = [(e.task_id, e.call_id, e.tool, e.args, results[e.call_id].status, results[e.call_id].message)
                    for e in events if isinstance(e, ToolCalled)]
        rows = _query(path, "SELECT task_id, call_id, tool, args, status, message FROM tool_calls WHERE run = ? ORDER BY seq", run_id)
        assert [(a, b, c, json.loads(d), e, f) for a, b, c, d, e, f in rows] == expected
        assert expected


def test_tasks_and_scores_match_the_scorecard(database) -> None:
    path, runs = database
    for run_id, run in runs.items():
        ended = run.ended_tasks()
        rows = _query(path, "SELECT task_id, outcome, turns FROM tasks WHERE run = ? ORDER BY released_seq", run_id)
        assert rows == [(e.task_id, e.outcome, e.turns) for e in ended]
        card = scorecard(run.term, ended)
        scores = {name: (scored, succeeded) for name, scored, succeeded in
                  _query(path, "SELECT scenario, scored, succeeded FROM scores WHERE run = ?", run_id)}
        assert scores == {name: (row["tasks"], row["succeeded"]) for name, row in card["by_scenario"].items()}
    assert _query(path, "SELECT COUNT(*) FROM tasks WHERE run = 'child' AND outcome = 'failure'")[0][0] > 0


def test_replies_keep_the_agents_text(database) -> None:
    path, runs = database
    texts = [t for (t,) in _query(path, "SELECT text FROM replies WHERE run = 'child' ORDER BY seq")]
    assert texts[-1] == "<action>Action: finish()</action>"
    assert len(texts) == sum(r.kind == "agent_replied" for r in runs["child"].store.rows("child"))


def test_a_lineage_that_loops_ends_the_views_recursion(database, tmp_path) -> None:
    """A file edited so that a run is its own ancestor: the view's recursion stops (the kernel refuses the run)."""
    path, _ = database
    looped = tmp_path / "looped.db"
    with sqlite3.connect(path) as source, sqlite3.connect(looped) as copy:
        source.backup(copy)
        copy.execute("DROP TRIGGER branches_append_only_update")
        root = copy.execute("SELECT id FROM branches WHERE parent IS NULL").fetchone()[0]
        copy.execute("UPDATE branches SET parent = 'child', fork_seq = 5 WHERE id = ?", (root,))
        steps = iter(range(100_000))
        copy.set_progress_handler(lambda: next(steps, None) is None, 1000)  # aborts a query that runs on and on
        owners = copy.execute("SELECT DISTINCT owner FROM lineage WHERE run = 'child'").fetchall()
    assert sorted(owners) == sorted([(root,), ("child",)])
