"""The peers' bots of docs/rules.md §11.6, so that runs can be set beside those programs' numbers.

``cheapest``
    trachwo/masters-of-shithead's CheapShit: never picks up while it can play; plays the legal
    rank that comes first in ``order`` (its "cheapest"); all its cards of that rank when the
    stock is empty or the rank is one of the first ``hold_back`` of ``order`` (4 ... J), else
    one (as many as the count requires, R9), and always one of a rank in ``alone`` (10, Q: a 10
    burns as it lands, a Q must be covered at once, so CheapShit never lays two together),
    except that cards completing a four of a kind on the pile (three or more of the rank on
    top, R22) all go together; under H19 it goes on in a chain with all its cards of the run's
    rank when the stock is empty or the rank is among the first ``hold_back``, and ends the
    turn otherwise; on a pick-up from the face-ups names its cheapest face-up rank, all of it
    (R12, H11); blind: the next face-down card (R17: the same in law as its random choice,
    §11.7). It does not swap (``none``) unless given a swap policy.
``simple``
    boothj5/shithead's Simple ("always lays lowest"): picks up only when it cannot play; plays
    the first legal rank of ``order``, all its copies for a normal rank, one card for a rank in
    ``single`` (2, 7, 10). Its comparator ranks the ``single`` ranks equal and its sort is
    stable, so among them it plays the one it got first, an order that counts per rank do not
    hold: a card of the legal ``single`` ranks is drawn at random instead, each rank weighted
    by the cards of it in the hand (the chance that one of them came first). From the face-ups
    it plays the first legal card in the row's dealt order: likewise a random legal face-up
    card, each rank weighted by its face-up cards. The draws come from the game's random
    stream, so it is not pure (sim.kernel.cycle) and its games are reproducible from the seed.
    No swap. Its program has no chains; under H19 it plays as it lays cards: it goes on with
    every card of a normal rank (all copies) and ends the turn on a ``single`` rank (one
    card a turn).

Rank orders are written as card names separated by spaces; every rank 2 .. A must appear once
(jokers, when the ruleset has them, come last).
"""
from __future__ import annotations

import numpy as np

from sim.kernel import peers
from sim.kernel.cards import CODE, JOKER, NAMES
from sim.kernel.strategy import move_strategy

_RANKS = [n for n in NAMES if n != "JK"]


def _order_row(text: str, what: str) -> list[float]:
    """The order ``text`` as two tables of a parameter row: for each set of the ranks 3..9
    (codes 0..6), and for each of 10..JK (7..13), the key ``place * 16 + code`` of its rank
    that comes first (255 for none), so that the first rank of any set is the least of two
    lookups (:func:`sim.kernel.peers.first_of`): no loop over the order at each turn."""
    names = text.replace(",", " ").split()
    if sorted(names) != sorted(_RANKS):
        raise ValueError(f"{what}: expected every rank 2..A once, separated by spaces, got "
                         f"{text!r}")
    place = {CODE[name]: i for i, name in enumerate(names)}
    place[JOKER] = len(names)
    table = []
    for low in (0, 7):
        for bits in range(128):
            keys = [place[low + b] * 16 + low + b for b in range(7) if bits >> b & 1]
            table.append(float(min(keys, default=255)))
    return table


def _rank_mask(text: str, what: str) -> float:
    """The 14-bit set of the ranks named in ``text``, as the float of a parameter row."""
    names = text.replace(",", " ").split()
    bad = [s for s in names if s not in _RANKS]
    if bad:
        raise ValueError(f"{what}: {', '.join(bad)} is not a rank 2..A")
    return float(sum(1 << CODE[s] for s in set(names)))


CHEAPEST = {"order": "4 5 6 7 8 9 J Q K A 3 2 10", "hold_back": (7, 0, 13), "alone": "10 Q"}


def prepare_cheapest(values: dict) -> np.ndarray:
    """The row: the set of ranks played with all their cards (the first ``hold_back`` of the
    order, less ``alone``), the set ``alone``, then the order's tables. A value not given
    takes its default (montecarlo's playouts name the order and hold_back only)."""
    values = {**{k: v[0] if isinstance(v, tuple) else v for k, v in CHEAPEST.items()},
              **values}
    order = values["order"].replace(",", " ").split()
    table = _order_row(values["order"], "cheapest(order=...)")
    alone = _rank_mask(values["alone"], "cheapest(alone=...)")
    every = sum(1 << CODE[name] for name in order[:values["hold_back"]]) & ~int(alone)
    return np.array([float(every), alone] + table, np.float64)


def _prepare_simple(values: dict) -> np.ndarray:
    """The row: the set of the ``single`` ranks, an unused slot, then the order's tables."""
    return np.array([_rank_mask(values["single"], "simple(single=...)"), 0.0]
                    + _order_row(values["order"], "simple(order=...)"), np.float64)


# The rules of play are the kernel's (sim.kernel.peers), which the batch core inlines.
cheapest = move_strategy(
    "cheapest",
    "trachwo's CheapShit (docs/rules.md §11.6): the legal rank first in `order`, all its cards when "
    "the stock is empty or the rank is among the first `hold_back` of the order, else one, and "
    "always one of a rank in `alone`, all of them when they complete a four on the pile; in a "
    "chain (H19) goes on with all of the run's rank on the same terms, else ends; picks up only "
    "when it cannot play",
    swap="none",
    params=CHEAPEST,
    prepare=prepare_cheapest,
    pure=True,
)(peers.cheapest)

simple = move_strategy(
    "simple",
    "boothj5's Simple (docs/rules.md §11.6): the first legal rank of `order`, all copies, but one "
    "card of the ranks in `single`, which rank equal: one of them drawn at random; from the "
    "face-ups a random legal card (its dealt order); picks up only when it cannot play; in a "
    "chain (H19) goes on with every card of a normal rank and ends the turn on a rank in "
    "`single` (it lays those one at a time)",
    swap="none",
    params={"order": "3 4 5 6 8 9 J Q K A 2 7 10", "single": "2 7 10"},
    prepare=_prepare_simple,
)(peers.simple)
