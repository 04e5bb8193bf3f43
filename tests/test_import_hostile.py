"""A hostile export: numbers past what the database holds, a header its run contradicts, an edit with the hash chain
recomputed, a name no run can have, two imports at once and one endless line. Each is refused with one line (exit 2)
and changes nothing, or ends as the same import made alone would."""

from __future__ import annotations

import io
import json
import re
import shutil
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

from campus.events import canonical, chain_hash, genesis_hash
from campus.kernel.store import BranchInfo, EventStore, MemoryStore, Record, SQLiteStore
from campus.replays import export
from campus.replays.export import ExportFormatError, export_lines, import_lines
from campus.replays.verify import verify
from campus.scenarios.play import MAX_RUN_NAME, open_run
from campus.scenarios.task import Term
from campus.world.index import WorldIndex
from tests.conftest import oracle_db, play
from tests.test_robustness import ENV, campus, digests, one_error_line

def start(*args: str, cwd: Path) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "campus.cli.main", *args], cwd=cwd, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=ENV)


@pytest.fixture(scope="module")
def source(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The oracle's run of a small term (oracle-s0), in a closed file: the run the exports are of."""
    return oracle_db(tmp_path_factory.mktemp("source") / "runs.db", 0.02)


@pytest.fixture(scope="module")
def exported(source: Path) -> list[str]:
    store = SQLiteStore(source)
    try:
        return list(export_lines(open_run(store, "oracle-s0")))
    finally:
        store.close()


@pytest.fixture(scope="module")
def elsewhere(tmp_path_factory: pytest.TempPathFactory, world: WorldIndex, terms: Callable[..., Term]) -> Path:
    """A database holding another run (of another term), in a closed file."""
    path = tmp_path_factory.mktemp("elsewhere") / "runs.db"
    store = SQLiteStore(path)
    play(store, world, terms(1, scale=0.02), "noop")
    store.close()
    return path


@pytest.fixture
def target(tmp_path: Path, elsewhere: Path) -> Path:
    """A copy of ``elsewhere``, alone in its folder, to import into."""
    folder = tmp_path / "target"
    folder.mkdir()
    shutil.copy(elsewhere, folder / "runs.db")
    return folder / "runs.db"


def rechained(lines: list[str], edit: Callable[[dict[str, Any], list[dict[str, Any]]], None]) -> list[str]:
    """``lines`` with ``edit`` made to the header and the events, and every hash after it made again: a forgery
    the hash chain alone cannot tell (the run's rules do not bind an agent change here: it has none)."""
    header, *events, end = map(json.loads, lines)
    edit(header, events)
    branch = header["branch"]
    branch["genesis"] = prev = genesis_hash(branch["world_hash"], branch["term_hash"], branch["seed"], branch["config"],
                                            branch["agent"])
    for seq, event in enumerate(events, start=1):
        event["seq"] = seq
        event["hash"] = prev = chain_hash(prev, event["t"], canonical(event["event"]))
    end["end"] = {"events": len(events), "head": prev}
    return [json.dumps(line) for line in (header, *events, end)]


def last_event(change: Callable[[dict[str, Any]], None]) -> Callable[[dict[str, Any], list[dict[str, Any]]], None]:
    return lambda header, events: change(events[-1])


def write(lines: list[str], path: Path) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def assert_nothing_written(store: EventStore) -> None:
    assert store.branches() == [] and store.blobs("world") == [] and store.blobs("term") == []


# ---------------------------------------------------------------- numbers past a SQLite integer


def set_schema(value: int) -> Callable[[dict[str, Any], list[dict[str, Any]]], None]:
    return lambda header, events: header["branch"].update(schema=value)


@pytest.mark.parametrize("edit, message", [
    (set_schema(2**70), r"line 1: the run's schema is 1180591620717411303424; this campus reads schemas 1 to 2$"),
    (lambda header, events: header["branch"].update(seed=2**64),
     r"line 1: the run's seed 18446744073709551616 is outside 0\.\.9223372036854775807$"),
    (last_event(lambda event: event.update(t=2**70)),
     r"line \d+ \(seq \d+\): its time 1180591620717411303424 is outside 0\.\.9223372036854775807$"),
    (last_event(lambda event: event.update(t=-1)), r"line \d+ \(seq \d+\): its time -1 is outside 0\.\."),
])
def test_a_number_no_database_column_holds_is_refused_and_the_database_is_unchanged(
        exported: list[str], target: Path, edit: Callable, message: str) -> None:
    """The world and term were written, then the branch's insert raised OverflowError (a traceback, exit 1)."""
    before = digests(target.parent)
    path = write(rechained(exported, edit), target.parent.parent / "forged.jsonl")
    line = one_error_line(campus("import", str(path), "--db", str(target), cwd=target.parent.parent))
    assert re.search(message, line), line
    assert digests(target.parent) == before


# ---------------------------------------------------------------- what verify rejects, import refuses


@pytest.mark.parametrize("schema", [99, 3, 0, -1])
def test_a_schema_this_campus_does_not_know_is_refused(exported: list[str], schema: int) -> None:
    store = MemoryStore()
    with pytest.raises(ExportFormatError, match=f"line 1: the run's schema is {schema}; this campus reads schemas 1 to 2"):
        import_lines(store, rechained(exported, set_schema(schema)))
    assert_nothing_written(store)


@pytest.mark.parametrize("edit, seq, expected", [
    (set_schema(1), 1, "run_started with the branch's world, term, seed, rules and schema"),
    (last_event(lambda event: event.update(t=0)), None, "a time of at least"),
    (last_event(lambda event: event["event"].update(reason="forged")), None, "run_ended for the reason 'term complete'"),
    (lambda header, events: events.append(json.loads(json.dumps(events[-1]))), None, "nothing after run_ended"),
])
def test_an_edit_with_its_hash_chain_recomputed_is_refused_with_verifys_mismatch(
        exported: list[str], edit: Callable, seq: int | None, expected: str) -> None:
    """Each imported with exit 0, and 'campus verify' then failed on it (``seq`` None: at the forged file's last event)."""
    forged = rechained(exported, edit)
    at = seq or len(forged) - 2
    store = MemoryStore()
    with pytest.raises(ExportFormatError) as refused:
        import_lines(store, forged)
    assert str(refused.value).startswith(f"the run does not verify: mismatch at seq {at} (sequence); expected ")
    assert expected in str(refused.value) and str(refused.value).endswith("; nothing was imported")
    assert_nothing_written(store)


def test_the_command_refuses_a_contradicted_schema_and_leaves_the_database_unchanged(exported: list[str],
                                                                                       target: Path) -> None:
    before = digests(target.parent)
    path = write(rechained(exported, set_schema(1)), target.parent.parent / "schema1.jsonl")
    line = one_error_line(campus("import", str(path), "--db", str(target), cwd=target.parent.parent))
    assert "the run does not verify: mismatch at seq 1 (sequence)" in line
    assert digests(target.parent) == before


def test_a_file_that_differs_from_a_held_run_only_in_its_schema_is_not_taken_for_it(exported: list[str]) -> None:
    """The genesis does not bind the schema: the file was taken for the stored run and "nothing was imported"."""
    store = MemoryStore()
    import_lines(store, exported)
    with pytest.raises(ExportFormatError, match=r"the run does not verify: mismatch at seq 1 \(sequence\)"):
        import_lines(store, rechained(exported, set_schema(1)))
    assert store.branch_ids() == ["oracle-s0"]


def test_an_honest_export_still_imports_and_verifies(exported: list[str], tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "runs.db")
    imported = export.import_export(store, exported)
    assert imported.stored and imported.run.branch.id == "oracle-s0" and verify(imported.run).ok
    assert export.import_export(store, exported).stored is False  # held already: nothing is written again
    store.close()


# ---------------------------------------------------------------- names


BAD_NAMES = ["", "   ", "a\nb", "a\x1b[31mRED\x1b[0m", "a\x00b", "a\u202eb", "x" * 100_000]


@pytest.mark.parametrize("name", BAD_NAMES, ids=["empty", "blank", "newline", "ansi", "nul", "bidi", "long"])
def test_a_run_name_no_run_can_have_is_refused_from_the_file(exported: list[str], name: str) -> None:
    forged = rechained(exported, lambda header, events: header["branch"].update(id=name))
    for given in (None, "fine"):  # named anew, the file's name would still be the run's label
        store = MemoryStore()
        with pytest.raises(ExportFormatError, match="line 1: the run's name .* cannot name a run: it "):
            import_lines(store, forged, branch_id=given)
        assert_nothing_written(store)


def test_the_command_refuses_a_bad_name_in_the_file_or_given_and_prints_it_escaped(exported: list[str],
                                                                                    target: Path) -> None:
    before = digests(target.parent)
    folder = target.parent.parent
    path = write(rechained(exported, lambda header, events: header["branch"].update(id="a\nb\x1b[31mRED")), folder / "ansi.jsonl")
    line = one_error_line(campus("import", str(path), "--db", str(target), cwd=folder))
    assert "\x1b" not in line and r"'a\nb\x1b[31mRED'" in line and "U+000A" in line
    for name in ("a\x1b[31mRED", "a\u202eb", "x" * (MAX_RUN_NAME + 1)):
        refused = campus("import", str(write(exported, folder / "run.jsonl")), "--db", str(target), "--name", name, cwd=folder)
        assert refused.returncode == 2 and "Invalid value for '--name'" in refused.stderr, refused.stderr
        assert "Traceback" not in refused.stderr and "\x1b" not in refused.stderr and "\u202e" not in refused.stderr
    assert digests(target.parent) == before


# ---------------------------------------------------------------- two imports at once


class _Racing(SQLiteStore):
    """A store into which another process's import (``rival``: the lines and the name to give) is made just before
    this one first writes a branch."""

    rival: tuple[list[str], str | None] = ([], None)

    def create_branch(self, info: BranchInfo, records: Sequence[Record] = ()) -> BranchInfo:
        if self.rival[0]:
            other = SQLiteStore(self.path)
            try:
                import_lines(other, self.rival[0], branch_id=self.rival[1])
            finally:
                other.close()
            self.rival = ([], None)
        return super().create_branch(info, records)


def test_an_import_that_loses_the_race_to_the_same_run_ends_as_the_second_import_does(exported: list[str],
                                                                                      tmp_path: Path) -> None:
    """It failed with "a branch named 'oracle-s0' already exists"."""
    store = _Racing(tmp_path / "runs.db")
    store.rival = (exported, None)
    run = import_lines(store, exported)
    assert run.branch.id == "oracle-s0" and store.branch_ids() == ["oracle-s0"]
    store.close()


def test_an_import_that_loses_its_name_to_another_run_takes_the_next_free_one(exported: list[str], elsewhere: Path,
                                                                              tmp_path: Path) -> None:
    source = SQLiteStore(elsewhere)
    other = list(export_lines(open_run(source, "noop-s0")))
    source.close()
    store = _Racing(tmp_path / "runs.db")
    store.rival = (other, "oracle-s0")
    run = import_lines(store, exported)
    assert run.branch.id == "oracle-s0-2" and store.branch_ids() == ["oracle-s0", "oracle-s0-2"]
    assert [b.agent for b in store.branches()] == ["noop", "oracle"] and verify(run).ok
    store.close()


def test_concurrent_imports_of_one_file_store_the_run_once(exported: list[str], tmp_path: Path) -> None:
    path = write(exported, tmp_path / "run.jsonl")
    SQLiteStore(tmp_path / "runs.db").close()
    racers = [start("import", str(path), "--db", str(tmp_path / "runs.db"), "--json", cwd=tmp_path) for _ in range(3)]
    results = [(*racer.communicate(timeout=300), racer.returncode) for racer in racers]
    assert [code for _, _, code in results] == [0, 0, 0], results
    assert sorted(json.loads(stdout)["imported"] for stdout, _, _ in results) == [False, False, True]
    store = SQLiteStore(tmp_path / "runs.db")
    assert store.branch_ids() == ["oracle-s0"] and verify(open_run(store, "oracle-s0")).ok
    store.close()


# ---------------------------------------------------------------- an endless line


class _Endless(io.TextIOBase):
    """A text file of one line that never ends: what it has served is counted."""

    served = 0

    def readable(self) -> bool:
        return True

    def readline(self, size: int | None = -1) -> str:
        if size is None or size < 0:
            raise AssertionError("asked for the whole of an endless line")
        self.served += size
        return "x" * size


def test_an_endless_line_is_refused_without_being_read_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(export, "MAX_LINE", 10_000)
    endless = _Endless()
    with pytest.raises(ExportFormatError, match="line 1 is longer than 10,000 characters"):
        import_lines(MemoryStore(), export.read_lines(endless))
    assert endless.served == 10_001


def test_the_bound_admits_the_default_terms_header_many_times_over(world: WorldIndex, term: Term) -> None:
    """An export's longest line is its header, the world and the term: 7.2 million characters for the default term
    (17.3 million for the published StuLife world)."""
    assert 8 * (len(world.world.encoded) + len(term.encoded)) < export.MAX_LINE


def test_a_line_past_the_bound_is_refused_by_the_command(target: Path) -> None:
    folder = target.parent.parent
    path = folder / "long.jsonl"
    with path.open("wb") as handle:  # a sparse file: MAX_LINE + 1 NUL characters, then a line break
        handle.truncate(export.MAX_LINE + 1)
        handle.seek(export.MAX_LINE + 1)
        handle.write(b"\n")
    before = digests(target.parent)
    line = one_error_line(campus("import", str(path), "--db", str(target), cwd=folder))
    assert f"line 1 is longer than {export.MAX_LINE:,} characters" in line
    assert digests(target.parent) == before



def test_a_fork_that_changed_agent_and_played_nothing_yet_imports_whole(source: Path, tmp_path: Path) -> None:
    """Its part after the change holds no events: the import made only ``RUN~1`` and reported the run imported."""
    shutil.copyfile(source, tmp_path / "with-fork.db")
    store = SQLiteStore(tmp_path / "with-fork.db")
    head = store.head("oracle-s0")[0]
    store.fork("oracle-s0", head, "handed-over", agent="noop")
    lines = list(export_lines(open_run(store, "handed-over")))
    store.close()
    target = SQLiteStore(tmp_path / "target.db")
    run = import_lines(target, lines)
    assert run.branch.id == "handed-over" and run.branch.agent == "noop" and target.head("handed-over")[0] == head
    assert sorted(target.branch_ids()) == ["handed-over", "handed-over~1"] and verify(open_run(target, "handed-over")).ok
    target.close()
