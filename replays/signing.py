"""Signed runs: who vouches for a run's head, with an Ed25519 key.

Verify proves a log is a consistent playing of its term; it cannot prove who produced it (a
consistent forgery of the replies is another valid run). A signature closes that gap: the
producer signs a *statement* — the run's head (its length and final hash) with the branch's
genesis, agent, world, term, seed and rules, and a digest of its events' meta — and anyone holding
the public key checks that a stored run ends in exactly that head. The head hash chains every event
and the genesis binds the inputs and the agent, so a run that verifies and ends in a signed head is
the signed run. An event's meta (a model's token usage and latency) is outside the chain, as what
the wall clock measured cannot be replayed; the statement's ``meta`` digest binds it, so an edit of a
signed run's tokens or latency is caught too (a signature made before the digest vouches for the
head alone).

Keys are PEM files, as ``campus keygen`` writes them or as OpenSSL does
(``openssl genpkey -algorithm ed25519 -out key.pem``; ``openssl pkey -in key.pem -pubout -out key.pub``).
A signature is stored as a blob of kind ``signature`` (its content hash is its name), and
travels in an export's end line.
"""

from __future__ import annotations

import base64
import hashlib
import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from campus.events import canonical
from campus.kernel.store import EventStore
from campus.scenarios.play import Run

if TYPE_CHECKING:  # the library is imported when a key is used, so commands that sign nothing start as fast as before
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

FORMAT = "campus-signature/1"
KIND = "signature"


class SigningError(ValueError):
    """A key or signature that cannot be used; one line, nothing changed."""


class Signature(msgspec.Struct, frozen=True, kw_only=True):
    statement: dict[str, Any]
    ed25519: str
    """The signature over ``canonical(statement)``, base64."""
    key: str
    """The signer's raw public key, base64 (which key signed, for reports; trust comes from ``--signed-by``)."""


def statement(run: Run) -> dict[str, Any]:
    info = run.branch
    events, head = run.store.head(info.id)
    return {"format": FORMAT, "run": info.id, "events": events, "head": head, "genesis": info.genesis,
            "agent": info.agent, "world_hash": info.world_hash, "term_hash": info.term_hash, "seed": info.seed,
            "rules": info.config, "meta": meta_digest(_stored_meta(run, events))}


def meta_digest(metas: Iterable[tuple[int, str | None]]) -> str:
    """sha256 over ``(seq, meta)`` of each event that has meta, in seq order."""
    digest = hashlib.sha256()
    for seq, meta in metas:
        if meta is not None:
            digest.update(canonical([seq, meta]) + b"\n")
    return digest.hexdigest()


def _stored_meta(run: Run, events: int, batch: int = 50_000) -> Iterator[tuple[int, str | None]]:
    """The run's ``(seq, meta)``, read ``batch`` rows at a time (a long run is never held whole)."""
    for start in range(1, events + 1, batch):
        for row in run.store.rows(run.branch.id, start, min(events, start + batch - 1)):
            yield row.seq, row.meta


