"""Untrusted names, keys, files and databases: a clear one-line error that changes nothing, or output shown as typed;
never a traceback, a hang, or a write into a file that is not campus's."""

from __future__ import annotations

import functools
import hashlib
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import pytest

from campus.kernel.store import APPLICATION_ID, SQLiteStore, StoreError
from campus.replays.verify import verify
from campus.scenarios.play import open_run
from tests.conftest import oracle_db

ROOT = Path(__file__).resolve().parents[1]
ENV = os.environ | {"PYTHONPATH": str(ROOT), "COLUMNS": "250", "PYTHONDONTWRITEBYTECODE": "1"}
UNGUARDED = ("DROP TRIGGER events_append_only_update; DROP TRIGGER events_append_only_delete; "
             "DROP TRIGGER branches_append_only_update;")
LONG = "x" * 300


def campus(*args: str, cwd: Path, user: list[str] | None = None, timeout: float = 300) -> subprocess.CompletedProcess:
    command = [*(user or []), sys.executable, "-m", "campus.cli.main", *args]
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, env=ENV, timeout=timeout)


def one_error_line(result: subprocess.CompletedProcess) -> str:
    assert result.returncode == 2, (result.returncode, result.stdout, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "Traceback" not in result.stderr, result.stderr
    return lines[0]


def digests(folder: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir()) if p.is_file()}


@pytest.fixture(scope="module")
def runs_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The oracle's run of a small term (oracle-s0), in a closed file."""
    return oracle_db(tmp_path_factory.mktemp("robust") / "runs.db", 0.01)


def head_of(db: Path) -> int:
    store = SQLiteStore(db)
    try:
        return store.head("oracle-s0")[0]
    finally:
        store.close()


def tampered(runs_db: Path, folder: Path, sql: str) -> Path:
    copy = folder / "tampered.db"
    shutil.copyfile(runs_db, copy)
    with sqlite3.connect(copy) as conn:
        conn.executescript(UNGUARDED + sql)
    conn.close()
    return copy


@pytest.fixture
def shared() -> Iterator[Path]:
    """A folder another user may enter (pytest's own are the owner's alone), removed afterwards."""
    folder = Path(tempfile.mkdtemp(prefix="campus-robust-"))
    folder.chmod(0o755)
    yield folder
    for path in (folder, *folder.rglob("*")):
        if path.is_dir():
            path.chmod(0o755)
    shutil.rmtree(folder)


def unprivileged() -> list[str]:
    """The command prefix that runs as a user the file modes bind (nobody, when the tests run as root)."""
    if os.geteuid() != 0:
        return []
    if shutil.which("setpriv") is None:
        pytest.skip("running as root without setpriv: file modes do not bind root")
    prefix = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
    if not _nobody_can_import(tuple(prefix)):
        pytest.skip(f"nobody cannot read this checkout ({ROOT} is inside a folder only root may enter, as a "
                    "'mktemp -d' folder is): file modes are exercised from a checkout others may read")
    return prefix


@functools.cache
def _nobody_can_import(prefix: tuple[str, ...]) -> bool:
    probe = subprocess.run([*prefix, sys.executable, "-c", "import campus.cli.main"], capture_output=True, env=ENV,
                           cwd="/", timeout=120)
    return probe.returncode == 0


# ---------------------------------------------------------------- 1. names are text, not Rich markup


