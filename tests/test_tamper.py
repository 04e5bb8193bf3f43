"""The tamper campaign: every edit of a stored run is caught by plain ``verify`` at the seq it touched,
or ignored where it is harmless (``meta``). Edits are made behind the triggers' back, and the hash
chain is recomputed after each, as a forger would; a snapshot that disagrees with the log is never used."""

from __future__ import annotations

import hashlib
import shutil
import sqlite3
from collections.abc import Callable
from pathlib import Path

import msgspec
import pytest

from campus.agents import make_agent
from campus.events import chain_hash, genesis_hash
from campus.kernel.history import full_fold, state_at
from campus.kernel.store import SQLiteStore
from campus.replays.verify import Report, verify
from campus.scenarios.play import new_run, open_run
from campus.scenarios.task import Term
from campus.world.index import WorldIndex

KERNEL_KINDS = ("run_started", "day_started", "world_changed", "time_announced", "task_released", "agent_replied",
                "tool_called", "tool_result", "action_rejected", "answered", "instruction_revealed", "task_ended",
                "run_ended")
SNAPSHOT_AT = 300


@pytest.fixture(scope="module")
def original(tmp_path_factory: pytest.TempPathFactory, world: WorldIndex, small_term: Term) -> tuple[Path, str]:
    path = tmp_path_factory.mktemp("tamper") / "runs.db"
    store = SQLiteStore(path)
    run = new_run(store, world, small_term, agent_name="oracle", seed=0)
    run.session(make_agent("oracle", small_term, world)).run()
    state = full_fold(run.kernel, store, run.branch.id, SNAPSHOT_AT)  # stored whole, as before snapshot pieces
    store.put_snapshot(run.branch.id, SNAPSHOT_AT, run.kernel.projection.encode(state), run.kernel.projection.state_hash(state))
    branch = run.branch.id
    store.close()
    return path, branch


def tampered(original: tuple[Path, str], tmp_path: Path, edit: Callable[[sqlite3.Connection, str], None],
             rehash: bool = True) -> Report:
    path, branch = original
    copy = tmp_path / "copy.db"
    shutil.copy(path, copy)
    conn = sqlite3.connect(copy, isolation_level=None)
    for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'").fetchall():
        conn.execute(f"DROP TRIGGER {name}")
    edit(conn, branch)
    if rehash:
        _rehash(conn, branch)
    conn.close()
    store = SQLiteStore(copy)
    try:
        return verify(open_run(store, branch))
    finally:
        store.close()


def _rehash(conn: sqlite3.Connection, branch: str) -> None:
    """Recompute every row's hash from the (possibly edited) genesis, as a forger would."""
    prev = conn.execute("SELECT genesis FROM branches WHERE id = ?", (branch,)).fetchone()[0]
    rows = conn.execute("SELECT seq, t, payload FROM events WHERE branch = ? ORDER BY seq", (branch,)).fetchall()
    conn.execute("BEGIN")
    for seq, t, payload in rows:
        prev = chain_hash(prev, t, payload.encode())
        conn.execute("UPDATE events SET hash = ? WHERE branch = ? AND seq = ?", (prev, branch, seq))
    conn.execute("COMMIT")


def first_of(conn: sqlite3.Connection, branch: str, kind: str, after: int = 0) -> int:
    return conn.execute("SELECT min(seq) FROM events WHERE branch = ? AND kind = ? AND seq > ?",
                        (branch, kind, after)).fetchone()[0]


def first_fact(conn: sqlite3.Connection, branch: str, after: int = 0) -> int:
    marks = ", ".join("?" * len(KERNEL_KINDS))
    return conn.execute(f"SELECT min(seq) FROM events WHERE branch = ? AND seq > ? AND kind NOT IN ({marks})",
                        (branch, after, *KERNEL_KINDS)).fetchone()[0]


def payload_of(conn: sqlite3.Connection, branch: str, seq: int) -> tuple[int, str, str]:
    return conn.execute("SELECT t, kind, payload FROM events WHERE branch = ? AND seq = ?", (branch, seq)).fetchone()


def shift_up(conn: sqlite3.Connection, branch: str, start: int, by: int) -> None:
    """Move rows ``start..`` by ``by`` seqs (through a negative detour: seq is part of the key)."""
    conn.execute("UPDATE events SET seq = -seq WHERE branch = ? AND seq >= ?", (branch, start))
    conn.execute("UPDATE events SET seq = -seq + ? WHERE branch = ? AND seq < 0", (by, branch))


