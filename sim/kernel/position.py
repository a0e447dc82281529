"""Single positions as JSON-shaped dicts (docs/position.md), on top of the jitted rules kernel.

``legal_moves``, ``apply``, ``validate`` and ``first_player`` convert a position into the
kernel's flat state and call the very functions the batch core uses (:mod:`sim.kernel.engine`): there
is one implementation of the rules. Inputs are never mutated; every problem is a
``ValueError`` that names it and, where one applies, the rule.
"""
from __future__ import annotations

from collections import Counter

import numpy as np

from sim.kernel import engine
from sim.kernel.cards import NAMES, rank_code
from sim.kernel.layout import (
    ADD, BLIND, BURNED, COUNT, CURRENT, DEALER, DIR, FDS, EVENT_NAMES, FD, FDN, FU, FUN, HANDN,
    HANDS, LASTMOVER, MAXP, NMOVES, NOUT, NR, NRULES, OUTORDER, OVER, PICKUP, PILE, PILELEN,
    PLAYERS, REMOVED, REMOVEDN, RULES, STATE_SIZE, STOCK, STOCKLEN, TOP,
)
from sim.kernel.moves import legal_list, move_cards, move_rank, play_id
from sim.kernel.ruleset import Ruleset

_KEYS = {"ruleset", "players", "current", "direction", "hands", "face_up", "face_down", "stock",
         "pile", "count", "burned", "out", "dealer", "removed"}
_OPTIONAL = {"dealer", "removed"}
_IGNORED = {"events", "winner"}
_SEAT_LISTS = ("hands", "face_up", "face_down")


def parse_ruleset(ruleset) -> dict:
    """docs/position.md's ``ruleset`` -> every option with its value (:class:`Ruleset`)."""
    return Ruleset.parse(ruleset).to_dict()


# -- validation and conversion -------------------------------------------------------------
def _int(pos, key, lo, hi):
    v = pos.get(key)
    if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
        raise ValueError(f"{key}: expected an integer from {lo} to {hi}, got {v!r}")
    return v


def _cards(value, where):
    if not isinstance(value, list):
        raise ValueError(f"{where}: expected a list of cards, got {value!r}")
    try:
        return [rank_code(c) for c in value]
    except ValueError as e:
        raise ValueError(f"{where}: {e}") from None


def _seat_cards(pos, key, players):
    value = pos.get(key)
    if not isinstance(value, list) or len(value) != players:
        raise ValueError(f"{key}: expected one list of cards per seat ({players} lists)")
    return [_cards(v, f"{key}[{s}]") for s, v in enumerate(value)]


def check_keys(pos, extra=()) -> None:
    """A position is an object with every key docs/position.md requires and no other
    (``extra``: the keys a caller adds, such as analyze's ``"known"``); ``ValueError`` naming
    what is missing or unknown."""
    if not isinstance(pos, dict):
        raise ValueError(f"a position must be a JSON object (dict), got {type(pos).__name__}")
    unknown = set(pos) - _KEYS - _IGNORED - set(extra)
    if unknown:
        raise ValueError(f"unknown key(s) in position: {', '.join(sorted(map(str, unknown)))}")
    missing = (_KEYS - _OPTIONAL) - set(pos)
    if missing:
        raise ValueError(f"missing key(s) in position: {', '.join(sorted(missing))} "
                         f"(docs/position.md)")


