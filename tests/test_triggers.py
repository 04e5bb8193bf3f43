"""The trigger engine: compare-and-set firing, skips, guarded rules, activation, and the abstention judge's classes."""

from __future__ import annotations

from campus.events import FeatureLost, RoomStatus, SeatFeatures, ToolCalled, TriggerSkipped, WorldChanged
from campus.kernel.triggers import (AfterOpen, ArgIs, AtTime, Guarded, OnEvent, OnRead, Rule, RuleIndex, TaskIs, activated, armed,
                                    bound_task, fire)
from campus.scenarios.disruptions import classify
from campus.scenarios.play import build_kernel, load_world
from campus.subsystems.reservation import libraries, seat_now
from campus.world.model import SEAT_FEATURES


def _setup():  # type: ignore[no-untyped-def]
    world = load_world("generated", 0)
    kernel = build_kernel(world)
    place = libraries(world).places[0]
    room = next(r for r in place.rooms if r.seats)
    return world, kernel, kernel.projection.initial(), place, room, room.seats[0]


def test_a_change_whose_old_value_holds_fires_and_is_applied() -> None:
    world, kernel, state, place, room, seat = _setup()
    change = SeatFeatures(building_id=place.building_id, room_id=room.id, seat_id=seat.id,
                          old=tuple(seat.features), new=())
    rule = Rule(id="r1", sub_type="S3", activation=AtTime(t=10), mutations=(change,))
    events = fire(rule, state, world, kernel.guards, cause=7)
    assert [type(e) for e in events] == [WorldChanged]
    assert events[0].rule == "r1" and events[0].cause == 7  # type: ignore[attr-defined]
    kernel.projection.apply(state, 1, 10, events[0])
    assert state.reservation.features[seat.id] == ()
    assert state.rules.fired == {"r1": 1} and state.rules.versions == {seat.id: 1}
    assert not armed(rule, state.rules, [], "")
    again = fire(rule, state, world, kernel.guards, cause=8)
    assert isinstance(again[0], TriggerSkipped) and "not" in again[0].reason


def test_seats_lose_a_feature_together_and_get_it_back_as_they_were() -> None:
    """``FeatureLost``: one change for many seats; the listing's view of each (``seat_now``) loses just that feature,
    the undoing leaves no override, and a seat an undone ``SeatFeatures`` left as the world has it still counts as
    having the feature."""
    world, kernel, state, place, room, _ = _setup()
    feature = next(f for s in room.seats for f in s.features)
    having = [s for s in room.seats if feature in s.features][:3]
    seats = tuple(s.id for s in having)
    undone = SeatFeatures(building_id=place.building_id, room_id=room.id, seat_id=seats[0], old=tuple(having[0].features),
                          new=tuple(having[0].features))
    kernel.projection.apply(state, 1, 5, fire(Rule(id="s3", sub_type="S3", activation=AtTime(t=5), mutations=(undone,)),
                                              state, world, kernel.guards, 0)[0])
    lose = FeatureLost(building_id=place.building_id, feature=feature, seats=seats, old=True, new=False)
    events = fire(Rule(id="lose", sub_type="S3", activation=AtTime(t=10), mutations=(lose,)), state, world, kernel.guards, 1)
    assert [type(e) for e in events] == [WorldChanged]
    kernel.projection.apply(state, 2, 10, events[0])
    for seat in having:
        assert seat_now(state.reservation, seat).features == [f for f in seat.features if f != feature]
    assert all(state.rules.versions[seat_id] >= 1 for seat_id in seats)
    again = fire(Rule(id="lose2", sub_type="S3", activation=AtTime(t=11), mutations=(lose,)), state, world, kernel.guards, 2)
    assert isinstance(again[0], TriggerSkipped) and f"does not have {feature}" in again[0].reason
    back = FeatureLost(building_id=place.building_id, feature=feature, seats=seats, old=False, new=True)
    kernel.projection.apply(state, 3, 12, fire(Rule(id="back", sub_type="S3", activation=AtTime(t=12), mutations=(back,)),
                                               state, world, kernel.guards, 3)[0])
    assert all(seat_id not in state.reservation.features for seat_id in seats)
    assert all(seat_now(state.reservation, seat) is seat for seat in having)


