"""Hand-written positions for the tests (docs/position.md dicts).

``pos`` places the given cards and puts every card of the deck it does not use into
``burned``, so that hand-written positions conserve the deck (R1).
"""
from __future__ import annotations

import collections
import copy

RANKS = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
ORDER = {card: i for i, card in enumerate(RANKS + ("JK",))}


def full_deck(players, jokers=None, decks=1):
    """The deck as a Counter (R1: two jokers with 6 players unless ``jokers`` says otherwise;
    H18: ``decks`` decks, 4 * decks of each rank)."""
    deck = collections.Counter({rank: 4 * decks for rank in RANKS})
    if jokers if jokers is not None else players == 6:
        deck["JK"] = 2
    return deck


def seats(players, given):
    """Per-seat card lists from a list of lists or a sparse {seat: cards} dict."""
    result = [[] for _ in range(players)]
    if given is None:
        return result
    if not isinstance(given, dict):
        assert len(given) == players, "fixture: one list per seat"
    for seat, cards in (given.items() if isinstance(given, dict) else enumerate(given)):
        result[seat] = list(cards)
    return result


def used(p):
    """Every card a position places, as a Counter."""
    cards = collections.Counter()
    for key in ("hands", "face_up", "face_down"):
        for seat_cards in p[key]:
            cards.update(seat_cards)
    for key in ("stock", "pile", "burned"):
        cards.update(p.get(key, []))
    return cards


def pos(players=3, current=0, hands=None, face_up=None, face_down=None, stock=(), pile=(),
        count=None, direction=1, out=(), ruleset="seed", dealer=None, jokers=None,
        strict=True, decks=1, **extra):
    """A position; unused cards go to ``burned``; extra keyword arguments become extra keys.

    ``strict`` (default) asserts that the fixture is a valid position where a hand-written
    slip is likely (count of a non-empty pile, out seats); tests of invalid positions turn
    it off.
    """
    if count is None:
        assert not (strict and pile), "fixture: give the count of a non-empty pile"
        count = 0
    p = {
        "ruleset": copy.deepcopy(ruleset), "players": players, "current": current,
        "direction": direction, "hands": seats(players, hands),
        "face_up": seats(players, face_up), "face_down": seats(players, face_down),
        "stock": list(stock), "pile": list(pile), "count": count, "burned": [], "out": list(out),
    }
    if dealer is not None:
        p["dealer"] = dealer
    deck = full_deck(players, jokers, decks)
    placed = used(p)
    assert not placed - deck, f"fixture uses too many cards: {dict(placed - deck)}"
    p["burned"] = sorted((deck - placed).elements(), key=ORDER.get)
    if strict:
        for seat in range(players):
            holds = p["hands"][seat] or p["face_up"][seat] or p["face_down"][seat]
            assert bool(holds) == (seat not in p["out"]), f"fixture: seat {seat} cards vs out"
    p.update(extra)
    return p
