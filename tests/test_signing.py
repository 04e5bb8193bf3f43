"""Signed runs: `campus keygen`, `campus export --sign`, `campus verify --signed-by`, and import of a signed file."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import msgspec
import pytest

from campus.agents import make_agent
from campus.kernel.store import MemoryStore, SQLiteStore
from campus.replays.export import ExportFormatError, export_lines, import_lines
from campus.replays.signing import check_signed, generate_key, private_key, public_key, sign, store_signature
from campus.scenarios.play import new_run
from campus.scenarios.task import Term
from campus.world.index import WorldIndex

ROOT = Path(__file__).resolve().parents[1]


def campus(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "campus.cli.main", *args], cwd=cwd, capture_output=True, text=True,
                          env=os.environ | {"PYTHONPATH": str(ROOT)}, timeout=300)


def test_sign_on_export_then_verify_with_the_right_key_and_the_wrong_one(tmp_path: Path) -> None:
    assert campus("run", "--scale", "0.02", "--db", "runs.db", "--json", cwd=tmp_path).returncode == 0
    made = campus("keygen", "mine.pem", cwd=tmp_path)
    assert made.returncode == 0 and (tmp_path / "mine.pem.pub").exists()
    assert campus("keygen", "other.pem", cwd=tmp_path).returncode == 0
    again = campus("keygen", "mine.pem", cwd=tmp_path)
    assert again.returncode == 2 and "exists" in again.stderr

    unsigned = campus("verify", "oracle-s0", "--db", "runs.db", "--signed-by", "mine.pem.pub", cwd=tmp_path)
    assert unsigned.returncode == 1 and "no signature by this key" in unsigned.stderr
    exported = campus("export", "oracle-s0", "--db", "runs.db", "--sign", "mine.pem", "-o", "run.jsonl", cwd=tmp_path)
    assert exported.returncode == 0 and "signed with mine.pem" in exported.stderr
    good = campus("verify", "oracle-s0", "--db", "runs.db", "--signed-by", "mine.pem.pub", "--json", cwd=tmp_path)
    assert good.returncode == 0 and json.loads(good.stdout)["signed"] is True
    wrong = campus("verify", "oracle-s0", "--db", "runs.db", "--signed-by", "other.pem.pub", cwd=tmp_path)
    assert wrong.returncode == 1 and "not signed" in wrong.stderr
    not_a_key = campus("verify", "oracle-s0", "--db", "runs.db", "--signed-by", "run.jsonl", cwd=tmp_path)
    assert not_a_key.returncode == 2 and len(not_a_key.stderr.strip().splitlines()) == 1

    imported = campus("import", "run.jsonl", "--db", "elsewhere.db", "--name", "copy", cwd=tmp_path)
    assert imported.returncode == 0, imported.stderr
    elsewhere = campus("verify", "copy", "--db", "elsewhere.db", "--signed-by", "mine.pem.pub", cwd=tmp_path)
    assert elsewhere.returncode == 0 and "signed by mine.pem.pub" in elsewhere.stdout


@pytest.fixture(scope="module")
def keys(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("keys") / "key.pem"
    generate_key(path)
    return path


def test_another_run_in_the_same_database_is_not_vouched_for(world: WorldIndex, small_term: Term, keys: Path) -> None:
    """A consistent forgery — another playing, every hash its own — verifies, but not as the signed run."""
    store = MemoryStore()
    signed = new_run(store, world, small_term, agent_name="oracle", seed=0, branch_id="signed")
    signed.session(make_agent("oracle", small_term, world)).run()
    store_signature(store, sign(signed, private_key(str(keys))))
    other = new_run(store, world, small_term, agent_name="oracle", seed=0, branch_id="other")
    other.session(make_agent("oracle", small_term, world)).run(max_steps=30)
    key = public_key(str(keys) + ".pub")
    assert check_signed(signed, key) is None
    problem = check_signed(other, key)
    assert problem is not None and "signed other heads" in problem


def test_a_signed_export_with_an_edited_head_or_signature_is_refused(world: WorldIndex, small_term: Term, keys: Path) -> None:
    store = MemoryStore()
    run = new_run(store, world, small_term, agent_name="oracle", seed=0, branch_id="signed")
    run.session(make_agent("oracle", small_term, world)).run()
    lines = list(export_lines(run, sign(run, private_key(str(keys)))))
    end = json.loads(lines[-1])
    assert import_lines(MemoryStore(), lines).store.blobs("signature")

    shorter = json.loads(lines[-3])  # the file cut one event short, with a true end line for it
    cut = lines[:-2] + [json.dumps({"end": {"events": shorter["seq"], "head": shorter["hash"]}, "signature": end["signature"]})]
    with pytest.raises(ExportFormatError, match="signature is over another head"):
        import_lines(MemoryStore(), cut)
    forged = dict(end["signature"], ed25519=end["signature"]["ed25519"][:-4] + "AAA=")
    with pytest.raises(ExportFormatError, match="does not verify under the key it names"):
        import_lines(MemoryStore(), lines[:-1] + [json.dumps({"end": end["end"], "signature": forged})])


class Metered:
    """The oracle, reporting made-up token usage for each reply as a model's client does (meta, outside the chain)."""

    def __init__(self, inner: Any) -> None:
        self.inner, self.name, self.replies = inner, inner.name, 0
        self.last_meta: dict[str, Any] | None = None

    def act(self, view: Any) -> Any:
        self.replies += 1
        self.last_meta = {"usage": {"prompt_tokens": 1000 + self.replies, "completion_tokens": 20}, "latency_s": 0.5}
        return self.inner.act(view)


