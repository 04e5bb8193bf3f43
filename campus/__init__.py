"""campus: an event-sourced university term for evaluating agents.

One installed package; its subpackages are the project's top-level folders (``events``,
``kernel``, ``subsystems``, ``world``, ``scenarios``, ``agents``, ``replays``, ``reports``,
``lab``, ``env``, ``cli``), mapped in ``pyproject.toml``, so the only import name a
``pip install`` adds is ``campus``.

Importing ``campus`` registers the Gymnasium environment ``campus/Term-v0`` when Gymnasium
is already loaded, which is what ``gymnasium.make("campus:campus/Term-v0")`` does first.
It never imports Gymnasium itself: every command starts without it.
"""

from __future__ import annotations

import sys

__version__ = "0.2.0"

GYM_ID = "campus/Term-v0"


def register_gym() -> None:
    """Register ``campus/Term-v0`` with Gymnasium (once); also the ``gymnasium.envs`` entry point."""
    import gymnasium

    if GYM_ID not in gymnasium.registry:
        gymnasium.register(id=GYM_ID, entry_point="campus.env.environment:Env")


if sys.modules.get("gymnasium") is not None:
    register_gym()
