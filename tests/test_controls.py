"""The controls see only what any agent sees; the adversarial agents fail exactly what they attack."""

from __future__ import annotations

import ast
import gc
from collections import Counter
from pathlib import Path

import msgspec
import pytest

import campus.agents
from campus.agents import ADVERSARIAL, BUILTIN, CONTROLS, make_agent
from campus.agents.controls import Seen
from campus.kernel.store import open_store
from campus.scenarios.play import new_run
from campus.scenarios.scorecard import scorecard
from campus.scenarios.task import AT_START, Task, Term, at_start
from campus.scenarios.term import generate_term
from campus.world.generate import WORLD_GENERATOR, generate_world
from campus.world.index import WorldIndex

AGENTS = Path(campus.agents.__file__).parent
HIDDEN = {"solution", "ground_truth", "stale", "by_id", "tasks", "term", "task_id", "follow_up", "flags"}
CONTROL_MODULES = ("controls.py", "reader.py", "noop.py", "plans.py", "library_guess.py")


@pytest.mark.parametrize("module", CONTROL_MODULES)
def test_control_code_names_no_hidden_field_and_imports_no_term(module: str) -> None:
    tree = ast.parse((AGENTS / module).read_text(encoding="utf-8"))
    attributes = {node.attr for node in ast.walk(tree) if isinstance(node, ast.Attribute)}
    assert attributes & HIDDEN == set()
    imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    assert not any(name and name.startswith("campus.scenarios") for name in imported), imported


def test_a_control_is_handed_only_time_and_text() -> None:
    assert set(Seen.__dataclass_fields__) == {"now", "messages"}


@pytest.fixture(scope="module")
def small() -> tuple[WorldIndex, Term]:
    world = WorldIndex(generate_world(0))
    return world, generate_term(world, 0, scale=0.15)


@pytest.mark.parametrize("name", (*CONTROLS, "sweeper", "libguess", "dodger"))
def test_controls_hold_no_reference_to_the_term(name: str, small: tuple[WorldIndex, Term]) -> None:
    world, term = small
    agent = make_agent(name, term, world)
    seen, todo = set(), [agent]
    while todo:
        item = todo.pop()
        if id(item) in seen or isinstance(item, (type, str, bytes, int, float)):
            continue
        seen.add(id(item))
        assert not isinstance(item, (Term, Task, WorldIndex)), f"{name} reaches a {type(item).__name__}"
        todo.extend(gc.get_referents(item) if item is agent or isinstance(item, (dict, list, tuple)) else [])
        if hasattr(item, "__dict__"):
            todo.append(vars(item))


def test_every_adversarial_agent_is_built_in() -> None:
    assert set(ADVERSARIAL) <= set(BUILTIN)


def _play(world: WorldIndex, term: Term, name: str) -> dict:
    run = new_run(open_store(None), world, term, agent_name=name, seed=0)
    run.session(make_agent(name, term, world)).run()
    ended = run.ended_tasks()
    return {"card": scorecard(term, ended), "ended": {e.task_id: e for e in ended}}


def test_the_dawdler_idles_and_still_solves_nearly_everything(small: tuple[WorldIndex, Term]) -> None:
    world, term = small
    played = _play(world, term, "dawdler")
    assert played["card"]["total"]["success_rate"] >= 0.99


def test_absent_earns_no_attendance(small: tuple[WorldIndex, Term]) -> None:
    world, term = small
    played = _play(world, term, "absent")
    away = [t for t in term.tasks if t.required_place and t.required_place != world.home and t.id in played["ended"]]
    assert away and {played["ended"][t.id].marks.get("attended") for t in away} == {0}


@pytest.mark.parametrize("generator", [1, 2])
def test_the_sweeper_attends_no_more_than_one_building_holds(small: tuple[WorldIndex, Term], generator: int) -> None:
    """A student that remembers nothing and walks from academic building to academic building attends no more of the
    tasks held from their start than one that went to the busiest building every time; when the text appeared on
    arrival and any walk that ended there in time counted, it attended more, and over twice what it does now (shown on
    world generator 1's campus, whose classes crowd into fewer buildings: on generator 2's it attends little either
    way)."""
    if generator == WORLD_GENERATOR:
        world, term = small
    else:
        world = WorldIndex(generate_world(0, generator=generator))
        term = generate_term(world, 0, scale=0.15)
    held = {task.id: task.required_place for task in term.tasks if at_start(task)}
    before = msgspec.structs.replace(term, tasks=tuple(
        msgspec.structs.replace(t, ground_truth={k: v for k, v in t.ground_truth.items() if k != AT_START})
        for t in term.tasks))
    attended = [sum(played["ended"][i].marks.get("attended", 0) for i in held if i in played["ended"])
                for played in (_play(world, term, "sweeper"), _play(world, before, "sweeper"))]
    assert held and attended[0] <= max(Counter(held.values()).values()) and attended[1] >= attended[0]
    if generator == 1:
        assert attended[1] > 2 * attended[0]


def test_the_canvasser_fails_every_task_with_an_email_and_only_those(small: tuple[WorldIndex, Term]) -> None:
    """The oracle writing each email to two other addresses as well (advisors, clubs) fails every task that asks for
    an email, and their dependants, and nothing else; judged by parts without ``sole`` (the terms before), it passed
    them."""
    from campus.lab.audit import _canvassed

    world, term = small
    played = _play(world, term, "canvasser")
    emailing = [t for t in term.tasks if any(p["check"] == "email" and p.get("sole") for p in t.ground_truth.get("parts", ()))]
    assert emailing and all(played["ended"][t.id].outcome == "failure" for t in emailing)
    assert _canvassed(term, list(played["ended"].values())) == []
    legacy = msgspec.structs.replace(term, tasks=tuple(msgspec.structs.replace(t, ground_truth={**t.ground_truth, "parts": [
        {k: v for k, v in p.items() if k != "sole"} for p in t.ground_truth["parts"]]}) if "parts" in t.ground_truth else t
        for t in term.tasks))
    before = _play(world, legacy, "canvasser")
    assert before["card"]["total"]["success_rate"] == 1.0


@pytest.mark.parametrize("name", ("testwise", "optionsonly"))
def test_question_guessers_answer_every_question(name: str, small: tuple[WorldIndex, Term]) -> None:
    world, term = small
    played = _play(world, term, name)
    questions = [t for t in term.tasks if t.solution and t.solution[-1].startswith("answer:")]
    assert questions and all(played["ended"][t.id].reason == "answer" for t in questions if t.id in played["ended"])


def test_the_controls_are_strictly_ordered_on_initiative(small: tuple[WorldIndex, Term]) -> None:
    """stateless reaches the one self-motivated task it is sent to (the roll call); diligent also what its notes say."""
    world, term = small
    pis = {name: _play(world, term, name)["card"]["pis"] or 0.0 for name in ("noop", "stateless", "diligent")}
    assert pis["noop"] == 0.0 < pis["stateless"] < pis["diligent"]