def to_state(pos) -> np.ndarray:
    """Check ``pos`` (docs/position.md "valid") and build the kernel state; ``ValueError`` if not."""
    check_keys(pos)
    rules = Ruleset.parse(pos["ruleset"])
    players = pos["players"]
    if isinstance(players, bool) or not isinstance(players, int) or not 2 <= players <= 6:
        raise ValueError(f"players: Shithead is for 2 to 6 players (R1), got {players!r}")
    if 52 + rules.jokers_for(players) < players * 3 * rules.hand_size:
        raise ValueError(f"players: {players} players do not fit this ruleset's deck (§11.3, "
                         f"H12, H13): at most {rules.max_players()}")
    current = _int(pos, "current", 0, players - 1)
    direction = pos["direction"]
    if isinstance(direction, bool) or direction not in (1, -1):
        raise ValueError(f"direction: must be 1 or -1 (R23), got {direction!r}")
    hands, face_up, face_down = (_seat_cards(pos, k, players) for k in _SEAT_LISTS)
    stock, pile, burned = (_cards(pos[k], k) for k in ("stock", "pile", "burned"))
    removed = _cards(pos.get("removed", []), "removed")
    if removed and rules.removed_before_deal == "none":
        raise ValueError("removed: cards are set aside only under removed_before_deal="
                         "masters (H17); this ruleset sets none aside")
    count = _int(pos, "count", 0, 4)
    cover = rules.cover_rank is not None and pile and pile[-1] == rank_code(rules.cover_rank)
    if count == 0 and pile and not cover:
        raise ValueError(f"count: must be 0 exactly when the pile is empty (R7, R9) or its top "
                         f"card is a cover to be covered (H8); count is 0 and the pile holds "
                         f"{len(pile)} card(s)")
    if count > 0 and not pile:
        raise ValueError(f"count: must be 0 when the pile is empty (R7); it is {count}")
    if count > len(pile):
        raise ValueError(f"count: {count} is more than the pile holds ({len(pile)}) (R9)")
    dealer = _int(pos, "dealer", 0, players - 1) if "dealer" in pos else players - 1
    # R1, H13, H17: every card of the deck exactly once.
    seen = Counter(stock + pile + burned + removed)
    for seat in range(players):
        seen.update(hands[seat] + face_up[seat] + face_down[seat])
    want = rules.deck_counts(players)
    wrong = [f"{NAMES[r]}: {seen.get(r, 0)} instead of {want[r]}"
             for r in range(NR) if seen.get(r, 0) != want[r]]
    if wrong:
        raise ValueError("cards are not conserved (R1: the deck holds each rank 4 times"
                         + (", and 2 jokers (H13)" if want[-1] else ", no jokers (H13)")
                         + "): " + "; ".join(wrong))
    out = pos["out"]
    if (not isinstance(out, list) or len(set(map(repr, out))) != len(out)
            or any(isinstance(s, bool) or not isinstance(s, int) or not 0 <= s < players
                   for s in out)):
        raise ValueError(f"out: expected a list of distinct seats 0..{players - 1}, got {out!r}")
    empty = [s for s in range(players) if not (hands[s] or face_up[s] or face_down[s])]
    if sorted(empty) != sorted(out):
        raise ValueError(f"out: the seats holding no card ({empty}) must be exactly the seats "
                         f"that are out ({out}) (R18)")
    limit = players - 1 if rules.last_player_loses else 1
    if len(out) > limit:
        raise ValueError(f"out: at most {limit} seat(s) can be out under this ruleset "
                         f"(R25, V2), got {len(out)}")
    over = len(out) >= limit
    if not over and current in out:
        raise ValueError(f"current: seat {current} is out and holds no card; "
                         "the seat to move must hold cards")

    st = np.zeros(STATE_SIZE, np.int32)
    st[RULES:RULES + NRULES] = rules.vector()
    st[PLAYERS], st[CURRENT], st[DIR], st[COUNT] = players, current, direction, count
    st[DEALER], st[LASTMOVER], st[OVER] = dealer, -1, int(over)
    for r in removed:
        st[REMOVED + r] += 1
    st[REMOVEDN] = len(removed)
    for seat in range(players):
        for r in hands[seat]:
            st[HANDS + seat * NR + r] += 1
        for r in face_up[seat]:
            st[FU + seat * NR + r] += 1
        st[HANDN + seat], st[FUN + seat] = len(hands[seat]), len(face_up[seat])
        st[FD + seat * FDS:FD + seat * FDS + len(face_down[seat])] = face_down[seat]
        st[FDN + seat] = len(face_down[seat])
    st[OUTORDER:OUTORDER + MAXP] = -1
    st[OUTORDER:OUTORDER + len(out)] = out
    st[NOUT] = len(out)
    st[STOCK:STOCK + len(stock)] = stock
    st[STOCKLEN] = len(stock)
    st[PILE:PILE + len(pile)] = pile
    st[PILELEN] = len(pile)
    for r in burned:
        st[BURNED + r] += 1
    engine.derive(st)
    return st


def _names(codes):
    return [NAMES[r] for r in codes]


def _per_rank(st, base):
    return [NAMES[r] for r in range(NR) for _ in range(int(st[base + r]))]