def test_a_run_named_like_markup_is_made_listed_verified_replayed_and_scored_as_typed(tmp_path: Path) -> None:
    db = str(tmp_path / "m.db")
    for name in ("[/]oops", "[bold red]x"):
        made = campus("run", "--scale", "0.01", "--agent", "noop", "--name", name, "--db", db, cwd=tmp_path)
        assert made.returncode == 0 and f"Run {name} (noop, seed 0)" in made.stdout, made.stderr
    listed = campus("runs", "--db", db, cwd=tmp_path)
    assert listed.returncode == 0 and "[/]oops" in listed.stdout and "[bold red]x" in listed.stdout, listed.stderr
    shown = {("verify", "[/]oops"): "verified [/]oops: ", ("replay", "[/]oops", "--step", "5"): "[/]oops at seq 5",
             ("score", "[/]oops"): "[/]oops: scorecard reproduced", ("verify", ":smile:"): "no run named ':smile:'"}
    for args, text in shown.items():
        result = campus(*args, "--db", db, cwd=tmp_path)
        assert text in result.stdout + result.stderr and "Traceback" not in result.stderr, (args, result.stderr)


# ---------------------------------------------------------------- 2. an empty key path


def test_an_empty_key_path_is_an_error_not_a_check_skipped(runs_db: Path, tmp_path: Path) -> None:
    line = one_error_line(campus("verify", "oracle-s0", "--db", str(runs_db), "--signed-by", "", cwd=tmp_path))
    assert "path of an Ed25519 public key is empty" in line
    target = tmp_path / "signed.jsonl"
    line = one_error_line(campus("export", "oracle-s0", "--db", str(runs_db), "--sign", "", "-o", str(target), cwd=tmp_path))
    assert "path of an unencrypted Ed25519 private key is empty" in line and not target.exists()
    assert "KEY is empty" in one_error_line(campus("keygen", "", cwd=tmp_path))


# ---------------------------------------------------------------- 3. a log without its first event


def test_a_run_whose_log_lost_every_event_fails_verify_at_seq_1(runs_db: Path, tmp_path: Path) -> None:
    db = tampered(runs_db, tmp_path, "DELETE FROM events WHERE branch = 'oracle-s0';")
    store = SQLiteStore(db)
    report = verify(open_run(store, "oracle-s0"), deep=True)
    store.close()
    assert not report.ok and report.mismatch is not None
    assert (report.mismatch.seq, report.mismatch.check, report.mismatch.expected) == (1, "sequence", "run_started")
    checked = campus("verify", "oracle-s0", "--db", str(db), "--deep", cwd=tmp_path)
    assert checked.returncode == 1 and "mismatch in oracle-s0 at seq 1 (sequence)" in checked.stderr
    assert "not even its run_started" in one_error_line(campus("score", "oracle-s0", "--db", str(db), cwd=tmp_path))


def test_a_malformed_payload_is_named_by_its_seq(runs_db: Path, tmp_path: Path) -> None:
    """score and diff decode a run's events in batches; a payload edited into bad JSON used to be reported by its byte
    offset in the joined batch ("JSON is malformed: expected ':' (byte 1406)"), naming no event."""
    db = tampered(runs_db, tmp_path, "UPDATE events SET payload = '{\"broken' WHERE branch = 'oracle-s0' AND seq = 5;")
    for args in (("score", "oracle-s0"), ("diff", "oracle-s0", "oracle-s0")):
        line = one_error_line(campus(*args, "--db", str(db), cwd=tmp_path))
        assert line.startswith("error: the event at seq 5 is not a valid event ("), (args, line)


# ---------------------------------------------------------------- 4. a seq no file can reach


def test_an_absurd_seq_is_one_error_line_at_once(runs_db: Path, tmp_path: Path) -> None:
    head = head_of(runs_db)
    db = tampered(runs_db, tmp_path, f"UPDATE events SET seq = 1000000000000000 WHERE branch = 'oracle-s0' AND seq = {head};")
    with pytest.raises(StoreError, match="its last event is at seq 1000000000000000, which a run in .* cannot reach"):
        head_of(db)
    for args in (("runs",), ("verify", "oracle-s0"), ("score", "oracle-s0")):  # a hang is TimeoutExpired
        line = one_error_line(campus(*args, "--db", str(db), cwd=tmp_path, timeout=120))
        assert "is damaged" in line, args


