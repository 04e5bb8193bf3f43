"""Tool declarations: one source, three dialects, and a dispatcher that never lets bad input through."""

from __future__ import annotations

import jsonschema
import pytest

from campus.kernel.tools import Param, ToolDecl, bind_arguments, from_wire_name, mcp_tools, ok, openai_tools
from campus.scenarios.play import build_kernel

META = jsonschema.Draft202012Validator.META_SCHEMA


@pytest.fixture(scope="module")
def kernel(world):
    return build_kernel(world)


def test_every_tool_schema_is_valid_json_schema(kernel) -> None:
    tools = list(kernel.tools.values())
    assert len(tools) >= 15
    for entry in openai_tools(tools):
        assert entry["type"] == "function"
        jsonschema.validate(entry["function"]["parameters"], META)
        assert "." not in entry["function"]["name"]
        assert from_wire_name(entry["function"]["name"]) in kernel.tools
    for entry, tool in zip(mcp_tools(tools), tools):
        jsonschema.validate(entry["inputSchema"], META)
        assert entry["annotations"]["readOnlyHint"] is (not tool.mutates)
        assert entry["annotations"]["destructiveHint"] is tool.mutates


def test_schemas_accept_the_examples_and_reject_wrong_types(kernel) -> None:
    walk = kernel.tools["geography.walk_to"].json_schema()
    jsonschema.validate({"path_info": {"path": ["B001", "B002"]}}, walk)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"path_info": "B001"}, walk)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"path_info": {}, "extra": 1}, walk)
    add = kernel.tools["calendar.add_event"].json_schema()
    assert set(add["required"]) == {"calendar_id", "event_title", "location", "time"}


def test_stulife_tool_names_are_all_there(kernel) -> None:
    expected = {
        "map.find_building_id", "map.get_building_details", "map.find_room_location",
        "map.query_buildings_by_property", "map.find_optimal_path", "geography.get_current_location",
        "geography.walk_to", "calendar.add_event", "calendar.remove_event", "calendar.update_event",
        "calendar.view_schedule", "calendar.query_advisor_availability", "email.send_email",
        "reservation.query_availability", "reservation.make_booking",
        "bibliography.list_chapters", "bibliography.list_sections", "bibliography.list_articles", "bibliography.view_article",
        "data_system.list_by_category", "data_system.query_by_identifier", "data_system.list_books_by_category",
        "data_system.search_books", "course_selection.browse_courses", "draft.add_course", "draft.remove_course",
        "draft.assign_pass", "draft.view", "registration.submit_draft",
    }
    assert expected <= set(kernel.tools)


def test_prompt_lists_only_the_tools_of_the_task(kernel) -> None:
    text = kernel.prompt_tools(("map", "geography"))
    assert "map.find_optimal_path(" in text and "geography.walk_to(" in text
    assert "calendar.add_event" not in text and "email.send_email" not in text
    assert "Example: <action>Action: map.find_building_id(" in text
    full = kernel.prompt_tools(tuple(kernel.systems))
    for name in kernel.tools:
        assert f"`{name}(" in full


def _tool(*params: Param) -> ToolDecl:
    return ToolDecl(name="x.y", system="x", description="d", params=params, handler=lambda view, args: ok("fine"))


def test_bind_arguments_maps_positionals_and_checks_everything() -> None:
    tool = _tool(Param(name="a", type="string", description="first"), Param(name="n", type="integer", description="n", required=False))
    assert bind_arguments(tool, {}, ["hello"]) == {"a": "hello"}
    assert bind_arguments(tool, {"n": 3}, ["hi"]) == {"a": "hi", "n": 3}
    assert bind_arguments(tool, {"a": "x", "n": None}) == {"a": "x"}
    problems = [
        bind_arguments(tool, {}, []),
        bind_arguments(tool, {"a": "x", "b": 1}),
        bind_arguments(tool, {"a": 5}),
        bind_arguments(tool, {"a": "x", "n": True}),
        bind_arguments(tool, {"a": "x", "n": 1.5}),
        bind_arguments(tool, {"a": "caf\u00e9"}),
        bind_arguments(tool, {"a": "x" * 1_000_000}),
        bind_arguments(tool, {"a": "x"}, ["y"]),
        bind_arguments(tool, {}, ["a", 1, 2]),
    ]
    for problem in problems:
        assert isinstance(problem, str) and "x.y(" in problem, problem
    assert "non-ASCII" in problems[5] and "too long" in problems[6] and "twice" in problems[7]


def test_dispatch_errors_are_clear_and_change_nothing(kernel, world) -> None:
    state = kernel.projection.initial()
    before = kernel.projection.encode(state)
    cases = {
        "map.find_buildng_id": "Did you mean map.find_building_id",
        "calendar.add_event": "not available in this task",
        "nothing": "no tool named",
    }
    for name, expected in cases.items():
        outcome = kernel.dispatch(state, task_id="t", name=name, args={}, systems=("map", "geography"), seed=0)
        assert not outcome.result.ok and expected in outcome.result.message
        assert outcome.facts == () and outcome.minutes == 0
    outcome = kernel.dispatch(state, task_id="t", name="geography.walk_to", args={"path_info": 1}, systems=("geography",), seed=0)
    assert not outcome.result.ok and "must be an object" in outcome.result.message
    assert kernel.projection.encode(state) == before


