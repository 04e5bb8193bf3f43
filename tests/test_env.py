"""``Env``: a term in a plain Python loop, Gymnasium's checker, determinism, and bad input."""

from __future__ import annotations

import os
import subprocess
import sys
import warnings
from pathlib import Path

import gymnasium
import pytest
from gymnasium.utils.env_checker import check_env

from campus.agents.noop import NoopAgent
from campus.agents.oracle import OracleAgent
from campus.env import GYM_ID, Env
from campus.kernel.store import MemoryStore, SQLiteStore
from campus.replays.verify import verify
from campus.scenarios.play import new_run, open_run
from campus.scenarios.task import Term
from campus.scenarios.term import generate_term
from campus.world.generate import generate_world
from campus.world.index import WorldIndex

ROOT = Path(__file__).resolve().parents[1]
SCALE = 0.05


@pytest.fixture(scope="module")
def short_term(world: WorldIndex) -> Term:
    return generate_term(world, 0, SCALE)  # what Env(seed=0, scale=0.05) plays


def play(env: Env, agent_of: type, seed: int | None = 0) -> dict:
    """Reset ``env`` and play the term to the end with a scripted agent reading ``env.view()``."""
    observation, info = env.reset(seed=seed)
    agent = agent_of(env.run.term, env.run.world) if agent_of is OracleAgent else agent_of()
    total, steps, terminated, truncated = 0.0, 0, False, False
    observations = [observation]
    while not terminated:
        view = env.view()
        observation, reward, terminated, truncated, info = env.step(agent.act(view))
        assert not truncated
        assert reward == (sum(ended["outcome"] == "success" for ended in info["ended"]) if env.reward else 0.0)
        total += reward
        steps += 1
        observations.append(observation)
        if not terminated and not info["new_task"]:
            assert observation == env.view().messages[-1].content  # what is new in the same chat
    return {"total": total, "steps": steps, "info": info, "observations": observations, "hash": env.final_hash()}


def test_the_oracle_plays_a_term_in_a_plain_loop(world: WorldIndex, short_term: Term) -> None:
    env = Env(seed=0, scale=SCALE, reward=True)
    played = play(env, OracleAgent)
    scored = [task for task in short_term.tasks if not task.flags.delivery_only]
    assert played["total"] == len(scored) > 0
    info = played["info"]
    assert info["task"] is None and info["scorecard"]["stugpa"]["total"] == 100.0
    assert env.scorecard() == info["scorecard"]
    assert played["observations"][0].startswith("New task (task 1):\nCurrent date: Week 0, Monday.")
    assert played["observations"][-1].endswith("The term is over: there are no more tasks.")
    assert all(obs in env.observation_space for obs in played["observations"])
    with pytest.raises(RuntimeError, match="episode is over"):
        env.step("<action>Action: finish()</action>")

    store = MemoryStore()
    direct = new_run(store, world, short_term, agent_name="env", seed=0)  # the agent an Env run records (bound in its chain)
    direct.session(OracleAgent(short_term, world)).run()
    assert played["hash"] == store.head(direct.branch.id)[1]
    assert verify(env.run).ok


def test_same_replies_same_hash_in_memory_and_on_file(tmp_path: Path) -> None:
    in_memory = play(Env(seed=0, scale=SCALE), OracleAgent)
    on_file = Env(seed=0, scale=SCALE, db=str(tmp_path / "runs.db"))
    again = play(on_file, OracleAgent)
    noop = play(on_file, NoopAgent, seed=None)  # reset() without a seed: the same term again
    assert in_memory["hash"] == again["hash"] and in_memory["observations"] == again["observations"]
    assert noop["hash"] != again["hash"] and noop["total"] == 0
    assert noop["observations"][0] == again["observations"][0]
    on_file.close()
    store = SQLiteStore(tmp_path / "runs.db")
    try:
        assert [b.id for b in store.branches()] == ["env-s0", "env-s0-2"]
        assert store.head("env-s0")[1] == again["hash"] and store.head("env-s0-2")[1] == noop["hash"]
        assert verify(open_run(store, "env-s0")).ok
    finally:
        store.close()


def test_gymnasium_checker_passes_without_warnings() -> None:
    made = gymnasium.make(GYM_ID, seed=0, scale=SCALE)
    assert isinstance(made.unwrapped, Env) and isinstance(made.unwrapped, gymnasium.Env)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(made.unwrapped)
        observation, info = made.reset(seed=2)
        observation, reward, terminated, truncated, info = made.step("<action>Action: finish()</action>")
    assert [str(w.message) for w in caught] == []
    assert "is over (you finished it)" in observation and info["new_task"] and info["ended"][0]["reason"] == "finish"
    made.close()


