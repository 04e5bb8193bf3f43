"""Files campus writes for people (an export, a term, a report, CSV tables): never over a file it did not write.

A path is written if nothing is there or if what is there starts the way campus's own file of that kind starts (an
earlier export, report, ...); anything else (a directory, someone's file, a dangling link) is refused with
``OutputError`` before a byte is written. The new content goes to a temporary file beside the path and is moved into
place only once whole, so a failure part way leaves no half-written file and any earlier one as it was.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

HEAD_BYTES = 4096
"""How much of an existing file ``ours`` is shown."""


class OutputError(Exception):
    """A path campus will not write to."""


def check_output(path: str | Path, ours: Callable[[bytes], bool], what: str) -> Path:
    """``path`` as a ``Path`` if campus may write there, else ``OutputError`` saying why."""
    target = Path(path)
    try:
        if target.is_dir():
            raise OutputError(f"{target} is a directory; give a file name")
        if not target.parent.is_dir():
            raise OutputError(f"the folder {target.parent} does not exist")
        if not os.access(target.parent, os.W_OK | os.X_OK):
            raise OutputError(f"cannot write {target}: this user may not write in the folder {target.parent}")
        if target.exists() or target.is_symlink():
            if not target.is_file() or not _head_is_ours(target, ours):
                raise OutputError(f"{target} exists and is not {what}; campus writes only new files or its own: "
                                  "remove it or choose another name")
    except OSError as error:  # a name too long, a path through a file, ...
        raise _unwritable(target, error) from None
    return target


@contextmanager
def output(path: str | Path, ours: Callable[[bytes], bool], what: str) -> Iterator[IO[str]]:
    """A handle to write ``path``'s new content as UTF-8 text, put in place when the block ends without error.

    ``ours`` tells from an existing file's first ``HEAD_BYTES`` whether campus wrote it (what may be replaced); ``what``
    names such a file in the refusal."""
    with _replacing(path, ours, what) as temporary, open(temporary, "w", encoding="utf-8", newline="") as handle:
        yield handle


def write_output(path: str | Path, data: bytes, ours: Callable[[bytes], bool], what: str) -> None:
    """``output`` for bytes already made."""
    with _replacing(path, ours, what) as temporary:
        Path(temporary).write_bytes(data)


@contextmanager
def _replacing(path: str | Path, ours: Callable[[bytes], bool], what: str) -> Iterator[str]:
    """``OSError`` in making, writing or moving the new content (a folder made read-only since the check, a full
    disk) is an ``OutputError``: the block writes nothing else."""
    target = check_output(path, ours, what)
    temporary = str(target.with_name(f".{target.name}.{os.urandom(6).hex()}.part"))
    try:
        os.close(os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))  # the umask applies, as to any new file
    except OSError as error:
        raise _unwritable(target, error) from None
    try:
        yield temporary
        os.replace(temporary, target)
    except OSError as error:
        Path(temporary).unlink(missing_ok=True)
        raise _unwritable(target, error) from None
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def _unwritable(target: Path, error: OSError) -> OutputError:
    return OutputError(f"cannot write {target}: {error.strerror or error}")


def _head_is_ours(path: Path, ours: Callable[[bytes], bool]) -> bool:
    try:
        with path.open("rb") as handle:
            return ours(handle.read(HEAD_BYTES))
    except OSError:
        return False