def generate_key(path: Path) -> Path:
    """A new private key at ``path`` (PEM, PKCS 8) and its public key beside it (``PATH.pub``); the public key's path."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    if not path.name:
        raise SigningError(f"{str(path)!r} names no file: give the file to write the private key to")
    public = path.with_name(path.name + ".pub")
    for taken in (path, public):
        if taken.exists() or taken.is_symlink():
            raise SigningError(f"{taken} exists: choose another file (a key is never overwritten)")
    key = Ed25519PrivateKey.generate()
    _create(path, key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                    serialization.NoEncryption()), 0o600)
    _create(public, key.public_key().public_bytes(serialization.Encoding.PEM,
                                                  serialization.PublicFormat.SubjectPublicKeyInfo), 0o644)
    return public


def _create(path: Path, data: bytes, mode: int) -> None:
    """A new file only (another made in between is refused, not replaced), with ``mode`` from its first byte on
    (a private key is never readable by others, even for a moment)."""
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    except FileExistsError:
        raise SigningError(f"{path} exists: choose another file (a key is never overwritten)") from None
    with os.fdopen(descriptor, "wb") as handle:
        handle.write(data)


def private_key(path: str) -> Ed25519PrivateKey:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    what = "an unencrypted Ed25519 private key"
    data = _key_bytes(path, what)
    try:
        key = serialization.load_pem_private_key(data, password=None)
    except (ValueError, TypeError) as error:
        raise SigningError(f"cannot read {what} from {path}: {error}") from None
    if not isinstance(key, Ed25519PrivateKey):
        raise SigningError(f"{path} holds a {type(key).__name__}, not an Ed25519 private key")
    return key


def public_key(path: str) -> Ed25519PublicKey:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    what = "an Ed25519 public key"
    data = _key_bytes(path, what)
    try:
        key = serialization.load_pem_public_key(data)
    except ValueError as error:
        raise SigningError(f"cannot read {what} from {path}: {error}") from None
    if not isinstance(key, Ed25519PublicKey):
        raise SigningError(f"{path} holds a {type(key).__name__}, not an Ed25519 public key")
    return key


def _key_bytes(path: str, what: str) -> bytes:
    """An empty path is refused by name (as a ``Path`` it is the current directory)."""
    if not path:
        raise SigningError(f"the path of {what} is empty: give its PEM file")
    try:
        return Path(path).read_bytes()
    except OSError as error:
        raise SigningError(f"cannot read {what} from {path}: {error}") from None


def sign(run: Run, key: Ed25519PrivateKey) -> Signature:
    from cryptography.hazmat.primitives import serialization

    said = statement(run)
    raw = key.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return Signature(statement=said, ed25519=base64.b64encode(key.sign(canonical(said))).decode(),
                     key=base64.b64encode(raw).decode())


def store_signature(store: EventStore, signature: Signature) -> None:
    data = canonical(signature)
    store.put_blob(KIND, hashlib.sha256(data).hexdigest(), data)


def valid(signature: Signature, key: Ed25519PublicKey) -> bool:
    from cryptography.exceptions import InvalidSignature

    try:
        key.verify(base64.b64decode(signature.ed25519, validate=True), canonical(signature.statement))
    except (InvalidSignature, ValueError):
        return False
    return True


def self_signed(signature: Signature) -> bool:
    """Whether the signature verifies under the key it names (an intact signature, by whoever)."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    try:
        key = Ed25519PublicKey.from_public_bytes(base64.b64decode(signature.key, validate=True))
    except ValueError:
        return False
    return valid(signature, key)


def check_signed(run: Run, key: Ed25519PublicKey) -> str | None:
    """None if a stored signature by ``key`` vouches for exactly this run's head and inputs; else why not."""
    said = statement(run)
    mine = [s for s in map(_decoded, run.store.blobs(KIND)) if s is not None and valid(s, key)]
    if not mine:
        return f"no signature by this key is stored for any run (sign with 'campus export {run.branch.id} --sign KEY')"
    if any(_covers(s.statement, said) for s in mine):
        return None
    if any(_covers({k: v for k, v in s.statement.items() if k != "meta"}, said) for s in mine):
        return ("the key signed this head with other token and latency records (meta): the run's meta was edited "
                "after it was signed")
    heads = ", ".join(f"{s.statement.get('events')} events ending in {str(s.statement.get('head'))[:12]}" for s in mine)
    return (f"the key signed other heads ({heads}), not this run's {said['events']} events ending in "
            f"{said['head'][:12]} with its genesis and agent")


def _covers(signed: dict[str, Any], said: dict[str, Any]) -> bool:
    """Whether a signed statement is this one's (whatever run name it had); one made before the meta digest
    vouches for the rest of it."""
    ignored = {"run"} if "meta" in signed else {"run", "meta"}
    return {k: v for k, v in signed.items() if k != "run"} == {k: v for k, v in said.items() if k not in ignored}


def _decoded(data: bytes) -> Signature | None:
    try:
        return msgspec.json.decode(data, type=Signature)
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
        return None