def to_position(st, ruleset, dealer=True) -> dict:
    """The position of a kernel state, as docs/position.md shapes it; ``ruleset`` as given (a
    :class:`Ruleset` is written as its docs/position.md value). ``removed`` (H17) is written when
    the ruleset sets cards aside."""
    players = int(st[PLAYERS])
    seats = range(players)
    rules = Ruleset.parse(ruleset)
    pos = {
        "ruleset": ruleset.to_json() if isinstance(ruleset, Ruleset) else ruleset,
        "players": players,
        "current": int(st[CURRENT]),
        "direction": int(st[DIR]),
        "hands": [_per_rank(st, HANDS + s * NR) for s in seats],
        "face_up": [_per_rank(st, FU + s * NR) for s in seats],
        "face_down": [_names(st[FD + s * FDS:FD + s * FDS + st[FDN + s]]) for s in seats],
        "stock": _names(st[STOCK:STOCK + st[STOCKLEN]]),
        "pile": _names(st[PILE:PILE + st[PILELEN]]),
        "count": int(st[COUNT]),
        "burned": _per_rank(st, BURNED),
        "out": [int(s) for s in st[OUTORDER:OUTORDER + st[NOUT]]],
    }
    if rules.removed_before_deal != "none":
        pos["removed"] = _per_rank(st, REMOVED)
    if dealer:
        pos["dealer"] = int(st[DEALER])
    return pos


# -- moves ---------------------------------------------------------------------------------
def move_to_dict(m: int) -> dict:
    """The JSON form of a move id."""
    if m == BLIND:
        return {"blind": True}
    if m == PICKUP:
        return {"pickup": True}
    if m >= ADD:
        return {"pickup": True, "add": NAMES[m - ADD]}
    return {"play": [NAMES[move_rank(m)]] * move_cards(m)}


def move_to_id(move) -> int:
    """The move id of a JSON move; ``ValueError`` when it is malformed (docs/position.md)."""
    if not isinstance(move, dict):
        raise ValueError(f"a move must be an object such as {{\"play\": [\"7\"]}}, got {move!r}")
    keys = set(move)
    if keys == {"play"}:
        cards = move["play"]
        if not isinstance(cards, list) or not cards:
            raise ValueError("play: expected a non-empty list of cards (R7)")
        codes = _cards(cards, "play")
        if len(set(codes)) != 1:
            raise ValueError(f"play: all cards of a play must be of one rank (R7, R9), "
                             f"got {cards}")
        if len(codes) > 4:
            raise ValueError(f"play: at most 4 cards of one rank exist (R1), got {len(codes)}")
        return play_id(codes[0], len(codes))
    if keys == {"blind"}:
        if move["blind"] is not True:
            raise ValueError("blind: the only blind move is {\"blind\": true} (R14)")
        return BLIND
    if keys in ({"pickup"}, {"pickup", "add"}):
        if move["pickup"] is not True:
            raise ValueError("pickup: the only pick-up move is {\"pickup\": true} (R10)")
        if "add" not in move:
            return PICKUP
        add = move["add"]
        if not isinstance(add, str):
            raise ValueError(f"add: expected one card name (R12), got {add!r}")
        return ADD + rank_code(add)
    raise ValueError(f"a move has exactly one of 'play', 'blind', 'pickup' (with an optional "
                     f"'add'); got keys {sorted(map(str, keys))}")


def legal_ids(st) -> list[int]:
    """The legal move ids, from the kernel's legal word; none once the game is over."""
    if st[OVER]:
        return []
    out = np.zeros(NMOVES, np.int64)
    k = legal_list(engine.legal_word(st), st, out)
    return [int(m) for m in out[:k]]


# -- the public answers ----------------------------------------------------------------------
def validate(position) -> None:
    """Raise ``ValueError`` saying what is wrong unless ``position`` is valid (docs/position.md)."""
    to_state(position)


def legal_moves(position) -> list[dict]:
    """Every legal move of the seat to move, each once; ``[]`` once the game is over."""
    st = to_state(position)
    return [move_to_dict(m) for m in legal_ids(st)]


