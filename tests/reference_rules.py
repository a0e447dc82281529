"""Independent pure-Python reference of the single-position rules API.

Used only by the tests, for differential checking against ``sim.rules``. It is written
straight from ``../shared/RULES.md`` (rule numbers R1-R26, V1, V2) and
``../shared/POSITION.md`` (the JSON shape of positions and moves), without looking at the
implementation under test. Readability wins over speed here.

Public functions:
- ``ref_legal_moves(pos) -> list[move]``
- ``ref_apply(pos, move) -> pos`` (adds ``"events"`` and ``"winner"``; never mutates ``pos``)
- ``ref_first_player(pos) -> seat``

Positions are trusted to be valid (the real code validates them); moves are checked.
"""

import copy
from collections import Counter

# R2: rank order low to high; 2 (R20) and the joker (R23) are special and sit outside it.
ORDER = ["3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]
RANK_VALUE = {rank: i for i, rank in enumerate(ORDER)}
CARDS = ["2"] + ORDER + ["JK"]
TWO = "2"
TEN = "10"
JOKER = "JK"

# Event names, in the order POSITION.md fixes for one move.
EVENT_ORDER = ["burn", "reverse", "blind_fail", "pickup", "out", "game_over"]


# --------------------------------------------------------------------------- rulesets

def _ruleset_options(ruleset):
    """Return the options dict of a ruleset ("seed" or {"base": "seed", ...})."""
    if ruleset == "seed":
        return {"last_player_loses": False, "choose_face_ups": False}
    if isinstance(ruleset, dict) and ruleset.get("base") == "seed":
        unknown = set(ruleset) - {"base", "last_player_loses", "choose_face_ups"}
        if unknown:
            raise ValueError(f"unknown ruleset option(s): {sorted(unknown)}")
        return {
            "last_player_loses": bool(ruleset.get("last_player_loses", False)),
            "choose_face_ups": bool(ruleset.get("choose_face_ups", False)),
        }
    raise ValueError(f"unknown ruleset: {ruleset!r}")


def _is_v2(pos):
    """V2 (play to the last) is on."""
    return _ruleset_options(pos["ruleset"])["last_player_loses"]


def _game_over(pos):
    """R25: under seed the first seat out ends the game; V2: one seat left holding cards."""
    if _is_v2(pos):
        return len(pos["out"]) >= pos["players"] - 1
    return len(pos["out"]) >= 1


# --------------------------------------------------------------------------- helpers

def _next_seat(seat, direction, players, out):
    """R9 / V2: the next seat from ``seat`` in ``direction``, skipping seats that are out."""
    s = seat
    for _ in range(players):
        s = (s + direction) % players
        if s not in out:
            return s
    return seat  # nobody else left; cannot happen in a valid position


def _effective_top(pile):
    """R20, R23: the rank the next play must match or beat, or None for "anything".

    Jokers are looked through (R23); an empty pile under them means anything (R23);
    a 2 on top means anything may follow (R20).
    """
    for card in reversed(pile):
        if card == JOKER:
            continue  # R23: look through jokers
        if card == TWO:
            return None  # R20: any rank may be played on a 2
        return card
    return None  # empty pile (or only jokers): anything


def _rank_may_follow(rank, pile):
    """R9, R20, R23: may ``rank`` be played on ``pile`` (ignoring the count)?"""
    if rank in (TWO, JOKER):
        return True  # R20: a 2 may always be played; R23: a joker may always be played
    top = _effective_top(pile)
    if top is None:
        return True
    return RANK_VALUE[rank] >= RANK_VALUE[top]  # R9: equal or higher


def _is_legal_play(cards, count, pile):
    """R7, R9: is this group of cards a legal play on the pile with this count?"""
    if not cards or len(set(cards)) != 1:
        return False  # one rank only (R7, R9)
    if count == 0:
        return True  # R7: a leader plays 1 card or several of one rank, anything goes
    if len(cards) != count:
        return False  # R9: exactly as many cards as the lead
    return _rank_may_follow(cards[0], pile)


def _burns(pile_after_play, played_rank):
    """R21: 10s burn. R22: the physical top four cards all one rank burn (jokers break it)."""
    if played_rank == TEN:
        return True
    top4 = pile_after_play[-4:]
    return len(top4) == 4 and len(set(top4)) == 1 and top4[0] != JOKER


def copy_position(pos):
    """A deep copy of a JSON position (faster than copy.deepcopy, same result)."""
    new = {}
    for key, value in pos.items():
        if isinstance(value, list):
            new[key] = [list(v) if isinstance(v, list) else v for v in value]
        elif isinstance(value, dict):
            new[key] = copy.deepcopy(value)
        else:
            new[key] = value
    return new


def _card_ok(card):
    return isinstance(card, str) and card in CARDS


def _canonical(move):
    """Check a move's shape (R24 / POSITION.md) and return a hashable canonical key.

    ("play", sorted cards) | ("blind",) | ("pickup", None) | ("pickup", rank)
    """
    if not isinstance(move, dict):
        raise ValueError(f"a move must be a dict, got {type(move).__name__}")
    keys = set(move)
    if keys == {"play"}:
        cards = move["play"]
        if not isinstance(cards, list) or not cards:
            raise ValueError("'play' must be a non-empty list of cards")
        for c in cards:
            if not _card_ok(c):
                raise ValueError(f"unknown card name {c!r}")
        return ("play", tuple(sorted(cards, key=CARDS.index)))
    if keys == {"blind"}:
        if move["blind"] is not True:
            raise ValueError("'blind' must be true")
        return ("blind",)
    if keys in ({"pickup"}, {"pickup", "add"}):
        if move["pickup"] is not True:
            raise ValueError("'pickup' must be true")
        if "add" in move:
            if not _card_ok(move["add"]):
                raise ValueError(f"'add' must be a card name, got {move['add']!r}")
            return ("pickup", move["add"])
        return ("pickup", None)
    raise ValueError(f"malformed move: {move!r}")


def move_key(move):
    """Canonical hashable form of a (well-formed) move, for comparing sets of moves."""
    return _canonical(move)


# --------------------------------------------------------------------------- legal moves

def ref_legal_moves(pos):
    """Every legal move of the seat to move, each once. [] once the game is over."""
    if _game_over(pos):
        return []
    p = pos["current"]
    hand = pos["hands"][p]
    face_up = pos["face_up"][p]
    face_down = pos["face_down"][p]
    pile = pos["pile"]
    count = pos["count"]
    moves = []

    if hand or face_up:
        # R11, R13: play from the hand while it holds a card, else from the face-ups.
        source = hand if hand else face_up
        held = Counter(source)
        for rank in sorted(held, key=CARDS.index):
            n = held[rank]
            if count == 0:
                # R7: a leader plays 1 card or several of one rank
                for k in range(1, n + 1):
                    moves.append({"play": [rank] * k})
            elif n >= count and _rank_may_follow(rank, pile):
                # R9: exactly `count` cards, equal or higher (R20, R23 special cards)
                moves.append({"play": [rank] * count})
        if pile:
            # R10: picking up is allowed whenever the pile is not empty
            moves.append({"pickup": True})
            if not hand:
                # R12: from the face-ups, one face-up card may be added first
                for rank in sorted(set(face_up), key=CARDS.index):
                    moves.append({"pickup": True, "add": rank})
    elif face_down:
        # R14, R16: only face-down cards: the blind turn is forced, no pick-up
        moves.append({"blind": True})
    return moves


# --------------------------------------------------------------------------- apply

def _finish_play(new, p, cards, from_hand, events):
    """Put a legal play on the pile and carry out R8, R9, R18-R23, R25, V2."""
    rank = cards[0]
    pile = new["pile"]
    if new["count"] == 0:
        new["count"] = len(cards)  # R9: the lead sets the count
    pile.extend(cards)

    burned = _burns(pile, rank)  # R21, R22
    if burned:
        new["burned"].extend(pile)
        new["pile"] = []
        new["count"] = 0
        events.append("burn")
    elif rank == JOKER:
        new["direction"] = -new["direction"]  # R23: one play, one reversal
        events.append("reverse")

    if from_hand:
        # R8: after a play from hand, draw up to 3 from the stock (last element first)
        hand = new["hands"][p]
        while len(hand) < 3 and new["stock"]:
            hand.append(new["stock"].pop())

    is_out = not (new["hands"][p] or new["face_up"][p] or new["face_down"][p])
    if is_out:
        new["out"].append(p)  # R18 / V2
        events.append("out")

    if burned and not is_out:
        new["current"] = p  # R21, R22: the burner leads again (pile empty, count 0)
    else:
        # R9 / R19 / V2: next seat in the (possibly reversed, R23) direction, skipping out
        # seats; after a burn by a player who went out, that seat leads on the empty pile.
        new["current"] = _next_seat(p, new["direction"], new["players"], new["out"])


def _pickup(new, p, extra_cards):
    """R10, R15: the whole pile (plus any turned cards) goes to the hand; next seat leads."""
    new["hands"][p].extend(new["pile"])
    new["hands"][p].extend(extra_cards)
    new["pile"] = []
    new["count"] = 0  # R10: the next player leads with a fresh count
    new["current"] = _next_seat(p, new["direction"], new["players"], new["out"])


def ref_apply(pos, move):
    """The position after ``move``; raises ValueError for an illegal or malformed move."""
    key = _canonical(move)
    if _game_over(pos):
        raise ValueError("the game is over: no move can be applied")
    legal = {_canonical(m) for m in ref_legal_moves(pos)}
    if key not in legal:
        raise ValueError(f"illegal move in this position (R24): {move!r}")

    new = copy_position(pos)
    new.pop("events", None)
    new.pop("winner", None)
    p = new["current"]
    events = []

    if key[0] == "play":
        cards = list(key[1])
        hand = new["hands"][p]
        source = hand if hand else new["face_up"][p]  # R11, R13
        from_hand = bool(hand)
        for c in cards:
            source.remove(c)
        _finish_play(new, p, cards, from_hand, events)

    elif key[0] == "pickup":
        add = key[1]
        if add is not None:
            # R12: add one face-up card to the pile; adding never burns or reverses
            new["face_up"][p].remove(add)
            new["pile"].append(add)
        _pickup(new, p, [])
        events.append("pickup")

    else:  # blind, R14-R17
        face_down = new["face_down"][p]
        need = max(new["count"], 1)  # R14: as many as the count, 1 when leading
        turned = []
        while face_down and len(turned) < need:
            turned.append(face_down.pop())  # R17: last element is the top
        if len(turned) == need and _is_legal_play(turned, new["count"], new["pile"]):
            # R15: a legal blind play stays on the pile; plays from table never draw (R8)
            _finish_play(new, p, turned, False, events)
        else:
            # R15, R16: illegal (or too few cards): pick up the pile and the turned cards
            events.append("blind_fail")
            _pickup(new, p, turned)
            events.append("pickup")

    over = _game_over(new)
    if over:
        events.append("game_over")
    events.sort(key=EVENT_ORDER.index)  # already in order; keeps POSITION.md's order explicit
    new["events"] = events
    # POSITION.md: winner is null while the game goes on, then the first seat out (R25, V2)
    new["winner"] = new["out"][0] if over else None
    return new


# --------------------------------------------------------------------------- first player

def ref_first_player(pos):
    """R6: the first seat in deal order dealt a 3 face up, else holding a 3 in hand, then 4..A.

    Deal order starts at the dealer's left (R4); without ``dealer``, seat 0 is dealt first.
    2s and jokers are never used. No 3..A anywhere: the first seat in deal order.
    """
    if pos["pile"] or pos["burned"] or pos["out"]:
        raise ValueError("first_player needs a position before any play")
    n = pos["players"]
    dealer = pos.get("dealer")
    first = 0 if dealer is None else (dealer + 1) % n
    order = [(first + i) % n for i in range(n)]
    for rank in ORDER:
        for seat in order:
            if rank in pos["face_up"][seat]:
                return seat
        for seat in order:
            if rank in pos["hands"][seat]:
                return seat
    return order[0]
