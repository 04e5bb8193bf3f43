"""Where a run's world and term come from: whether this campus makes them again from the names they carry.

``verify`` shows that a log is a faithful play of the world and term stored with it; it cannot tell whether that
term is the one its name claims. A run played through the Python API on a hand-edited term named ``term-0`` (a
judge's ground truth changed, the held-at-start mark removed) verifies like any other. Provenance answers the other
question: this campus regenerates the world and term from what they say they are (a generated world's seed and
scale, the published data when given, a term's seed, scale and families, the run's rules version) and compares
hashes. A term made by an older generator differs as an edited one does: the verdict says what this campus makes,
and a reader checks a published run with the campus version it names."""

from __future__ import annotations

import re
from typing import Literal

import msgspec

from campus.events import RULES_VERSION, canonical
from campus.events.codec import rules_of
from campus.replays.verify import lineage_root
from campus.scenarios.play import Run
from campus.scenarios.task import Term, decode_term
from campus.scenarios.term import generate_term
from campus.world.index import WorldIndex
from campus.world.model import World

Verdict = Literal["reproduced", "differs", "unchecked"]
"""``reproduced``: this campus makes exactly this from its name; ``differs``: it makes something else (edited, or
made by another version); ``unchecked``: nothing to compare with (a name campus does not make, or published data not
given)."""

DISRUPTIONS, BUSY_DAYS, CHECK_INS = "disruptions", "busy_days", "memory_check_in"
"""The scenarios of the families a term can be made with or without (``generate_term``'s switches)."""

_SCALE = r"(?:-x(\d+(?:\.\d+)?(?:e[+-]?\d+)?))?"
"""A scale as the names write it (``f"{scale:g}"`` or ``str(scale)``): every match is a float."""
_TERM_NAME = re.compile(r"term-(\d+)" + _SCALE)
_WORLD_NAME = re.compile(r"generated-(\d+)" + _SCALE)


class Origin(msgspec.Struct, frozen=True, kw_only=True):
    verdict: Verdict
    detail: str
    generator: int | None = None
    """A generated world reproduced by an older world generator than this campus's (``--world generated@N``)."""


class Recipe(msgspec.Struct, frozen=True, kw_only=True):
    """``generate_term``'s arguments (besides the world) and the run's rules version."""

    seed: int
    scale: float
    disruptions: bool
    busy: bool
    check_ins: bool
    rules: int

    def options(self) -> str:
        """The ``campus run`` options that make a term of this recipe."""
        return " ".join([f"--seed {self.seed}"] + ([f"--scale {self.scale:g}"] if self.scale != 1 else [])
                        + ([] if self.disruptions else ["--no-disruptions"]) + ([] if self.busy else ["--no-busy-days"])
                        + (["--check-ins"] if self.check_ins else []))

    def families(self) -> str:
        made = [name for name, on in (("disruptions", self.disruptions), ("busy days", self.busy),
                                      ("check-ins", self.check_ins)) if on]
        return "with " + ", ".join(made) if made else "without disruptions, busy days or check-ins"


class Provenance(msgspec.Struct, frozen=True, kw_only=True):
    world: Origin
    term: Origin
    command: str | None = None
    """The ``campus run`` options that start a run on this world and term, when both are reproduced."""

    @property
    def reproduced(self) -> bool:
        return self.world.verdict == self.term.verdict == "reproduced"


def provenance(world: WorldIndex, term: Term, run_seed: int, config: dict[str, object],
               published: World | None = None) -> Provenance:
    """Whether this campus makes ``world`` and ``term`` from their names, for a run played with ``run_seed`` under
    ``config``. ``published``: the StuLife world as imported from its data, to compare a published world with. The
    term is made again on ``world`` itself, whose lookups a run has built already."""
    world_origin = world_provenance(world.world, published)
    term_origin, recipe = term_provenance(world, term, run_seed, rules_of(config))
    command = None
    if recipe is not None and world_origin.verdict == term_origin.verdict == "reproduced":
        command = recipe.options() + _world_option(world.world, recipe.seed, world_origin.generator)
    return Provenance(world=world_origin, term=term_origin, command=command)


def run_provenance(run: Run, published: World | None = None) -> Provenance:
    """``provenance`` of a stored run: its lineage's root term with the root's seed and rules, and, on a fork that
    plays a term of its own (a lifelong probe's, made from the run), that term too: the worse of the two verdicts
    stands. A fork is no ``campus run``, so it has no command. Until a fork's own term was checked, a fork at seq 0
    carrying an edited copy of its root's term under the root's name verified ``--strict`` as reproduced."""
    root = lineage_root(run)
    if root.term_hash == run.branch.term_hash:
        return provenance(run.world, run.term, root.seed, root.config, published)
    found = provenance(run.world, decode_term(run.store.get_blob(root.term_hash), root.schema), root.seed,
                       root.config, published)
    own, _ = term_provenance(run.world, run.term, root.seed, rules_of(root.config))
    verdict = max(found.term.verdict, own.verdict, key=_SEVERITY.index)
    detail = f"this fork plays a term of its own: {own.detail}; its lineage's root: {found.term.detail}"
    return Provenance(world=found.world, term=Origin(verdict=verdict, detail=detail))


_SEVERITY: tuple[Verdict, ...] = ("reproduced", "unchecked", "differs")


def _world_option(world: World, seed: int, generator: int | None) -> str:
    """The ``--world`` option that makes ``world`` again beside ``--seed seed`` (none for the seed's own campus)."""
    if world.name == "stulife":
        return " --world stulife:DIR"
    source = "generated" + (f":{world.seed}" if world.seed != seed else "") + (f"@{generator}" if generator else "")
    return f" --world {source}" if source != "generated" else ""