def test_a_gap_the_file_could_hold_is_a_sequence_mismatch(runs_db: Path, tmp_path: Path) -> None:
    """Below the file's bound a head is walked to (fast), and verify names the gap, as before the bound."""
    head = head_of(runs_db)
    db = tampered(runs_db, tmp_path, f"UPDATE events SET seq = {head + 20_000} WHERE branch = 'oracle-s0' AND seq = {head};")
    checked = campus("verify", "oracle-s0", "--db", str(db), cwd=tmp_path, timeout=60)
    assert checked.returncode == 1 and f"at seq {head} (sequence)" in checked.stderr, checked.stderr


# ---------------------------------------------------------------- 4b. values of another type than the column's

# SQLite keeps the type a value was written with, whatever the column declares: an edited file can hold a blob where
# text belongs, or text where a number does. Each used to end in a traceback (AttributeError, TypeError) somewhere.


@pytest.mark.parametrize("sql, check", [
    ("UPDATE events SET payload = CAST(payload AS BLOB) WHERE branch = 'oracle-s0' AND seq = 5", "column types"),
    ("UPDATE events SET hash = CAST(hash AS BLOB) WHERE branch = 'oracle-s0'", "column types"),
    ("DROP TRIGGER blobs_append_only_update; UPDATE blobs SET data = CAST(data AS TEXT)", None),
    ("UPDATE events SET t = 'noon' WHERE branch = 'oracle-s0' AND seq = 5", "column types"),
    ("UPDATE snapshots SET state = 'a snapshot'", "snapshot"),
], ids=["payload-blob", "hash-blob", "world-text", "time-text", "snapshot-text"])
def test_a_value_stored_as_another_type_is_read_as_its_column_s(runs_db: Path, tmp_path: Path, sql: str,
                                                                check: str | None) -> None:
    """No reader trips over a value of another type than its column's (each used to end in a traceback). A stored
    world or term as text instead of a blob reads as before and verifies; an event's value of another type is an edit
    verify names at its row (until 2026-11-29 the same bytes as a blob verified, though the SQL views showed it);
    a snapshot edited into text is one it names too."""
    db = tampered(runs_db, tmp_path, sql + ";")
    store = SQLiteStore(db)
    try:
        report = verify(open_run(store, "oracle-s0"))
    finally:
        store.close()
    assert report.ok is (check is None), report.mismatch
    if check is not None:
        assert report.mismatch is not None and report.mismatch.check == check, report.mismatch


def test_one_damaged_run_does_not_hide_the_others_from_runs(runs_db: Path, tmp_path: Path) -> None:
    """`campus runs` stopped at the first run whose branch row did not read, listing nothing."""
    db = tmp_path / "two.db"
    shutil.copyfile(runs_db, db)
    assert campus("run", "--agent", "noop", "--scale", "0.01", "--name", "kept", "--db", str(db),
                  cwd=tmp_path).returncode == 0  # a run of its own (a fork of the damaged run is damaged with it)
    with sqlite3.connect(db) as conn:
        conn.executescript(UNGUARDED + "UPDATE branches SET seed = 'zero' WHERE id = 'oracle-s0';")
    conn.close()
    listed = campus("runs", "--db", str(db), cwd=tmp_path)
    line = one_error_line(listed)
    assert "run 'oracle-s0' is damaged" in line and "(the other runs are listed)" in line
    assert "kept" in listed.stdout and "oracle-s0 " not in listed.stdout
    rows = json.loads(campus("runs", "--db", str(db), "--json", cwd=tmp_path).stdout)
    assert [(r["run"], r["status"]) for r in rows] == [("oracle-s0", "damaged"), ("kept", "finished")]


