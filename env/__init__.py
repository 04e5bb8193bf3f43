"""The campus as an environment for agents that live outside it.

``Env`` (``env/environment.py``) is the Python API — ``reset()``/``step(reply)`` with Gymnasium
semantics and text observations — and ``campus mcp`` (``env/mcp_server.py``) serves the same
play over the Model Context Protocol. Both push their caller's replies through the kernel's
``Stepper`` (``env/driver.py``), so their runs are logged, verified and scored like any other.

Importing this package registers ``campus/Term-v0`` with Gymnasium when it is installed;
in a fresh interpreter ``gymnasium.make("campus:campus/Term-v0", seed=0, scale=0.1)`` imports
``campus`` first, which registers it.
"""

from __future__ import annotations

from campus import GYM_ID, register_gym
from campus.env.driver import Driver
from campus.env.environment import Env

__all__ = ["Driver", "Env", "GYM_ID"]

try:
    register_gym()
except ImportError:
    pass