def test_the_untouched_run_verifies(original: tuple[Path, str], tmp_path: Path) -> None:
    assert tampered(original, tmp_path, lambda conn, branch: None, rehash=False).ok


def test_an_edited_fact_is_caught_where_it_is(original: tuple[Path, str], tmp_path: Path) -> None:
    found: list[int] = []

    def edit(conn: sqlite3.Connection, branch: str) -> None:
        seq = first_fact(conn, branch, 100)
        t, kind, payload = payload_of(conn, branch, seq)
        value = msgspec.json.decode(payload)
        value["tampered"] = 1  # an unknown field is refused by the decoder: use a known one instead
        del value["tampered"]
        key = next(k for k, v in value.items() if isinstance(v, str) and k != "type")
        value[key] = value[key] + "x"
        conn.execute("UPDATE events SET payload = ? WHERE branch = ? AND seq = ?",
                     (msgspec.json.encode(dict(sorted(value.items()))).decode(), branch, seq))
        found.append(seq)

    report = tampered(original, tmp_path, edit)
    assert not report.ok and report.mismatch is not None and report.mismatch.seq == found[0]


@pytest.mark.parametrize(("edit_result", "check"), [
    (lambda value: {**value, "message": value["message"] + " (edited)"}, "re-execution"),
    (lambda value: {**value, "message": 7}, "decode"),
    (lambda value: dict(reversed(list(value.items()))), None),
])
def test_a_read_result_is_held_to_its_re_execution(original: tuple[Path, str], tmp_path: Path,
                                                   edit_result: Callable[[dict], dict], check: str | None) -> None:
    """A ``tool_result`` row is read only through the result re-execution gives (verify does not decode it when
    it stores exactly those bytes): an edited one, or one that is no event, is still caught at its seq, and
    the same result written in another key order still verifies, as it did when every row was decoded."""
    where: list[int] = []

    def edit(conn: sqlite3.Connection, branch: str) -> None:
        seq = first_of(conn, branch, "tool_result", 100)
        value = msgspec.json.decode(payload_of(conn, branch, seq)[2])
        conn.execute("UPDATE events SET payload = ? WHERE branch = ? AND seq = ?",
                     (msgspec.json.encode(edit_result(value)).decode(), branch, seq))
        where.append(seq)

    report = tampered(original, tmp_path, edit)
    if check is None:
        assert report.ok
    else:
        assert report.mismatch is not None and (report.mismatch.seq, report.mismatch.check) == (where[0], check)


def test_an_edit_without_rehashing_breaks_the_chain_there(original: tuple[Path, str], tmp_path: Path) -> None:
    def edit(conn: sqlite3.Connection, branch: str) -> None:
        conn.execute("UPDATE events SET t = t + 1 WHERE branch = ? AND seq = 50", (branch,))

    report = tampered(original, tmp_path, edit, rehash=False)
    assert report.mismatch is not None and (report.mismatch.seq, report.mismatch.check) == (50, "hash chain")


def test_a_fact_inserted_before_a_reply_is_named_at_its_own_seq(original: tuple[Path, str], tmp_path: Path) -> None:
    where: list[int] = []

    def edit(conn: sqlite3.Connection, branch: str) -> None:
        fact = first_fact(conn, branch, 100)
        reply = first_of(conn, branch, "agent_replied", fact + 3)
        t_fact, kind, payload = payload_of(conn, branch, fact)
        t_reply = payload_of(conn, branch, reply)[0]
        shift_up(conn, branch, reply, 1)
        conn.execute("INSERT INTO events (branch, seq, t, kind, payload, hash, meta) VALUES (?, ?, ?, ?, ?, '', NULL)",
                     (branch, reply, t_reply, kind, payload))
        where.append(reply)

    report = tampered(original, tmp_path, edit)
    assert report.mismatch is not None
    assert (report.mismatch.seq, report.mismatch.check) == (where[0], "sequence")


def test_a_deleted_row_is_caught_where_the_gap_is(original: tuple[Path, str], tmp_path: Path) -> None:
    where: list[int] = []

    def edit(conn: sqlite3.Connection, branch: str) -> None:
        seq = first_of(conn, branch, "task_released", 100)
        conn.execute("DELETE FROM events WHERE branch = ? AND seq = ?", (branch, seq))
        shift_up(conn, branch, seq + 1, -1)
        where.append(seq)

    report = tampered(original, tmp_path, edit)
    assert report.mismatch is not None and report.mismatch.seq == where[0]


