"""A run played on inputs just made and the same run read back from its store see their mappings in one order.

A store keeps the canonical encoding, which sorts a mapping's keys; a world or term just made keeps the order its
maker filled them in, and a state folded from the log the order events came in. A red-team found a call listing a
building's floors recorded in one order live and re-executed in another by verify, and a fork past a snapshot
listing errands otherwise than its verify: both runs failed verify."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from campus.env import Env
from campus.events import ToolResult
from campus.kernel.store import SQLiteStore
from campus.kernel.tasks import events_of
from campus.world.generate import generate_world
from campus.world.model import World, decode_world
from campus.world.stulife import load_stulife
from tests.conftest import SHARED
from tests.test_cli import campus


def _in_key_order(world: World) -> bool:
    return all(list(b.amenities) == sorted(b.amenities) for b in world.buildings) and \
        all(list(p.properties) == sorted(p.properties) for p in world.paths)


def test_a_generated_world_is_made_in_the_order_a_store_gives_it_back() -> None:
    world = generate_world(0)
    again = decode_world(world.encoded)
    assert world == again and _in_key_order(world) and _in_key_order(again)
    assert [list(b.amenities) for b in world.buildings] == [list(b.amenities) for b in again.buildings]
    assert generate_world(0, generator=1).hash == "56eae30fb41af5ee8d1a959c35218f1c4d50358a5fa6ac43277aee502522969a"


@pytest.mark.skipif(not (SHARED / "stulife").is_dir(), reason="needs ../shared/stulife")
def test_the_published_world_is_made_in_the_order_a_store_gives_it_back() -> None:
    world = load_stulife(SHARED / "stulife")[0]
    assert _in_key_order(world) and world == decode_world(world.encoded)


@pytest.mark.parametrize("reply", [
    'map.get_building_details(building_id="B007")',
    'map.find_room_location(room_query="o", building_id="B007")',
])
def test_a_fresh_run_listing_a_buildings_floors_verifies(tmp_path: Path, reply: str) -> None:
    floors = next(b for b in generate_world(0).buildings if b.id == "B007").amenities
    assert len(floors) > 1 and "all_floors" in floors  # made after its floors, it sorts before them
    db = tmp_path / "runs.db"
    env = Env(seed=0, scale=0.02, db=str(db))
    env.reset()
    observation, *_ = env.step(f"<action>Action: {reply}</action>")
    name = env.run.branch.id
    env.close()
    assert "floor_1" in observation
    done = campus("verify", name, "--db", str(db), "--no-provenance", cwd=tmp_path, check=False)
    assert done.returncode == 0 and done.stdout.startswith(f"verified {name}"), done.stdout + done.stderr


def test_a_fork_past_a_snapshot_lists_errands_as_its_verify_does(tmp_path: Path) -> None:
    """The oracle at --scale 0.05 stores a snapshot at seq 1,000; a busy day's errands 6 and 7 arrive (asked, handed
    out at a meeting) before 4 (by step 1,080 on world generator 3's term), so the folded state holds them out of key
    order and a snapshot sorts them."""
    db = str(tmp_path / "runs.db")
    campus("run", "--agent", "oracle", "--scale", "0.05", "--db", db, cwd=tmp_path)
    campus("fork", "oracle-s0", "--db", db, "--at-step", "1080", "--reply", "<action>Action: errands.inbox()</action>",
           "--name", "inbox", "--max-steps", "1", cwd=tmp_path)
    done = campus("verify", "inbox", "--db", db, "--no-provenance", cwd=tmp_path, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    store = SQLiteStore(db)
    result = events_of(store, "inbox", ToolResult)[-1]
    store.close()
    listed = re.findall(r"\[(e\d+-\d+)\]", result.message)
    numbers = [tuple(map(int, errand[1:].split("-"))) for errand in listed]
    assert len(listed) >= 5 and numbers == sorted(numbers), listed  # rules 3: by number
