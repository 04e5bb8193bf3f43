"""Progress bars: drawn on a terminal (tasks, simulated date, rate), silent when stderr is not one."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ENV = os.environ | {"PYTHONPATH": str(ROOT), "TERM": "xterm", "COLUMNS": "160"}


def _campus_on_a_terminal(*args: str, cwd: Path) -> tuple[int, str]:
    """Run campus with stderr on a pseudo-terminal; returns the exit code and what the terminal showed."""
    leader, follower = pty.openpty()
    process = subprocess.Popen([sys.executable, "-m", "campus.cli.main", *args], cwd=cwd, env=ENV,
                               stdout=subprocess.DEVNULL, stderr=follower)
    os.close(follower)
    shown = b""
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:
            break
        if not chunk:
            break
        shown += chunk
    os.close(leader)
    return process.wait(timeout=300), shown.decode("utf-8", "replace")


@pytest.fixture(scope="module")
def played(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("progress")
    subprocess.run([sys.executable, "-m", "campus.cli.main", "run", "--agent", "diligent", "--json"], cwd=path, env=ENV,
                   check=True, capture_output=True, timeout=300)
    return path


@pytest.mark.parametrize("command,word", [(("verify", "diligent-s0"), "verifying"), (("score", "diligent-s0"), "scoring"),
                                          (("run", "--agent", "noop", "--scale", "0.5"), "playing")])
def test_a_terminal_gets_a_bar(played: Path, command: tuple[str, ...], word: str) -> None:
    code, shown = _campus_on_a_terminal(*command, cwd=played)
    assert code == 0, shown
    assert word in shown and "tasks/s" in shown and "Week " in shown
    assert "/" in shown.split(word, 1)[1]


def test_a_pipe_gets_no_bar(played: Path) -> None:
    result = subprocess.run([sys.executable, "-m", "campus.cli.main", "verify", "diligent-s0"], cwd=played, env=ENV,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0 and result.stderr == ""
    assert result.stdout.startswith("verified diligent-s0")
