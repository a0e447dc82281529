"""The swap study: which cards should a player put face up?

A swap (R5) divides a fixed set of six cards into three face up and three in hand (the
study supports hand size 3 only and refuses others, H12; its deck follows H13). The
study values that *division*, not the cards: a seat holding a 2 wins more often whether the 2
lies face up or in its hand, so the win rate of the seats that held a face-up triple mostly
measures owning its cards (and, under the seed rules, R6's start, which the dealt face-ups
decide and no swap changes).

1. **Values stage.** Every seat plays ``strategy`` with *random* swaps: given its six cards,
   every one of the 20 splits is equally likely, whatever was dealt where. Each seat-game
   is recorded with its face-up triple and its hand triple after the swap
   (``Batch.triples``, ``Batch.hand_triples``), aggregated into cells (face-up triple, hand
   triple, position after the starting player).
2. **Split model.** A logistic regression of "this seat won", fitted by scikit-learn with
   an L2 (ridge) penalty, whose terms are all rank x place: for each rank and place (face
   up, hand) the number of cards held there, "at least 2" and "at least 3" (a pair or a
   triple may be worth more or less than its cards), then one term for each face-up triple
   and one for each hand triple (what the cards of one place are worth together, beyond
   their ranks), and the seat's position after the starting player (a covariate fixed
   before the swap under R6; left out under V1, where the swap decides the start). Because
   the split is random given the six cards, face-up and hand terms are told apart by the
   data; what the cards are worth to their owner wherever they lie cancels between two
   splits of the same six. The penalty is a Gaussian prior: sd ``PRIOR_SD`` on the counts,
   ``PRIOR_SD_EXTRA`` on the pair/triple counts, and for the triple terms the sd of
   ``PRIOR_SD_TRIPLES`` that predicts the odd games best when fitted on the even ones. So a
   rarely seen triple or combination is shrunk towards what its ranks are worth, instead of
   being trusted raw. Under V2 the outcome is the share of the other seats finished behind
   (a quasi-binomial fit). Standard errors treat the seats of one game as independent:
   indicative.
3. **Split policy.** A split's value is the model's value of its face-up triple face up plus
   that of its hand triple in the hand; these 2 x 455 numbers (560 with jokers) are
   ``split.csv`` (:mod:`strategies.swaps` ``split`` format), and ``split(file=DIR/split.csv)``
   puts face up, of the 20 splits of its six cards, the one of highest value. ``policy.csv``
   lists that choice for every six-card set the deck allows.
4. **Descriptive table.** The old table, kept and labelled as what it is: the win rate of the
   seats that held each face-up triple (owning included), with its 95% Wilson interval and
   an empirical-Bayes shrunk rate (rare triples pulled towards the mean). It is also saved
   as a ``table`` policy file (``swap_values.csv``, raw rates: the old derived policy), to
   be tested.
5. **Head-to-head.** The split policy against the old table policy and every built-in swap
   policy, same move strategy for everyone, seats alternating (S O S O ... then O S O S ...
   on the same deals: duplicate deals). Per deal, the difference between the split seats'
   and the other seats' mean result; its mean, 95% interval and a two-sided p-value (t-test
   over deals, scipy; a sign test when every deal gave the same difference), adjusted
   for the several comparisons (Benjamini-Hochberg). The verdict names the best of the
   policies tested, with its margin and interval.

**Unfinished games** (R25) count as games not won by any seat, in every denominator: in the
triple table, in the model (a loss for every seat) and in the head-to-head (a result of 0 for
both sides); their number is reported next to every table.

With ``out`` every game played is saved as per-game records (:func:`sim.runs.store.records`, with
strategy and swap per seat), in ``games/``: the values stage as ``part-NNNNN.parquet``, the
head-to-heads as ``part-h2h-PP-R-NNNNN.parquet``, with the extra columns ``stage``
(``values`` or ``head-to-head``), ``seed`` and ``opponent``.
"""
from __future__ import annotations

import json
import math
from itertools import combinations
from pathlib import Path

import numpy as np

from sim.kernel.cards import NAMES, NRANK
from sim.kernel.layout import MAXP
from sim.kernel.ruleset import Ruleset
from sim.runs.runner import RunConfig, RunError, batches, play_batch

SIZE = NRANK ** 3
BUILTIN_SWAPS = ("none", "random", "highest-up", "specials-up", "lowest-hand")
Z95 = 1.959963984540054
PRIOR_SD = 1.0            # log-odds per card held face up / in hand: barely informative
PRIOR_SD_EXTRA = 0.1      # pair/triple counts: shrunk towards "each card counts alone"
UNFINISHED_POLICY = ("Unfinished games (still going after the turn limit, R25) count as games "
                     "not won by any seat, in every denominator: a loss for every seat in the "
                     "triple table and the model, a result of 0 for both sides in the "
                     "head-to-head.")

