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


def test_playing_a_term_loads_no_networkx(tmp_path) -> None:
    """The walkways are the kernel's own graph (``world.graph``): networkx, ~0.1 s of a cold start, is for tests only."""
    db = tmp_path / "runs.db"
    result = subprocess.run([sys.executable, "-c", PROBE, "run", "--scale", "0.01", "--db", str(db), "--json"],
                            capture_output=True, text=True, timeout=120)
    assert json.loads(result.stdout)["run"], result.stderr
    modules = json.loads(result.stderr.strip().splitlines()[-1])
    assert {"campus.world.index", "campus.subsystems.geography", "campus.scenarios.disruptions"} <= set(modules)
    assert [m for m in modules if m.split(".")[0] == "networkx"] == []


def test_the_check_sees_a_heavy_import() -> None:
    modules = loaded_by("--help")
    assert heavy_in(modules + ["campus.kernel.runner", "networkx.algorithms"]) == ["campus.kernel.runner", "networkx.algorithms"]


def _commands(group: object, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    found: list[tuple[str, ...]] = []
    for name, command in sorted(group.commands.items()):  # type: ignore[attr-defined]
        found += _commands(command, (*prefix, name)) if hasattr(command, "commands") else [(*prefix, name)]
    return found


def test_every_commands_help_wraps_its_paragraphs_whole() -> None:
    """A docstring's paragraphs are rewrapped to the terminal: no line of a paragraph ends short but its last (typer
    kept a docstring's own line breaks, which rich then wrapped again into alternating long and short lines)."""
    import typer.main
    from typer.testing import CliRunner

    from campus.cli.main import app

    commands = _commands(typer.main.get_command(app))
    assert len(commands) > 20 and ("score",) in commands and ("term", "audit") in commands
    for command in commands:
        result = CliRunner().invoke(app, [*command, "--help"], terminal_width=80)
        assert result.exit_code == 0, result.output
        lines = result.output.split("Usage:", 1)[1].split("╭", 1)[0].splitlines()[1:]
        paragraph: list[str] = []
        for line in [*lines, ""]:
            if line.strip():
                paragraph.append(line.rstrip())
                continue
            assert all(len(text) >= 50 for text in paragraph[:-1]), (command, paragraph)
            paragraph = []


def test_reflowed_joins_a_paragraphs_lines_but_keeps_list_items_and_unwrapped_paragraphs() -> None:
    from campus.cli.common import reflowed

    text = """First line
    goes on.

    Second paragraph
    wrapped here:
    - one item
    - another
      indented

    \bkept
    as is"""
    assert reflowed(text) == "First line goes on.\n\nSecond paragraph wrapped here:\n- one item\n- another\n  indented\n\n\bkept\nas is"


def test_a_db_option_says_whether_the_command_creates_the_file(tmp_path, monkeypatch) -> None:
    """Only the commands that store new runs create a missing --db; every other one's help says it must exist, and
    such a command, given a missing file, refuses and leaves no file behind."""
    import typer.main
    from typer.testing import CliRunner

    from campus.cli.main import app

    group = typer.main.get_command(app)
    helps = {}
    for command in _commands(group):
        node = group
        for name in command:
            node = node.commands[name]  # type: ignore[attr-defined]
        helps.update({command: p.help for p in node.params if "--db" in p.opts})
    creating = {command for command, text in helps.items() if "created if missing" in text}
    assert creating == {("run",), ("import",), ("mcp",), ("sweep",)}
    assert all("must exist" in text for command, text in helps.items() if command not in creating)
    monkeypatch.chdir(tmp_path)
    for command in [("verify", "x"), ("score", "x"), ("runs",), ("export", "x"), ("fork", "x")]:
        result = CliRunner().invoke(app, [*command, "--db", "missing.db"])
        assert result.exit_code == 2 and "no database at missing.db" in result.output
    assert list(tmp_path.iterdir()) == []
