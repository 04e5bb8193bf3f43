"""Error-mode detectors on hand-built logs: each must fire where it should and nowhere else."""

from __future__ import annotations

from campus.events import Event, RoomStatus, ToolCalled, ToolResult, WalkwayStatus, WorldChanged
from campus.replays.detectors import Finding, blind_retries, stale_state

DAY = 21
DATE = "Week 3, Monday"
ROOM = f"B001|208|{DATE}"
CLOSE = RoomStatus(building_id="B001", room_id="208", day=DAY, old="open", new="closed")


def call(n: int, tool: str, **args: object) -> ToolCalled:
    return ToolCalled(call_id=f"c{n}", task_id="t", tool=tool, args=dict(args))


def result(n: int, ok: bool = True) -> ToolResult:
    return ToolResult(call_id=f"c{n}", status="ok" if ok else "error", message="")


def book(n: int) -> ToolCalled:
    return call(n, "reservation.make_booking", location_id="B001", item_name="Study Room (208)", date=DATE,
                time_slot="18:00-19:00", seat_id="B001-208-S001")


def look(n: int) -> ToolCalled:
    return call(n, "reservation.query_availability", location_id="B001", date=DATE)


def changed(cause: int, change: object = CLOSE) -> WorldChanged:
    return WorldChanged(change_id="r#1", change=change, rule="r", cause=cause)  # type: ignore[arg-type]


def logged(*events: Event) -> list[tuple[int, Event]]:
    return list(enumerate(events, 1))


def test_a_write_after_an_unseen_change_is_stale() -> None:
    events = logged(look(1), result(1), changed(0), book(2), result(2, ok=False))
    assert stale_state(events) == [Finding(detector="stale_state", seq=4, entity=ROOM, kind="write_after_change")]


def test_a_look_after_the_change_clears_it() -> None:
    assert stale_state(logged(look(1), result(1), changed(0), look(2), result(2), book(3), result(3))) == []


def test_a_change_fired_by_the_read_itself_is_seen_by_that_read() -> None:
    assert stale_state(logged(look(1), changed(1), result(1), book(2), result(2))) == []


def test_a_change_fired_by_the_write_itself_makes_the_write_stale() -> None:
    found = stale_state(logged(book(1), changed(1), result(1, ok=False)))
    assert [f.kind for f in found] == ["write_after_change"]


def test_a_write_undone_later_and_never_checked_is_stale() -> None:
    found = stale_state(logged(book(1), result(1), changed(0)))
    assert [(f.seq, f.kind) for f in found] == [(1, "unchecked_after_write")]
    assert stale_state(logged(book(1), result(1), changed(0), look(2), result(2))) == []


def test_a_change_to_another_entity_is_not_stale() -> None:
    other = RoomStatus(building_id="B002", room_id="208", day=DAY, old="open", new="closed")
    assert stale_state(logged(changed(0, other), book(1), result(1))) == []


def test_a_walk_over_a_closed_walkway_is_stale_until_the_map_is_read() -> None:
    closed = WalkwayStatus(a="B002", b="B001", old="open", new="closed")
    walk = call(2, "geography.walk_to", path_info={"path": ["B003", "B002", "B001"]})
    route = call(1, "map.find_optimal_path", source_building_id="B003", target_building_id="B001")
    assert [f.entity for f in stale_state(logged(changed(0, closed), walk, result(2, ok=False)))] == ["B001~B002"]
    assert stale_state(logged(changed(0, closed), route, result(1), walk, result(2))) == []


def test_blind_retries_fire_at_the_third_identical_failure_only() -> None:
    events = logged(book(1), result(1, ok=False), book(2), result(2, ok=False), book(3), result(3, ok=False))
    assert blind_retries(events) == [Finding(detector="blind_retry", seq=5, entity="reservation.make_booking")]
    assert blind_retries(events[:4]) == []


def test_retries_that_differ_or_succeed_are_not_blind() -> None:
    other = call(2, "reservation.make_booking", location_id="B001", item_name="Study Room (208)", date=DATE,
                 time_slot="19:00-20:00", seat_id="B001-208-S001")
    assert blind_retries(logged(book(1), result(1, ok=False), other, result(2, ok=False), book(3), result(3, ok=False))) == []
    assert blind_retries(logged(book(1), result(1), book(2), result(2), book(3), result(3))) == []