def test_max_steps_truncates_and_the_round_limit_ends_only_the_task(short_term: Term) -> None:
    env = Env(seed=0, scale=SCALE, round_limit=2, max_steps=5)
    env.reset()
    for _ in range(2):  # the first two tasks set their own round limits
        env.step("<action>Action: finish()</action>")
    third = short_term.tasks[2]
    assert third.round_limit is None and env.view().task_id == third.id
    looking = "<action>Action: geography.get_current_location()</action>"
    _, _, terminated, truncated, info = env.step(looking)
    assert not (terminated or truncated) and not info["new_task"]
    observation, _, terminated, truncated, info = env.step(looking)
    assert info["ended"] == [{"reason": "round limit", "turns": 2}] and info["task"] == 4
    assert "the round limit was reached" in observation and info["new_task"] and not (terminated or truncated)
    _, _, terminated, truncated, info = env.step(looking)
    assert truncated and not terminated and info["step"] == 5
    with pytest.raises(RuntimeError, match="episode is over"):
        env.step(looking)


def test_bad_input_is_refused_and_changes_nothing() -> None:
    with pytest.raises(ValueError, match="round_limit"):
        Env(round_limit=0)
    with pytest.raises(ValueError, match="max_steps"):
        Env(max_steps=0)
    with pytest.raises(TypeError, match="world"):
        Env(world="generated")  # type: ignore[arg-type]
    env = Env(seed=0, scale=SCALE)
    with pytest.raises(RuntimeError, match="reset"):
        env.step("<action>Action: finish()</action>")
    with pytest.raises(ValueError, match="options"):
        env.reset(options={"scale": 2})
    with pytest.raises(TypeError, match="seed"):
        env.reset(seed="0")  # type: ignore[arg-type]
    env.reset()
    head = env.run.store.head(env.run.branch.id)
    with pytest.raises(TypeError, match="StructuredCall"):
        env.step(42)  # type: ignore[arg-type]
    assert env.run.store.head(env.run.branch.id) == head
    observation, reward, *_ = env.step("I think I should look around first.")
    assert observation.startswith("Invalid action") and reward == 0.0


def test_a_given_world_is_used_for_every_seed(world: WorldIndex) -> None:
    other = generate_world(5)
    env = Env(seed=0, scale=SCALE, world=other)
    env.reset()
    assert env.run.world.hash == other.hash != world.hash
    env.reset(seed=3)
    assert env.run.world.hash == other.hash and env.run.branch.seed == 3


def test_the_plain_class_works_without_gymnasium() -> None:
    script = (
        "import sys; sys.modules['gymnasium'] = None\n"
        "from campus.env import Env\n"
        "env = Env(seed=0, scale=0.05)\n"
        "observation, info = env.reset()\n"
        "result = env.step('<action>Action: finish()</action>')\n"
        "assert not hasattr(env, 'observation_space') and type(env).__mro__[1] is object\n"
        "print(info['task'], result[4]['task'], result[4]['ended'][0]['reason'])\n"
    )
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=60,
                          env=os.environ | {"PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1].split() == ["1", "2", "finish"]  # earlier lines: the session's operator log


def test_the_agent_sees_no_task_id_and_no_reward_unless_asked(short_term: Term) -> None:
    env = Env(seed=0, scale=SCALE)
    played = play(env, OracleAgent)
    assert played["total"] == 0.0
    shown = "\n".join(played["observations"])
    assert "New task (task 2):" in shown
    assert not any(task.id in shown for task in short_term.tasks)


@pytest.mark.parametrize(("disruptions", "busy_days"), [(True, True), (True, False), (False, True)])
def test_the_term_is_chosen_as_campus_run_chooses_it(disruptions: bool, busy_days: bool) -> None:
    env = Env(seed=0, scale=SCALE, disruptions=disruptions, busy_days=busy_days)
    env.reset()
    scenarios = {task.scenario for task in env.run.term.tasks}
    assert ("disruptions" in scenarios, "busy_days" in scenarios) == (disruptions, busy_days)
    assert env.run.term.hash == generate_term(env.run.world, 0, SCALE, disruptions=disruptions, busy=busy_days).hash
    made = gymnasium.make(GYM_ID, seed=0, scale=SCALE, disruptions=disruptions, busy_days=busy_days)
    made.reset()
    assert made.unwrapped.run.term.hash == env.run.term.hash


def test_a_busy_day_is_one_conversation_with_its_interruptions() -> None:
    """Stepped from outside, the busy day stays one task: errands announced later, the reminders and the follow-up
    come as the step's text and join the same chat, which opens with the day's brief."""
    env = Env(seed=0, scale=SCALE)
    observation, _ = env.reset()
    agent = OracleAgent(env.run.term, env.run.world)
    day: list[str] = []
    chat_at_reminder: list[str] = []
    terminated = False
    while not terminated:
        observation, _, terminated, _, info = env.step(agent.act(env.view()))
        if day and info["new_task"]:
            day.append(observation)
            break
        if day or "A busy day." in observation:
            day.append(observation)
            if "Reminder: " in observation and not chat_at_reminder:
                view = env.view()
                assert view is not None
                chat_at_reminder = [turn.content for turn in view.messages]
    assert len(day) > 20 and "A busy day." in day[0] and "Mentor feedback on today" in day[-1]
    for said in ("Reminder: ", "New errand [", "also hands you an errand"):
        assert any(said in text for text in day[1:]), said
    assert "A busy day." in chat_at_reminder[0] and chat_at_reminder[-1].endswith(day[[i for i, t in enumerate(day) if "Reminder: " in t][0]])