@pytest.mark.parametrize("sql, why", [
    ("UPDATE events SET payload = x'00ff' WHERE branch = 'oracle-s0' AND seq = 5", "it holds a text that is not valid UTF-8"),
    ("UPDATE events SET seq = 'last' WHERE branch = 'oracle-s0' AND seq = (SELECT max(seq) FROM events)",
     "its last event is at seq 'last', which is not a number"),
    ("UPDATE branches SET config = '[]'", "its branch row does not read (Expected `object`, got `array` - at `$.config`)"),
    ("UPDATE branches SET schema = 'two'", "its branch row does not read (Expected `int`, got `str` - at `$.schema`)"),
], ids=["payload-not-utf8", "seq-text", "config-array", "schema-text"])
def test_a_value_no_column_of_its_kind_holds_is_one_error_line(runs_db: Path, tmp_path: Path, sql: str, why: str) -> None:
    db = tampered(runs_db, tmp_path, sql + ";")
    for args in (("verify", "oracle-s0"), ("score", "oracle-s0")):
        result = campus(*args, "--db", str(db), cwd=tmp_path)
        if args[0] == "verify" and "SET payload" in sql:  # a blob where text belongs: verify names it at its seq
            assert result.returncode == 1 and "at seq 5 (column types)" in result.stderr, result.stderr
            continue
        line = one_error_line(result)
        assert "is damaged" in line and why in line, (args, line)


# ---------------------------------------------------------------- 4c. JSON nested past what a decoder follows

# msgspec raises RecursionError (not a DecodeError) past ~1,000 levels; every reader of stored JSON used to let it
# through as a traceback. Nothing campus writes nests that deeply, so such a value is damage.

DEEP = "[" * 5000 + "]" * 5000
DEEP_OBJECT = '{"a":' * 5000 + "1" + "}" * 5000


@pytest.mark.parametrize("sql, why", [
    (f"UPDATE events SET payload = '{DEEP_OBJECT}' WHERE branch = 'oracle-s0' AND seq = 5",
     "the event at seq 5 is not a valid event (JSON nested too deeply to be an event)"),
    (f"UPDATE branches SET config = '{{\"x\": {DEEP}}}'", "its branch row does not read"),
    (f"DROP TRIGGER blobs_append_only_update; UPDATE blobs SET data = CAST('{{\"name\": {DEEP}}}' AS BLOB) "
     "WHERE kind = 'term'", "JSON nested too deeply to be a term"),
], ids=["payload", "config", "term"])
def test_json_nested_too_deeply_to_read_is_one_error_line(runs_db: Path, tmp_path: Path, sql: str, why: str) -> None:
    db = tampered(runs_db, tmp_path, sql + ";")
    listing = () if "payload" in sql else (("runs",),)  # runs decodes task ends only, and seq 5 is none
    for args in (*listing, ("score", "oracle-s0"), ("report", "oracle-s0", "--html", "r.html"), ("diff", "oracle-s0", "oracle-s0")):
        line = one_error_line(campus(*args, "--db", str(db), cwd=tmp_path))
        assert why in line or "is damaged: it holds JSON nested too deeply to read" in line, (args, line)
    assert not (tmp_path / "r.html").exists()


def test_verify_names_a_payload_nested_too_deeply_as_a_mismatch_at_its_seq(runs_db: Path, tmp_path: Path) -> None:
    """Before verify ran, its progress bar decoded every task end to count them, and stopped the command on the payload
    with exit 2; verify itself names the row (exit 1)."""
    with closing(sqlite3.connect(runs_db)) as conn:
        [(seq,)] = conn.execute("SELECT min(seq) FROM events WHERE branch = 'oracle-s0' AND kind = 'task_ended'").fetchall()
    db = tampered(runs_db, tmp_path, f"UPDATE events SET payload = '{DEEP_OBJECT}' WHERE branch = 'oracle-s0' AND seq = {seq};")
    checked = campus("verify", "oracle-s0", "--db", str(db), cwd=tmp_path)
    assert checked.returncode == 1 and f"at seq {seq} (hash chain)" in checked.stdout + checked.stderr, checked.stderr
    assert "Traceback" not in checked.stderr


