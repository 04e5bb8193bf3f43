"""What a command loads before it does anything: ``--help`` must not pull in the kernel or the heavy libraries.

Start-up time is measured by ``campus bench startup``; here only the set of imported modules is checked,
which does not depend on the machine.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

HEAVY = ("simpy", "networkx", "scipy", "numpy", "openai", "ray", "inspect_ai", "structlog", "cryptography", "gymnasium",
         "mcp", "campus.kernel.store", "campus.kernel.runner", "campus.subsystems", "campus.scenarios.task",
         "campus.scenarios.play", "campus.world", "campus.replays", "campus.reports", "campus.lab", "campus.env",
         "campus.agents.registry", "campus.agents.llm")
"""Modules (and their submodules) that no command's help needs."""

PROBE = """
import json, sys
from campus.cli.main import app
try:
    app(sys.argv[1:], prog_name="campus")
except SystemExit:
    pass
print(json.dumps(sorted(sys.modules)), file=sys.stderr)
"""


def loaded_by(*args: str) -> list[str]:
    result = subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True, text=True, timeout=60)
    assert "Usage" in result.stdout, result.stdout + result.stderr
    return json.loads(result.stderr.strip().splitlines()[-1])


def heavy_in(modules: list[str], allowed: tuple[str, ...] = ()) -> list[str]:
    return [m for m in modules if any(m == h or m.startswith(h + ".") for h in HEAVY if h not in allowed)]


def test_help_loads_nothing_heavy() -> None:
    modules = loaded_by("--help")
    assert "typer" in modules
    assert heavy_in(modules) == []


@pytest.mark.parametrize("args", [("run", "--help"), ("bench", "--help")])
def test_a_commands_help_loads_only_the_operator_logs(args: tuple[str, ...]) -> None:
    """The group's callback configures the operator logs (structlog) before a command reads its own options."""
    modules = loaded_by(*args)
    assert "structlog" in modules
    assert heavy_in(modules, allowed=("structlog",)) == []


def test_the_check_sees_a_heavy_import() -> None:
    modules = loaded_by("--help")
    assert heavy_in(modules + ["campus.kernel.runner", "networkx.algorithms"]) == ["campus.kernel.runner", "networkx.algorithms"]
