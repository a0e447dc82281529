"""A Gymnasium single-agent view: one seat learns, the other seats play the project's
strategies (built-in names or a user's ``FILE.py:function``, with parameters, as ``sim run
-s`` takes them), each called the way the referee calls it: the public block and its own
hand read-only (R26), the legal word, the game's stream, its parameter row."""
from __future__ import annotations

import numpy as np

from sim.runs.extras import require

gymnasium = require("gymnasium", "sim.env.gym")   # the rl extra: one line, no traceback

from sim.env import core  # noqa: E402
from sim.env.aec import spaces_of  # noqa: E402
from sim.env.spec import TableSpec  # noqa: E402
from sim.env.table import Table  # noqa: E402
from sim.kernel.engine import legal_word  # noqa: E402
from sim.kernel.layout import HANDS, NOUT, NR, OUTORDER, PUB  # noqa: E402
from sim.kernel.moves import is_legal_move  # noqa: E402


class ShitheadGymEnv(gymnasium.Env):
    """Seat ``seat`` learns; ``opponents`` (one name for every other seat, or one per other
    seat in seat order) play the rest of a table of ``players`` (default: one more than
    the opponents named). Each opponent swaps by its strategy's own policy, the learner by
    ``swap``: a policy's name, or ``"choose"``, when the first step of each episode is the
    learner's swap (a swap id, :data:`sim.env.spec.SWAP_IDS`). An episode ends when the learner's result is known: the game over, or (V2)
    the learner out; truncated at ``max_turns`` (R25). The other settings are
    :class:`sim.env.spec.TableSpec`'s. ``action_masks()`` gives the legal moves (the
    convention of sb3-contrib's MaskablePPO)."""

    metadata = {"render_modes": ["ansi"]}

    def __init__(self, seat: int = 0, opponents=("lowest",), players: int | None = None,
                 rules="seed", rule=(), swap="highest-up", max_turns: int = 10_000,
                 reward: str = "place", illegal: str = "raise", render_mode=None):
        from sim.runs.registry import get_move

        names = [opponents] if isinstance(opponents, str) else list(opponents)
        if not names:
            raise ValueError("opponents: name at least one strategy (e.g. 'lowest')")
        if players is None:
            players = len(names) + 1
        if isinstance(players, bool) or not isinstance(players, int) or not 2 <= players <= 8:
            raise ValueError(f"players: Shithead is for 2 to 6 players, 2 to 8 with two decks "
                             f"(R1, H18), got {players!r}")
        if len(names) == 1:
            names = names * (players - 1)
        if len(names) != players - 1:
            raise ValueError(f"opponents: give one strategy for all {players - 1} other seats "
                             f"or one per seat, got {len(names)}")
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < players:
            raise ValueError(f"seat: expected 0 to {players - 1}, got {seat!r}")
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode: expected None or 'ansi', got {render_mode!r}")
        self.seat, self.render_mode = seat, render_mode
        strategies = [get_move(n) for n in names]
        self.opponents = strategies[:seat] + [None] + strategies[seat:]
        self.rows = [None if s is None else s.row() for s in self.opponents]
        swaps = [swap if s is None else s.swap for s in self.opponents]
        self.spec_ = TableSpec(players, rules, tuple(rule) if not isinstance(rule, (str, dict))
                               else rule, swaps, max_turns, reward, illegal)
        self.table = Table(self.spec_)
        self.observation_space, self.action_space = spaces_of(self.spec_)

    # -- the others' turns -----------------------------------------------------------------
    def _opponent_move(self) -> int:
        """The seat to move (not the learner) chooses, as the referee asks it (R26, R24)."""
        st = self.table.st
        p = int(self.table.current)
        obs, hand = st[:PUB], st[HANDS + p * NR:HANDS + p * NR + NR]
        obs.flags.writeable = False
        hand.flags.writeable = False
        legal = legal_word(st)
        strategy = self.opponents[p]
        m = int(strategy.fn(obs, hand, legal, self.table.rng, self.rows[p]))
        if not is_legal_move(legal, m, obs, hand):
            raise ValueError(f"strategy {strategy.name!r} (seat {p}) returned move id {m}, "
                             f"which is not a legal move (R24)")
        return m

    def _others(self, reward: float) -> tuple[float, int]:
        """Play the other seats until the learner is to move or its result is known."""
        t = self.table
        status = t.status
        while status == core.RUNNING and t.current != self.seat and not self._learner_out():
            status, _ = t.play(self._opponent_move())
            reward += float(t.rewards[self.seat])
        return reward, status

    def _learner_out(self) -> bool:
        st = self.table.st
        return self.seat in st[OUTORDER:OUTORDER + st[NOUT]]

    def _obs(self):
        return {"observation": self.table.observe(self.seat),
                "action_mask": self.table.mask(self.seat)}

    # -- gymnasium -------------------------------------------------------------------------
    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.table.start(seed, (options or {}).get("game"))
        self._others(0.0)
        return self._obs(), {"game": self.table.game}

    def step(self, action):
        t = self.table
        status, substituted = t.play(action)
        reward, status = self._others(float(t.rewards[self.seat]))
        terminated = status == core.OVER_ or self._learner_out()
        truncated = status == core.TRUNCATED and not terminated
        info = {"illegal": True} if substituted else {}
        return self._obs(), reward, bool(terminated), bool(truncated), info

    def action_masks(self) -> np.ndarray:
        return self.table.mask(self.seat).astype(bool)

    def render(self):
        if self.render_mode != "ansi":
            return None
        from sim.kernel.position import to_position

        return str(to_position(self.table.st, self.spec_.ruleset))