def test_a_raising_handler_becomes_a_failed_call(world) -> None:
    from campus.kernel.engine import Kernel
    from campus.kernel.projection import Domain
    from campus.subsystems.geography import locate

    def boom(view, args):
        raise RuntimeError("bug")

    import msgspec

    class Empty(msgspec.Struct):
        pass

    broken = Domain(name="broken", state_type=Empty, initial=lambda w: Empty(), tools=(
        ToolDecl(name="broken.tool", system="broken", description="d", params=(), handler=boom),
    ))
    kernel = Kernel(world, [broken], locate=locate, describe=world.describe, system_titles={})
    outcome = kernel.dispatch(kernel.projection.initial(), task_id="t", name="broken.tool", args={}, systems=("broken",), seed=0)
    assert not outcome.result.ok and "RuntimeError" in outcome.result.message and outcome.facts == ()


from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 10**6) | st.floats(allow_nan=False) | st.text(max_size=40)
    | st.sampled_from(["self", "club_c01", "advisor_T0001", "B001", "Week 1, Monday", "Week 1, Monday, 10:00-11:00", "a@b.edu"]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(["path", "event_title", "time", "x"]), inner, max_size=3),
    max_leaves=8,
)
PARAM_NAMES = ["calendar_id", "event_title", "location", "time", "description", "event_id", "new_details", "date",
               "advisor_id", "to", "subject", "body", "cc", "building_name", "building_id", "room_query",
               "source_building_id", "target_building_id", "constraints", "path_info", "zone", "amenity",
               "location_id", "item_name", "time_slot", "seat_id", "room", "features", "book_title", "chapter_title",
               "section_title", "identifier", "by", "entity_type", "category", "level", "query", "search_type",
               "section_id", "pass_type", "filters"]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_any_call_to_any_tool_is_safe(kernel, data) -> None:
    """Whatever the arguments: no exception, an ASCII message, and a failure leaves the state as it was."""
    name = data.draw(st.sampled_from(sorted(kernel.tools)))
    args = data.draw(st.dictionaries(st.sampled_from(PARAM_NAMES), VALUES, max_size=5))
    positional = data.draw(st.lists(VALUES, max_size=2))
    state = kernel.projection.initial()
    before = kernel.projection.encode(state)
    outcome = kernel.dispatch(state, task_id="t", name=name, args=args, positional=positional,
                              systems=tuple(kernel.systems), seed=0)
    assert outcome.result.message.isascii()
    assert kernel.projection.encode(state) == before, "handlers must never mutate the state they read"
    if not outcome.result.ok:
        assert outcome.facts == () and outcome.minutes == 0


def _quoted_examples(kernel) -> str:
    return "\n".join(
        "\n".join([t.description, t.example, *(p.description for p in t.params)]) for t in kernel.tools.values()
    )


def test_tool_texts_name_things_that_exist_in_the_world(kernel, world) -> None:
    text = _quoted_examples(kernel)
    assert "<<" not in text and ">>" not in text
    library = next(lib for lib in world.world.libraries if any(r.seats for r in lib.rooms))
    room = next(r for r in library.rooms if r.seats)
    assert f'location_id="{library.building_id}"' in text and f'seat_id="{room.seats[0].id}"' in text
    codes = {c.code for c in world.world.courses}
    assert any(f'section_id="{code}"' in text for code in codes)
    handbook = next(t for t in world.world.texts if t.title == "Student Handbook")
    assert f'chapter_title="{handbook.chapters[0].title}"' in text


def test_tool_texts_name_things_that_exist_in_the_published_campus() -> None:
    from tests.conftest import SHARED

    if not (SHARED / "stulife" / "campus_data.json").exists():
        pytest.skip("the StuLife data is not present")
    from campus.world.index import WorldIndex
    from campus.world.stulife import load_stulife

    stulife = WorldIndex(load_stulife(SHARED / "stulife")[0])
    text = _quoted_examples(build_kernel(stulife))
    assert "<<" not in text
    seats = {s.id for lib in stulife.world.libraries for r in lib.rooms for s in r.seats}
    assert any(f'seat_id="{seat}"' in text for seat in seats)


def test_a_refusal_raised_in_a_handler_is_the_failed_result_fail_gives() -> None:
    from campus.events import EmailSent
    from campus.kernel.tools import Refuse, fail

    def deep(value: str) -> str:
        if value == "no":
            raise Refuse("'x' must not be no.")
        return value

    def handler(view: object, args: dict) -> object:
        return ok("done", [EmailSent(email_id="m", to="a@b.c", subject=deep(args["x"]), body="b", cc="")])

    tool = ToolDecl(name="t.refuse", system="t", description="d", params=(Param(name="x", type="string", description="x"),),
                    handler=handler)
    refused = tool.call(None, {"x": "no"})
    assert refused == fail("'x' must not be no.") and refused.facts == ()
    assert tool.call(None, {"x": "yes"}).result.ok


def test_arguments_are_explained_with_the_wire_name_to_a_native_caller() -> None:
    tool = ToolDecl(name="t.thing", system="t", description="d", params=(Param(name="x", type="string", description="x"),),
                    handler=lambda view, args: ok("done"))
    assert bind_arguments(tool, {}) == "t.thing needs 'x' (x). Call it as t.thing(x: str)."
    assert bind_arguments(tool, {}, wire=True) == "t__thing needs 'x' (x). Call it as t__thing(x: str)."
