"""The inspect_ai task `campus/term`: inspect's mockllm and the local chat server play a campus run, and
inspect's scores are what `campus score` finds in the run named in the sample's metadata."""

from __future__ import annotations

import json
from pathlib import Path

from inspect_ai import eval as inspect_eval
from inspect_ai._util.registry import registry_lookup
from inspect_ai.model import ModelOutput, ModelUsage, get_model
from typer.testing import CliRunner

from campus.cli.main import app
from campus.env.inspect_task import RUN_KEY, term
from tests.chat_server import ChatServer
from tests.llm_support import SCALE, as_text_answers

pytest_plugins = ["tests.llm_fixtures"]


def scripted(replies: list[str]):
    """mockllm outputs: the replies in order, each with its token usage (so mockllm counts nothing itself)."""
    usage = ModelUsage(input_tokens=11, output_tokens=7, total_tokens=18)
    return iter([_with(ModelOutput.from_content(model="mockllm", content=reply), usage) for reply in replies])


def _with(output: ModelOutput, usage: ModelUsage) -> ModelOutput:
    output.usage = usage
    return output


def campus_score(db: Path, run_id: str) -> dict:
    result = CliRunner().invoke(app, ["score", run_id, "--db", str(db), "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_the_task_is_registered_under_the_campus_namespace() -> None:
    assert registry_lookup("task", "campus/term") is not None


def test_mockllm_plays_a_run_per_epoch_and_the_scores_are_campus_scores(tmp_path: Path, oracle_replies: list[str]) -> None:
    db = tmp_path / "runs.db"
    model = get_model("mockllm/model", custom_outputs=scripted(oracle_replies * 2))
    [log] = inspect_eval(term(seed=0, scale=SCALE, db=str(db)), model=model, epochs=2, max_samples=1, display="none",
                         log_dir=str(tmp_path / "logs"))
    assert log.status == "success", log.error
    runs = [sample.metadata[RUN_KEY] for sample in log.samples]
    assert len(set(runs)) == 2 and all(run.startswith("inspect-mockllm-model-s0") for run in runs)
    for sample in log.samples:
        card = campus_score(db, sample.metadata[RUN_KEY])
        assert card["matches"]
        [score] = sample.scores.values()
        assert score.value["stugpa"] == card["scorecard"]["stugpa"]["total"] == 100.0
        assert score.value["success"] == card["scorecard"]["total"]["success_rate"]
        assert score.value["pis"] == card["scorecard"]["pis"]
    metrics = {score.name: score.metrics["mean"].value for score in log.results.scores}
    assert metrics["stugpa"] == 100.0 and "success" in metrics and any(name.startswith("success_") for name in metrics)
    usage = campus_score(db, runs[0])["usage"]["total"]  # what inspect said each reply cost, kept beside it
    assert usage["replies"] == len(oracle_replies)
    assert (usage["prompt_tokens"], usage["completion_tokens"]) == (11 * len(oracle_replies), 7 * len(oracle_replies))


def test_an_openai_compatible_model_through_inspect_gets_one_fresh_chat_per_task(tmp_path: Path, oracle_replies: list[str]) -> None:
    db = tmp_path / "runs.db"
    with ChatServer(as_text_answers(oracle_replies)) as server:
        model = get_model("openai-api/campus/script-model", base_url=server.url, api_key="sk-test")
        [log] = inspect_eval(term(seed=0, scale=SCALE, db=str(db)), model=model, display="none",
                             log_dir=str(tmp_path / "logs"))
        requests = server.requests
    assert log.status == "success", log.error
    assert len(requests) == len(oracle_replies)
    first = requests[0]["messages"]
    assert first[0]["role"] == "system" and len(first) == 2  # the task's instructions and its opening message only
    [sample] = log.samples
    assert campus_score(db, sample.metadata[RUN_KEY])["scorecard"]["stugpa"]["total"] == 100.0


def test_the_task_chooses_the_term_as_campus_run_does() -> None:
    default, plain = term(seed=[0, 1], scale=SCALE), term(seed=0, scale=SCALE, disruptions=False, busy_days=False)
    assert all(sample.metadata is not None and sample.metadata["disruptions"] and sample.metadata["busy_days"]
               for sample in default.dataset)
    assert plain.dataset[0].metadata == {"seed": 0, "scale": SCALE, "disruptions": False, "busy_days": False}
