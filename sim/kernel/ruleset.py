"""Rulesets as data: a preset of docs/rules.md §11.4 with ``key=value`` overrides (H1-H20, V1, V2).

:class:`Ruleset` is the one place a ruleset is built, validated (§11.3) and described. It is
immutable; the kernel receives it as one compact value, :meth:`Ruleset.vector`, an ``int32``
array that :func:`sim.kernel.dealing.deal` copies into the public part of the state (the block at
:data:`sim.kernel.layout.RULES`), so the rules are public (R26) and every jitted function reads them
from the state it already has. Adding an option touches this module, the engine and tests.

>>> Ruleset.build("classic", ["skip_rank=8"]).changes()["skip_rank"]
'8'
"""
from __future__ import annotations

import json
from dataclasses import dataclass, fields, replace

import numpy as np

from sim.kernel.cards import CODE, NRANK, TEN, TWO, deck_counts, deck_number, joker_count
from sim.kernel.layout import (
    EFF_CHAIN, EFF_COVER, EFF_REVERSE, EFF_SKIP, NRULES, R_AGAIN, R_COUNT, R_COVER, R_DECKS,
    R_EFFECT, R_EFFECTS, R_FOLLOW, R_FORCED, R_FOUR, R_FUPICK, R_HAND, R_JOKERS, R_NORDER,
    R_ORDER, R_OUTBURN, R_PICKS, R_PLAYON, R_REMOVE, R_REV, R_REVPC, R_SEVEN, R_SKIP,
    R_SKIPPC, R_STARTER, R_TEN, R_TRANS, R_V1, R_V2, R_VOLPICK, RANKS_MASK, RULES,
)

