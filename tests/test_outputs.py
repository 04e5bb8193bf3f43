"""Files campus writes for people: new files or its own, never someone else's, and never half-written."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from campus.cli.main import app
from campus.kernel.outputs import OutputError, output, write_output
from campus.kernel.store import SQLiteStore
from tests.conftest import oracle_db

PRECIOUS = "someone's notes\n"


def ours(head: bytes) -> bool:
    return head.startswith(b"OURS")


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".part"))


def test_a_new_file_is_written_whole_with_the_usual_permissions(tmp_path: Path) -> None:
    target = tmp_path / "new.txt"
    with output(target, ours, "ours") as handle:
        handle.write("OURS one\n")
    mask = os.umask(0)
    os.umask(mask)
    assert target.read_text() == "OURS one\n" and target.stat().st_mode & 0o777 == 0o666 & ~mask
    write_output(target, b"OURS two", ours, "ours")  # ours: replaced
    assert target.read_bytes() == b"OURS two" and _leftovers(tmp_path) == []


def test_someone_elses_file_a_folder_a_missing_folder_and_links_are_refused_untouched(tmp_path: Path) -> None:
    theirs = tmp_path / "theirs.txt"
    theirs.write_text(PRECIOUS)
    (tmp_path / "folder").mkdir()
    (tmp_path / "to-theirs").symlink_to(theirs)
    (tmp_path / "dangling").symlink_to(tmp_path / "nowhere")
    refusals = {"theirs.txt": "exists and is not ours", "folder": "is a directory", "missing/x.txt": "does not exist",
                "to-theirs": "exists and is not ours", "dangling": "exists and is not ours"}
    for name, reason in refusals.items():
        with pytest.raises(OutputError, match=reason):
            write_output(tmp_path / name, b"OURS", ours, "ours")
    assert theirs.read_text() == PRECIOUS and not (tmp_path / "nowhere").exists() and _leftovers(tmp_path) == []


def test_a_failure_part_way_leaves_no_file_or_the_old_one_whole(tmp_path: Path) -> None:
    fresh, old = tmp_path / "fresh.txt", tmp_path / "old.txt"
    old.write_text("OURS before\n")
    for target in (fresh, old):
        with pytest.raises(RuntimeError):
            with output(target, ours, "ours") as handle:
                handle.write("OURS half")
                raise RuntimeError("the writer failed")
    assert not fresh.exists() and old.read_text() == "OURS before\n" and _leftovers(tmp_path) == []


@pytest.fixture(scope="module")
def runs_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return oracle_db(tmp_path_factory.mktemp("outputs") / "runs.db", 0.02)


def _signatures(db: Path) -> int:
    store = SQLiteStore(db)
    try:
        return int(store.conn.execute("SELECT count(*) FROM blobs WHERE kind = 'signature'").fetchone()[0])
    finally:
        store.close()


def _campus(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.output


def test_the_commands_write_only_new_files_or_their_own(runs_db: Path, tmp_path: Path) -> None:
    theirs = tmp_path / "theirs.txt"
    theirs.write_text(PRECIOUS)
    db = str(runs_db)
    keys = tmp_path / "key.pem"
    assert _campus("keygen", str(keys))[0] == 0
    signatures = _signatures(runs_db)
    refused = [
        ("export", "oracle-s0", "--db", db, "--sign", str(keys), "-o", str(theirs)),
        ("term", "generate", "--scale", "0.02", "-o", str(theirs)),
        ("report", "oracle-s0", "--db", db, "--html", str(theirs)),
        ("report", "oracle-s0", "--db", db, "--html", str(tmp_path / "r.html"), "--csv", str(tmp_path / "tables")),
    ]
    (tmp_path / "tables").mkdir()
    (tmp_path / "tables" / "tool_calls.csv").write_text(PRECIOUS)
    for args in refused:
        code, text = _campus(*args)
        assert code == 2 and "campus writes only new files or its own" in text, (args, text)
    assert theirs.read_text() == PRECIOUS and (tmp_path / "tables" / "tool_calls.csv").read_text() == PRECIOUS
    assert not (tmp_path / "r.html").exists() and not (tmp_path / "tables" / "tasks.csv").exists()
    assert _signatures(runs_db) == signatures  # a refused export signs nothing
    (tmp_path / "other.pem.pub").write_text(PRECIOUS)
    code, text = _campus("keygen", str(tmp_path / "other.pem"))
    assert code == 2 and "never overwritten" in text and not (tmp_path / "other.pem").exists()

    written = [("export", "oracle-s0", "--db", db, "-o", str(tmp_path / "run.jsonl")),
               ("term", "generate", "--scale", "0.02", "-o", str(tmp_path / "term.json")),
               ("report", "oracle-s0", "--db", db, "--html", str(tmp_path / "r.html"), "--csv", str(tmp_path / "fresh"))]
    for args in written + written:  # the second time over the files the first wrote
        code, text = _campus(*args)
        assert code == 0, (args, text)
    assert sorted(p.name for p in (tmp_path / "fresh").iterdir()) == ["tasks.csv", "tool_calls.csv"]
    assert _leftovers(tmp_path) == [] and (tmp_path / "run.jsonl").read_bytes().startswith(b'{"format":"campus-log/')


def test_a_refused_import_leaves_no_new_database_and_an_old_one_as_it_was(runs_db: Path, tmp_path: Path) -> None:
    garbage = tmp_path / "garbage.jsonl"
    garbage.write_text("not an export\n")
    exported = tmp_path / "run.jsonl"
    assert _campus("export", "oracle-s0", "--db", str(runs_db), "-o", str(exported))[0] == 0
    cut = tmp_path / "cut.jsonl"
    cut.write_bytes(exported.read_bytes()[: exported.stat().st_size // 2])
    for bad in (garbage, cut, tmp_path):
        code, text = _campus("import", str(bad), "--db", str(tmp_path / "new.db"))
        assert code == 2 and text.startswith("error:"), text
        assert not list(tmp_path.glob("new.db*"))
    before = runs_db.read_bytes()
    assert _campus("import", str(cut), "--db", str(runs_db))[0] == 2
    assert runs_db.read_bytes() == before  # a database that was there stays, with its runs
    assert _campus("import", str(exported), "--db", str(tmp_path / "new.db"), "--name", "copy")[0] == 0


def test_a_run_refused_before_it_starts_leaves_no_new_database(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    for agent in ("nobody", "llm:openai/some-model"):  # an unknown agent; a model with no API key
        code, text = _campus("run", "--agent", agent, "--scale", "0.01", "--db", str(tmp_path / "new.db"))
        assert code == 2 and text.startswith("error:"), text
    code, text = _campus("run", "--resume", "nope", "--db", str(tmp_path / "new.db"))  # fails before any file is made
    assert code == 2 and "no database at" in text
    assert list(tmp_path.iterdir()) == []
    assert _campus("run", "--agent", "noop", "--scale", "0.01", "--db", str(tmp_path / "new.db"), "--json")[0] == 0
    assert (tmp_path / "new.db").exists()
