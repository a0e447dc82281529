"""The PettingZoo parallel environment of the same table: every live seat gets its
observation at every step and may send an action, but only the seat to move plays (a turn
game: one step is one turn, as PettingZoo's ``turn_based_aec_to_parallel`` defines it);
the others' actions are ignored and their masks are all 0. ``max_cycles`` (PettingZoo's
name) is R25's turn limit, ``max_turns``. For libraries that take parallel environments
only; :mod:`sim.env.aec` is the natural form of the game."""
from __future__ import annotations

from sim.runs.extras import require

ParallelEnv = require("pettingzoo", "sim.env").ParallelEnv   # the rl extra: one line

from sim.env import core  # noqa: E402
from sim.env.aec import spaces_of  # noqa: E402
from sim.env.spec import TableSpec, agent_name  # noqa: E402
from sim.env.table import Table  # noqa: E402
from sim.kernel.layout import NOUT, OUTORDER, V2  # noqa: E402


class ShitheadParallelEnv(ParallelEnv):
    """:class:`sim.env.aec.ShitheadEnv`'s table as a parallel environment (same settings;
    ``max_cycles`` overrides ``max_turns``). ``infos[agent]["active_agent"]`` names the seat
    to move."""

    metadata = {"name": "shithead_parallel_v0", "render_modes": []}

    def __init__(self, players: int = 4, rules="seed", rule=(), swap="highest-up",
                 max_turns: int = 10_000, reward: str = "place", illegal: str = "raise",
                 max_cycles: int | None = None):
        self.spec_ = TableSpec(players, rules, tuple(rule) if not isinstance(rule, (str, dict))
                               else rule, swap, max_turns if max_cycles is None else max_cycles,
                               reward, illegal)
        self.table = Table(self.spec_)
        self.possible_agents = self.spec_.agents()
        self.agents = []
        self._obs_space, self._act_space = spaces_of(self.spec_)

    def observation_space(self, agent):
        return self._obs_space

    def action_space(self, agent):
        return self._act_space

    def _observations(self):
        t = self.table
        return {a: {"observation": t.observe(s), "action_mask": t.mask(s)}
                for s, a in enumerate(self.possible_agents) if a in self.agents}

    def _infos(self):
        mover = agent_name(self.table.current)
        return {a: {"active_agent": mover} for a in self.agents}

    def reset(self, seed=None, options=None):
        self.table.start(seed, (options or {}).get("game"))
        self.agents = self.possible_agents[:]
        return self._observations(), self._infos()

    def step(self, actions):
        if not self.agents:
            raise ValueError("the game is over: reset the environment")
        t = self.table
        mover = agent_name(t.current)
        if mover not in actions:
            raise ValueError(f"actions: {mover} is to move and must be given an action")
        status, substituted = t.play(actions[mover])
        st = t.st
        rewards = {a: float(t.rewards[int(a[5:])]) for a in self.agents}
        terminations = {a: status == core.OVER_ for a in self.agents}
        truncations = {a: status == core.TRUNCATED for a in self.agents}
        if st[V2] and status == core.RUNNING:     # V2: a seat that went out leaves
            for s in st[OUTORDER:OUTORDER + st[NOUT]]:
                if agent_name(int(s)) in terminations:
                    terminations[agent_name(int(s))] = True
        observations = self._observations()
        infos = self._infos()
        if substituted:
            infos[mover]["illegal"] = True
        self.agents = [a for a in self.agents if not (terminations[a] or truncations[a])]
        return observations, rewards, terminations, truncations, infos

    def close(self):
        pass


def parallel_env(**kwargs) -> ShitheadParallelEnv:
    """The parallel environment (:class:`ShitheadParallelEnv`)."""
    return ShitheadParallelEnv(**kwargs)