# The 560 sorted triples of rank codes (jokers included), and their per-rank counts.
TRIPLES = [t for t in combinations(range(NRANK + 2), 3)]
TRIPLES = [(a, b - 1, c - 2) for a, b, c in TRIPLES]             # multisets r1 <= r2 <= r3
NTRIPLE = len(TRIPLES)
_CODE = np.array([a * NRANK * NRANK + b * NRANK + c for a, b, c in TRIPLES], np.int64)
_INDEX = np.full(SIZE, -1, np.int64)
_INDEX[_CODE] = np.arange(NTRIPLE)
_COUNTS = np.zeros((NTRIPLE, NRANK), np.int64)
for _i, _t in enumerate(TRIPLES):
    for _r in _t:
        _COUNTS[_i, _r] += 1


def refuse_hand_size(ruleset) -> None:
    """The study values triples, 3 + 3 cards (R5 at H12's hand size 3): any other hand size
    is refused with :class:`RunError` before a game is played, never modelled wrongly."""
    if ruleset.hand_size != 3:
        raise RunError(f"swap study: hand_size={ruleset.hand_size} (H12) is not supported; the "
                       f"study values face-up and hand triples, a swap of 3 of 6 cards (R5 "
                       f"at hand_size=3)")


def triple_names(code: int) -> list[str]:
    return [NAMES[code // (NRANK * NRANK)], NAMES[code // NRANK % NRANK], NAMES[code % NRANK]]


def _seat_scores(b, players, v2):
    """(n, players) result of each seat: 1 for the winner (seed rules), the share of the
    other seats finished behind under V2; 0 for every seat of an unfinished game."""
    done = b.status == 0
    score = np.zeros((b.status.size, players))
    for pos in range(players - 1 if v2 else 1):
        seat = b.order[:, pos].astype(np.int64)
        ok = done & (seat >= 0)
        value = 1.0 if not v2 else (players - 1 - pos) / (players - 1)
        score[np.flatnonzero(ok), seat[ok]] = value
    return score, done


# -- saving per-game records ---------------------------------------------------------------
class _Records:
    """Writes every batch of per-game records into ``out/games`` (or nothing without out)."""

    def __init__(self, out):
        self.dir = None if out is None else Path(out) / "games"
        if self.dir is not None:
            self.dir.mkdir(parents=True, exist_ok=True)
            for old in self.dir.glob("part-*.parquet"):       # a study is written anew
                old.unlink()

    def write(self, name, cfg, b, **extra):
        if self.dir is None:
            return
        import os

        import pyarrow as pa
        import pyarrow.parquet as pq

        from sim.runs.store import records
        df = records(cfg, b)
        for key, value in extra.items():
            df[key] = value
        tmp = self.dir / f"{name}.tmp"
        pq.write_table(pa.Table.from_pandas(df, preserve_index=False), tmp)
        os.replace(tmp, self.dir / f"{name}.parquet")


# -- 1. the values stage -------------------------------------------------------------------
def values_stage(players, games, seed, rules, strategy, threads, progress=None, records=None,
                 batch=100_000, max_turns=10_000, cycle_stop=True):
    """Play the values stage; return the cells and counts the model and tables need. The
    cells are kept apart for even and odd games (``cell_n[g % 2]``): one half chooses the
    model's penalty on the other."""
    from sim.runs.tally import Tally

    cfg = RunConfig(games=games, players=players, seed=seed, strategies=[strategy],
                    swaps=["random"], rules=rules, threads=threads, batch=batch,
                    max_turns=max_turns, cycle_stop=cycle_stop)
    refuse_hand_size(cfg.ruleset)
    v2 = bool(cfg.options["last_player_loses"])
    v1 = bool(cfg.options["choose_face_ups"])
    tally = Tally(cfg)
    ncell = NTRIPLE * NTRIPLE * players
    cell_n = np.zeros((2, ncell), np.int64)
    cell_w = np.zeros((2, ncell))
    count = np.zeros(SIZE, np.int64)           # per face-up triple: seat-games
    score = np.zeros(SIZE)                     # summed result
    unf = np.zeros(SIZE, np.int64)             # seat-games of unfinished games
    done_games = unfinished = 0
    for index, first, n in batches(cfg):
        b = play_batch(cfg, first, n, threads)
        tally.add(b)
        if records is not None:
            records.write(f"part-{index:05d}", cfg, b, stage="values", seed=seed,
                          opponent="")
        w, done = _seat_scores(b, players, v2)
        unfinished += int((~done).sum())
        codes = b.triples[:, :players].astype(np.int64)
        hand = b.hand_triples[:, :players].astype(np.int64)
        if (codes < 0).any() or (hand < 0).any():
            raise RunError("swap study: a seat without 3 face-up and 3 hand cards after the "
                           "swap; the study needs the rules' 3 + 3 (R5)")
        count += np.bincount(codes.ravel(), minlength=SIZE)
        score += np.bincount(codes.ravel(), weights=w.ravel(), minlength=SIZE)
        unf += np.bincount(codes[~done].ravel(), minlength=SIZE)
        # position after the starting player (fixed by the deal under R6; not under V1)
        pos = ((np.arange(players)[None, :] - b.starter[:, None].astype(np.int64)) % players
               if not v1 else np.zeros((n, players), np.int64))
        cell = (_INDEX[codes] * NTRIPLE + _INDEX[hand]) * players + pos
        half = (np.arange(first, first + n) % 2)[:, None] + np.zeros(players, np.int64)
        flat = (half * ncell + cell).ravel()
        cell_n += np.bincount(flat, minlength=2 * ncell).reshape(2, ncell)
        cell_w += np.bincount(flat, weights=w.ravel(), minlength=2 * ncell).reshape(2, ncell)
        done_games += n
        if progress:
            progress(done_games)
    return {"cfg": cfg, "tally": tally, "cell_n": cell_n, "cell_w": cell_w, "count": count,
            "score": score, "unf": unf, "unfinished": unfinished, "v1": v1, "v2": v2,
            "deck": cfg.ruleset.deck_counts(players)}


# -- 2. the split model --------------------------------------------------------------------
PRIOR_SD_TRIPLES = (0.03, 0.1, 0.3)   # candidates for the triple terms' prior (held out)


def _design(players, cells, ranks, sd_triple):
    """The sparse design matrix of ``cells`` and its column names, every column scaled by its
    prior sd (a ridge penalty of 1/2 |coef|^2 is then the Gaussian prior)."""
    from scipy import sparse

    up_i = cells // players // NTRIPLE
    hand_i = cells // players % NTRIPLE
    pos = cells % players
    rows = np.arange(len(cells))
    blocks, names = [], []
    for place, idx in (("up", up_i), ("hand", hand_i)):
        c = _COUNTS[idx][:, ranks]                                    # (cells, ranks)
        for term, values, sd in (("n", c, PRIOR_SD), ("ge2", c >= 2, PRIOR_SD_EXTRA),
                                 ("ge3", c >= 3, PRIOR_SD_EXTRA)):
            blocks.append(sparse.csr_matrix(values.astype(float) * sd))
            names += [(place, int(r), term) for r in ranks]
        blocks.append(sparse.csr_matrix((np.full(len(cells), sd_triple), (rows, idx)),
                                        shape=(len(cells), NTRIPLE)))
        names += [(place, int(t), "triple") for t in range(NTRIPLE)]
    for p in range(1, players):
        blocks.append(sparse.csr_matrix((pos == p).astype(float)[:, None] * PRIOR_SD))
        names.append(("position", p, ""))
    X = sparse.hstack(blocks).tocsr()
    keep = np.flatnonzero(np.asarray(abs(X).sum(axis=0)).ravel() > 0)   # never-seen terms
    scale = {"n": PRIOR_SD, "ge2": PRIOR_SD_EXTRA, "ge3": PRIOR_SD_EXTRA,
             "triple": sd_triple, "": PRIOR_SD}
    names = [names[i] for i in keep]
    return X[:, keep], names, np.array([scale[t[2]] for t in names])


def _fit(cell_n, cell_w, players, ranks, sd_triple):
    """One ridge logistic fit on aggregated cells (each cell twice: its wins with weight the
    summed result, its losses with weight games - result); scikit-learn, Newton-Cholesky."""
    from scipy import sparse
    from sklearn.linear_model import LogisticRegression

    cells = np.flatnonzero(cell_n)
    n, w = cell_n[cells].astype(float), cell_w[cells]
    X, names, scale = _design(players, cells, ranks, sd_triple)
    XX = sparse.vstack([X, X]).tocsr()
    y = np.r_[np.ones(len(cells)), np.zeros(len(cells))]
    sw = np.r_[w, n - w]
    ok = sw > 0
    model = LogisticRegression(C=1.0, solver="newton-cholesky", max_iter=100, tol=1e-7)
    model.fit(XX[ok], y[ok], sample_weight=sw[ok])
    return model, X, names, scale, cells, n, w


def _deviance(model, names, scale, players, ranks, sd_triple, cell_n, cell_w):
    """Mean log-likelihood per seat-game of ``model`` on other cells (held out)."""
    cells = np.flatnonzero(cell_n)
    X, names2, _ = _design(players, cells, ranks, sd_triple)
    col = {t: i for i, t in enumerate(names2)}
    beta = np.zeros(len(names2))
    for i, t in enumerate(names):
        if t in col:
            beta[col[t]] = model.coef_.ravel()[i]
    eta = X @ beta + model.intercept_[0]
    n, w = cell_n[cells].astype(float), cell_w[cells]
    ll = w * -np.logaddexp(0, -eta) + (n - w) * -np.logaddexp(0, eta)
    return float(ll.sum() / n.sum())


def fit_split_model(stage, players, sd_triple=None):
    """Fit the split model on the values stage's cells (module docstring). The triple terms'
    prior sd is chosen among :data:`PRIOR_SD_TRIPLES` by the log-likelihood of the odd games
    under a fit on the even ones (unless given), then the model is fitted on all games.

    Returns a dict: ``up``/``hand``, the value (log-odds) of each triple in that place (what
    the ``split`` policy adds), the rank terms' face-up gains with standard errors, the
    coefficients, and the fit's facts."""
    from scipy import sparse

    cell_n, cell_w = np.atleast_2d(stage["cell_n"]), np.atleast_2d(stage["cell_w"])
    all_n, all_w = cell_n.sum(axis=0), cell_w.sum(axis=0)
    deck = np.array(stage["deck"])                 # R1, H13: the deck the games were dealt
    ranks = [r for r in range(NRANK) if deck[r] > 0]
    mean = float(all_w.sum() / all_n.sum())
    if not 0 < all_w.sum() < all_n.sum():    # nothing won, or everything: nothing to learn
        return _flat_model(ranks, int((all_n > 0).sum()), all_n.sum(), mean,
                           "no model fitted: " + ("no seat won a game" if all_w.sum() <= 0
                                                  else "every seat won"))
    held_out = {}
    if sd_triple is None and len(cell_n) == 2 and 0 < cell_w[0].sum() < cell_n[0].sum() \
            and cell_n[1].sum():
        for sd in PRIOR_SD_TRIPLES:
            m, _, names, scale, *_ = _fit(cell_n[0], cell_w[0], players, ranks, sd)
            held_out[sd] = _deviance(m, names, scale, players, ranks, sd, cell_n[1],
                                     cell_w[1])
        sd_triple = max(held_out, key=held_out.get)
    sd_triple = sd_triple or 0.1
    model, X, names, scale, cells, n, w = _fit(all_n, all_w, players, ranks, sd_triple)
    beta = model.coef_.ravel()
    # Approximate posterior covariance of the rank terms, the intercept included (flat
    # prior): the inverse of X1' W X1 + prior precision, X1 = [1 X], in scaled coordinates.
    # Seats of one game are treated as independent: read the errors as indicative.
    p = model.predict_proba(X)[:, 1]
    X1 = sparse.hstack([sparse.csr_matrix(np.ones((X.shape[0], 1))), X]).tocsr()
    info = (X1.T @ sparse.diags(n * p * (1 - p)) @ X1).toarray()
    info[1:, 1:] += np.eye(X.shape[1])
    cov = np.linalg.pinv(info, hermitian=True)[1:, 1:] * np.outer(scale, scale)
    coef = beta * scale                                  # back to log-odds per unit
    col = {t: i for i, t in enumerate(names)}
    # the value of each triple in each place: its rank terms plus its own triple term
    value = np.full((2, NTRIPLE), -np.inf)
    possible = (_COUNTS <= deck).all(axis=1)
    for pl, place in enumerate(("up", "hand")):
        for t in np.flatnonzero(possible):
            v = coef[col[(place, int(t), "triple")]] if (place, int(t), "triple") in col else 0
            for r in np.flatnonzero(_COUNTS[t]):
                c = _COUNTS[t, r]
                for term, on in (("n", c), ("ge2", c >= 2), ("ge3", c >= 3)):
                    i = col.get((place, int(r), term))
                    if i is not None and on:
                        v += coef[i] * on
            value[pl, t] = v
    # The rank terms' value of one card face up instead of in hand, relative to the average
    # rank, with its standard error: only such differences matter to a split (three cards
    # go up whatever the split) and only they are identified. Triple terms come on top.
    G = np.zeros((len(ranks), len(names)))
    for k, r in enumerate(ranks):
        for place, sign in (("up", 1.0), ("hand", -1.0)):
            i = col.get((place, r, "n"))
            if i is not None:
                G[k, i] = sign
    G = G - G.mean(axis=0)
    gain, gain_se = np.full(NRANK, np.nan), np.full(NRANK, np.nan)
    gain[ranks] = G @ coef
    gain_se[ranks] = np.sqrt(np.maximum(np.einsum("ij,jk,ik->i", G, cov, G), 0.0))
    ses = np.sqrt(np.maximum(np.diag(cov), 0.0))

    def label(t):
        if t[2] == "triple":
            return " ".join(NAMES[x] for x in TRIPLES[t[1]])
        return NAMES[t[1]] if t[0] != "position" else t[1]
    return {"up": value[0], "hand": value[1], "ranks": ranks, "gain": gain,
            "gain_se": gain_se, "sd_triple": sd_triple,
            "held_out": {str(k): v for k, v in held_out.items()},
            "coef": [{"place": t[0], "what": label(t), "term": t[2], "coef": float(coef[i]),
                      "se": float(ses[i])} for i, t in enumerate(names)],
            "intercept": float(model.intercept_[0]), "cells": int(len(cells)),
            "seat_games": int(n.sum()), "mean": mean, "slope": mean * (1 - mean)}


def _flat_model(ranks, cells, seat_games, mean, why):
    """A model that values every split alike (the policy then keeps the first split)."""
    gain = np.full(NRANK, np.nan)
    gain[ranks] = 0.0
    possible = np.where((_COUNTS[:, ranks].sum(axis=1) == 3), 0.0, -np.inf)
    return {"up": possible, "hand": possible.copy(), "ranks": ranks, "gain": gain,
            "gain_se": np.where(np.isnan(gain), np.nan, 0.0), "coef": [], "intercept": 0.0,
            "sd_triple": None, "held_out": {}, "cells": int(cells),
            "seat_games": int(seat_games), "mean": mean, "slope": mean * (1 - mean),
            "note": why}


def write_split_file(path, model) -> Path:
    """The model as a ``split`` policy file: each possible triple's value up and in hand."""
    from strategies.swaps import write_split
    values = {tuple(NAMES[x] for x in TRIPLES[t]): (model["up"][t], model["hand"][t])
              for t in range(NTRIPLE) if np.isfinite(model["up"][t])}
    return write_split(path, values)


# -- 3. the policy: the best split of every six-card set -----------------------------------
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
        up = np.sort(sets[:, list(t)], axis=1)
        hand = np.sort(sets[:, rest], axis=1)
        code_up = up[:, 0] * 196 + up[:, 1] * 14 + up[:, 2]
        code_hand = hand[:, 0] * 196 + hand[:, 1] * 14 + hand[:, 2]
        vals.append(split_value(row, code_up, code_hand))
        ups.append(code_up)
    vals, ups = np.stack(vals, axis=1), np.stack(ups, axis=1)
    idx = np.arange(len(sets))
    best = vals.argmax(axis=1)                              # the first of highest value
    top = vals[idx, best]
    other = np.where(ups == ups[idx, best][:, None], -np.inf, vals)   # other cards up
    return [_COMBOS[i] for i in best], top, other.max(axis=1)


def _names(codes):
    return [NAMES[int(c)] for c in codes]


def examples(model, row, deck, k=3, seed=12345):
    """``k`` six-card sets from random deals where the split policy differs from
    ``highest-up``, with its choice and why (the model's values of the two splits, and the
    rank terms' face-up gain of each card)."""
    from strategies.basic import highest_up
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
        hu = int(highest_up.py_func(cards, np.zeros(1, np.int32), np.zeros(4, np.uint64),
                                    np.zeros(1)))
        hu_up = [i for i in range(6) if (hu >> i) & 1]
        if _names(cards[up]) == _names(cards[hu_up]):
            continue
        hand = [i for i in range(6) if i not in up]
        hu_hand = [i for i in range(6) if i not in hu_up]

        def val(u, h):
            return (model["up"][_INDEX[table_code(cards[u])]],
                    model["hand"][_INDEX[table_code(cards[h])]])
        v_up, v_hand = val(up, hand)
        h_up, h_hand = val(hu_up, hu_hand)
        gains = {NAMES[c]: float(model["gain"][c]) for c in sorted(set(cards.tolist()))}
        less = 100 * model["slope"] * (v_up + v_hand - h_up - h_hand)
        why = (f"up {' '.join(_names(cards[up]))} / hand {' '.join(_names(cards[hand]))}: "
               f"model value {v_up:+.3f} (up) {v_hand:+.3f} (hand) = {v_up + v_hand:+.3f} "
               f"log-odds; highest-up's {' '.join(_names(cards[hu_up]))} / "
               f"{' '.join(_names(cards[hu_hand]))}: {h_up:+.3f} {h_hand:+.3f} = "
               f"{h_up + h_hand:+.3f} (~{less:.2f}"
               f" points of win rate less); rank terms' face-up gain per card: "
               + ", ".join(f"{c} {g:+.3f}" for c, g in sorted(gains.items(),
                                                             key=lambda kv: -kv[1])))
        out.append({"cards": _names(cards), "face_up": _names(cards[up]),
                    "hand": _names(cards[hand]), "value": float(top[0]),
                    "margin": float(top[0] - second[0]), "highest_up": _names(cards[hu_up]),
                    "highest_up_value": float(h_up + h_hand), "why": why})
        if len(out) == k:
            break
    return out


def table_code(cards) -> int:
    a, b, c = sorted(int(x) for x in cards)
    return a * NRANK * NRANK + b * NRANK + c


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
            w.writerow((" ".join(_names(s)), " ".join(_names(s[list(t)])),
                        " ".join(_names(s[hand])), f"{v:.6g}",
                        f"{v - v2:.6g}" if np.isfinite(v2) else ""))
    return Path(path)


# -- 4. the descriptive triple table -------------------------------------------------------
def triple_table(stage):
    """Per face-up triple: seat-games (unfinished included), wins, raw win rate, its Wilson
    interval and an empirical-Bayes shrunk rate (method of moments, beta-binomial)."""
    from sim.runs.tally import wilson

    count, score, unf = stage["count"], stage["score"], stage["unf"]
    codes = np.flatnonzero(count)
    n, w = count[codes].astype(float), score[codes]
    mean = w.sum() / n.sum()
    raw = w / n
    # between-triple variance of true rates: observed variance less the sampling part
    within = mean * (1 - mean) / n
    tau2 = max(float(np.average((raw - mean) ** 2, weights=n) - np.average(within,
                                                                           weights=n)), 0.0)
    shrink = tau2 / (tau2 + within) if tau2 > 0 else np.zeros_like(n)
    shrunk = mean + shrink * (raw - mean)
    rows = []
    for code, ni, wi, si, ui in zip(codes, n, w, shrunk, unf[codes]):
        lo, hi = wilson(int(round(wi)), int(ni))
        rows.append({"triple": triple_names(int(code)), "games": int(ni), "wins": float(wi),
                     "win_rate": float(wi / ni), "ci_low": lo, "ci_high": hi,
                     "shrunk": float(si), "unfinished": int(ui)})
    rows.sort(key=lambda r: -r["shrunk"])
    return rows, {"mean": float(mean), "tau": math.sqrt(tau2)}


# -- 5. the head-to-head -------------------------------------------------------------------
def paired_test(diffs):
    """Mean of per-deal differences, its 95% interval and a two-sided p-value; never NaN.

    The t interval's half-width is never below ``2 * (1 - 0.025 ** (1 / deals))`` (a
    difference lies in [-1, 1]; Clopper-Pearson for "no deal deviated"), so an interval does
    not collapse to a point. With no spread between deals the p-value is a sign test's
    (1 when every difference is 0); with one deal it is 1.
    """
    from scipy import stats

    d = np.asarray(diffs, float)
    k = d.size
    if k == 0:
        return {"diff": 0.0, "ci_low": -1.0, "ci_high": 1.0, "p_value": 1.0}
    mean = float(d.mean())
    se = float(d.std(ddof=1) / math.sqrt(k)) if k > 1 else float("nan")
    floor = 2 * (1 - 0.025 ** (1 / k))
    half = max(Z95 * se, floor) if math.isfinite(se) else 2.0
    if k < 2:
        p = 1.0
    elif se > 0:
        p = float(stats.ttest_1samp(d, 0.0).pvalue)
    else:                                         # every deal gave the same difference
        nz = int((d != 0).sum())
        p = 1.0 if nz == 0 else float(stats.binomtest(nz, nz).pvalue)
    if not math.isfinite(p):
        p = 1.0
    return {"diff": mean, "ci_low": max(mean - half, -1.0), "ci_high": min(mean + half, 1.0),
            "p_value": min(max(p, 0.0), 1.0)}


def head_to_head(mine, other, players, games, seed, rules, strategy, threads, records=None,
                 tag="", label=None, batch=100_000, max_turns=10_000, cycle_stop=True):
    """``mine`` against ``other`` on duplicate deals: per-deal paired differences."""
    patterns = [[mine if s % 2 == r else other for s in range(players)] for r in (0, 1)]
    cfgs = [RunConfig(games=games, players=players, seed=seed, strategies=[strategy],
                      swaps=p, rules=rules, threads=threads, batch=batch,
                      max_turns=max_turns, cycle_stop=cycle_stop) for p in patterns]
    v2 = bool(cfgs[0].options["last_player_loses"])
    diffs = []
    tw = ow = 0.0
    unfinished = 0
    for index, first, n in batches(cfgs[0]):
        d = np.zeros(n)
        for r, (cfg, pattern) in enumerate(zip(cfgs, patterns)):
            b = play_batch(cfg, first, n, threads)
            if records is not None:
                records.write(f"part-h2h-{tag}-{r}-{index:05d}", cfg, b, stage="head-to-head",
                              seed=seed, opponent=label or other)
            score, done = _seat_scores(b, players, v2)
            unfinished += int((~done).sum())
            mask = np.array([p == mine for p in pattern])
            t, o = score[:, mask].sum(axis=1), score[:, ~mask].sum(axis=1)
            d += t / mask.sum() - o / (~mask).sum()      # per seat: mine minus other
            tw += t.sum()
            ow += o.sum()
        diffs.append(d / 2)
    diffs = np.concatenate(diffs)
    return {"policy": label or other, "spec": other, "deals": int(diffs.size),
            "games": int(2 * diffs.size), "unfinished": unfinished,
            "share": tw / (tw + ow) if tw + ow else float("nan"), **paired_test(diffs)}


def _bh(pvalues):
    """Benjamini-Hochberg adjusted p-values (scipy), NaN-safe: a missing p counts as 1."""
    from scipy.stats import false_discovery_control
    p = np.nan_to_num(np.asarray(pvalues, float), nan=1.0).clip(0.0, 1.0)
    return [float(x) for x in false_discovery_control(p)] if p.size else []


def fmt_p(p) -> str:
    """A p-value for people: ``< 1e-16`` below what a double tells apart from 0."""
    if p is None or (isinstance(p, float) and math.isnan(p)):
        return "-"
    return "< 1e-16" if p < 1e-16 else f"{p:.2g}"


def verdict(h2h, mine="split") -> str:
    """Plain words: the best of the policies tested, with its margin and interval."""
    def pts(r, sign=1):
        lo, hi = sorted((sign * r["ci_low"], sign * r["ci_high"]))
        return (f"{sign * 100 * r['diff']:+.2f} points of win rate per seat (95% CI "
                f"{100 * lo:+.2f} to {100 * hi:+.2f}, p {fmt_p(r['p_value'])})")
    names = ", ".join(r["policy"] for r in h2h)
    losers = [r for r in h2h if r["ci_high"] < 0]
    if all(r["ci_low"] > 0 for r in h2h):
        worst = min(h2h, key=lambda r: r["diff"])
        return (f"Best of the policies tested ({mine}, {names}): the {mine} policy. It beats "
                f"each of them; its smallest margin is against {worst['policy']}: "
                f"{pts(worst)}.")
    if losers:
        best = min(losers, key=lambda r: r["diff"])
        return (f"The {mine} policy is not the best of the policies tested: {best['policy']} "
                f"beats it by {pts(best, -1)}"
                + (f"; {', '.join(r['policy'] for r in losers if r is not best)} also beat it"
                   if len(losers) > 1 else "") + ". "
                + (f"It beats {', '.join(r['policy'] for r in h2h if r['ci_low'] > 0)}."
                   if any(r["ci_low"] > 0 for r in h2h) else ""))
    rivals = [r for r in h2h if r["ci_low"] <= 0]
    return (f"No policy tested is clearly best: the {mine} policy "
            + (f"beats {', '.join(r['policy'] for r in h2h if r['ci_low'] > 0)}, but " if
               any(r["ci_low"] > 0 for r in h2h) else "")
            + "does not clearly beat " + "; ".join(f"{r['policy']}: {pts(r)}" for r in rivals)
            + ".")


# -- the whole study -----------------------------------------------------------------------
def swap_study(out, players=4, games=100_000, seed=0, rules="seed", strategy="lowest",
               threads=None, h2h_games=None, progress=None, batch=100_000, max_turns=10_000,
               cycle_stop=True):
    """Run the study (module docstring); write study.json, split.csv, policy.csv,
    swap_values.csv, per-game records, summary.json and manifest.json into ``out``;
    return the study as a dict."""
    import numba

    from sim.runs.store import StoreError, _atomic_write, versions
    from strategies.swaps import read_split, write_table

    try:
        ruleset = Ruleset.parse(rules)
    except ValueError:
        ruleset = None                           # bad rules: RunConfig names the fault
    if ruleset is not None:
        refuse_hand_size(ruleset)                # before anything is written
    out = Path(out).expanduser()
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise StoreError(f"--out: cannot write to {out}: {e.strerror or e}") from None
    threads = threads or numba.config.NUMBA_NUM_THREADS
    if not isinstance(games, int) or games < 1:
        raise RunError(f"--games: expected a positive number, got {games}")
    for stale in ("summary.json", "study.json"):       # never a mix of two studies
        (out / stale).unlink(missing_ok=True)
    records = _Records(out)
    stage = values_stage(players, games, seed, rules, strategy, threads, progress, records,
                         batch, max_turns, cycle_stop)
    rows, shrink = triple_table(stage)
    model = fit_split_model(stage, players)
    split_file = write_split_file(out / "split.csv", model)
    split_spec = f"split(file={split_file})"
    row = read_split(split_file)
    policy_file = write_policy_file(out / "policy.csv", row, stage["deck"])
    table_file = write_table(out / "swap_values.csv",
                             {tuple(r["triple"]): r["win_rate"] for r in rows})
    table_spec = f"table(file={table_file})"
    h2h_games = h2h_games or max(1000, games // 5)
    rivals = [("table (old: raw triple win rates)", table_spec)] + [(p, p) for p in
                                                                    BUILTIN_SWAPS]
    h2h = [head_to_head(split_spec, spec, players, h2h_games, seed + 1, rules, strategy,
                        threads, records, tag=f"{i:02d}", label=label, batch=batch,
                        max_turns=max_turns, cycle_stop=cycle_stop)
           for i, (label, spec) in enumerate(rivals)]
    for r, p in zip(h2h, _bh([r["p_value"] for r in h2h])):
        r["p_adjusted"] = p
        r["share"] = float(r["share"])
    cards = [{"card": NAMES[r], "gain": float(model["gain"][r]),
              "se": float(model["gain_se"][r]),
              "points": float(model["gain"][r] * model["slope"])}
             for r in model["ranks"]]
    study = {"players": players, "games": games, "unfinished": stage["unfinished"],
             "seed": seed, "rules": rules, "strategy": strategy,
             "unfinished_policy": UNFINISHED_POLICY,
             "triples": rows, "triples_note": (
                 "Descriptive: the win rate of the seats that held each face-up triple after "
                 "random swaps. It includes the value of owning those cards (and, under the "
                 "seed rules, R6's start), so it is not the value of putting them face up; "
                 "'shrunk' pulls rare triples towards the mean (empirical Bayes)."),
             "shrinkage": shrink,
             "model": {"note": model.get("note", ""),
                       "kind": "logistic regression (scikit-learn, L2 penalty) of a seat's win "
                               "on rank x place terms (cards of each rank face up and in "
                               "hand, pairs, triples), a term for each face-up triple and "
                               "each hand triple, and the position after the starting "
                               "player",
                       "prior_sd": PRIOR_SD, "prior_sd_extra": PRIOR_SD_EXTRA,
                       "prior_sd_triple": model["sd_triple"],
                       "held_out_loglik": model["held_out"],
                       "cells": model["cells"], "seat_games": model["seat_games"],
                       "mean": model["mean"], "intercept": model["intercept"],
                       "coefficients": model["coef"]},
             "cards": cards,
             "examples": examples(model, row, stage["deck"]),
             "split_file": str(split_file), "split_policy": split_spec,
             "policy_file": str(policy_file),
             "table_file": str(table_file), "table_policy": table_spec,
             "head_to_head": h2h, "verdict": verdict(h2h),
             "h2h_games_per_policy": 2 * h2h_games, "h2h_seed": seed + 1}
    options = {k: study[k] for k in ("players", "games", "seed", "rules", "strategy")}
    options["h2h_games"] = h2h_games
    options["max_turns"] = max_turns
    options["cycle_stop"] = cycle_stop
    manifest = {"kind": "swap-study", "options": options, "versions": versions(),
                "batch": batch}
    summary = stage["tally"].to_dict()
    summary["config"] = dict(summary["config"], **options)
    summary["note"] = "the values stage: every seat plays with random swaps"
    for name, data in (("study.json", study), ("manifest.json", manifest),
                       ("summary.json", summary)):
        _atomic_write(out / name, json.dumps(data, indent=2, default=_json).encode())
    return study


def _json(x):
    if isinstance(x, (np.integer,)):
        return int(x)
    if isinstance(x, (np.floating,)):
        return float(x)
    if isinstance(x, np.ndarray):
        return x.tolist()
    return str(x)


__all__ = ["swap_study", "triple_names", "paired_test", "fmt_p", "MAXP"]
