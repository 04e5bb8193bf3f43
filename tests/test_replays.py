"""Time travel: seek, fork, verify, diff, export and import."""

from __future__ import annotations

import gzip
import io
from pathlib import Path

import msgspec
import pytest

from campus.agents import make_agent
from campus.events import TaskEnded, canonical, decode_events
from campus.kernel.history import full_fold
from campus.kernel.store import MemoryStore, SQLiteStore
from campus.replays.diff import diff_runs, first_divergence
from campus.replays.export import ExportFormatError, export_lines, import_lines, write_export
from tests.harness import acting_step
from campus.replays.fork import InjectedReply, fork_run, step_boundary
from campus.replays.seek import SeekError, describe_state, resolve_position, seek
from campus.replays.score import rescore
from campus.replays.verify import verify
from campus.scenarios.play import open_run
from campus.scenarios.task import decode_term
from campus.world.generate import generate_world
from campus.world.index import WorldIndex
from tests.conftest import play


@pytest.fixture
def oracle_run(world, small_term, tmp_path):
    store = SQLiteStore(tmp_path / "runs.db")
    run = play(store, world, small_term, "oracle")
    yield run
    store.close()


def test_seek_by_step_and_by_time(oracle_run) -> None:
    head = oracle_run.store.head(oracle_run.branch.id)[0]
    middle = seek(oracle_run, head // 2)
    assert middle.seq == head // 2
    described = describe_state(oracle_run, middle)
    assert described["state_hash"] == oracle_run.kernel.projection.state_hash(full_fold(oracle_run.kernel, oracle_run.store, oracle_run.branch.id, head // 2))
    seq = resolve_position(oracle_run, at=described["time"])
    assert seq >= head // 2 and oracle_run.store.rows(oracle_run.branch.id, seq, seq)[0].t == middle.now
    assert resolve_position(oracle_run, at="Week 0, Monday 00:00") == 1  # the run starts at minute 0
    with pytest.raises(SeekError):
        resolve_position(oracle_run, step=head + 1)
    with pytest.raises(SeekError):
        resolve_position(oracle_run)


def test_fork_diverges_exactly_at_the_fork_point(oracle_run) -> None:
    head = oracle_run.store.head(oracle_run.branch.id)[0]
    near = acting_step(oracle_run, head // 2)
    point = step_boundary(oracle_run, near)
    child, fork_point = fork_run(oracle_run, near, agent_name="noop")
    assert fork_point.seq == point == near
    assert oracle_run.store.rows(oracle_run.branch.id, point + 1, point + 1)[0].kind == "agent_replied"
    child.session(make_agent("noop", child.term, child.world)).run()
    assert first_divergence(oracle_run.store, oracle_run.branch.id, child.branch.id) == point + 1
    report = diff_runs(oracle_run, child)
    assert report["first_divergence"]["seq"] == point + 1
    assert report["first_divergence"]["a"]["kind"] == "agent_replied"
    assert report["outcome_flips"] and all(f["a"] == "success" and f["b"] == "failure" for f in report["outcome_flips"])


def test_fork_with_an_injected_reply(oracle_run) -> None:
    head = oracle_run.store.head(oracle_run.branch.id)[0]
    child, point = fork_run(oracle_run, head // 3, agent_name="oracle")
    oracle = make_agent("oracle", child.term, child.world)
    child.session(InjectedReply("<action>Action: finish()</action>", oracle)).run()
    first = decode_events([child.store.rows(child.branch.id, point.seq + 1, point.seq + 1)[0].payload])[0]
    assert first.text == "<action>Action: finish()</action>"
    assert verify(child).ok


def test_identical_runs_have_no_divergence(world, small_term) -> None:
    store = MemoryStore()
    a = play(store, world, small_term, "oracle")
    b = play(store, world, small_term, "oracle")
    assert a.branch.id != b.branch.id
    report = diff_runs(a, b)
    assert report["identical"] and report["first_divergence"] is None and report["outcome_flips"] == []
    assert all(not any(v.values()) for v in report["state_diff"].values())


def test_different_agents_on_one_seed_diverge_at_the_first_reply(world, small_term) -> None:
    store = MemoryStore()
    a = play(store, world, small_term, "oracle")
    b = play(store, world, small_term, "noop")
    seq = first_divergence(store, a.branch.id, b.branch.id)
    first_reply = next(r.seq for r in store.rows(a.branch.id) if r.kind == "agent_replied")
    assert seq == first_reply
    report = diff_runs(a, b)
    assert report["state_diff"]["calendar"]["removed"], "the oracle noted its deliveries; noop did not"


def test_verify_passes_and_deep_verify_replays_every_hash(oracle_run) -> None:
    report = verify(oracle_run, deep=True)
    assert report.ok and report.tool_calls > 50 and report.tasks_judged == sum(not t.flags.delivery_only for t in oracle_run.term.tasks)


def test_verify_with_a_tiny_reading_memo_reads_every_reply_again_and_still_verifies(oracle_run, monkeypatch) -> None:
    """The memo of reply readings is bounded (``READINGS``); starting it afresh changes no verdict."""
    import campus.replays.verify as verifying

    monkeypatch.setattr(verifying, "READINGS", 2)
    parsed: list[str] = []
    real = verifying.action_of
    monkeypatch.setattr(verifying, "action_of", lambda replied, **kw: parsed.append(replied.text) or real(replied, **kw))
    report = verify(oracle_run)
    texts = [e.text for e in decode_events([r.payload for r in oracle_run.store.rows(oracle_run.branch.id)])
             if type(e).__name__ == "AgentReplied" and e.text is not None]
    assert report.ok and len(set(texts)) > 2 and len(parsed) > len(set(texts))


@pytest.mark.parametrize("kind,edit", [
    ("tool_result", ("Optimal path", "Optimal  path")),
    ("walked", ('"arrive":', '"arrive":1')),
])
def test_tampering_is_caught_at_its_seq(oracle_run, kind, edit) -> None:
    conn = oracle_run.store.conn
    seq = conn.execute("SELECT seq FROM events WHERE kind = ? AND payload LIKE ? ORDER BY seq LIMIT 1 OFFSET 3",
                       (kind, f"%{edit[0]}%")).fetchone()[0]
    conn.execute("DROP TRIGGER events_append_only_update")
    conn.execute("UPDATE events SET payload = replace(payload, ?, ?) WHERE seq = ?", (*edit, seq))
    report = verify(open_run(oracle_run.store, oracle_run.branch.id))
    assert not report.ok and report.mismatch.seq == seq and report.mismatch.check == "hash chain"


def test_a_rehashed_forgery_is_caught_by_re_execution(world, small_term) -> None:
    """Someone edits a tool result and recomputes every hash after it: re-execution still catches it."""
    from campus.events import ToolResult
    from campus.kernel.store import BranchInfo

    store = MemoryStore()
    run = play(store, world, small_term, "oracle")
    rows = store.rows(run.branch.id)
    events = decode_events([r.payload for r in rows])
    target = next(i for i, e in enumerate(events) if isinstance(e, ToolResult) and e.status == "ok")
    events[target] = ToolResult(call_id=events[target].call_id, status="ok", message="forged", minutes=events[target].minutes)
    forged = BranchInfo(id="forged", parent=None, fork_seq=0, genesis=run.branch.genesis, agent=run.branch.agent,
                        world_hash=run.branch.world_hash, term_hash=run.branch.term_hash, seed=0, config=run.branch.config)
    store.create_branch(forged)
    store.append("forged", [(r.t, e, None) for r, e in zip(rows, events)])
    report = verify(open_run(store, "forged"))
    assert not report.ok and report.mismatch.check == "re-execution" and report.mismatch.seq == target + 1
    assert report.mismatch.actual["message"] == "forged"


def test_export_import_round_trip_and_tamper(oracle_run, tmp_path) -> None:
    buffer = io.StringIO()
    count = write_export(oracle_run, buffer)
    lines = buffer.getvalue().splitlines()
    assert count == len(lines) - 2 == oracle_run.store.head(oracle_run.branch.id)[0]  # the header and the end line
    other = MemoryStore()
    imported = import_lines(other, lines)
    assert other.head(imported.branch.id) == oracle_run.store.head(oracle_run.branch.id)
    assert verify(imported).ok
    tampered = list(lines)
    tampered[10] = tampered[10].replace('"t":', '"t":1', 1)
    fresh = MemoryStore()
    with pytest.raises(ExportFormatError, match="line 11"):
        import_lines(fresh, tampered)
    assert fresh.branches() == []
    with pytest.raises(ExportFormatError):
        import_lines(MemoryStore(), ["not json"])


@pytest.mark.parametrize("agent", ["oracle", "noop"])
def test_export_of_a_fork_is_flattened_into_one_branch_per_agent(oracle_run, agent) -> None:
    child, point = fork_run(oracle_run, 40, agent_name=agent, new_id=f"child-{agent}")
    child.session(make_agent(agent, child.term, child.world)).run()
    imported = import_lines(MemoryStore(), list(export_lines(child)))
    assert imported.store.head(imported.branch.id) == child.store.head(child.branch.id)
    if agent == "oracle":
        assert imported.branch.parent is None
    else:
        parent = imported.store.branch(imported.branch.parent)
        assert (parent.parent, parent.agent, imported.branch.fork_seq, imported.branch.agent) == (None, "oracle", point.seq, "noop")


def test_rescoring_is_a_fold(oracle_run) -> None:
    ended = oracle_run.ended_tasks()
    assert all(isinstance(e, TaskEnded) for e in ended) and len(ended) == len(oracle_run.term.tasks)


def test_a_rehashed_payload_that_is_not_an_event_is_a_mismatch_not_a_crash(world, small_term) -> None:
    from campus.events import chain_hash
    from campus.kernel.store import BranchInfo, Row

    store = MemoryStore()
    run = play(store, world, small_term, "noop")
    rows = store.rows(run.branch.id)
    forged_rows, prev = [], run.branch.genesis
    for row in rows:
        payload = '{"kind":"walked","oops":1}' if row.seq == 7 else row.payload
        prev = chain_hash(prev, row.t, payload.encode())
        forged_rows.append(Row(row.seq, row.t, row.kind, payload, prev, None))
    store.create_branch(BranchInfo(id="forged", parent=None, fork_seq=0, genesis=run.branch.genesis, agent=run.branch.agent,
                                   world_hash=run.branch.world_hash, term_hash=run.branch.term_hash, seed=0, config=run.branch.config))
    store._rows["forged"] = forged_rows  # written behind the store's back, hashes and all
    store._heads["forged"] = (forged_rows[-1].seq, forged_rows[-1].hash)
    report = verify(open_run(store, "forged"))
    assert not report.ok and report.mismatch.seq == 7 and report.mismatch.check == "decode"


SCHEMA_1_EXPORT = Path(__file__).parent / "fixtures" / "schema1-oracle-x0.02.jsonl.gz"
"""``campus run --scale 0.02`` (the oracle, seed 0) exported under schema 1, when facts held time labels."""


def test_a_log_written_under_schema_1_imports_folds_scores_and_verifies(tmp_path) -> None:
    with gzip.open(SCHEMA_1_EXPORT, "rt") as lines:
        recorded = lines.read().splitlines()
    header, last = msgspec.json.decode(recorded[0]), msgspec.json.decode(recorded[-1])
    assert "schema" not in header["branch"] and '"time_slot"' in "".join(recorded)

    store = SQLiteStore(tmp_path / "old.db")
    imported = import_lines(store, recorded)
    assert imported.branch.schema == 1
    assert store.head(imported.branch.id) == (last["seq"], last["hash"]), "the old payloads and hashes are kept"
    reopened = open_run(store, imported.branch.id)
    assert reopened.term.hash == header["branch"]["term_hash"]

    # issue 12 changed what the generator draws, so today's term at this seed is another term; the upcast one
    # must still be a term of today's schema, hashed anew when stored again, and played by today's code alike
    fresh_term = decode_term(msgspec.json.encode(reopened.term))
    assert fresh_term == reopened.term and fresh_term.hash != reopened.term.hash, "the upcast term is of today's schema"
    world = WorldIndex(generate_world(0, generator=1))  # the run's world, as the generator of the time made it
    assert world.hash == reopened.term.world_hash
    fresh = play(MemoryStore(), world, fresh_term, "oracle")
    assert canonical(full_fold(reopened.kernel, store, reopened.branch.id)) == canonical(full_fold(fresh.kernel, fresh.store, fresh.branch.id))

    rescored = rescore(reopened)
    assert rescored.matches and rescored.scorecard == rescore(fresh).scorecard
    assert rescored.scorecard["stugpa"]["total"] == 100.0
    report = verify(reopened, deep=True)
    assert report.ok and report.tool_calls > 200 and report.tasks_judged > 50

    again = import_lines(MemoryStore(), list(export_lines(reopened)))
    assert again.branch.schema == 1 and again.store.head(again.branch.id) == (last["seq"], last["hash"])
