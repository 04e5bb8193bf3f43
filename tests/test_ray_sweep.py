"""`campus sweep --ray`: the same plan as Ray tasks on a local Ray (2 CPUs), merged into the database hash-checked,
with the final hashes of the local sweep; a run an earlier sweep left unfinished is continued."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
import ray
from typer.testing import CliRunner

from campus.cli.main import app
from tests.chat_server import Answer, ChatServer, text

SCALE = "0.03"
REPLIES = ("<action>Action: finish()</action>", "<action>Answer: A</action>", "<action>Answer: B</action>")


def campus(*args: str):
    result = CliRunner().invoke(app, list(args), env={"COLUMNS": "200", "OPENAI_API_KEY": None, "OPENAI_BASE_URL": None})
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert result.exit_code == 0, result.output
    return result


def pure_model(request: dict) -> Answer:
    """A model whose reply is a function of the chat alone, so any process plays a run alike."""
    digest = hashlib.sha256(json.dumps(request["messages"], sort_keys=True).encode()).digest()
    return text(REPLIES[digest[0] % len(REPLIES)])


@pytest.fixture(scope="module")
def local_ray():
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


def hashes(report: dict) -> dict[str, str]:
    return {run["run"]: run["final_hash"] for run in report["runs"]}


@pytest.mark.slow  # about 90 s: Ray's start and its worker processes
def test_a_ray_sweep_gives_the_local_sweeps_hashes_and_continues_an_unfinished_run(local_ray: None, tmp_path: Path) -> None:
    with ChatServer(respond=pure_model) as server:
        spec = f"llm:model=pure;base_url={server.url}"
        plan = ("sweep", "--agent", spec, "--seeds", "0-2", "--trials", "3", "--scale", SCALE, "--rounds", "2", "--json")
        local = json.loads(campus(*plan, "--concurrency", "3", "--db", str(tmp_path / "local.db")).stdout)
        on_ray = json.loads(campus(*plan, "--ray", "local", "--db", str(tmp_path / "ray.db")).stdout)
        assert len(hashes(on_ray)) == 9 and hashes(on_ray) == hashes(local)
        assert all(run["finished"] and run["action"] == "new" for run in on_ray["runs"])
        assert on_ray["consistency"] == local["consistency"] and on_ray["summary"] == local["summary"]
        again = json.loads(campus(*plan, "--ray", "local", "--db", str(tmp_path / "ray.db")).stdout)
        assert {run["action"] for run in again["runs"]} == {"keep"} and hashes(again) == hashes(local)

        cut = str(tmp_path / "cut.db")
        started = json.loads(campus("run", "--agent", spec, "--seed", "1", "--scale", SCALE, "--rounds", "2",
                                    "--max-steps", "7", "--db", cut, "--json").stdout)
        assert started["run"] == "llm-pure-s1" and not started["finished"]
        continued = json.loads(campus("sweep", "--agent", spec, "--seeds", "1", "--scale", SCALE, "--rounds", "2",
                                      "--json", "--ray", "local", "--db", cut).stdout)
    [run] = continued["runs"]
    assert run["action"] == "resume" and run["finished"] and run["final_hash"] == hashes(local)["llm-pure-s1"]
    assert campus("verify", "llm-pure-s1", "--db", cut).exit_code == 0