def apply(position, move) -> dict:
    """The position after ``move``, with ``"events"`` and ``"winner"`` added (docs/position.md)."""
    st = to_state(position)
    m = move_to_id(move)
    if st[OVER]:
        raise ValueError("the game is over (R25): no move can be made")
    if m not in legal_ids(st):
        why = why_illegal(st, m, Ruleset.parse(position["ruleset"]))
        raise ValueError(f"illegal move {move} (R24): {why}")
    events = engine.apply_move(st, m)
    out = to_position(st, position["ruleset"], dealer="dealer" in position)
    if "removed" in position:
        out["removed"] = _per_rank(st, REMOVED)
    out["events"] = [name for bit, name in EVENT_NAMES if events & bit]
    out["winner"] = int(st[OUTORDER]) if st[OVER] else None
    return out


def first_player(position) -> int:
    """R6 for a position before any play, read from its face-ups, hands and ``dealer``."""
    st = to_state(position)
    if st[PILELEN] or st[NOUT] or st[BURNED:BURNED + NR].any():
        raise ValueError("first_player needs a position before any play (R6): empty pile, "
                         "nothing burned, nobody out")
    return int(engine.first_player(st))      # R6, H14, H15


def why_illegal(st, m, rules: Ruleset, you: bool = False) -> str:
    """Why move ``m`` is not legal in state ``st`` (R24), in words naming the cards and the
    rule; ``you``: addressed to the seat to move ("you hold", not "seat 2 holds"). Only
    meaningful for a move the kernel's legal word refuses."""
    p, count = int(st[CURRENT]), int(st[COUNT])
    who, s_, its = ("you", "", "your") if you else (f"seat {p}", "s", "its")
    does = "do" if you else "does"
    hand, face_up = st[HANDN + p] > 0, st[FUN + p] > 0
    if not hand and not face_up:
        if m == PICKUP and count == 0:
            return f"{who} lead{s_}: a leader must play, here blind (R7, R10, H8)"
        return f"{who} hold{s_} only face-down cards: the only move is a blind turn (R14, R16)"
    if m == BLIND:
        return f"{who} still hold{s_} cards in hand or face up: no blind turn yet (R14)"
    legal = engine.legal_word(st)
    plays = legal & ((1 << ADD) - 1)
    if m == PICKUP or m >= ADD:
        if count == 0:
            return (f"{who} lead{s_} (an empty pile, or a cover to cover, H8): a leader must "
                    f"play, not pick up (R7, R10)")
        if plays and rules.voluntary_pickup == "never":
            return "a pick-up is legal only when no play is (H10 voluntary_pickup=never)"
        if m != PICKUP:
            if hand:
                return "cards may be added before a pick-up only when playing from the table (R12)"
            if rules.faceup_pickup == "pile_only":
                return "no face-up card may go along with the pile (H11 faceup_pickup=pile_only)"
            return f"{who} ha{'ve' if you else 's'} no face-up {NAMES[m - ADD]} to add (R12, H11)"
        return ("a pick-up from the face-ups must name a face-up rank, all of which go along "
                "(H11 faceup_pickup=must_add_rank)")
    r, n = move_rank(m), move_cards(m)
    source = "hand" if hand else "face-up cards"
    base = (HANDS if hand else FU) + p * NR
    held = int(st[base + r])
    if held < n:
        extra = ""
        if hand and st[FU + p * NR + r] >= n:
            extra = "; face-up cards wait until the hand is empty (R13)"
        what = f"any {NAMES[r]}" if held == 0 else f"{n} x {NAMES[r]}, only {held}"
        return f"{who} {does} not hold {what} in {its} {source} (R24){extra}"
    if count and n != count and rules.count_rule:
        return (f"this pile was led with {count} card{'s' * (count > 1)}: every play on it "
                f"must have exactly {count}, not {n} x {NAMES[r]} (R9)")
    top = NAMES[st[TOP]] if st[TOP] >= 0 else None
    if rules.seven_lower and top == "7":
        return (f"on a 7 only 3, 4, 5, 6, 7, 2s, jokers or the transparent rank may follow "
                f"(H4 seven_lower), not {NAMES[r]}")
    if top is None:
        return f"{NAMES[r]} cannot be played on this pile (R9, H0)"
    return (f"{NAMES[r]} cannot go on {top}: a play must be the same as or higher than the "
            f"effective top of the pile (R9, H0)")
