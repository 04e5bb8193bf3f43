"""`campus sweep --trials K --concurrency N`: repeated runs on threads, model agents included, with pass^k and the flip rate."""

from __future__ import annotations

import json
import random
import threading
from dataclasses import dataclass, replace
from pathlib import Path

import pytest

from typer.testing import CliRunner

from campus.cli.main import app
from campus.kernel.store import SQLiteStore
from campus.lab.sweep import is_finished
from campus.reports.comparison import Repeats, consistency
from tests.chat_server import Answer, ChatServer, text

SCALE = "0.03"
REPLIES = ("<action>Action: finish()</action>", "<action>Answer: A</action>", "<action>Answer: B</action>",
           "<action>Answer: C</action>")


def sweep(*args: str):
    result = CliRunner().invoke(app, ["sweep", *args], env={"COLUMNS": "200", "OPENAI_API_KEY": None,
                                                            "OPENAI_BASE_URL": None})
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result


class Guesser:
    """A model that guesses: any reply, drawn from a seeded generator (so trials disagree), after a short wait."""

    def __init__(self) -> None:
        self.rng = random.Random(7)
        self.lock = threading.Lock()

    def __call__(self, request: dict) -> Answer:
        with self.lock:
            reply = self.rng.choice(REPLIES)
        answer = text(reply)
        return Answer(answer.status, answer.body, delay=0.002)


def test_a_model_agent_swept_over_3_seeds_x_3_trials_on_threads_reports_pass_k_and_flips(tmp_path: Path) -> None:
    db = tmp_path / "runs.db"
    with ChatServer(respond=Guesser()) as server:
        spec = f"llm:model=guesser;base_url={server.url}"
        result = sweep("--agent", spec, "--seeds", "0-2", "--trials", "3", "--concurrency", "3", "--scale", SCALE,
                       "--rounds", "2", "--db", str(db), "--json")
        assert result.exit_code == 0, result.output
        assert server.most_at_once >= 2, "the runs were played one at a time"
    report = json.loads(result.stdout)
    assert report["trials"] == 3 and len(report["runs"]) == 9 and all(r["finished"] for r in report["runs"])
    assert {r["run"] for r in report["runs"]} == {f"llm-guesser-s{s}{t}" for s in range(3) for t in ("", "-t2", "-t3")}
    store = SQLiteStore(db)
    assert all(is_finished(store, r["run"]) for r in report["runs"])
    store.close()
    [agent] = report["agents"]
    consistency = report["consistency"][agent]
    passes = [consistency["pass_hat_k"][str(k)] for k in (1, 2, 3)]
    assert passes[0] >= passes[1] >= passes[2] and passes[0] > passes[2], "guesses do not pass every trial alike"
    assert 0 < consistency["flip_rate"] <= 1 and consistency["flipped"] > 0
    assert consistency["drs"]["tasks"] == 3 * 36 and len(consistency["cells"]) == 36  # one task per cell at this scale
    mean_success = sum(r["scorecard"]["total"]["succeeded"] for r in report["runs"]) / sum(
        r["scorecard"]["total"]["tasks"] for r in report["runs"])
    assert abs(passes[0] - mean_success) < 0.05  # pass^1 is the success rate (over scored tasks)
    table = sweep("--agent", spec, "--seeds", "0-2", "--trials", "3", "--scale", SCALE, "--rounds", "2", "--db", str(db))
    assert table.exit_code == 0 and "pass^3" in table.stdout and "flip rate" in table.stdout, table.output
    assert "DRS pass^3" in table.stdout and "disruption cells: pass^1 / pass^3" in table.stdout
    assert "9 runs: 0 played, 0 continued, 9 kept" in table.stdout


def test_trials_of_a_deterministic_agent_agree_and_extending_trials_keeps_the_first(tmp_path: Path) -> None:
    db = str(tmp_path / "runs.db")
    first = json.loads(sweep("--agent", "oracle", "--seeds", "1", "--scale", SCALE, "--db", db, "--json",
                             "--concurrency", "2").stdout)
    assert first["consistency"]["oracle"] is None and [r["run"] for r in first["runs"]] == ["oracle-s1"]
    more = json.loads(sweep("--agent", "oracle", "--seeds", "1", "--scale", SCALE, "--db", db, "--json", "--trials", "2",
                            "--concurrency", "2").stdout)
    assert [(r["run"], r["action"]) for r in more["runs"]] == [("oracle-s1", "keep"), ("oracle-s1-t2", "new")]
    assert more["runs"][0]["final_hash"] == more["runs"][1]["final_hash"]
    consistency = more["consistency"]["oracle"]
    assert consistency["flip_rate"] == 0 and consistency["pass_hat_k"] == {"1": 1.0, "2": 1.0}
    assert consistency["drs"] == {"tasks": 36, "pass_hat_k": {"1": 1.0, "2": 1.0}, "flipped": 0}
    assert list(consistency["cells"])[:5] == ["T1/easy", "T1/medium", "T1/hard", "T1/impossible", "T2/easy"]
    assert all(cell["pass_hat_k"] == {"1": 1.0, "2": 1.0} for cell in consistency["cells"].values())
    other = sweep("--agent", "oracle", "--seeds", "1", "--scale", SCALE, "--db", db, "--json", "--no-disruptions")
    assert other.exit_code == 2 and "disruptions: stored True, sweep False" in other.output


@dataclass
class Played:
    agent: str
    seed: int
    trial: int
    outcomes: dict[str, bool]
    cells: dict[str, str]


def test_pass_k_of_the_disruption_cells_by_hand() -> None:
    """Seed 1 has two T1/easy tasks and a lecture; seed 2 one S2/impossible task; three trials each."""
    cells = {1: {"d1": "T1/easy", "d2": "T1/easy"}, 2: {"d9": "S2/impossible"}}
    outcomes = {1: {"d1": (True, True, True), "d2": (True, False, True), "lecture": (False, False, False)},
                2: {"d9": (True, False, False)}}
    results = [Played("a", seed, trial + 1, {task: seen[trial] for task, seen in tasks.items()}, cells[seed])
               for seed, tasks in outcomes.items() for trial in range(3)]
    found = consistency(results, "a")
    assert found is not None and found.tasks == 4
    # pass^2 = mean over tasks of C(c, 2) / C(3, 2): d1 3/3, d2 1/3, d9 0
    assert found.cells["T1/easy"] == Repeats(2, {1: pytest.approx(5 / 6), 2: pytest.approx(2 / 3), 3: 0.5}, 1)
    assert found.cells["S2/impossible"] == Repeats(1, {1: pytest.approx(1 / 3), 2: 0.0, 3: 0.0}, 1)
    assert list(found.cells) == ["T1/easy", "S2/impossible"]
    assert found.drs == Repeats(3, {1: pytest.approx(2 / 3), 2: pytest.approx(4 / 9), 3: pytest.approx(1 / 3)}, 2)
    assert consistency([replace(r, cells={}) for r in results], "a").drs is None
