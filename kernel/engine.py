"""The assembled machine: domains, their projection, the tool registry and the dispatcher."""

from __future__ import annotations

import difflib
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import msgspec
import structlog

from campus.events import RULES_VERSION
from campus.kernel.clock import label
from campus.kernel.projection import Domain, Projection
from campus.kernel.prompt import system_prompt
from campus.kernel.session import CLOCK, SESSION
from campus.kernel.tools import (Outcome, TextRules, ToolDecl, bind_arguments, bind_texts, fail, prompt_section, text_rules,
                                 wire_name, with_examples)
from campus.kernel.triggers import RULES, guards_of

log = structlog.get_logger("campus.kernel")


class ToolView(msgspec.Struct, frozen=True, kw_only=True):
    """What a handler may read: the static world, the current state (read-only), and context.

    A Struct rather than a frozen dataclass: one is made per tool call, and a frozen
    dataclass takes several times as long to build."""

    world: Any
    state: Any
    task_id: str
    now: int
    seed: int
    rules: int = RULES_VERSION
    """The version of the world's rules the run follows (``campus.events.rules_of``)."""


class Kernel:
    """Domains + projection + tools over one world. Stateless itself: all state is in the log.

    ``examples`` fills the ``<<name>>`` placeholders of the tool texts with this world's names.
    """

    def __init__(
        self,
        world: Any,
        domains: Sequence[Domain],
        *,
        locate: Callable[[Any], str],
        describe: Callable[[str], str],
        system_titles: Mapping[str, str],
        examples: Mapping[str, str] | None = None,
    ) -> None:
        self.world = world
        self.domains = (CLOCK, SESSION, RULES, *domains)
        self.guards = guards_of(self.domains)
        self.projection = Projection(self.domains, world)
        self.tools: dict[str, ToolDecl] = {}
        for domain in domains:
            for tool in domain.tools:
                if tool.name in self.tools:
                    raise ValueError(f"tool {tool.name} is declared twice")
                self.tools[tool.name] = with_examples(tool, examples) if examples else tool
        self._texts: dict[str, TextRules] = {name: text_rules(tool) for name, tool in self.tools.items()}
        self._tools_for: dict[tuple[str, ...], tuple[ToolDecl, ...]] = {}
        self._prompts: dict[tuple[str, ...], str] = {}
        self.locate = locate
        self.describe = describe
        self.system_titles = dict(system_titles)

    @property
    def systems(self) -> list[str]:
        return list(dict.fromkeys(t.system for t in self.tools.values()))

    def spoken(self, name: str) -> bool:
        """Whether the tool's result is a person's words (``ToolDecl.spoken``)."""
        decl = self.tools.get(name)
        return decl is not None and decl.spoken

    def tools_for(self, systems: Sequence[str]) -> tuple[ToolDecl, ...]:
        key = tuple(systems)
        found = self._tools_for.get(key)
        if found is None:
            wanted = set(key)
            found = self._tools_for[key] = tuple(t for t in self.tools.values() if t.system in wanted)
        return found

    def prompt_tools(self, systems: Sequence[str]) -> str:
        return prompt_section(self.tools_for(systems), self.system_titles)

    def prompt(self, systems: tuple[str, ...]) -> str:
        """The system prompt of a task with these systems, made once per kernel."""
        found = self._prompts.get(systems)
        if found is None:
            found = self._prompts[systems] = system_prompt(self.prompt_tools(systems))
        return found

    def dispatch(
        self,
        state: Any,
        *,
        task_id: str,
        name: str,
        args: Mapping[str, Any],
        positional: Sequence[Any] = (),
        systems: Sequence[str],
        seed: int,
        wire: bool = False,
        rules: int = RULES_VERSION,
    ) -> Outcome:
        """Run one tool call against the state, under the run's ``rules`` version. Never raises; a failure carries no facts.

        ``wire``: the call was a native function call, so tools are named by their wire names
        (``map__find_building_id``) in what the caller is told, the way it knows them."""
        tool = self.tools.get(name)
        if tool is None:
            return fail(_unknown_tool(name, [t.shown(wire) for t in self.tools_for(systems)], wire))
        if tool.system not in systems:
            names = ", ".join(t.shown(wire) for t in self.tools_for(systems)) or "none"
            return fail(f"{tool.shown(wire)} is not available in this task. Tools you can use now: {names}.")
        texts = None if positional else bind_texts(self._texts[name], args)
        bound = bind_arguments(tool, args, positional, wire=wire) if texts is None else texts
        if isinstance(bound, str):
            return fail(bound)
        view = ToolView(world=self.world, state=state, task_id=task_id, now=state.now, seed=seed, rules=rules)
        try:
            outcome = tool.call(view, bound)
        except Exception as error:  # a handler bug must not take the run down with it
            log.error("tool handler raised", tool=name, seq=state.seq, time=label(state.now), error=repr(error))
            return fail(f"{name} failed unexpectedly ({type(error).__name__}). Nothing was changed.")
        if not outcome.result.ok:
            return outcome if outcome.minutes == 0 and not outcome.facts else Outcome(result=outcome.result, minutes=0)
        return outcome if outcome.minutes is not None else Outcome(result=outcome.result, facts=outcome.facts, minutes=tool.minutes)


def _unknown_tool(name: str, available: list[str], wire: bool) -> str:
    name = wire_name(name) if wire else name
    guess = difflib.get_close_matches(name, available, n=1)
    hint = f" Did you mean {guess[0]}?" if guess else ""
    listing = ", ".join(available) if available else "none"
    return f"There is no tool named '{name[:60]}'.{hint} Tools you can use now: {listing}."