# ---------------------------------------------------------------- 5. commands that read never write


def test_another_programs_wal_database_is_refused_byte_for_byte(tmp_path: Path) -> None:
    source, folder = tmp_path / "source", tmp_path / "copy"
    source.mkdir()
    folder.mkdir()
    conn = sqlite3.connect(source / "other.db")
    for statement in ("PRAGMA journal_mode=WAL", "PRAGMA wal_autocheckpoint=0", "CREATE TABLE x (a)",
                      "INSERT INTO x VALUES (1), (2)"):
        conn.execute(statement)
    conn.commit()
    for suffix in ("", "-wal"):  # while the connection is open: the table is in the -wal alone
        shutil.copyfile(source / f"other.db{suffix}", folder / f"other.db{suffix}")
    conn.close()
    before = digests(folder)
    db = str(folder / "other.db")
    for args in (("runs",), ("verify", "x"), ("replay", "x"), ("score", "x"), ("export", "x"), ("run", "--scale", "0.01")):
        assert "is not a campus database" in one_error_line(campus(*args, "--db", db, cwd=tmp_path)), args
    after = digests(folder)
    assert {name: after[name] for name in before} == before  # the file and its -wal; SQLite may add its -shm index


@pytest.mark.parametrize("sql, why", [
    ("CREATE TRIGGER evil AFTER INSERT ON events BEGIN INSERT INTO blobs VALUES (hex(randomblob(8)), 'x', x'00'); END;",
     "it has a trigger campus did not make (evil on events)"),
    ("DROP TRIGGER events_append_only_update; CREATE TRIGGER events_append_only_update BEFORE UPDATE ON events "
     "BEGIN SELECT 1; END;", "it has a trigger campus did not make (events_append_only_update on events)"),
])
def test_a_campus_file_with_a_trigger_campus_did_not_make_is_refused_untouched(runs_db: Path, tmp_path: Path, sql: str,
                                                                              why: str) -> None:
    """A trigger on campus's tables can add or rewrite rows as campus writes them (the red-team's ran 2,305 times
    during a fork) or stand in for an append-only guard: no command reads or writes such a file."""
    db = tmp_path / "runs.db"
    shutil.copyfile(runs_db, db)
    with closing(sqlite3.connect(db)) as conn:
        conn.executescript(sql)
    before = digests(tmp_path)
    for args in (("runs",), ("verify", "oracle-s0"), ("fork", "oracle-s0", "--at-step", "5"), ("run", "--seed", "1", "--scale", "0.01")):
        assert why in one_error_line(campus(*args, "--db", str(db), cwd=tmp_path)), args
    after = digests(tmp_path)
    assert {name: after[name] for name in before} == before  # SQLite's readers may add an empty -wal and its index


def test_a_file_marked_as_campus_s_with_other_tables_is_refused_before_any_write(tmp_path: Path) -> None:
    db = tmp_path / "w.db"
    with closing(sqlite3.connect(db)) as conn:
        conn.executescript(f"PRAGMA application_id={APPLICATION_ID}; CREATE TABLE branches (id, foo); CREATE TABLE precious (x);")
    before = digests(tmp_path)
    for args in (("run", "--scale", "0.01"), ("runs",), ("sweep", "--agent", "oracle", "--agent", "noop", "--seeds", "0", "--scale", "0.01")):
        line = one_error_line(campus(*args, "--db", str(db), cwd=tmp_path))
        assert "marked as a campus database but its table branches has the columns id, foo" in line, args
    assert digests(tmp_path) == before


