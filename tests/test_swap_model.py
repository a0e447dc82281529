"""The swap study's model fit (sim/studies/swapstudy/glm.py) against independent references:
its design, column for column, against the terms built with SciPy's sparse matrices; its
fit against scikit-learn's LogisticRegression(C=1) on the same cells written out as wins
and losses; and the same fit whatever the threads."""
from __future__ import annotations

import numpy as np
import pytest

from sim.kernel.cards import NRANK
from sim.studies.swapstudy import glm
from sim.studies.swapstudy.model import PRIOR_SD, PRIOR_SD_EXTRA, _design, _names
from sim.studies.swapstudy.triples import COUNTS, NTRIPLE


def _scipy_design(players, cells, ranks, sd_triple):
    """The design as the model built it before, block by block with SciPy (the reference)."""
    from scipy import sparse

    up_i, hand_i, pos = cells // players // NTRIPLE, cells // players % NTRIPLE, cells % players
    rows = np.arange(len(cells))
    blocks = []
    for idx in (up_i, hand_i):
        c = COUNTS[idx][:, ranks]
        for values, sd in ((c, PRIOR_SD), (c >= 2, PRIOR_SD_EXTRA), (c >= 3, PRIOR_SD_EXTRA)):
            blocks.append(sparse.csr_matrix(values.astype(float) * sd))
        blocks.append(sparse.csr_matrix((np.full(len(cells), sd_triple), (rows, idx)),
                                        shape=(len(cells), NTRIPLE)))
    for p in range(1, players):
        blocks.append(sparse.csr_matrix((pos == p).astype(float)[:, None] * PRIOR_SD))
    X = sparse.hstack(blocks).tocsr()
    keep = np.flatnonzero(np.asarray(abs(X).sum(axis=0)).ravel() > 0)
    return X[:, keep], keep


def _cells(players, size, rng):
    """Cells of a random values stage: random triples and positions, seat-games and wins."""
    cells = np.unique(rng.integers(0, NTRIPLE * NTRIPLE * players, size))
    n = rng.integers(1, 40, cells.size).astype(float)
    p = 0.15 + 0.2 * (cells % players) / players + 0.1 * ((cells // players) % 3 == 0)
    return cells, n, rng.binomial(n.astype(int), p).astype(float)


@pytest.mark.parametrize("players,jokers", [(4, False), (3, True), (6, False)])
def test_the_design_is_the_terms_built_with_scipy(players, jokers):
    rng = np.random.default_rng(players)
    ranks = list(range(NRANK if jokers else NRANK - 1))
    cells = _cells(players, 5000, rng)[0]
    for sd in (0.03, 0.3):
        (indptr, indices, data), names, scale = _design(players, cells, ranks, sd)
        ref, keep = _scipy_design(players, cells, ranks, sd)
        ours = np.zeros(ref.shape)
        for i in range(cells.size):
            ours[i, indices[indptr[i]:indptr[i + 1]]] = data[indptr[i]:indptr[i + 1]]
        assert np.array_equal(ours, ref.toarray())                   # every value, exactly
        assert names == [_names(players, ranks)[k] for k in keep]
        assert all(np.diff(indices[indptr[i]:indptr[i + 1]]).min(initial=1) > 0
                   for i in range(cells.size))                       # columns ascending


def test_the_fit_is_scikit_learns_logistic_regression():
    """The same objective minimised: ours is at least as low as scikit-learn's (which stops
    at its tolerance), and the coefficients agree to that tolerance."""
    from scipy import sparse
    from sklearn.linear_model import LogisticRegression

    rng = np.random.default_rng(7)
    players, ranks = 4, list(range(NRANK - 1))
    cells, n, w = _cells(players, 20_000, rng)
    (indptr, indices, data), names, _ = _design(players, cells, ranks, 0.1)
    ours = glm.fit(indptr, indices, data, n, w, len(names), threads=2)
    X = sparse.csr_matrix((data, indices, indptr), shape=(cells.size, len(names)))
    XX = sparse.vstack([X, X]).tocsr()
    y = np.r_[np.ones(cells.size), np.zeros(cells.size)]
    sw = np.r_[w, n - w]
    ok = sw > 0
    sk = LogisticRegression(C=1.0, solver="newton-cholesky", max_iter=100, tol=1e-7).fit(
        XX[ok], y[ok], sample_weight=sw[ok])

    def objective(beta, b0):
        eta = X @ beta + b0
        return np.sum(n * np.logaddexp(0, eta) - w * eta) + beta @ beta / 2
    f_ours = objective(ours.coef, ours.intercept)
    f_sk = objective(sk.coef_.ravel(), sk.intercept_[0])
    assert f_ours <= f_sk + 1e-9 * abs(f_sk)
    assert np.abs(ours.coef - sk.coef_.ravel()).max() < 1e-3
    assert abs(ours.intercept - sk.intercept_[0]) < 1e-3
    # the optimum: the gradient vanishes (to rounding)
    p = 1 / (1 + np.exp(-(X @ ours.coef + ours.intercept)))
    grad = X.T @ (n * p - w) + ours.coef
    assert np.abs(grad).max() < 1e-6 * n.sum()


def test_the_fit_is_the_same_whatever_the_threads():
    rng = np.random.default_rng(3)
    cells, n, w = _cells(3, 8000, rng)
    X, names, _ = _design(3, cells, list(range(NRANK - 1)), 0.1)
    one = glm.fit(*X, n, w, len(names), threads=1)
    two = glm.fit(*X, n, w, len(names), threads=2)
    assert np.array_equal(one.coef, two.coef) and one.intercept == two.intercept
    assert np.array_equal(one.hessian, two.hessian)
