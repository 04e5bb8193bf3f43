"""The no-op agent: finishes every task at once. The floor every other agent must beat."""

from __future__ import annotations

from campus.kernel.agent import AgentView, Reply


class NoopAgent:
    name = "noop"

    def act(self, view: AgentView) -> Reply:
        return "<action>Action: finish()</action>"
