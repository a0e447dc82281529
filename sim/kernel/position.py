"""Single positions as JSON-shaped dicts (docs/position.md), on top of the jitted rules kernel.

``legal_moves``, ``apply``, ``validate`` and ``first_player`` convert a position into the
kernel's flat state and call the very functions the batch core uses (:mod:`sim.kernel.engine`): there
is one implementation of the rules. Inputs are never mutated; every problem is a
``ValueError`` that names it and, where one applies, the rule.
"""
from __future__ import annotations

from collections import Counter

import numpy as np

from sim.kernel import engine, derived, dealing
from sim.kernel.cards import NAMES, rank_code
from sim.kernel.layout import (
    ADD, ADDN, BLIND, BURNED, CHAIN, COUNT, CURRENT, DEALER, DIR, END, EVENT_NAMES, FD,
    FDN, FDS, FU, FUN, HANDN, HANDS, L_BIG, LASTMOVER, MAXP, NDECKS, NMOVES, NOUT, NR, NRULES,
    OUTORDER, OVER, PICKUP, PILE, PILELEN, PLAYERS, R_FUPICK, REMOVED, REMOVEDN, RULES,
    STATE_SIZE, STOCK, STOCKLEN, TOP, TOPRANK,
)
from sim.kernel.moves import every_legal, move_cards, move_rank, play_id
from sim.kernel.ruleset import Ruleset

_KEYS = {"ruleset", "players", "current", "direction", "hands", "face_up", "face_down", "stock",
         "pile", "count", "burned", "out", "dealer", "removed", "run"}