def test_an_edited_view_is_made_again_by_a_command_that_writes(runs_db: Path, tmp_path: Path) -> None:
    """The views are for people's queries: one edited to show invented rows is left by commands that only read and
    made again by any that writes."""
    db = tmp_path / "runs.db"
    shutil.copyfile(runs_db, db)
    fake = ("DROP VIEW scores; CREATE VIEW scores (run, scenario, scored, succeeded, success_rate, avg_turns_when_solved) "
            "AS SELECT 'made-up', 'all', 1, 1, 1.0, 1.0;")
    with closing(sqlite3.connect(db)) as conn:
        conn.executescript(fake)

    def runs_scored() -> set[str]:
        with closing(sqlite3.connect(db)) as conn:
            return {run for (run,) in conn.execute("SELECT run FROM scores")}

    assert campus("verify", "oracle-s0", "--db", str(db), cwd=tmp_path).returncode == 0 and runs_scored() == {"made-up"}
    assert campus("run", "--seed", "1", "--scale", "0.01", "--db", str(db), cwd=tmp_path).returncode == 0
    assert runs_scored() == {"oracle-s0", "oracle-s1"}


def test_a_link_to_nothing_is_not_followed_to_make_a_database(tmp_path: Path) -> None:
    link = tmp_path / "runs.db"
    link.symlink_to(tmp_path / "elsewhere" / "made.db")
    line = one_error_line(campus("run", "--scale", "0.01", "--db", str(link), cwd=tmp_path))
    assert "is a symbolic link to" in line and "which does not exist" in line
    assert not (tmp_path / "elsewhere").exists() and link.is_symlink()


def test_an_empty_file_is_not_made_a_database_by_a_command_that_needs_a_run(runs_db: Path, tmp_path: Path) -> None:
    """Those that only read refused it from the first; those that write to a run (fork, probe, dynamics, lifelong, a
    resume) made it a campus database before finding no run in it."""
    empty = tmp_path / "empty.db"
    empty.touch()
    for args in (("runs",), ("verify", "oracle-s0"), ("replay", "oracle-s0"), ("score", "oracle-s0"),
                 ("export", "oracle-s0"), ("diff", "oracle-s0", "oracle-s0"),
                 ("report", "oracle-s0", "--html", str(tmp_path / "r.html")), ("fork", "oracle-s0", "--at-step", "3"),
                 ("probe", "oracle-s0"), ("dynamics", "oracle-s0"), ("lifelong", "oracle-s0"),
                 ("run", "--resume", "oracle-s0"), ("mcp", "--resume", "oracle-s0")):
        assert "is empty, not a campus database" in one_error_line(campus(*args, "--db", str(empty), cwd=tmp_path))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["empty.db"] and empty.stat().st_size == 0


