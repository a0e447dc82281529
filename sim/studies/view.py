"""Analyze's input: a docs/position.md position, or a *view* of one from the seat to move (R26),
read into the kernel's state with the cards known to be in each hand.

A view writes ``"?"`` for any card its seat cannot see and may list ``"known"`` cards per
hand (:func:`read_view`); the ``"?"`` are filled only to check the position, since
:mod:`sim.studies.analysis` re-deals every hidden card anyway.
"""
from __future__ import annotations

from collections import Counter

import numpy as np

from sim.kernel.cards import NAMES, rank_code
from sim.kernel.layout import CURRENT, FDN, HANDN, KNOWN, NR, PLAYERS, REMOVEDN, STOCKLEN
from sim.kernel.position import check_keys, to_state
from sim.kernel.ruleset import Ruleset

UNKNOWN = "?"
_HIDDEN_FLAT = ("stock", "removed")


def read_view(position: dict) -> tuple[dict, bool]:
    """Analyze's input as a docs/position.md position (``"known"`` left out, any ``"?"`` filled),
    and whether it was a *view*.

    Analyze's input is a docs/position.md position with two additions:

    - ``"?"`` may stand for any hidden card (R26): in another seat's hand, in a face-down
      stack, in the stock, in ``removed``. Such a position is a *view*; the ``"?"`` are filled
      with the cards the deck still lacks (only to check the position: they are re-dealt);
    - ``"known"`` (optional): per seat, cards known to be in that seat's hand (R26: picked up,
      or swapped from the dealt face-ups). In a view the cards named in another seat's hand
      are known; in a full position no card of another hand is known unless listed here.
    """
    check_keys(position, extra=("known",))
    pos = {k: v for k, v in position.items() if k != "known"}
    players, current = pos.get("players"), pos.get("current")
    rules = Ruleset.parse(pos.get("ruleset"))
    try:
        rules.check_players(players)          # R1, H18, §11.3
    except ValueError as e:
        raise ValueError(f"players: {e}") from None

    def marks(value, where, allowed):
        if not isinstance(value, list):
            return 0
        n = sum(1 for c in value if c == UNKNOWN)
        if n and not allowed:
            raise ValueError(f"{where}: '?' stands only for a hidden card (R26: other seats' "
                             f"hands, face-down cards, the stock, removed), not here")
        return n

    unknown = 0
    for key in ("hands", "face_up", "face_down"):
        seats = pos.get(key)
        if isinstance(seats, list):
            for s, cards in enumerate(seats):
                allowed = key == "face_down" or (key == "hands" and s != current)
                unknown += marks(cards, f"{key}[{s}]", allowed)
    for key in ("stock", "removed", "pile", "burned"):
        unknown += marks(pos.get(key), key, key in _HIDDEN_FLAT)
    view = unknown > 0
    if view:
        pos = _fill_unknown(pos, rules, players)
    return pos, view


def _fill_unknown(pos, rules, players) -> dict:
    named = Counter()

    def count(cards):
        if isinstance(cards, list):
            named.update(rank_code(c) for c in cards if c != UNKNOWN)
    for key in ("hands", "face_up", "face_down"):
        for cards in pos.get(key) or []:
            count(cards)
    for key in ("stock", "pile", "burned", "removed"):
        count(pos.get(key))
    want = rules.deck_counts(players)
    over = [f"{NAMES[r]} ({named[r]} of {want[r]})" for r in range(NR) if named[r] > want[r]]
    if over:
        raise ValueError("cards are not conserved (R1): too many " + ", ".join(over))
    missing = [r for r in range(NR) for _ in range(want[r] - named[r])]

    def lists():                              # every card list that may hold a '?'
        for key in ("hands", "face_down"):
            for cards in pos.get(key) or []:
                if isinstance(cards, list):
                    yield cards
        for key in _HIDDEN_FLAT:
            if isinstance(pos.get(key), list):
                yield pos[key]
    slots = sum(c == UNKNOWN for cards in lists() for c in cards)
    if slots != len(missing):
        raise ValueError(f"cards are not conserved (R1): the position has {slots} '?' but "
                         f"{len(missing)} card(s) of the deck are not named")
    fill = iter(NAMES[r] for r in missing)

    def filled(cards):
        if not isinstance(cards, list):
            return cards
        return [next(fill) if c == UNKNOWN else c for c in cards]
    out = dict(pos)
    for key in ("hands", "face_down"):
        if isinstance(pos.get(key), list):
            out[key] = [filled(cards) for cards in pos[key]]
    for key in _HIDDEN_FLAT:
        if key in pos:
            out[key] = filled(pos[key])
    return out