@pytest.fixture()
def metered(world: WorldIndex, small_term: Term) -> Any:
    store = MemoryStore()
    run = new_run(store, world, small_term, agent_name="oracle", seed=0, branch_id="metered")
    run.session(Metered(make_agent("oracle", small_term, world))).run(max_steps=40)
    assert sum(row.meta is not None for row in store.rows("metered")) >= 40
    return run


def edit_meta(store: MemoryStore, branch: str) -> None:
    """A reply's token count edited in the store, as a hand edit of the file would (the chain does not cover it)."""
    rows = store._rows[branch]
    at = next(i for i, row in enumerate(rows) if row.meta is not None)
    rows[at] = rows[at]._replace(meta=rows[at].meta.replace('"prompt_tokens":1001', '"prompt_tokens":11'))
    assert '"prompt_tokens":11,' in rows[at].meta


def test_a_signature_binds_the_token_and_latency_records(metered: Any, keys: Path) -> None:
    store, key = metered.store, public_key(str(keys) + ".pub")
    signature = sign(metered, private_key(str(keys)))
    store_signature(store, signature)
    lines = list(export_lines(metered, signature))
    assert check_signed(metered, key) is None and import_lines(MemoryStore(), lines).store.blobs("signature")
    at = next(i for i, line in enumerate(lines) if '"prompt_tokens":1001' in json.loads(line).get("meta", ""))
    event = json.loads(lines[at])
    lines[at] = json.dumps(event | {"meta": event["meta"].replace('"prompt_tokens":1001', '"prompt_tokens":11')})
    with pytest.raises(ExportFormatError, match=r"signature is over other token and latency records \(meta\)"):
        import_lines(MemoryStore(), lines)
    edit_meta(store, "metered")
    problem = check_signed(metered, key)
    assert problem is not None and "the run's meta was edited after it was signed" in problem


def test_a_signature_made_before_the_meta_digest_still_vouches_for_the_head(metered: Any, keys: Path) -> None:
    """An older signature's statement has no ``meta``: it vouches for the head, whatever the meta says."""
    import base64

    from campus.events import canonical

    now = sign(metered, private_key(str(keys)))
    said = {k: v for k, v in now.statement.items() if k != "meta"}
    older = msgspec.structs.replace(now, statement=said, ed25519=base64.b64encode(private_key(str(keys)).sign(canonical(said))).decode())
    store_signature(metered.store, older)
    edit_meta(metered.store, "metered")
    assert check_signed(metered, public_key(str(keys) + ".pub")) is None


def test_a_sqlite_store_lists_blobs_by_kind(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "runs.db")
    store.put_blob("signature", "a" * 64, b"one")
    store.put_blob("world", "b" * 64, b"two")
    store.put_blob("signature", "c" * 64, b"three")
    assert store.blobs("signature") == [b"one", b"three"]
    store.close()