@pytest.mark.parametrize(("kind", "field", "edited"), [
    ("time_announced", "label", lambda value: value + " sharp"),
    ("task_released", "observation", lambda value: value.replace("Current time", "Time")),
    ("task_released", "scenario", lambda value: value + "x"),
    ("task_released", "systems", lambda value: value[:-1]),
    ("task_released", "withheld", lambda value: not value),
    ("instruction_revealed", "text", lambda value: value + " Take your time."),
    ("day_started", "home", lambda value: value + "x"),
    ("run_started", "schema", lambda value: value - 1),
    ("run_ended", "reason", lambda value: "stopped early"),
], ids=lambda value: value if isinstance(value, str) else "")
def test_what_the_session_writes_of_its_own_is_held_to_it_word_for_word(original: tuple[Path, str], tmp_path: Path,
                                                                       kind: str, field: str, edited: Callable) -> None:
    """Each of these edits, the chain recomputed, verified before: the session's own events were checked for their
    place, not their words (what a task's release told the student, the time line, a revealed instruction, ...)."""
    where: list[int] = []

    def edit(conn: sqlite3.Connection, branch: str) -> None:
        seq = first_of(conn, branch, kind)
        _, _, payload = payload_of(conn, branch, seq)
        value = msgspec.json.decode(payload)
        value[field] = edited(value[field])
        conn.execute("UPDATE events SET payload = ? WHERE branch = ? AND seq = ?",
                     (msgspec.json.encode(dict(sorted(value.items()))).decode(), branch, seq))
        where.append(seq)

    report = tampered(original, tmp_path, edit)
    assert report.mismatch is not None and (report.mismatch.seq, report.mismatch.check) == (where[0], "sequence"), report


@pytest.mark.parametrize(("before", "after"), [
    ("success", {"outcome": "unscored", "detail": "delivery task: run, not scored", "marks": {}}),
    ("unscored", {"outcome": "success", "detail": "", "marks": {}}),
])
def test_whether_a_task_is_scored_is_the_terms_not_the_task_ends(original: tuple[Path, str], tmp_path: Path, before: str,
                                                                  after: dict) -> None:
    """A scored task's end edited into an unscored one (so a failure would count for nothing) was never judged again."""
    where: list[int] = []

    def edit(conn: sqlite3.Connection, branch: str) -> None:
        for seq, payload in conn.execute("SELECT seq, payload FROM events WHERE branch = ? AND kind = 'task_ended' ORDER BY seq",
                                         (branch,)).fetchall():
            value = msgspec.json.decode(payload)
            if value["outcome"] == before:
                conn.execute("UPDATE events SET payload = ? WHERE branch = ? AND seq = ?",
                             (msgspec.json.encode(dict(sorted((value | after).items()))).decode(), branch, seq))
                where.append(seq)
                return

    report = tampered(original, tmp_path, edit)
    assert where and report.mismatch is not None and (report.mismatch.seq, report.mismatch.check) == (where[0], "evaluation")


@pytest.mark.parametrize("kind", ["walked", "calendar_event_added", "answered", "task_ended", "run_ended"])
def test_an_event_written_at_once_after_another_keeps_its_time(original: tuple[Path, str], tmp_path: Path,
                                                               kind: str) -> None:
    """A fact, an answer, a task's end or the run's end moved a minute later, the chain recomputed, verified before
    (only a time going back was caught)."""
    where: list[int] = []

    def edit(conn: sqlite3.Connection, branch: str) -> None:
        seq = first_of(conn, branch, kind)
        conn.execute("UPDATE events SET t = t + 1 WHERE branch = ? AND seq = ?", (branch, seq))
        where.append(seq)

    report = tampered(original, tmp_path, edit)
    assert report.mismatch is not None and (report.mismatch.seq, report.mismatch.check) == (where[0], "time"), report


def test_a_deleted_reveal_is_caught_at_the_step_after_the_call_that_reached_the_place(original: tuple[Path, str],
                                                                                       tmp_path: Path) -> None:
    where: list[int] = []

    def edit(conn: sqlite3.Connection, branch: str) -> None:
        seq = first_of(conn, branch, "instruction_revealed")
        conn.execute("DELETE FROM events WHERE branch = ? AND seq = ?", (branch, seq))
        shift_up(conn, branch, seq + 1, -1)
        where.append(seq)

    report = tampered(original, tmp_path, edit)
    assert report.mismatch is not None and (report.mismatch.seq, report.mismatch.check) == (where[0], "sequence"), report
    assert "revealed" in str(report.mismatch.expected)