def _known(original, pos, players, current, view) -> list:
    given = original.get("known")
    if given is None:
        if not view:
            return [[] for _ in range(players)]
        return [[] if s == current else [c for c in original["hands"][s] if c != UNKNOWN]
                for s in range(players)]
    if not isinstance(given, list) or len(given) != players or not all(
            isinstance(k, list) for k in given):
        raise ValueError(f"known: expected one list of cards per seat ({players} lists)")
    for s, cards in enumerate(given):
        codes = Counter()
        for c in cards:
            try:
                codes[rank_code(c)] += 1
            except ValueError as e:
                raise ValueError(f"known[{s}]: {e}") from None
        hand = Counter(rank_code(c) for c in original["hands"][s] if c != UNKNOWN)
        if codes - hand:
            raise ValueError(f"known[{s}]: {sorted(NAMES[r] for r in (codes - hand).elements())} "
                             f"not in seat {s}'s hand (a known card is in the hand, R26)")
    return [list(k) for k in given]


def state_of(position: dict) -> tuple[np.ndarray, bool]:
    """The kernel state of analyze's input (:func:`read_view`), with the known cards of each
    hand written into the public state (R26); and whether the input was a view."""
    pos, view = read_view(position)
    st = to_state(pos)
    known = _known(position, pos, int(st[PLAYERS]), int(st[CURRENT]), view)
    for s, cards in enumerate(known):
        for c in cards:
            st[KNOWN + s * NR + rank_code(c)] += 1
    return st, view


def hidden_counts(st) -> dict:
    """The cards the seat to move cannot see, which every world re-deals (R26)."""
    me = int(st[CURRENT])
    hands = sum(int(st[HANDN + s]) - int(st[KNOWN + s * NR:KNOWN + s * NR + NR].sum())
                for s in range(int(st[PLAYERS])) if s != me)
    face_down = int(st[FDN:FDN + int(st[PLAYERS])].sum())
    out = {"other_hands": hands, "face_down": face_down, "stock": int(st[STOCKLEN])}
    if st[REMOVEDN]:
        out["removed"] = int(st[REMOVEDN])
    out["total"] = sum(out.values())
    return out


def to_view(st, ruleset) -> dict:
    """The position of kernel state ``st`` as its seat to move sees it (R26), a *view* that
    :func:`read_view` reads back: ``"?"`` for every card that seat cannot see (its own
    face-downs, the other hands but for their known cards, the other face-downs, the stock,
    the cards set aside), its own hand and everything public named."""
    from sim.kernel.position import to_position

    pos = to_position(st, ruleset)
    me = int(st[CURRENT])
    for s in range(int(st[PLAYERS])):
        pos["face_down"][s] = [UNKNOWN] * len(pos["face_down"][s])
        if s != me:
            known = [NAMES[r] for r in range(NR) for _ in range(int(st[KNOWN + s * NR + r]))]
            pos["hands"][s] = known + [UNKNOWN] * (int(st[HANDN + s]) - len(known))
    for key in _HIDDEN_FLAT:
        if key in pos:
            pos[key] = [UNKNOWN] * len(pos[key])
    return pos


def check_rules(position: dict, rules) -> None:
    """The position's own ``ruleset`` is authoritative: refuse other rules given beside it."""
    if rules is None:
        return
    own = Ruleset.parse(position.get("ruleset") if isinstance(position, dict) else None)
    given = Ruleset.parse(rules)
    if own != given:
        raise ValueError(f"--rules/--rule: the position's own ruleset is {own}, but the "
                         f"options give {given}; the position's ruleset decides: drop "
                         f"--rules/--rule or make them agree")
