"""Error-mode detectors on hand-built logs: each must fire where it should and nowhere else."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from campus.events import (
    Event,
    InfeasibleReported,
    Popularity,
    RoomHours,
    RoomStatus,
    SeatFeatures,
    Span,
    TaskEnded,
    ToolCalled,
    ToolResult,
    WalkwayStatus,
    WorldChanged,
)
from campus.kernel.triggers import entities
from campus.replays.detectors import (
    DETECTORS,
    TRIGGER_CHANGES,
    Finding,
    Tally,
    TaskLog,
    _blind_retries,
    _misdiagnosis,
    _stale_state,
    _unverified,
    blind_retries,
    detect,
    misdiagnosis,
    names,
    stale_state,
    unverified,
    written,
)

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


# ------------------------------------------------------------------ missing post-adaptation verification


def rebook(n: int) -> ToolCalled:
    return call(n, "reservation.make_booking", location_id="B001", item_name="Quiet Room (209)", date=DATE,
                time_slot="18:00-19:00", seat_id="B001-209-S004")


def test_a_rebooking_after_a_change_that_nothing_reads_again_is_unverified() -> None:
    events = logged(look(1), changed(1), result(1), rebook(2), result(2))
    assert unverified(events) == [Finding(detector="unverified", seq=4, entity=f"B001|209|{DATE}")]


def test_a_look_after_the_rebooking_verifies_it() -> None:
    assert unverified(logged(look(1), changed(1), result(1), rebook(2), result(2), look(3), result(3))) == []


def test_a_look_at_another_library_or_date_does_not_verify_it() -> None:
    elsewhere = call(3, "reservation.query_availability", location_id="B002", date=DATE)
    other_day = call(3, "reservation.query_availability", location_id="B001", date="Week 3, Tuesday")
    for probe in (elsewhere, other_day):
        assert [f.seq for f in unverified(logged(look(1), changed(1), result(1), rebook(2), result(2), probe, result(3)))] == [4]


def test_only_a_booking_made_after_looking_again_needs_verification() -> None:
    assert unverified(logged(rebook(1), result(1), changed(0))) == []  # the plan, then the change: stale_state's case
    assert unverified(logged(changed(0), rebook(1), result(1))) == []  # never looked: not adapting, stale_state's case
    assert unverified(logged(changed(0), look(1), result(1), rebook(2), result(2, ok=False))) == []  # failed
    assert unverified(logged(look(1), result(1), rebook(2), result(2))) == []  # no trigger at all


def test_an_undoing_after_the_task_ended_is_no_change_of_the_task() -> None:
    end = TaskEnded(task_id="t", outcome="success", reason="finish", turns=1)
    assert unverified(logged(rebook(1), result(1), end, changed(3))) == []


# ------------------------------------------------------------------ misdiagnosis


def report(n: int, *blocked: str) -> list[Event]:
    return [call(n, "task.report_infeasible", reason="no room", blocked_by=list(blocked)),
            InfeasibleReported(task_id="t", reason="no room", blocked_by=list(blocked)), result(n)]


def test_blaming_the_changed_room_is_a_diagnosis() -> None:
    for blamed in ("208", "Study Room (208)", "B001|208", " study room  (208) "):
        assert misdiagnosis(logged(look(1), changed(1), result(1), *report(2, blamed))) == [], blamed


def test_blaming_the_library_or_another_room_is_a_misdiagnosis() -> None:
    for blamed in ("B001", "209", "B001-208-S001"):
        found = misdiagnosis(logged(look(1), changed(1), result(1), *report(2, blamed)))
        assert [(f.seq, f.kind) for f in found] == [(5, "blocked_by")], blamed


def test_a_report_when_nothing_changed_blames_what_no_trigger_touched() -> None:
    assert [f.kind for f in misdiagnosis(logged(look(1), result(1), *report(2, "208")))] == ["blocked_by"]


def test_a_walkway_is_named_either_way_round() -> None:
    closed = WalkwayStatus(a="B002", b="B001", old="open", new="closed")
    assert names("B001-B002", "B001~B002") and names("b002 - b001", "B001~B002") and not names("B001-B003", "B001~B002")
    assert misdiagnosis(logged(changed(0, closed), *report(1, "B002-B001"))) == []


def test_repairing_a_closed_walkway_with_bookings_only_is_a_misdiagnosis() -> None:
    closed = WalkwayStatus(a="B002", b="B001", old="open", new="closed")
    walk = call(2, "geography.walk_to", path_info={"path": ["B003", "B004", "B001"]})
    route = call(1, "map.find_optimal_path", source_building_id="B003", target_building_id="B001")
    only_bookings = misdiagnosis(logged(changed(0, closed), route, result(1), rebook(3), result(3)))
    assert [(f.seq, f.kind, f.entity) for f in only_bookings] == [(4, "recovery", "B001~B002")]
    assert misdiagnosis(logged(changed(0, closed), route, result(1), rebook(3), result(3), walk, result(2))) == []
    assert misdiagnosis(logged(changed(0, closed), rebook(3), result(3))) == []  # never looked again: stale, not misdiagnosed


def test_a_rebooking_after_a_room_change_is_the_right_repair() -> None:
    assert misdiagnosis(logged(look(1), changed(1), result(1), rebook(2), result(2))) == []
    email = call(2, "email.send_email", to="a@b", subject="s", body="I booked B001-209-S004")
    assert [f.kind for f in misdiagnosis(logged(look(1), changed(1), result(1), email, result(2)))] == ["recovery"]


# ------------------------------------------------------------------ one pass against each part gathered again


def _changes(events: list[tuple[int, Event]]) -> list[tuple[float, str]]:
    calls = {seq for seq, e in events if isinstance(e, ToolCalled)}
    out: list[tuple[float, str]] = []
    for seq, event in events:
        if isinstance(event, TaskEnded):
            break
        if isinstance(event, WorldChanged) and event.rule and isinstance(event.change, TRIGGER_CHANGES):
            out += [(event.cause - 0.5 if event.cause in calls else float(seq), key) for _, key in entities(event.change)]
    return out


def _failed(events: list[tuple[int, Event]]) -> set[int]:
    by_id = {e.call_id: seq for seq, e in events if isinstance(e, ToolCalled)}
    return {by_id[e.call_id] for _, e in events if isinstance(e, ToolResult) and e.status != "ok" and e.call_id in by_id}


def _recovery(events: list[tuple[int, Event]]) -> list[tuple[int, ToolCalled]]:
    changes = _changes(events)
    if not changes:
        return []
    first, failed = min(at for at, _ in changes), _failed(events)
    calls = [(seq, e) for seq, e in events if isinstance(e, ToolCalled) and seq not in failed]
    looked = next((seq for seq, e in calls if seq > first and not written(e)), None)
    return [] if looked is None else [(seq, e) for seq, e in calls if seq > looked and written(e)]


def _reference(events: list[tuple[int, Event]]) -> dict[str, list[Finding]]:
    """The detectors given what each gathered for itself before ``TaskLog`` (reading the task's events again for each
    part): the calls, the failed ones, the rules' changes, the reports and the recovery writes. ``detect``'s one pass must
    find the same."""
    gathered = TaskLog.__new__(TaskLog)
    gathered.events, gathered.failed, gathered.changes = events, _failed(events), _changes(events)
    gathered.calls = [(seq, e) for seq, e in events if isinstance(e, ToolCalled)]
    gathered.reports = [(seq, e) for seq, e in events if isinstance(e, InfeasibleReported)]
    recovery = _recovery(events)
    return {"stale_state": _stale_state(gathered), "blind_retry": _blind_retries(gathered),
            "unverified": _unverified(gathered, recovery), "misdiagnosis": _misdiagnosis(gathered, recovery)}


_ROOMS = ("Study Room (208)", "Quiet Room (207)")
_DATES = (DATE, "Week 3, Tuesday")
_CHANGES = (CLOSE, RoomStatus(building_id="B001", room_id="207", day=DAY, old="open", new="closed"),
            RoomHours(building_id="B001", room_id="208", day=DAY + 1, old=Span(start=480, end=1320), new=Span(start=600, end=1200)),
            SeatFeatures(building_id="B001", room_id="208", seat_id="B001-208-S001", old=("power_outlet",), new=()),
            WalkwayStatus(a="B002", b="B001", old="open", new="closed"), Popularity(code="CS101", value=90))


@st.composite
def _task_logs(draw: st.DrawFn) -> list[tuple[int, Event]]:
    """A task's events from a small alphabet, in any order: calls that name the same rooms, seats, dates and walkways, their
    results (some failed, some for no call), failed retries, rules' changes caused by a call or the clock (or by no rule),
    reports and an end."""
    events: list[Event] = []
    for _ in range(draw(st.integers(0, 24))):
        answered = draw(st.booleans())  # a call with its own id, answered at once (ok or failed), or one that may share an id
        n = 10 + len(events) if answered else draw(st.integers(1, 6))
        kind = draw(st.sampled_from(["book", "look", "path", "walk", "mail", "result", "change", "report", "end", "retry"]))
        if kind == "retry":  # the same failing booking again, under a call id of its own
            events += [book(10 + len(events)), result(10 + len(events), ok=False)]
        elif kind == "book":
            seat = draw(st.sampled_from(["", "B001-208-S001", "B001-207-S002"]))
            events.append(call(n, "reservation.make_booking", location_id=draw(st.sampled_from(["B001", "B002"])),
                               item_name=draw(st.sampled_from(_ROOMS)), date=draw(st.sampled_from(_DATES)),
                               time_slot="18:00-19:00", **({"seat_id": seat} if seat else {})))
        elif kind == "look":
            events.append(call(n, "reservation.query_availability", location_id=draw(st.sampled_from(["B001", "B002"])),
                               date=draw(st.sampled_from(_DATES))))
        elif kind == "path":
            events.append(call(n, "map.find_optimal_path", source_building_id="B001", target_building_id="B003"))
        elif kind == "walk":
            events.append(call(n, "geography.walk_to", path_info={"path": draw(st.permutations(["B001", "B002", "B003"]))}))
        elif kind == "mail":
            events.append(call(n, "email.send_email", recipient="a@b", subject="s", body="seat B001-208-S001, please"))
        elif kind == "result":
            events.append(result(n, ok=draw(st.booleans())))
        elif kind == "change":
            events.append(WorldChanged(change_id="r#1", change=draw(st.sampled_from(_CHANGES)),  # type: ignore[arg-type]
                                       rule=draw(st.sampled_from(["r", ""])), cause=draw(st.integers(0, len(events) + 1))))
        elif kind == "report":
            events.append(InfeasibleReported(task_id="t", reason="no", blocked_by=draw(st.lists(
                st.sampled_from(["B001-208-S001", "208", "Study Room (208)", "B001 - B002", "B001"]), max_size=2))))
        else:
            events.append(TaskEnded(task_id="t", outcome="failure", reason="finish", turns=1))
        if answered and kind in ("book", "look", "path", "walk", "mail"):
            events.append(result(n, ok=draw(st.booleans())))
    return logged(*events)


@given(_task_logs())
@settings(max_examples=400, deadline=None)
def test_one_pass_finds_what_each_detector_finds_reading_the_events_again(events: list[tuple[int, Event]]) -> None:
    reference = _reference(events)
    assert detect(events) == reference
    assert (stale_state(events), blind_retries(events), unverified(events), misdiagnosis(events)) == tuple(reference.values())
    tally = Tally()
    tally.add(events)
    assert tally.calls == sum(isinstance(e, ToolCalled) for _, e in events)
    assert {name: tally.detectors[name]["findings"] for name in DETECTORS} == {k: len(v) for k, v in reference.items()}
