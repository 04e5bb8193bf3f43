"""The campus as an environment for agents that live outside it.

``Env`` (``env/environment.py``) is the Python API — ``reset()``/``step(reply)`` with Gymnasium
semantics and text observations — and ``campus mcp`` (``env/mcp_server.py``) serves the same
play over the Model Context Protocol. Both push their caller's replies through the kernel's
``Stepper`` (``env/driver.py``), so their runs are logged, verified and scored like any other.

Importing this package registers ``campus/Term-v0`` with Gymnasium when it is installed:
``gymnasium.make("campus/Term-v0", seed=0, scale=0.1)`` (or ``gymnasium.make("env:campus/Term-v0")``
without importing ``env`` first).
"""

from __future__ import annotations

from env.driver import Driver
from env.environment import Env

GYM_ID = "campus/Term-v0"

__all__ = ["Driver", "Env", "GYM_ID"]

try:
    import gymnasium
except ImportError:
    pass
else:
    if GYM_ID not in gymnasium.registry:
        gymnasium.register(id=GYM_ID, entry_point="env.environment:Env")
