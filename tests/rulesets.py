"""Rulesets for the random-game tests: every preset, and random allowed combinations of the
options of docs/rules.md §11.2, H18-H20 included (what §11.3 refuses is never drawn)."""
from __future__ import annotations

import random

from sim.kernel.ruleset import PRESETS, Ruleset

PRESET_NAMES = list(PRESETS)
_RANKS = ["3", "4", "5", "6", "7", "8", "9", "J", "Q", "K", "A"]
_ALL = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]


def random_ruleset(rng: random.Random) -> Ruleset:
    """A preset (a third of the time) or a random allowed combination on a random preset."""
    base = rng.choice(PRESET_NAMES)
    if rng.random() < 1 / 3:
        return Ruleset.build(base)
    seven = rng.random() < 0.3
    free = [r for r in _RANKS if not (seven and r == "7")]
    rng.shuffle(free)
    roles = {}
    for key in ("transparent_rank", "skip_rank", "reverse_rank", "cover_rank"):
        roles[key] = free.pop() if rng.random() < 0.4 else None
    starter = rng.choice(["dealt", "hand"])
    forced = starter == "hand" and rng.random() < 0.4
    order = _ALL[:] if forced or rng.random() < 0.5 else rng.sample(_ALL, rng.randint(0, 13))
    rng.shuffle(order) if rng.random() < 0.5 else None
    count_rule = rng.random() < 0.5
    options = {
        "count_rule": count_rule, "ten_anywhere": rng.random() < 0.5,
        "four_burns": rng.random() < 0.8, "seven_lower": seven, **roles,
        "skip_per_card": rng.random() < 0.5, "reverse_per_card": rng.random() < 0.5,
        "burn_plays_again": rng.random() < 0.8,
        "voluntary_pickup": rng.choice(["except_blind", "always", "never"]),
        "faceup_pickup": rng.choice(["may_add_one", "pile_only", "must_add_rank",
                                     "one_then_rank"]),
        "hand_size": rng.choice([3, 3, 4]), "jokers": rng.choice(["six_players", "never",
                                                                  "always"]),
        "starter": starter, "starter_order": order, "forced_opening": forced,
        "removed_before_deal": rng.choice(["none", "masters"]),
        "decks": rng.choice([1, 1, 2, 2, "masters", "boothj5"]),
        "play_on": not count_rule and rng.random() < 0.6,          # H19 needs H1 off
        "out_before_burn": rng.random() < 0.4,
        "choose_face_ups": rng.random() < 0.2, "last_player_loses": rng.random() < 0.5,
    }
    return Ruleset.build(base, options)


def random_players(rules: Ruleset, rng: random.Random) -> int:
    """A player count the ruleset's deck can deal (R1, §11.3)."""
    return rng.randint(2, rules.max_players())