PLAIN = ("3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
ALL_RANKS = ("2",) + PLAIN
SEVEN = CODE["7"]

VOLUNTARY = ("except_blind", "always", "never")          # H10
FACEUP = ("may_add_one", "pile_only", "must_add_rank", "one_then_rank")   # H11
JOKERS = ("six_players", "never", "always")              # H13
STARTER = ("dealt", "hand")                              # H14
REMOVED = ("none", "masters")                            # H17
DECKS = (1, 2, "masters", "boothj5")                     # H18
ROLES = ("transparent_rank", "skip_rank", "reverse_rank", "cover_rank")


@dataclass(frozen=True)
class Option:
    """One option: its key, rule number, kind of value, and what it means in a line."""

    key: str
    rule: str
    kind: object          # bool, "rank", tuple of choices, (3, 4), "order"
    meaning: str


OPTIONS = (
    Option("count_rule", "H1", bool, "every play has as many cards as the lead (R9); off: any "
           "number of one rank, a blind turn turns one card"),
    Option("ten_anywhere", "H2", bool, "a 10 may follow on anything (but a 7 under H4)"),
    Option("four_burns", "H3", bool, "four of a kind on top of the pile burns it (R22)"),
    Option("seven_lower", "H4", bool, "on a 7 only 3-7, 2s, jokers and the transparent rank"),
    Option("transparent_rank", "H5", "rank", "a rank that is always legal and seen through"),
    Option("skip_rank", "H6", "rank", "a rank whose play skips the next seat"),
    Option("skip_per_card", "H6", bool, "each card of a skip play skips one seat"),
    Option("reverse_rank", "H7", "rank", "a rank whose play reverses the direction"),
    Option("reverse_per_card", "H7", bool, "each card of a reverse play reverses once"),
    Option("cover_rank", "H8", "rank", "a rank its player must cover by leading again"),
    Option("burn_plays_again", "H9", bool, "the player who burned the pile leads again (R21)"),
    Option("voluntary_pickup", "H10", VOLUNTARY, "when a pick-up is allowed: except_blind "
           "(R10, R16), always (blind too), never (only with no legal play)"),
    Option("faceup_pickup", "H11", FACEUP, "a pick-up from the face-ups: may_add_one (R12), "
           "pile_only, must_add_rank (all face-ups of a named rank go along), one_then_rank "
           "(1 or more face-ups of a named rank go along)"),
    Option("hand_size", "H12", (3, 4), "cards per packet of the deal, and drawn up to (R4, R8)"),
    Option("jokers", "H13", JOKERS, "two jokers in the deck: six_players (R1), never, always"),
    Option("starter", "H14", STARTER, "who starts: dealt (R6, cards as dealt) or hand (hands "
           "after the swap)"),
    Option("starter_order", "H15", "order", "the ranks that decide who starts, in order"),
    Option("forced_opening", "H16", bool, "the starter opens with every hand card of the rank "
           "that made them starter"),
    Option("removed_before_deal", "H17", REMOVED, "cards set aside unseen before the deal: "
           "none, masters (trachwo's count)"),
    Option("decks", "H18", DECKS, "52-card decks shuffled together: 1, 2, masters (2 from 4 "
           "players), boothj5 (2 when players x 3 x hand_size > 52); 2 decks seat 2-8"),
    Option("play_on", "H19", bool, "a turn is a chain of plays of one rank, ended by `end` or "
           "when no card of the rank is left to add (needs count_rule=false)"),
    Option("out_before_burn", "H20", bool, "a player who goes out completing four of a kind "
           "leaves the four unburned (a 10 still burns)"),
    Option("choose_face_ups", "V1", bool, "deal 2 x hand_size to the hand; each player "
           "chooses the face-ups"),
    Option("last_player_loses", "V2", bool, "play to the last; the last player holding cards "
           "is the Shithead"),
)
BY_KEY = {o.key: o for o in OPTIONS}


@dataclass(frozen=True)
class Ruleset:
    """A validated, immutable ruleset: ``seed`` (docs/rules.md §1-§9) with options changed.

    Build one with :meth:`build` (a preset and overrides) or :meth:`parse` (docs/position.md's
    ``ruleset`` value). Field defaults are the ``seed`` rules.
    """

    base: str = "seed"
    count_rule: bool = True
    ten_anywhere: bool = False
    four_burns: bool = True
    seven_lower: bool = False
    transparent_rank: str | None = None
    skip_rank: str | None = None
    skip_per_card: bool = False
    reverse_rank: str | None = None
    reverse_per_card: bool = False
    cover_rank: str | None = None
    burn_plays_again: bool = True
    voluntary_pickup: str = "except_blind"
    faceup_pickup: str = "may_add_one"
    hand_size: int = 3
    jokers: str = "six_players"
    starter: str = "dealt"
    starter_order: tuple = PLAIN
    forced_opening: bool = False
    removed_before_deal: str = "none"
    decks: object = 1
    play_on: bool = False
    out_before_burn: bool = False
    choose_face_ups: bool = False
    last_player_loses: bool = False

    # -- building ---------------------------------------------------------------------------
    @classmethod
    def build(cls, preset: str = "seed", overrides=()) -> "Ruleset":
        """A preset (:data:`PRESETS`) with overrides: a dict, or ``"key=value"`` strings.

        ``ValueError`` names the preset, key or value at fault and the rule (§11.3).
        """
        if preset not in PRESETS:
            raise ValueError(f"unknown rules preset {preset!r}; presets: {', '.join(PRESETS)}")
        text = not isinstance(overrides, dict)       # "key=value" from the command line
        pairs = [_split(t) for t in overrides] if text else list(overrides.items())
        values = {}
        for key, value in pairs:
            if key not in BY_KEY:
                raise ValueError(f"unknown rule option {key!r}; options: "
                                 f"{', '.join(BY_KEY)} (see `sim rules`)")
            values[key] = _value(BY_KEY[key], value, text)
        rules = replace(PRESETS[preset], **values)
        rules.check()
        return rules

    @classmethod
    def parse(cls, ruleset) -> "Ruleset":
        """docs/position.md's ``ruleset``: a preset name or ``{"base": preset, key: value, ...}``."""
        if isinstance(ruleset, Ruleset):
            return ruleset
        if isinstance(ruleset, str):
            return cls.build(ruleset)
        if isinstance(ruleset, dict):
            if "base" not in ruleset:
                raise ValueError("ruleset: an object of options must name its 'base' ruleset, "
                                 "e.g. {\"base\": \"seed\", \"last_player_loses\": true}")
            return cls.build(ruleset["base"], {k: v for k, v in ruleset.items() if k != "base"})
        raise ValueError(f"ruleset: expected a preset name or an object, got {ruleset!r}")

    def check(self) -> None:
        """§11.3: refuse what cannot be played, naming the option."""
        roles = [(k, getattr(self, k)) for k in ROLES if getattr(self, k) is not None]
        for key, rank in roles:
            if rank in ("2", "10", "JK"):
                raise ValueError(f"{key}={rank}: 2, 10 and jokers have roles of their own "
                                 f"(R20, R21, R23) and cannot also be the {key} (§11.3)")
            if rank == "7" and self.seven_lower:
                raise ValueError(f"{key}=7 with seven_lower: one role per rank, and the 7 "
                                 f"already has H4's (§11.3)")
        for i, (key, rank) in enumerate(roles):
            for other, rank2 in roles[i + 1:]:
                if rank == rank2:
                    raise ValueError(f"{key} and {other} are both {rank}: one role per rank, "
                                     f"so a play has at most one turn effect (§11.3)")
        if self.forced_opening and (self.starter != "hand"
                                    or sorted(self.starter_order) != sorted(ALL_RANKS)):
            raise ValueError("forced_opening needs starter=hand and all 13 ranks in "
                             "starter_order (H16, §11.3)")
        if self.play_on and self.count_rule:
            raise ValueError("play_on needs count_rule=false: a continuation would break the "
                             "count (H19, H1, §11.3)")

    # -- descriptions -----------------------------------------------------------------------
    def to_dict(self) -> dict:
        """Every option with its value (JSON-ready), and the preset it started from."""
        out = {"base": self.base}
        for f in fields(self)[1:]:
            v = getattr(self, f.name)
            out[f.name] = list(v) if isinstance(v, tuple) else v
        return out

    def changes(self) -> dict:
        """The options that differ from the base preset."""
        base = PRESETS[self.base].to_dict()
        return {k: v for k, v in self.to_dict().items() if k != "base" and base[k] != v}

    def to_json(self):
        """docs/position.md's ``ruleset`` value: the preset name, or it with the changed options."""
        changes = self.changes()
        return {"base": self.base, **changes} if changes else self.base

    def __str__(self) -> str:
        changes = self.changes()
        if not changes:
            return self.base
        return self.base + " " + " ".join(f"{k}={value_text(v)}" for k, v in changes.items())

    # -- the deck and the players --------------------------------------------------------
    def decks_for(self, players: int) -> int:
        """H18: the decks shuffled together at ``players`` players (1, 2, or more for a
        computed ``decks`` that :meth:`check_players` refuses):
        :func:`sim.kernel.cards.deck_number`, as the deal."""
        return deck_number(DECKS.index(self.decks), players, self.hand_size)

    def jokers_for(self, players: int) -> int:
        """Jokers in the deck (R1, H13): :func:`sim.kernel.cards.joker_count`, as the deal."""
        return joker_count(JOKERS.index(self.jokers), players)

    def deck_counts(self, players: int) -> list[int]:
        """Cards of each rank in the deck (R1, H13, H18), in :mod:`sim.kernel.cards` order: the
        deck the deal shuffles (:func:`sim.kernel.dealing.deal`) under these rules."""
        return deck_counts(JOKERS.index(self.jokers), players, min(self.decks_for(players), 2))

    def check_players(self, players: int) -> None:
        """R1, H18 and §11.3: 2 to 6 players with one deck, 2 to 8 with two; ``decks``
        computing at most 2; the deal must fit in the deck (H12, H13, H18). ``ValueError``
        in one line naming the rules."""
        problem = self._players_problem(players)
        if problem:
            fit = self.max_players()
            raise ValueError(problem + (f"; at most {fit} players under these rules"
                                        if fit >= 2 else ""))

    def _players_problem(self, players) -> str:
        """What is wrong with ``players`` under these rules ("" when nothing)."""
        if isinstance(players, bool) or not isinstance(players, int) or not 2 <= players <= 8:
            return (f"Shithead is for 2 to 6 players, 2 to 8 with two decks (R1, H18), got "
                    f"{players!r}")
        d = self.decks_for(players)
        if d > 2:
            return (f"decks={self.decks} gives {d} decks at {players} players, more than two "
                    f"(H18, §11.3)")
        if players > 6 and d == 1:
            return (f"{players} players need two decks: with one deck Shithead is for 2 to 6 "
                    f"players (R1, H18; --rule decks=2)")
        deck = 52 * d + self.jokers_for(players)
        if players * 3 * self.hand_size > deck:
            return (f"{players} players x 3 packets x hand_size {self.hand_size} = "
                    f"{players * 3 * self.hand_size} cards, more than the deck's {deck} "
                    f"(decks={self.decks}, jokers={self.jokers}, §11.3)")
        return ""

    def max_players(self) -> int:
        """The most players these rules seat (R1, H12, H13, H18, §11.3); 1 if none fit."""
        return next((n for n in range(8, 1, -1) if not self._players_problem(n)), 1)

    # -- the kernel's value -----------------------------------------------------------------
    def vector(self) -> np.ndarray:
        """The ruleset as the kernel reads it: ``int32[NRULES]``, copied into the state at
        :data:`sim.kernel.layout.RULES` (offsets ``R_*``)."""
        v = np.zeros(NRULES, np.int32)

        def put(at, value):
            v[at - RULES] = value
        put(R_COUNT, self.count_rule)
        put(R_TEN, self.ten_anywhere)
        put(R_FOUR, self.four_burns)
        put(R_SEVEN, self.seven_lower)
        put(R_TRANS, _code(self.transparent_rank))
        put(R_SKIP, _code(self.skip_rank))
        put(R_SKIPPC, self.skip_per_card)
        put(R_REV, _code(self.reverse_rank))
        put(R_REVPC, self.reverse_per_card)
        put(R_COVER, _code(self.cover_rank))
        put(R_AGAIN, self.burn_plays_again)
        put(R_VOLPICK, VOLUNTARY.index(self.voluntary_pickup))
        put(R_FUPICK, FACEUP.index(self.faceup_pickup))
        put(R_HAND, self.hand_size)
        put(R_JOKERS, JOKERS.index(self.jokers))
        put(R_STARTER, STARTER.index(self.starter))
        put(R_FORCED, self.forced_opening)
        put(R_REMOVE, REMOVED.index(self.removed_before_deal))
        put(R_V1, self.choose_face_ups)
        put(R_V2, self.last_player_loses)
        put(R_DECKS, DECKS.index(self.decks))
        put(R_PLAYON, self.play_on)
        put(R_OUTBURN, self.out_before_burn)
        put(R_NORDER, len(self.starter_order))
        for i, rank in enumerate(self.starter_order):
            put(R_ORDER + i, CODE[rank])
        for e in range(-1, TWO):
            put(R_FOLLOW + e + 1, self.follow_mask(e))
        effects = {CODE["JK"]: EFF_REVERSE}                          # R23: once a play
        for rank, code, per_card in ((self.reverse_rank, EFF_REVERSE, self.reverse_per_card),
                                     (self.cover_rank, EFF_COVER, False),
                                     (self.skip_rank, EFF_SKIP, self.skip_per_card)):
            if rank is not None:
                effects[CODE[rank]] = code + per_card
        if self.play_on:                       # H19: every play reaches the chain's check
            effects = {r: effects.get(r, 0) | EFF_CHAIN for r in range(NRANK)}
        for r, code in effects.items():
            put(R_EFFECT + r, code)
        put(R_EFFECTS, sum(1 << r for r in effects))
        pickup, add = 1, 4                                           # R10, H10, H11
        never = self.voluntary_pickup == "never"
        faceup = {"may_add_one": pickup | add, "pile_only": pickup,
                  "must_add_rank": add, "one_then_rank": add}[self.faceup_pickup]
        codes = (0 if never else pickup, pickup,      # from the hand: a play is legal, or not
                 0 if never else faceup, faceup,      # from the face-ups (R12, H11)
                 2 | (pickup if self.voluntary_pickup == "always" else 0))   # blind (R16)
        put(R_PICKS, sum(c << (3 * i) for i, c in enumerate(codes)))
        return v

    def follow_mask(self, e: int) -> int:
        """H0: the ranks (a 14-bit set) that may follow on effective top ``e`` (a rank code;
        -1 when open or a 2, R20). Legality in the kernel is one lookup of this table."""
        t = _code(self.transparent_rank)
        always = (1 << TWO) | (1 << CODE["JK"]) | ((1 << t) if t >= 0 else 0)
        if self.seven_lower and e == SEVEN:                        # H4: 3..7 only
            return always | sum(1 << r for r in range(SEVEN + 1))
        mask = RANKS_MASK if e < 0 else (RANKS_MASK << e) & RANKS_MASK
        return mask | always | ((1 << TEN) if self.ten_anywhere else 0)


def _code(rank) -> int:
    return -1 if rank is None else CODE[rank]


def value_text(v) -> str:
    """An option's value as ``--rule key=value`` and ``sim rules`` write it."""
    if isinstance(v, (list, tuple)):
        return ",".join(v)
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def _split(text: str):
    key, sep, value = str(text).partition("=")
    if not sep:
        raise ValueError(f"--rule {text!r}: expected key=value, e.g. --rule ten_anywhere=true")
    return key.strip(), value.strip()


def _value(opt: Option, value, text: bool):
    """Check one option's value; ``text``: it comes from the command line, convert it."""
    raw = value
    if text and isinstance(value, str):
        low = value.strip().lower()
        if opt.kind is bool and low in ("true", "false"):     # JSON's words, as shown
            value = low == "true"
        elif low in ("null", "none") and opt.kind == "rank":
            value = None
        elif isinstance(opt.kind, tuple) and low.isdigit() and int(low) in opt.kind:
            value = int(low)
        elif opt.kind == "order":
            value = value.strip()
            if value.startswith("["):
                try:
                    value = json.loads(value)
                except json.JSONDecodeError:
                    pass
            else:
                value = [r for r in value.replace(",", " ").split()]
    where = f"{opt.key} ({opt.rule})"
    if opt.kind is bool:
        if not isinstance(value, bool):
            raise ValueError(f"{where}: expected true or false, got {raw!r}")
        return value
    if opt.kind == "rank":
        if value is not None and value not in PLAIN + ("2", "JK"):
            raise ValueError(f"{where}: expected null or a rank 3..A, got {raw!r}")
        return value
    if opt.kind == "order":
        if not isinstance(value, (list, tuple)) or not all(isinstance(r, str) for r in value):
            raise ValueError(f"{where}: expected a list of distinct ranks 2..A, got {raw!r}")
        value = tuple(value)
        bad = [r for r in value if r not in ALL_RANKS]
        if bad:
            raise ValueError(f"{where}: {', '.join(map(repr, bad))} is not a rank 2..A "
                             f"(jokers are never listed)")
        if len(set(value)) != len(value):
            raise ValueError(f"{where}: the ranks must be distinct, got {list(value)}")
        return value
    if value not in opt.kind or isinstance(value, (bool, float)):
        raise ValueError(f"{where}: expected one of {', '.join(map(str, opt.kind))}, "
                         f"got {raw!r}")
    return value


_SEED = Ruleset()
PRESETS: dict[str, Ruleset] = {
    "seed": _SEED,
    "classic": replace(_SEED, base="classic", count_rule=False, ten_anywhere=True,
                       jokers="never", last_player_loses=True),
    "masters-of-shithead": replace(
        _SEED, base="masters-of-shithead", count_rule=False, ten_anywhere=True,
        seven_lower=True, transparent_rank="3", skip_rank="8", skip_per_card=True,
        reverse_rank="K", reverse_per_card=True, cover_rank="Q", voluntary_pickup="always",
        faceup_pickup="one_then_rank", jokers="never", starter="hand",
        starter_order=tuple("4 5 6 7 8 9 J Q K A 10 2 3".split()),
        removed_before_deal="masters", decks="masters", play_on=True, out_before_burn=True,
        last_player_loses=True),
    "boothj5": replace(
        _SEED, base="boothj5", count_rule=False, ten_anywhere=True, transparent_rank="7",
        skip_rank="8", voluntary_pickup="never", faceup_pickup="pile_only", jokers="never",
        starter="hand", starter_order=tuple("3 4 5 6 8 9 J Q K A 2 7 10".split()),
        forced_opening=True, decks="boothj5", last_player_loses=True),
}
PRESET_NOTES = {
    "seed": "docs/rules.md §1-§9: the source's rules (2-6 players)",
    "classic": "pagat/Wikipedia baseline: any number of equal cards, 10 on anything, last "
               "player holding cards loses (2-5 players)",
    "masters-of-shithead": "trachwo/masters-of-shithead (2-6 players, two decks from 4; "
                           "docs/rules.md §11.5)",
    "boothj5": "boothj5/shithead (2-8 players, two decks from 6, from 5 with hand_size=4; "
               "docs/rules.md §11.5)",
}