_OPTIONAL = {"dealer", "removed", "run"}
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
    try:
        rules.check_players(players)          # R1, H12, H13, H18, §11.3
    except ValueError as e:
        raise ValueError(f"players: {e}") from None
    decks = rules.decks_for(players)
    current = _int(pos, "current", 0, players - 1)
    direction = pos["direction"]
    if isinstance(direction, bool) or direction not in (1, -1):
        raise ValueError(f"direction: must be 1 or -1 (R23), got {direction!r}")
    hands, face_up, face_down = (_seat_cards(pos, k, players) for k in _SEAT_LISTS)
    for key, seat_lists in (("face_up", face_up), ("face_down", face_down)):
        for seat, cards in enumerate(seat_lists):
            if len(cards) > FDS:                # dealt hand_size cards (H12), never more
                raise ValueError(f"{key}[{seat}]: at most {FDS} cards (a packet of the deal is "
                                 f"hand_size <= 4 cards, R4, H12), got {len(cards)}")
    stock, pile, burned = (_cards(pos[k], k) for k in ("stock", "pile", "burned"))
    removed = _cards(pos.get("removed", []), "removed")
    if removed and rules.removed_before_deal == "none":
        raise ValueError("removed: cards are set aside only under removed_before_deal="
                         "masters (H17); this ruleset sets none aside")
    count = _int(pos, "count", 0, 4 * decks)     # H18: up to 8 with two decks
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
        raise ValueError(f"cards are not conserved (R1, H18: the deck holds each rank "
                         f"{4 * decks} times"
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
    run = _run(pos, rules, over, pile, hands[current] or face_up[current])

    st = np.zeros(STATE_SIZE, np.int32)
    st[RULES:RULES + NRULES] = rules.vector()
    st[PLAYERS], st[CURRENT], st[DIR], st[COUNT] = players, current, direction, count
    st[NDECKS], st[CHAIN] = decks, run
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
    derived.derive(st)
    return st


def _run(pos, rules, over, pile, source) -> int:
    """docs/position.md "H19, play on": the optional ``run``, checked; ``source``: the cards of
    the seat to move's source in force (R11, R13)."""
    run = pos.get("run", 0)
    if isinstance(run, bool) or not isinstance(run, int) or run < 0:
        raise ValueError(f"run: expected a whole number of cards >= 0 (H19), got {run!r}")
    if run == 0:
        return 0
    if not rules.play_on:
        raise ValueError("run: a chain exists only under play_on (H19); here run must be 0 "
                         "or absent")
    if over:
        raise ValueError("run: the game is over, so no seat is in a chain (H19)")
    top = pile[-1] if pile else -1
    on_top = 0
    while on_top < len(pile) and pile[-1 - on_top] == top:
        on_top += 1
    if run > on_top:
        raise ValueError(f"run: {run} cards, but only {on_top} equal card(s) lie on top of the "
                         f"pile: a run's cards are on top (H19)")
    if rules.cover_rank is not None and top == rank_code(rules.cover_rank):
        raise ValueError("run: the pile's top card is a cover, which ends a chain (H8, H19)")
    if top not in source:
        raise ValueError(f"run: the seat to move has no {NAMES[top]} in its hand (or face-up "
                         f"cards, its hand empty) to go on with: no chain (H19, R11, R13)")
    return run


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
    if rules.play_on:                         # H19: written always under play on
        pos["run"] = int(st[CHAIN])
    if dealer:
        pos["dealer"] = int(st[DEALER])
    return pos


# -- moves ---------------------------------------------------------------------------------
def move_to_dict(m: int, st=None) -> dict:
    """The JSON form of a move id; ``st`` (the state it is made in) gives an add under H11
    ``one_then_rank`` its ``n``, all of the face-up rank."""
    if m == BLIND:
        return {"blind": True}
    if m == PICKUP:
        return {"pickup": True}
    if m == END:
        return {"end": True}
    if ADD <= m < PICKUP:
        move = {"pickup": True, "add": NAMES[m - ADD]}
        if st is not None and st[R_FUPICK] == 3:
            move["n"] = int(st[FU + st[CURRENT] * NR + m - ADD])
        return move
    if m >= ADDN:
        return {"pickup": True, "add": NAMES[move_rank(m)], "n": int(move_cards(m))}
    return {"play": [NAMES[move_rank(m)]] * int(move_cards(m))}


def move_to_id(move, st=None) -> int:
    """The move id of a JSON move; ``ValueError`` when it is malformed (docs/position.md).
    ``st``, the state it is made in, tells an H11 ``one_then_rank`` add of all of a face-up
    rank (``ADD + r``) from one of fewer (``ADDN`` ids); without it ``n`` names fewer."""
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
        if len(codes) > 8:
            raise ValueError(f"play: at most 8 cards of one rank exist (R1, H18), "
                             f"got {len(codes)}")
        return play_id(codes[0], len(codes))
    if keys == {"blind"}:
        if move["blind"] is not True:
            raise ValueError("blind: the only blind move is {\"blind\": true} (R14)")
        return BLIND
    if keys == {"end"}:
        if move["end"] is not True:
            raise ValueError("end: the only such move is {\"end\": true} (H19)")
        return END
    if keys in ({"pickup"}, {"pickup", "add"}, {"pickup", "add", "n"}):
        if move["pickup"] is not True:
            raise ValueError("pickup: the only pick-up move is {\"pickup\": true} (R10)")
        if "add" not in move:
            return PICKUP
        add = move["add"]
        if not isinstance(add, str):
            raise ValueError(f"add: expected one card name (R12), got {add!r}")
        r = rank_code(add)
        if "n" not in move:
            return ADD + r
        n = move["n"]
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            raise ValueError(f"n: expected a whole number of face-up cards >= 1 (H11 "
                             f"one_then_rank), got {n!r}")
        held = 4 if st is None else int(st[FU + st[CURRENT] * NR + r])
        if n > held and st is not None:
            who = int(st[CURRENT])
            raise ValueError(f"illegal move {move} (R24): seat {who} has {held} face-up "
                             f"{add} (H11 one_then_rank)")
        if n == held and st is not None or n > 3:
            return ADD + r
        return ADDN + (n - 1) * NR + r
    raise ValueError(f"a move has exactly one of 'play', 'blind', 'pickup' (with an optional "
                     f"'add', and 'n' with it), 'end'; got keys {sorted(map(str, keys))}")


def legal_ids(st) -> list[int]:
    """The legal move ids, in increasing order (:func:`sim.kernel.moves.every_legal`: the
    kernel's legal word, and the plays of 5 to 8 cards, H18); none once the game is over."""
    if st[OVER]:
        return []
    out = np.zeros(NMOVES, np.int64)
    p = int(st[CURRENT])
    k = every_legal(engine.legal_word(st), st, st[HANDS + p * NR:HANDS + p * NR + NR], out)
    return [int(m) for m in out[:k]]


# -- the public answers ----------------------------------------------------------------------
def validate(position) -> None:
    """Raise ``ValueError`` saying what is wrong unless ``position`` is valid (docs/position.md)."""
    to_state(position)


def legal_moves(position) -> list[dict]:
    """Every legal move of the seat to move, each once; ``[]`` once the game is over."""
    st = to_state(position)
    return [move_to_dict(m, st) for m in legal_ids(st)]


def apply(position, move) -> dict:
    """The position after ``move``, with ``"events"`` and ``"winner"`` added (docs/position.md)."""
    st = to_state(position)
    rules = Ruleset.parse(position["ruleset"])
    m = move_to_id(move, None if st[OVER] else st)
    one_then_rank = rules.faceup_pickup == "one_then_rank"
    if "n" in move and not one_then_rank:
        raise ValueError(f"n: a number of face-up cards goes with an add only under "
                         f"faceup_pickup=one_then_rank (H11), not {rules.faceup_pickup}")
    if "add" in move and "n" not in move and one_then_rank:
        raise ValueError("n: under faceup_pickup=one_then_rank an add names how many face-up "
                         "cards of its rank go along, e.g. {\"pickup\": true, \"add\": \"K\", "
                         "\"n\": 1} (H11)")
    if st[OVER]:
        raise ValueError("the game is over (R25): no move can be made")
    if m not in legal_ids(st):
        why = why_illegal(st, m, rules)
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
    return int(dealing.first_player(st))      # R6, H14, H15


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
    chain = int(st[CHAIN])
    if m == END:
        if not rules.play_on:
            return "{\"end\": true} is a move only under play_on (H19)"
        return ("{\"end\": true} ends a chain, and there is none: the turn has not begun "
                "with a play that can go on (H19)")
    if chain:
        r = int(st[TOPRANK])
        if m == PICKUP or ADD <= m < PICKUP or m >= ADDN or move_rank(m) != r:
            return (f"{who} {'are' if you else 'is'} in a chain of {NAMES[r]}s: only more "
                    f"{NAMES[r]}s or {{\"end\": true}} may follow, no pick-up and no other "
                    f"rank (H19)")
    legal = engine.legal_word(st)
    plays = legal & ((1 << ADD) - 1) | (legal & (1 << L_BIG))
    if m == PICKUP or ADD <= m < PICKUP or m >= ADDN:
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
            a = move_rank(m)
            held = int(st[FU + p * NR + a])
            if m >= ADDN and held:
                return (f"{who} ha{'ve' if you else 's'} {held} face-up {NAMES[a]}: "
                        f"{move_cards(m)} of them is all of them or more, not fewer (H11)")
            return f"{who} ha{'ve' if you else 's'} no face-up {NAMES[a]} to add (R12, H11)"
        if rules.faceup_pickup == "one_then_rank":
            return ("a pick-up from the face-ups must name a face-up rank and how many of it go "
                    "along (H11 faceup_pickup=one_then_rank)")
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