def test_a_stale_old_value_skips_the_whole_rule() -> None:
    world, kernel, state, place, room, seat = _setup()
    good = RoomStatus(building_id=place.building_id, room_id=room.id, day=21, old="open", new="closed")
    bad = RoomStatus(building_id=place.building_id, room_id=room.id, day=22, old="closed", new="open")
    events = fire(Rule(id="r", sub_type="S1", activation=AtTime(t=1), mutations=(good, bad)), state, world, kernel.guards, 3)
    assert len(events) == 1 and isinstance(events[0], TriggerSkipped)


def test_a_guarded_rule_still_in_effect_adds_nothing() -> None:
    world, kernel, state, place, room, seat = _setup()
    change = RoomStatus(building_id=place.building_id, room_id=room.id, day=21, old="open", new="closed")
    rule = Rule(id="g", sub_type="S1", activation=AtTime(t=1), mutations=(change,), mode=Guarded(recovery=(TaskIs(task_id="x"),)))
    first = fire(rule, state, world, kernel.guards, 0)
    kernel.projection.apply(state, 1, 1, first[0])
    assert fire(rule, state, world, kernel.guards, 0) == []
    assert armed(rule, state.rules, [], "x")


def test_activation_on_read_needs_the_tool_the_task_and_the_argument() -> None:
    rule = Rule(id="r", sub_type="S1", activation=OnRead(tool="reservation.query_availability",
                where=(TaskIs(task_id="t1"), ArgIs(name="location_id", value="B001"))), mutations=())
    call = ToolCalled(call_id="c", task_id="t1", tool="reservation.query_availability", args={"location_id": " b001 "})
    assert activated(rule, "t1", call, read=True)
    assert not activated(rule, "t2", call, read=True)
    assert not activated(rule, "t1", call, read=False)
    other = ToolCalled(call_id="c", task_id="t1", tool="reservation.make_booking", args={"location_id": "B001"})
    assert not activated(rule, "t1", other, read=True)


def test_blocking_entities_are_classified_by_their_shape() -> None:
    assert classify("B001-West Wing-S012") == "seat"
    assert classify("B001-B002") == "walkway"
    assert classify("Quiet Study Zone (West Wing)", ["Quiet Study Zone (West Wing)"]) == "room"
    assert classify("B001") == "library"
    assert classify("the projector") == "other"


def test_a_term_refuses_a_rule_that_could_never_fire() -> None:
    import pytest

    from campus.scenarios.term import check_rules

    world, _, _, place, room, seat = _setup()
    good = SeatFeatures(building_id=place.building_id, room_id=room.id, seat_id=seat.id, old=tuple(seat.features), new=())
    check_rules(world, [Rule(id="ok", sub_type="S3", activation=AtTime(t=1), mutations=(good,))])
    with pytest.raises(ValueError, match="changes nothing"):
        check_rules(world, [Rule(id="empty", sub_type="S3", activation=AtTime(t=1), mutations=())])
    stray = SeatFeatures(building_id=place.building_id, room_id=room.id, seat_id="no-such-seat", old=(), new=())
    with pytest.raises(ValueError, match="trigger rule stray could never fire"):
        check_rules(world, [Rule(id="stray", sub_type="S3", activation=AtTime(t=1), mutations=(stray,))])
    missing = next(f for f in SEAT_FEATURES if f not in seat.features)
    lacking = FeatureLost(building_id=place.building_id, feature=missing, seats=(seat.id,), old=True, new=False)
    with pytest.raises(ValueError, match=f"has no {missing} to lose"):
        check_rules(world, [Rule(id="lacking", sub_type="S3", activation=AtTime(t=1), mutations=(lacking,))])


def test_the_rule_index_gives_a_tasks_own_rules_and_the_unbound_ones_in_term_order() -> None:
    def rule(rule_id: str, activation: object) -> Rule:
        return Rule(id=rule_id, sub_type="S1", activation=activation, mutations=())  # type: ignore[arg-type]

    rules = [rule("clock", AtTime(t=5)), rule("read-t1", OnRead(tool="reservation.", where=(TaskIs(task_id="t1"),))),
             rule("open-t2", AfterOpen(task_id="t2", minutes=1)), rule("end-t1", OnEvent(kind="task_ended", where=(TaskIs(task_id="t1"),))),
             rule("any-booking", OnEvent(kind="booked"))]
    index = RuleIndex(rules)
    assert [r.id for r in index.for_task("t1")] == ["clock", "read-t1", "end-t1", "any-booking"]
    assert [r.id for r in index.for_task("t2")] == ["clock", "open-t2", "any-booking"]
    assert [r.id for r in index.for_task("t3")] == ["clock", "any-booking"]
    assert [bound_task(r) for r in rules] == [None, "t1", "t2", "t1", None]
