"""Stage 2 of the swap study: the split model, a ridge logistic regression of a seat's
result on rank x place terms and triple terms (the package docstring), and its ``split``
policy file."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from sim.kernel.cards import NAMES, NRANK
from sim.studies.swapstudy.triples import COUNTS, INDEX, NTRIPLE, TRIPLES, table_code

PRIOR_SD = 1.0            # log-odds per card held face up / in hand: barely informative
PRIOR_SD_EXTRA = 0.1      # pair/triple counts: shrunk towards "each card counts alone"
PRIOR_SD_TRIPLES = (0.03, 0.1, 0.3)   # candidates for the triple terms' prior (held out)


def _names(players, ranks):
    """Every term of the full design, in :func:`sim.studies.swapstudy.glm.design`'s column
    order: ``(place, rank or triple or position, term)``."""
    names = []
    for place in ("up", "hand"):
        for term in ("n", "ge2", "ge3"):
            names += [(place, int(r), term) for r in ranks]
        names += [(place, int(t), "triple") for t in range(NTRIPLE)]
    return names + [("position", p, "") for p in range(1, players)]


def _design(players, cells, ranks, sd_triple, memo=None, threads=None):
    """The design of ``cells`` (CSR arrays: indptr, indices, data; every term's column scaled
    by its prior sd: a ridge penalty of 1/2 |coef|^2 is then the Gaussian prior), its terms'
    names and their sds, the terms no cell has left out. ``memo`` (a dict) keeps each set of
    cells' design once: another ``sd_triple`` only sets its triple terms' values."""
    from sim.studies.swapstudy import glm

    key = (players, cells.tobytes(), tuple(ranks))
    built = None if memo is None else memo.get(key)
    if built is None:
        indptr, indices, data, columns = glm.design(players, cells, ranks, 1.0, COUNTS,
                                                    NTRIPLE, PRIOR_SD, PRIOR_SD_EXTRA,
                                                    threads)
        full = _names(players, ranks)
        names = [full[i] for i in columns]
        built = indptr, indices, data, names, np.array([t[2] == "triple" for t in names])
        if memo is not None:
            memo[key] = built
    indptr, indices, data, names, triple = built
    if memo is not None:                        # the triple terms' entries, found once
        entries = memo.setdefault((key, "triple"), np.flatnonzero(triple[indices]))
    else:
        entries = np.flatnonzero(triple[indices])
    data = data.copy()
    data[entries] = sd_triple                   # sd_triple x 1.0, exactly
    sd = {"n": PRIOR_SD, "ge2": PRIOR_SD_EXTRA, "ge3": PRIOR_SD_EXTRA, "triple": sd_triple,
          "": PRIOR_SD}
    return (indptr, indices, data), names, np.array([sd[t[2]] for t in names])


def _fit(cell_n, cell_w, players, ranks, sd_triple, threads=None, memo=None):
    """One ridge logistic fit on aggregated cells (:func:`sim.studies.swapstudy.glm.fit`:
    scikit-learn's ``LogisticRegression(C=1)`` of each cell's wins and losses, on every
    core): ``(fit, design, names, scale, cells, n, w)``."""
    from sim.studies.swapstudy import glm

    cells = np.flatnonzero(cell_n)
    n, w = cell_n[cells].astype(float), cell_w[cells]
    X, names, scale = _design(players, cells, ranks, sd_triple, memo, threads)
    return glm.fit(*X, n, w, len(names), threads), X, names, scale, cells, n, w


def _deviance(model, names, players, ranks, sd_triple, cell_n, cell_w, memo=None,
              threads=None):
    """Mean log-likelihood per seat-game of ``model`` on other cells (held out)."""
    from sim.studies.swapstudy import glm

    cells = np.flatnonzero(cell_n)
    X, names2, _ = _design(players, cells, ranks, sd_triple, memo, threads)
    col = {t: i for i, t in enumerate(names2)}
    beta = np.zeros(len(names2))
    for i, t in enumerate(names):
        if t in col:
            beta[col[t]] = model.coef[i]
    eta = glm.linear(*X, beta, model.intercept)
    n, w = cell_n[cells].astype(float), cell_w[cells]
    ll = w * -np.logaddexp(0, -eta) + (n - w) * -np.logaddexp(0, eta)
    return float(ll.sum() / n.sum())


def fit_split_model(stage, players, sd_triple=None, threads=None):
    """Fit the split model on the values stage's cells (module docstring). The triple terms'
    prior sd is chosen among :data:`PRIOR_SD_TRIPLES` by the log-likelihood of the odd games
    under a fit on the even ones (unless given), then the model is fitted on all games.

    Returns a dict: ``up``/``hand``, the value (log-odds) of each triple in that place (what
    the ``split`` policy adds), the rank terms' face-up gains with standard errors, the
    coefficients, and the fit's facts. The fits run on ``threads`` of the process's threads
    (default: all cores), the same whatever their number."""

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
        memo = {}                          # the even and the odd cells' designs, once each
        for sd in PRIOR_SD_TRIPLES:
            m, _, names, *_ = _fit(cell_n[0], cell_w[0], players, ranks, sd, threads, memo)
            held_out[sd] = _deviance(m, names, players, ranks, sd, cell_n[1], cell_w[1],
                                     memo, threads)
        sd_triple = max(held_out, key=held_out.get)
    sd_triple = sd_triple or 0.1
    model, X, names, scale, cells, n, w = _fit(all_n, all_w, players, ranks, sd_triple,
                                               threads)
    beta = model.coef
    # Approximate posterior covariance of the rank terms, the intercept included (flat
    # prior): the inverse of X1' W X1 + prior precision, X1 = [1 X], in scaled coordinates
    # (the fit's Hessian at the optimum). Seats of one game are treated as independent:
    # read the errors as indicative.
    cov = np.linalg.pinv(model.hessian, hermitian=True)[1:, 1:] * np.outer(scale, scale)
    coef = beta * scale                                  # back to log-odds per unit
    col = {t: i for i, t in enumerate(names)}
    # the value of each triple in each place: its rank terms plus its own triple term
    value = np.full((2, NTRIPLE), -np.inf)
    possible = (COUNTS <= deck).all(axis=1)
    for pl, place in enumerate(("up", "hand")):
        for t in np.flatnonzero(possible):
            v = 0.0
            for i, weight in triple_terms(col, place, int(t)):
                v += coef[i] * weight
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
            "intercept": float(model.intercept), "cells": int(len(cells)),
            "seat_games": int(n.sum()), "mean": mean, "slope": mean * (1 - mean),
            "names": names, "cov": cov}


def triple_terms(col, place, t) -> list[tuple[int, float]]:
    """The model's terms of triple ``t`` (an index of :data:`TRIPLES`) in ``place`` (``up``
    or ``hand``): (column of ``col`` = ``{(place, id, term): column}``, weight) pairs, its
    own triple term first, then each rank's count and pair/triple flags. Its value in that
    place is the sum of coefficient x weight (in this order: the split policy's numbers)."""
    out = []
    i = col.get((place, t, "triple"))
    if i is not None:
        out.append((i, 1.0))
    for r in np.flatnonzero(COUNTS[t]):
        c = COUNTS[t, r]
        for term, on in (("n", c), ("ge2", c >= 2), ("ge3", c >= 3)):
            i = col.get((place, int(r), term))
            if i is not None and on:
                out.append((i, float(on)))
    return out


def split_terms(col, up, hand) -> np.ndarray:
    """The model's terms of a split (face-up and hand rank codes) as a vector over the
    columns of ``col``: its value (what the ``split`` policy adds) is this vector times the
    coefficients, and its variance this vector's quadratic form in their covariance."""
    x = np.zeros(len(col))
    for place, codes in (("up", up), ("hand", hand)):
        for i, weight in triple_terms(col, place, int(INDEX[table_code(codes)])):
            x[i] += weight
    return x


def write_cov_file(path, model) -> Path | None:
    """The model's terms and their posterior covariance as ``split_cov.npz`` (the intervals
    of ``sim swap --model``); nothing for a model not fitted."""
    import io
    from sim.runs import folder
    if model.get("cov") is None:
        return None
    names = model["names"]
    buf = io.BytesIO()
    np.savez_compressed(buf, place=np.array([t[0] for t in names]),
                        id=np.array([int(t[1]) for t in names]),
                        term=np.array([t[2] for t in names]), cov=model["cov"])
    folder.write_bytes(Path(path), buf.getvalue())
    return Path(path)


def _flat_model(ranks, cells, seat_games, mean, why):
    """A model that values every split alike (the policy then keeps the first split)."""
    gain = np.full(NRANK, np.nan)
    gain[ranks] = 0.0
    possible = np.where((COUNTS[:, ranks].sum(axis=1) == 3), 0.0, -np.inf)
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

