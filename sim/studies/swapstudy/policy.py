"""Stage 3 of the swap study: the split policy's choice for every six-card set
(``policy.csv``) and a few worked examples where it differs from ``highest-up``."""
from __future__ import annotations

from itertools import combinations
from pathlib import Path

import numpy as np

from sim.kernel.cards import NAMES, NRANK
from sim.studies.swapstudy.triples import INDEX, card_names, table_code, usual_up, words


def six_card_sets(deck):
    """Every six-card multiset ``deck`` (cards of each rank, ``Ruleset.deck_counts``, H13)
    allows, as (sets, 6) rank codes."""
    limit = np.array(deck)
    sets = np.array([[a, b - 1, c - 2, d - 3, e - 4, f - 5]
                     for a, b, c, d, e, f in combinations(range(NRANK + 5), 6)])
    counts = np.stack([(sets == r).sum(axis=1) for r in range(NRANK)], axis=1)
    return sets[(counts <= limit).all(axis=1)]


_COMBOS = list(combinations(range(6), 3))          # the policies' order


def best_splits(row, sets):
    """For each six-card set (rows of rank codes): the face-up index triple the ``split``
    policy chooses, its value and the value of the best split of *other* cards (NumPy, the
    policy's own rule: the first of highest value)."""
    from strategies.swaps import split_value
    sets = np.asarray(sets)
    vals, ups = [], []
    for t in _COMBOS:
        rest = [i for i in range(6) if i not in t]
        code_up, code_hand = table_code(sets[:, list(t)]), table_code(sets[:, rest])
        vals.append(split_value(row, code_up, code_hand))
        ups.append(code_up)
    vals, ups = np.stack(vals, axis=1), np.stack(ups, axis=1)
    idx = np.arange(len(sets))
    best = vals.argmax(axis=1)                              # the first of highest value
    top = vals[idx, best]
    other = np.where(ups == ups[idx, best][:, None], -np.inf, vals)   # other cards up
    return [_COMBOS[i] for i in best], top, other.max(axis=1)



def examples(model, row, deck, k=3, seed=12345):
    """``k`` six-card sets from random deals where the split policy differs from
    ``highest-up``, with its choice and why (the model's values of the two splits, and the
    rank terms' face-up gain of each card)."""
    rs = np.random.RandomState(seed)
    deck = np.array([r for r in range(NRANK) for _ in range(deck[r])], np.int32)   # H13
    out = []
    seen = set()
    for _ in range(5000):
        cards = np.sort(rs.choice(deck, 6, replace=False)).astype(np.int32)
        if tuple(cards) in seen:
            continue
        seen.add(tuple(cards))
        choice, top, second = best_splits(row, cards[None, :])
        up = list(choice[0])
        hu_up = usual_up(cards)
        if card_names(cards[up]) == card_names(cards[hu_up]):
            continue
        hand = [i for i in range(6) if i not in up]
        hu_hand = [i for i in range(6) if i not in hu_up]

        def val(u, h):
            return (model["up"][INDEX[table_code(cards[u])]],
                    model["hand"][INDEX[table_code(cards[h])]])
        v_up, v_hand = val(up, hand)
        h_up, h_hand = val(hu_up, hu_hand)
        gains = {NAMES[c]: float(model["gain"][c]) for c in sorted(set(cards.tolist()))}
        less = 100 * model["slope"] * (v_up + v_hand - h_up - h_hand)
        why = (f"up {words(cards[up])} / hand {words(cards[hand])}: "
               f"model value {v_up:+.3f} (up) {v_hand:+.3f} (hand) = {v_up + v_hand:+.3f} "
               f"log-odds; highest-up's {words(cards[hu_up])} / "
               f"{words(cards[hu_hand])}: {h_up:+.3f} {h_hand:+.3f} = "
               f"{h_up + h_hand:+.3f} (~{less:.2f}"
               f" points of win rate less); rank terms' face-up gain per card: "
               + ", ".join(f"{c} {g:+.3f}" for c, g in sorted(gains.items(),
                                                             key=lambda kv: -kv[1])))
        out.append({"cards": card_names(cards), "face_up": card_names(cards[up]),
                    "hand": card_names(cards[hand]), "value": float(top[0]),
                    "margin": float(top[0] - second[0]), "highest_up": card_names(cards[hu_up]),
                    "highest_up_value": float(h_up + h_hand), "why": why})
        if len(out) == k:
            break
    return out



def write_policy_file(path, row, deck) -> Path:
    """``policy.csv``: the face-up triple the split policy chooses for every six-card set,
    its model value and its margin over the best split with other cards face up."""
    import csv
    sets = six_card_sets(deck)
    choice, top, second = best_splits(row, sets)
    with open(path, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(("cards", "face_up", "hand", "value", "margin"))
        for s, t, v, v2 in zip(sets, choice, top, second):
            hand = [i for i in range(6) if i not in t]
            w.writerow((words(s), words(s[list(t)]), words(s[hand]), f"{v:.6g}",
                        f"{v - v2:.6g}" if np.isfinite(v2) else ""))
    return Path(path)

