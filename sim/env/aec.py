"""The PettingZoo AEC environment: one table, the seats as agents, one agent step a turn.

Only the seat to move is selected (H19's continuations and ``END`` are turns of their own).
Each observation is what that seat may see (R26): exactly a strategy function's view, the
public block and its own hand (:mod:`sim.env.spec`), with the legal-move mask over the
kernel's move ids. A seat that goes out is terminated and leaves the agents after its final
(``None``) step (V2: the others play on); the game ends terminated for all, or truncated for
all at ``max_turns`` (R25). The swap (R5/V1) is each seat's swap policy's, made by the
kernel at the deal (``swap="highest-up"`` by default, as ``sim run`` seats ``lowest``);
with ``swap="choose"`` it is an action: after the deal each seat, in deal order from the
dealer's left, takes one step choosing its face-ups (a swap id, :mod:`sim.env.spec`), then
the kernel makes the swaps together (R5), R6 and H16, and play begins.
"""
from __future__ import annotations

import numpy as np

from sim.runs.extras import require

AECEnv = require("pettingzoo", "sim.env").AECEnv    # the rl extra: one line, no traceback
spaces = require("gymnasium", "sim.env").spaces

from sim.env import core  # noqa: E402
from sim.env.spec import OBS_LEN, TableSpec, agent_name, observation_high  # noqa: E402
from sim.env.table import Table  # noqa: E402
from sim.kernel.layout import NOUT, OUTORDER, V2  # noqa: E402


def spaces_of(spec: TableSpec):
    """(observation space, action space) of every seat: a dict of the observation vector
    (int32, R26) and the action mask (int8 over the action ids); the action ids: the move
    ids, then with ``swap="choose"`` the swap ids (:data:`sim.env.spec.SWAP_IDS`)."""
    n = spec.n_actions
    obs = spaces.Dict({
        "observation": spaces.Box(-1, observation_high(spec.max_turns), (OBS_LEN,), np.int32),
        "action_mask": spaces.Box(0, 1, (n,), np.int8),
    })
    return obs, spaces.Discrete(n)


class ShitheadEnv(AECEnv):
    """Shithead for 2 to 8 seats under any ruleset (:class:`sim.env.spec.TableSpec` has the
    settings: ``players``, ``rules``, ``rule``, ``swap``, ``max_turns``, ``reward``,
    ``illegal``). ``reset(seed=s)`` deals game 0 of ``sim run --seed s``; each later reset
    without a seed deals the next game (``options={"game": g}`` picks one)."""

    metadata = {"name": "shithead_v0", "render_modes": ["ansi"], "is_parallelizable": False}

    def __init__(self, players: int = 4, rules="seed", rule=(), swap="highest-up",
                 max_turns: int = 10_000, reward: str = "place", illegal: str = "raise",
                 render_mode=None):
        super().__init__()
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode: expected None or 'ansi', got {render_mode!r}")
        self.spec_ = TableSpec(players, rules, tuple(rule) if not isinstance(rule, (str, dict))
                               else rule, swap, max_turns, reward, illegal)
        self.render_mode = render_mode
        self.table = Table(self.spec_)
        self.possible_agents = self.spec_.agents()
        self.agent_name_mapping = {a: s for s, a in enumerate(self.possible_agents)}
        self._obs_space, self._act_space = spaces_of(self.spec_)
        self.agents = []

    def observation_space(self, agent):
        return self._obs_space

    def action_space(self, agent):
        return self._act_space

    def reset(self, seed=None, options=None):
        game = (options or {}).get("game")
        self.table.start(seed, game)
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = agent_name(self.table.current)

    def observe(self, agent):
        s = self.agent_name_mapping[agent]
        return {"observation": self.table.observe(s), "action_mask": self.table.mask(s)}

    def step(self, action):
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0.0
        t = self.table
        status, substituted = t.play(action)
        st = t.st
        for a in self.agents:
            self.rewards[a] = float(t.rewards[self.agent_name_mapping[a]])
            self.infos[a] = {}
        if substituted:
            self.infos[agent] = {"illegal": True}
        if status == core.OVER_:
            for a in self.agents:
                self.terminations[a] = True
        elif status == core.TRUNCATED:
            for a in self.agents:
                self.truncations[a] = True
        elif st[V2] and self.agent_name_mapping[agent] in st[OUTORDER:OUTORDER + st[NOUT]]:
            self.terminations[agent] = True       # V2: the mover went out, it leaves
        self._accumulate_rewards()
        if status == core.RUNNING:
            self.agent_selection = agent_name(t.current)
        self._deads_step_first()

    def render(self):
        if self.render_mode != "ansi":
            return None
        from sim.kernel.position import to_position

        return str(to_position(self.table.st, self.spec_.ruleset))

    def close(self):
        pass


def env(**kwargs) -> ShitheadEnv:
    """The AEC environment (:class:`ShitheadEnv`)."""
    return ShitheadEnv(**kwargs)