def test_swapped_rows_are_caught_at_the_first(original: tuple[Path, str], tmp_path: Path) -> None:
    where: list[int] = []

    def edit(conn: sqlite3.Connection, branch: str) -> None:
        seq = first_of(conn, branch, "tool_called", 100)
        a, b = payload_of(conn, branch, seq), payload_of(conn, branch, seq + 1)
        for target, (t, kind, payload) in ((seq, b), (seq + 1, a)):
            conn.execute("UPDATE events SET t = ?, kind = ?, payload = ? WHERE branch = ? AND seq = ?",
                         (t, kind, payload, branch, target))
        where.append(seq)

    report = tampered(original, tmp_path, edit)
    assert report.mismatch is not None and report.mismatch.seq == where[0]


def test_an_edited_kind_is_caught_though_it_is_outside_the_hash(original: tuple[Path, str], tmp_path: Path) -> None:
    def edit(conn: sqlite3.Connection, branch: str) -> None:
        conn.execute("UPDATE events SET kind = 'task_ended' WHERE branch = ? AND seq = 40", (branch,))

    report = tampered(original, tmp_path, edit, rehash=False)
    assert report.mismatch is not None and (report.mismatch.seq, report.mismatch.check) == (40, "sequence")


@pytest.mark.parametrize(("column", "value", "stored"), [
    ("t", "t + 0.5", "t real"), ("t", "CAST(t AS TEXT) || 'x'", "t text"), ("t", "CAST(CAST(t AS TEXT) AS BLOB)", "t blob"),
    ("kind", "CAST(kind AS BLOB)", "kind blob"), ("payload", "CAST(payload AS BLOB)", "payload blob"),
    ("hash", "CAST(hash AS BLOB)", "hash blob"),
])
def test_a_value_that_reads_back_the_same_but_is_stored_as_another_type_is_caught(
        original: tuple[Path, str], tmp_path: Path, column: str, value: str, stored: str) -> None:
    """The readers cast each column to its declared type, so 444.5 read as 444 and the chain checked, while the SQL
    views (``run_events``) showed the edit: a forgery that verified."""
    def edit(conn: sqlite3.Connection, branch: str) -> None:
        conn.execute(f"UPDATE events SET {column} = {value} WHERE branch = ? AND seq = 40", (branch,))

    report = tampered(original, tmp_path, edit, rehash=False)
    assert not report.ok and report.mismatch is not None
    assert (report.mismatch.seq, report.mismatch.check) == (40, "column types") and stored in report.mismatch.actual


def test_edited_meta_is_harmless(original: tuple[Path, str], tmp_path: Path) -> None:
    def edit(conn: sqlite3.Connection, branch: str) -> None:
        conn.execute("UPDATE events SET meta = '{\"tokens\": 1}' WHERE branch = ?", (branch,))

    assert tampered(original, tmp_path, edit, rehash=False).ok


def test_an_event_appended_after_the_end_is_caught(original: tuple[Path, str], tmp_path: Path) -> None:
    where: list[int] = []

    def edit(conn: sqlite3.Connection, branch: str) -> None:
        head = conn.execute("SELECT max(seq) FROM events WHERE branch = ?", (branch,)).fetchone()[0]
        t, kind, payload = payload_of(conn, branch, head)
        assert kind == "run_ended"
        conn.execute("INSERT INTO events (branch, seq, t, kind, payload, hash, meta) VALUES (?, ?, ?, ?, ?, '', NULL)",
                     (branch, head + 1, t, kind, payload))
        where.append(head + 1)

    report = tampered(original, tmp_path, edit)
    assert report.mismatch is not None and (report.mismatch.seq, report.mismatch.check) == (where[0], "sequence")


@pytest.mark.parametrize("field", ["round_limit", "seed"])
def test_an_edited_branch_row_fails_even_with_the_genesis_and_chain_recomputed(
        original: tuple[Path, str], tmp_path: Path, field: str) -> None:
    def edit(conn: sqlite3.Connection, branch: str) -> None:
        world, term, seed, config, agent = conn.execute(
            "SELECT world_hash, term_hash, seed, config, agent FROM branches WHERE id = ?", (branch,)).fetchone()
        config = msgspec.json.decode(config)
        if field == "round_limit":
            config["round_limit"] = 99
        else:
            seed += 1
        conn.execute("UPDATE branches SET seed = ?, config = ? WHERE id = ?",
                     (seed, msgspec.json.encode(config).decode(), branch))
        conn.execute("UPDATE branches SET genesis = ? WHERE id = ?", (genesis_hash(world, term, seed, config, agent), branch))

    report = tampered(original, tmp_path, edit)
    assert report.mismatch is not None and report.mismatch.seq == 1 and report.mismatch.check == "sequence"


