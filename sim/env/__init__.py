"""Learning environments over the simulator's kernel (issue "Learn to play").

- :func:`env` / :func:`raw_env`: the PettingZoo AEC environment (:mod:`sim.env.aec`), seats
  as agents, one step a turn;
- :func:`parallel_env`: the same table as a PettingZoo parallel environment
  (:mod:`sim.env.parallel`);
- :func:`gym_env` (:class:`sim.env.gym.ShitheadGymEnv`): one seat learns, the others play
  the project's strategies (Gymnasium);
- :class:`sim.env.vector.VectorTables`: many tables stepped by one jitted call (NumPy only).

PettingZoo and Gymnasium are the ``rl`` extra (``pip install 'shithead-sim[rl]'``); the
batched environment needs neither. docs/learning.md has a complete example.
"""
from __future__ import annotations

from sim.runs.extras import require


def raw_env(**kwargs):
    """The AEC environment (:class:`sim.env.aec.ShitheadEnv`): ``players``, ``rules``,
    ``rule``, ``swap``, ``max_turns``, ``reward``, ``illegal``, ``render_mode``."""
    require("pettingzoo", "sim.env")
    from sim.env.aec import ShitheadEnv

    return ShitheadEnv(**kwargs)


env = raw_env


def parallel_env(**kwargs):
    """The parallel environment (:class:`sim.env.parallel.ShitheadParallelEnv`)."""
    require("pettingzoo", "sim.env")
    from sim.env.parallel import ShitheadParallelEnv

    return ShitheadParallelEnv(**kwargs)


def gym_env(**kwargs):
    """The Gymnasium environment (:class:`sim.env.gym.ShitheadGymEnv`): ``seat``,
    ``opponents``, ``players`` and the table's settings."""
    require("gymnasium", "sim.env.gym")
    from sim.env.gym import ShitheadGymEnv

    return ShitheadGymEnv(**kwargs)