def test_verify_leaves_a_tampered_file_as_it_found_it(runs_db: Path, tmp_path: Path) -> None:
    db = tampered(runs_db, tmp_path, "")
    before = hashlib.sha256(db.read_bytes()).hexdigest()
    for args in (("verify", "oracle-s0"), ("runs",), ("score", "oracle-s0")):
        assert campus(*args, "--db", str(db), cwd=tmp_path).returncode == 0, args
    assert hashlib.sha256(db.read_bytes()).hexdigest() == before
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
        triggers = {name for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'")}
    conn.close()
    assert "events_append_only_delete" not in triggers


def test_a_read_only_database_in_a_read_only_folder_is_listed_and_verified(runs_db: Path, shared: Path) -> None:
    user = unprivileged()
    folder = shared / "ro"
    folder.mkdir()
    shutil.copyfile(runs_db, folder / "runs.db")
    (folder / "runs.db").chmod(0o444)
    folder.chmod(0o555)
    db = str(folder / "runs.db")
    listed = campus("runs", "--db", db, "--json", cwd=shared, user=user)
    assert listed.returncode == 0 and '"run":"oracle-s0"' in listed.stdout, listed.stderr
    checked = campus("verify", "oracle-s0", "--db", db, cwd=shared, user=user)
    assert checked.returncode == 0 and "verified oracle-s0" in checked.stdout, checked.stderr
    line = one_error_line(campus("run", "--scale", "0.01", "--db", db, cwd=shared, user=user))
    assert "a permissions problem, not a damaged file" in line
    assert sorted(p.name for p in folder.iterdir()) == ["runs.db"]


# ---------------------------------------------------------------- 6. one line, not a traceback


def test_bad_paths_and_names_are_one_error_line(runs_db: Path, tmp_path: Path) -> None:
    db = str(runs_db)
    (tmp_path / "text.db").write_text("not a database\n")
    (tmp_path / "notes.txt").write_text("mine\n")
    (tmp_path / "junk").mkdir()
    (tmp_path / "junk" / "readme.txt").write_text("not StuLife\n")
    cases = {
        ("report", "oracle-s0", "--html", "x.html", "--db", "text.db"): "text.db is not a usable campus database",
        ("report", "oracle-s0", "--csv", "notes.txt/dir", "--db", db): "notes.txt is a file",
        ("runs", "--db", f"{LONG}.db"): "File name too long",
        ("run", "--scale", "0.01", "--db", f"{LONG}.db"): "File name too long",
        ("report", "oracle-s0", "--html", f"{LONG}.html", "--db", db): "File name too long",
        ("export", "oracle-s0", "-o", f"{LONG}.jsonl", "--db", db): "File name too long",
        ("keygen", LONG): "File name too long",
        ("import", LONG): "no file at",
        ("term", "audit", "--seeds", "0", "--scale", "0.01", "--workers", "1", "--world", "stulife:junk"):
            "map_v1.5.json does not exist",
    }
    for args, reason in cases.items():
        assert reason in one_error_line(campus(*args, cwd=tmp_path)), args
    for args in (("run", "--scale", "0.01", "--name", ""), ("fork", "oracle-s0", "--at-step", "5", "--name", " ", "--db", db)):
        named = campus(*args, cwd=tmp_path)  # an empty name was taken for none and a default one made
        assert named.returncode == 2 and "it is empty or blank" in named.stderr, args
    for name, why in (("a\x1b[31mred", "U+001B"), ("right\u202eleft", "U+202E"), ("x" * 1001, "more than 1000")):
        named = campus("run", "--scale", "0.01", "--name", name, cwd=tmp_path)  # printed raw by runs, and not importable
        assert named.returncode == 2 and why in named.stderr and "\x1b" not in named.stderr, name
    assert sorted(p.name for p in tmp_path.iterdir()) == ["junk", "notes.txt", "text.db"]


def test_a_read_only_output_folder_is_one_error_line_and_no_part_file(runs_db: Path, shared: Path) -> None:
    user = unprivileged()
    db = shared / "runs.db"
    shutil.copyfile(runs_db, db)
    db.chmod(0o444)
    out = shared / "out"
    out.mkdir()
    out.chmod(0o555)
    cases = [("report", "oracle-s0", "--db", str(db), "--html", str(out / "r.html")),
             ("report", "oracle-s0", "--db", str(db), "--csv", str(out)),
             ("report", "oracle-s0", "--db", str(db), "--csv", str(out / "tables")),
             ("export", "oracle-s0", "--db", str(db), "-o", str(out / "run.jsonl")),
             ("term", "generate", "--scale", "0.01", "-o", str(out / "term.json"))]
    for args in cases:
        assert "this user may not write in the folder" in one_error_line(campus(*args, cwd=shared, user=user)), args
    assert list(out.iterdir()) == []


def test_resume_refuses_what_a_run_keeps_of_its_own(runs_db: Path, tmp_path: Path) -> None:
    """A run continues with its own seed, agent, scale and round limit: saying otherwise with --resume was ignored."""
    before = digests(runs_db.parent)
    for option, value in (("--seed", "5"), ("--agent", "noop"), ("--scale", "0.5"), ("--rounds", "3")):
        line = one_error_line(campus("run", "--db", str(runs_db), "--resume", "oracle-s0", option, value, cwd=tmp_path))
        assert f"{option} cannot be used with --resume" in line
    assert digests(runs_db.parent) == before


def test_verbose_is_shown_as_a_counter_not_an_option_taking_a_number(tmp_path: Path) -> None:
    shown = campus("--help", cwd=tmp_path)
    line = next(line for line in shown.stdout.splitlines() if "--verbose" in line)
    assert shown.returncode == 0 and "<int>" not in line and "-vv" in shown.stdout


def test_a_tampered_log_is_neither_exported_nor_signed(runs_db: Path, tmp_path: Path) -> None:
    """Export is hash-checked: an edited payload is refused before a line is written or a key signs it."""
    db = tampered(runs_db, tmp_path, "UPDATE events SET payload = replace(payload, 'evt_24', 'evt_25') "
                                     "WHERE branch = 'oracle-s0' AND seq = 100;")
    assert campus("keygen", str(tmp_path / "k"), cwd=tmp_path).returncode == 0
    before = digests(tmp_path)
    for extra in ((), ("--sign", str(tmp_path / "k"))):
        line = one_error_line(campus("export", "oracle-s0", "--db", str(db), "-o", str(tmp_path / "out.jsonl"), *extra,
                                     cwd=tmp_path))
        assert "fails its hash check at seq 100" in line
    after = digests(tmp_path)  # SQLite's own -wal and -shm may stay beside a file read (see the README)
    assert {name: after[name] for name in before} == before and not (tmp_path / "out.jsonl").exists()
    assert campus("export", "oracle-s0", "--db", str(runs_db), "-o", str(tmp_path / "out.jsonl"), cwd=tmp_path).returncode == 0


def test_an_error_under_json_is_json_on_stdout_too(tmp_path: Path) -> None:
    """A script reading ``--json`` output gets a JSON object for an error as well (the line on stderr stays); without
    ``--json`` stdout stays empty, and a command run after one with ``--json`` in the same process does not inherit it."""
    from typer.testing import CliRunner

    from campus.cli.main import app

    missing = str(tmp_path / "missing.db")
    for args in (["verify", "r", "--db", missing, "--json"], ["term", "audit", "--seeds", "x-", "--json"],
                 ["runs", "--db", missing, "--json"]):
        done = campus(*args, cwd=tmp_path)
        assert one_error_line(done) == "error: " + json.loads(done.stdout)["error"], args
        assert json.loads(done.stdout)["exit_code"] == 2
    assert campus("verify", "r", "--db", missing, cwd=tmp_path).stdout == ""
    runner = CliRunner()
    assert json.loads(runner.invoke(app, ["verify", "r", "--db", missing, "--json"]).stdout)["exit_code"] == 2
    plain = runner.invoke(app, ["verify", "r", "--db", missing])
    assert plain.exit_code == 2 and plain.stdout == ""


def test_a_usage_error_under_json_is_json_on_stdout_too(tmp_path: Path) -> None:
    """Errors click finds before a command runs (a bad value, an unknown option or command, a missing argument) were
    only typer's box on stderr; under ``--json`` they are a JSON object on stdout too, the box stays, the exit code
    is 2; without ``--json`` stdout stays empty."""
    cases = {("run", "--seed", "abc", "--json"): "Invalid value for '--seed'",
             ("term", "audit", "--seeds", "0-1", "--bogus", "--json"): "No such option: --bogus",
             ("nosuch", "--json"): "No such command 'nosuch'",
             ("verify", "--json"): "Missing argument 'RUN'"}
    for args, said in cases.items():
        done = campus(*args, cwd=tmp_path)
        answer = json.loads(done.stdout)
        assert done.returncode == 2 and answer["exit_code"] == 2 and answer["error"].startswith(said), args
        assert "Usage: " in done.stderr and "Error" in done.stderr, args
        plain = campus(*(a for a in args if a != "--json"), cwd=tmp_path)
        assert plain.returncode == 2 and plain.stdout == "", args
    assert list(tmp_path.iterdir()) == []