def test_an_edited_branch_row_with_its_old_genesis_fails_at_the_genesis(original: tuple[Path, str], tmp_path: Path) -> None:
    def edit(conn: sqlite3.Connection, branch: str) -> None:
        conn.execute("UPDATE branches SET seed = seed + 1 WHERE id = ?", (branch,))

    report = tampered(original, tmp_path, edit, rehash=False)
    assert report.mismatch is not None and (report.mismatch.seq, report.mismatch.check) == (0, "genesis")


@pytest.mark.parametrize("kind", ["world", "term"])
def test_an_edited_world_or_term_blob_is_caught(original: tuple[Path, str], tmp_path: Path, kind: str) -> None:
    def edit(conn: sqlite3.Connection, branch: str) -> None:
        digest = conn.execute(f"SELECT {kind}_hash FROM branches WHERE id = ?", (branch,)).fetchone()[0]
        data = conn.execute("SELECT data FROM blobs WHERE hash = ?", (digest,)).fetchone()[0]
        edited = bytes(data).replace(b'"', b"'", 1) if kind == "world" else bytes(data).replace(b"Library", b"Lybrary", 1)
        conn.execute("UPDATE blobs SET data = ? WHERE hash = ?", (edited, digest))

    from campus.scenarios import play as play_module
    play_module._WORLDS.clear()  # the cache of decoded worlds would hide the edited blob from open_run
    try:
        report = tampered(original, tmp_path, edit, rehash=False)
    except Exception:  # an edited world may not even decode: then it cannot be opened, let alone pass
        return
    assert report.mismatch is not None and (report.mismatch.seq, report.mismatch.check) == (0, f"{kind} blob")


def test_a_snapshot_with_edited_bytes_is_caught_and_never_used(original: tuple[Path, str], tmp_path: Path) -> None:
    def edit(conn: sqlite3.Connection, branch: str) -> None:
        conn.execute("UPDATE snapshots SET state = X'00112233' WHERE branch = ?", (branch,))

    report = tampered(original, tmp_path, edit, rehash=False)
    assert report.mismatch is not None and (report.mismatch.seq, report.mismatch.check) == (SNAPSHOT_AT, "snapshot")
    store = SQLiteStore(tmp_path / "copy.db")
    run = open_run(store, original[1])
    expected = run.kernel.projection.state_hash(full_fold(run.kernel, store, run.branch.id, SNAPSHOT_AT + 5))
    assert run.kernel.projection.state_hash(state_at(run.kernel, store, run.branch.id, SNAPSHOT_AT + 5)) == expected
    store.close()


def test_a_forged_snapshot_with_its_hash_recomputed_is_caught(original: tuple[Path, str], tmp_path: Path) -> None:
    def edit(conn: sqlite3.Connection, branch: str) -> None:
        state = bytes(conn.execute("SELECT state FROM snapshots WHERE branch = ?", (branch,)).fetchone()[0])
        forged = state.replace(b'"turns":', b'"turns":1', 1)
        assert forged != state
        conn.execute("UPDATE snapshots SET state = ?, state_hash = ? WHERE branch = ?",
                     (forged, hashlib.sha256(forged).hexdigest(), branch))

    report = tampered(original, tmp_path, edit, rehash=False)
    assert report.mismatch is not None and (report.mismatch.seq, report.mismatch.check) == (SNAPSHOT_AT, "snapshot")


@pytest.mark.parametrize("agent", ["oracle", "noop", "stateless", "diligent", "stale"])
def test_every_builtin_agent_verifies_with_snapshots(world: WorldIndex, small_term: Term, tmp_path: Path, agent: str) -> None:
    store = SQLiteStore(tmp_path / "runs.db")
    run = new_run(store, world, small_term, agent_name=agent, seed=0)
    run.session(make_agent(agent, small_term, world), snapshot_every=97).run()
    report = verify(run)
    store.close()
    assert report.ok, report.mismatch
