"""What a learning table is: players, ruleset, swap policies, turn limit and reward scheme,
checked once (:class:`TableSpec`), shared by the AEC, parallel, Gymnasium and batched
environments so that they all deal, score and refuse bad input the same way."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from math import comb

from sim.kernel.layout import MAXP, NMOVES, NR, PUB
from sim.kernel.ruleset import Ruleset, value_text

# The observation (R26): exactly what a strategy function gets, the public block ``obs``
# (st[:PUB]) and the seat's own hand (14 rank counts), then the seat's number, so that an
# observation made for a seat that is not to move still says whose it is.
HAND_AT = PUB
SEAT_AT = PUB + NR
OBS_LEN = PUB + NR + 1
# One fixed discrete action set: the kernel's move ids (sim.kernel.moves), 0 .. NMOVES - 1.
N_ACTIONS = NMOVES
# ``swap="choose"``: the swap (R5/V1) is an action too. A seat chooses which ``h`` of its
# ``2h`` cards go face up (H12: ``h`` = hand_size, 3 or 4): one id per choice, NMOVES +
# j for the j-th combination of card slots (sim.env.core.SWAP_MASKS), C(8, 4) = 70 ids
# whatever the hand size (C(6, 3) = 20 of them valid at hand size 3), so that the action
# set is one fixed size under every ruleset.
CHOOSE = "choose"
SWAP_IDS = comb(8, 4)
N_ACTIONS_CHOOSE = NMOVES + SWAP_IDS
# Reward schemes (:func:`sim.env.core.place_value`).
REWARDS = {"place": 0, "win": 1}
ILLEGAL = ("raise", "lowest")
DEFAULT_MAX_TURNS = 10_000      # R25, as `sim run`


def agent_name(seat: int) -> str:
    return f"seat_{seat}"


@dataclass(frozen=True)
class TableSpec:
    """A table's settings, checked (``ValueError`` naming the setting and the rule).

    ``rules``: a preset of :data:`sim.kernel.ruleset.PRESETS`, a docs/position.md ruleset
    object or a :class:`Ruleset`; ``rule``: ``"key=value"`` overrides as ``--rule`` takes them
    (or a dict). ``swap``: the swap policy (R5/V1) of every seat, or one per seat, by name as
    ``sim run --swap`` takes it; ``"choose"`` (for every seat, or for some seats in a list)
    makes the swap an action of that seat (:data:`SWAP_IDS`). ``reward``: ``"place"`` (seed rules: +1 the winner, -1 every
    other seat, R25; V2: +1 first out down to -1 the Shithead, linear in the place) or
    ``"win"`` (1 the first out, else 0: the project's win rate). ``illegal``: ``"raise"``
    (R24: a ValueError naming the move) or ``"lowest"`` (the lowest legal move id is played
    instead, and the step's info says so)."""

    players: int = 4
    rules: object = "seed"
    rule: tuple = ()
    swap: object = "highest-up"
    max_turns: int = DEFAULT_MAX_TURNS
    reward: str = "place"
    illegal: str = "raise"
    ruleset: Ruleset = field(init=False, repr=False, compare=False)
    config: object = field(init=False, repr=False, compare=False)
    choosers: tuple = field(init=False, repr=False, compare=False)   # seats swapping by action

    def __post_init__(self):
        from sim.kernel.compiler import install

        # Numba's process-wide patches, as every entry point applies them (every environment
        # builds its settings here): fnaddr keeps the swap policies' addresses, which each
        # call of the batched step would otherwise look up again, holding the GIL
        install()
        rule = self.rule
        if isinstance(rule, str):
            rule = (rule,)
        try:
            ruleset = Ruleset.parse(self.rules)
            overrides = dict(rule) if isinstance(rule, dict) else list(rule)
            if overrides:
                ruleset = _override(ruleset, overrides)
        except ValueError as e:
            raise ValueError(f"rules: {e}") from None
        try:
            ruleset.check_players(self.players)           # R1, H12, H13, H18
        except ValueError as e:
            raise ValueError(f"players: {e}") from None
        mt = self.max_turns
        if isinstance(mt, bool) or not isinstance(mt, (int, np.integer)) or not 1 <= mt <= 10**7:
            raise ValueError(f"max_turns: expected 1 to 10,000,000 (R25's turn limit), got {mt!r}")
        if self.reward not in REWARDS:
            raise ValueError(f"reward: expected one of {', '.join(REWARDS)}, got {self.reward!r}")
        if self.illegal not in ILLEGAL:
            raise ValueError(f"illegal: expected one of {', '.join(ILLEGAL)}, got "
                             f"{self.illegal!r}")
        from sim.runs.config import RunConfig

        swaps = [self.swap] if isinstance(self.swap, str) else list(self.swap)
        if len(swaps) == 1:
            swaps = swaps * self.players
        choosers = tuple(s for s, name in enumerate(swaps) if name == CHOOSE)
        # A seat that chooses by action is seated with a placeholder policy ("none") that
        # the table replaces by the choice made (strategies.swaps.given_swaps).
        swaps = ["none" if name == CHOOSE else name for name in swaps]
        try:   # the run's own checks and pool: the swap policies, the rules vector
            config = RunConfig(games=1, players=self.players, strategies=["lowest"],
                               swaps=swaps, rules=ruleset, max_turns=int(mt))
        except ValueError as e:
            raise ValueError(str(e).replace("--swap", "swap")) from None
        object.__setattr__(self, "ruleset", ruleset)
        object.__setattr__(self, "config", config)
        object.__setattr__(self, "choosers", choosers)

    @property
    def rules_vector(self) -> np.ndarray:
        return self.config.rules_vector

    @property
    def n_actions(self) -> int:
        """The size of the action set: the move ids, then the swap ids when a seat swaps by
        action (``swap="choose"``)."""
        return N_ACTIONS_CHOOSE if self.choosers else N_ACTIONS

    @property
    def scheme(self) -> int:
        return REWARDS[self.reward]

    def agents(self) -> list[str]:
        return [agent_name(s) for s in range(self.players)]


def _override(ruleset: Ruleset, overrides) -> Ruleset:
    """``ruleset`` with ``--rule`` style overrides (``"key=value"`` strings or a dict)."""
    if isinstance(overrides, dict):
        return Ruleset.build(ruleset.base, {**ruleset.changes(), **overrides})
    text = [f"{k}={_text(v)}" for k, v in ruleset.changes().items()] + list(overrides)
    return Ruleset.build(ruleset.base, text)


def _text(value) -> str:
    return value_text(value)


def observation_high(max_turns: int) -> int:
    """The largest value an observation holds: the packed rule words (R_PICKS: 15 bits, the
    follow table: 14) or the turn counter (R25)."""
    return max(2**15, int(max_turns))


__all__ = ["TableSpec", "OBS_LEN", "N_ACTIONS", "N_ACTIONS_CHOOSE", "SWAP_IDS", "CHOOSE",
           "HAND_AT", "SEAT_AT", "MAXP", "agent_name"]