def world_provenance(world: World, published: World | None = None) -> Origin:
    """A generated world against ``generate_world`` of its seed and scale; the published one against ``published``."""
    from campus.world.generate import WORLD_GENERATOR, WORLD_GENERATORS, generate_world

    if world.name == "stulife" and world.seed is None:
        if published is None:
            return Origin(verdict="unchecked", detail="the published StuLife world: --world stulife:DIR compares "
                                                      "it with the data")
        if published.hash == world.hash:
            return Origin(verdict="reproduced", detail="the published StuLife world, as imported from the data given")
        return Origin(verdict="differs", detail="not the StuLife world the data given imports to: "
                                                + _first_difference(published, world))
    match = _WORLD_NAME.fullmatch(world.name)
    if match is None or world.seed != int(match[1]):
        return Origin(verdict="unchecked", detail=f"a world named {world.name!r}, not one campus makes by name")
    scale = float(match[2] or 1)
    try:
        again = generate_world(world.seed, scale)
    except ValueError as error:
        return Origin(verdict="differs", detail=f"this campus makes no world {world.name!r}: {error}")
    named = f"the generated world of seed {world.seed}" + (f" at scale {scale:g}" if scale != 1 else "")
    if again.hash == world.hash:
        return Origin(verdict="reproduced", detail=named)
    for generator in sorted(set(WORLD_GENERATORS) - {WORLD_GENERATOR}, reverse=True):
        if generate_world(world.seed, scale, generator).hash == world.hash:
            return Origin(verdict="reproduced", detail=f"{named}, as world generator {generator} made it (this "
                                                       f"campus generates with {WORLD_GENERATOR})", generator=generator)
    return Origin(verdict="differs", detail=f"not the world this campus generates as {world.name!r}: "
                                            + _first_difference(again, world))


def term_provenance(world: WorldIndex, term: Term, run_seed: int,
                    rules: int = RULES_VERSION) -> tuple[Origin, Recipe | None]:
    """The term against what ``generate_term`` makes on ``world`` for the seed and scale its name carries and the
    families it holds; with the recipe that made it when reproduced."""
    match = _TERM_NAME.fullmatch(term.name)
    if match is None or term.seed != int(match[1]):
        return Origin(verdict="unchecked", detail=f"a term named {term.name!r}, not one campus makes by name"), None
    if run_seed != term.seed:
        return Origin(verdict="differs", detail=f"{term.name} was made for seed {term.seed} but played with seed "
                                                f"{run_seed} (campus plays a term with its own seed)"), None
    recipe = _recipe(term, float(match[2] or 1), rules)
    try:
        again = generate_term(world, recipe.seed, recipe.scale, disruptions=recipe.disruptions, busy=recipe.busy,
                              check_ins=recipe.check_ins, rules_version=recipe.rules)
    except ValueError as error:
        return Origin(verdict="differs", detail=f"this campus makes no term {term.name} on this world: {error}"), None
    if again.hash == term.hash:
        return Origin(verdict="reproduced", detail=f"{term.name} {recipe.families()}, for rules version {rules}"), recipe
    return Origin(verdict="differs", detail=f"not the term this campus makes as {term.name} {recipe.families()}: "
                                            f"{_term_difference(again, term)}"), None


def _recipe(term: Term, scale: float, rules: int) -> Recipe:
    """The recipe the term's families show: a family made at all draws at least one task (``TermContext.count``)."""
    held = {task.scenario for task in term.tasks}
    return Recipe(seed=term.seed, scale=scale, disruptions=DISRUPTIONS in held or bool(term.rules),
                  busy=BUSY_DAYS in held, check_ins=CHECK_INS in held, rules=rules)


def _term_difference(made: Term, stored: Term) -> str:
    """Which tasks differ between the term campus makes and the stored one, in words."""
    ours = {task.id: canonical(task) for task in made.tasks}
    theirs = {task.id: canonical(task) for task in stored.tasks}
    missing, extra = sorted(ours.keys() - theirs.keys()), sorted(theirs.keys() - ours.keys())
    changed = [task.id for task in stored.tasks if task.id in ours and ours[task.id] != theirs[task.id]]
    parts = []
    if changed:
        fields = _changed_fields(made.by_id[changed[0]], stored.by_id[changed[0]])
        parts.append(f"{len(changed)} of its {len(stored.tasks)} tasks changed (first {changed[0]}: {fields})")
    if missing:
        parts.append(f"{len(missing)} missing (first {missing[0]})")
    if extra:
        parts.append(f"{len(extra)} added (first {extra[0]})")
    if canonical(made.world_changes) != canonical(stored.world_changes):
        parts.append("its world changes differ")
    if canonical(made.rules) != canonical(stored.rules):
        parts.append("its trigger rules differ")
    if made.world_hash != stored.world_hash:
        parts.append("it names another world")
    return "; ".join(parts) or "its encoding differs"


def _changed_fields(made: msgspec.Struct, stored: msgspec.Struct) -> str:
    """The fields of two structs of one type whose canonical encodings differ (a decoded struct holds lists where a
    made one may hold tuples, and dicts in another key order)."""
    ours, theirs = msgspec.structs.asdict(made), msgspec.structs.asdict(stored)
    return ", ".join(name for name in ours if canonical(ours[name]) != canonical(theirs[name])) or "its encoding"


def _first_difference(made: World, stored: World) -> str:
    return f"{_changed_fields(made, stored)} differ"
