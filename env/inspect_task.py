"""The campus as an inspect_ai task: ``inspect eval campus/term --model PROVIDER/MODEL -T seed=0 -T scale=0.1``.

Registered through the ``inspect_ai`` entry point (``pip install 'campus[inspect]'``). One sample
per (seed, scale); the solver plays a campus run into ``db`` through the kernel's stepper,
asking inspect's model for each reply with a fresh chat per task, as the paper does (the
task's instructions and the prompt variant as the system message, then that task's turns in
the StuLife text protocol). Each sample's run is a campus run like any other: its id is in the
sample's metadata (``campus_run``), so ``campus replay/score/verify/diff/report`` work on it.
The scorer reads the run's scorecard: StuGPA, LTRR, PIS, the success rate and the success rate
of each scenario, each averaged by inspect over samples (and ``--epochs``, which are trials:
every epoch is a run of its own).
"""

from __future__ import annotations

from typing import Any

from inspect_ai import Task, task
from inspect_ai._util.registry import registry_name
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ChatMessage, ChatMessageAssistant, ChatMessageSystem, ChatMessageUser, ModelOutput, get_model
from inspect_ai.scorer import Score, Scorer, Target, mean, scorer
from inspect_ai.solver import Generate, Solver, TaskState, solver

from campus.agents.llm import plain_messages, system_prompt
from campus.agents.registry import INSPECT
from campus.agents.variants import DEFAULT_VARIANT, load_variant
from campus.kernel.agent import AgentView
from campus.kernel.store import open_store
from campus.scenarios.rounds import DEFAULT_ROUND_LIMIT
from campus.scenarios.play import RunSpec, open_run, slug, start_run
from campus.scenarios.scorecard import scorecard

RUN_KEY = "campus_run"


def _term(seed: int | list[int] = 0, scale: float = 0.1, db: str = "runs.db", rounds: int = DEFAULT_ROUND_LIMIT,
          variant: str = DEFAULT_VARIANT, disruptions: bool = True, busy_days: bool = True) -> Task:
    """A campus term per seed (``-T seed=3``, or several: ``-T seed=[0,1,2]``) at ``scale``, played into ``db``;
    ``-T disruptions=false`` / ``-T busy_days=false`` leave those tasks out of the term."""
    load_variant(variant)
    chosen = sorted(set(seed)) if isinstance(seed, list) else [seed]
    samples = [Sample(id=f"s{s}-x{scale:g}", input=f"Live through the campus term of seed {s} at scale {scale:g}.",
                      metadata={"seed": s, "scale": scale, "disruptions": disruptions, "busy_days": busy_days})
               for s in chosen]
    return Task(dataset=MemoryDataset(samples), solver=play_term(db, rounds, variant), scorer=term_scores(db))


# inspect puts its "campus/" namespace before the name only when it recognises how campus was installed
# (not, for instance, beside a stale campus.egg-info in the working directory); the task is campus/term either way.
term = task(name="term" if registry_name(_term, "term") == "campus/term" else "campus/term")(_term)


def chat(view: AgentView, variant: str) -> list[ChatMessage]:
    """The fresh chat of the task in ``view``: the system prompt, then the task's own turns."""
    messages: list[ChatMessage] = [ChatMessageSystem(content=system_prompt(view, variant))]
    for turn in plain_messages(view.messages):
        kind = ChatMessageAssistant if turn["role"] == "assistant" else ChatMessageUser
        messages.append(kind(content=turn["content"]))
    return messages


@solver
def play_term(db: str, rounds: int, variant: str) -> Solver:
    variant_text = load_variant(variant)

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        model = get_model()
        store = open_store(db)
        try:
            spec = RunSpec(seed=state.metadata["seed"], scale=state.metadata["scale"], agent=f"{INSPECT}{model}",
                           round_limit=rounds, label=f"inspect-{slug(str(model))}",
                           disruptions=state.metadata.get("disruptions", True), busy_days=state.metadata.get("busy_days", True))
            run = start_run(store, spec)
            state.metadata[RUN_KEY] = run.branch.id
            stepper = run.stepper()
            view = stepper.view()
            while view is not None:
                output = await model.generate(chat(view, variant_text))
                view = stepper.step(output.completion, usage_meta(output)).view
        finally:
            store.close()
        state.completed = True
        return state

    return solve


def usage_meta(output: ModelOutput) -> dict[str, Any] | None:
    """What inspect says a reply cost, as a campus agent reports it (``replays.usage``): ``campus runs`` and
    ``campus score`` then total an inspect run's tokens like any model run's."""
    usage = output.usage
    if usage is None and output.time is None:
        return None
    meta: dict[str, Any] = {"model": output.model}
    if usage is not None:
        meta |= {"prompt_tokens": usage.input_tokens, "completion_tokens": usage.output_tokens}
    if output.time is not None:
        meta["latency_s"] = round(output.time, 4)
    return meta


@scorer(metrics={"*": [mean()]})
def term_scores(db: str) -> Scorer:
    """The run's scorecard as inspect scores (read back from the database, as ``campus score`` reads it)."""

    async def score(state: TaskState, target: Target) -> Score:
        run_id = state.metadata[RUN_KEY]
        return Score(value=run_scores(db, run_id), metadata={RUN_KEY: run_id})

    return score


def run_scores(db: str, run_id: str) -> dict[str, float]:
    """StuGPA, LTRR, PIS, the success rate and each scenario's success rate of a stored run (a metric the
    run does not have, such as LTRR on a term without long-term tasks, is left out)."""
    store = open_store(db)
    try:
        run = open_run(store, run_id)
        card = scorecard(run.term, run.ended_tasks())
    finally:
        store.close()
    values: dict[str, float | None] = {"stugpa": card["stugpa"]["total"], "ltrr": card["ltrr"], "pis": card["pis"],
                                       "success": card["total"]["success_rate"]}
    values |= {f"success_{name}": row["success_rate"] for name, row in card["by_scenario"].items()}
    return {key: value for key, value in values.items() if value is not None}
