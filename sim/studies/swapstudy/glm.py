"""The split model's fit: a ridge logistic regression on aggregated cells (each cell: its
seat-games ``n`` and summed result ``w``), by Newton's method on every core.

The objective is scikit-learn's ``LogisticRegression(C=1)`` on the cells written out as
rows (``n - w`` losses, ``w`` wins): ``sum n log(1 + e^eta) - w eta + |beta|^2 / 2``, the
intercept unpenalized. scikit-learn fits it on one thread, holding Python's lock for most
of it, which made the swap study's model a serial step of tens of seconds between the games
(benchmarks/results/scaling-2core.md); here each Newton step's Hessian and gradient are sums
over :data:`BLOCKS` fixed blocks of cells, played on the process's threads
(:mod:`sim.runs.workers`) and added in block order, so the fit does not depend on the
threads. Newton's method is run to its fixed point (the optimum to rounding), so it agrees
with scikit-learn to scikit-learn's own tolerance (tests/test_swap_model.py).

The design (:func:`design`) is built by a jitted loop over the cells, column for column as
the rank-and-triple terms of :mod:`sim.studies.swapstudy.model` define them.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from sim.kernel.compiler import jit

BLOCKS = 16          # the cells' blocks: fixed, so the sums do not depend on the threads
MAX_STEPS = 100
STEP_TOL = 1e-10     # stop once no coefficient moves more than this


@jit
def _rows(cells, players, ntriple, counts, ranks, sd_n, sd_extra, sd_triple, sd_pos, cols,
          vals, nnz):
    """Each cell's nonzero terms, columns ascending (``cols``/``vals``: cells x 13, ``nnz``
    their number): face-up counts ``n`` (x ``sd_n``), pairs ``ge2`` and trips ``ge3`` (x
    ``sd_extra``), the face-up triple (x ``sd_triple``), the same for the hand, then the
    position after the starter (x ``sd_pos``). The column layout is
    :func:`design`'s before unused columns are dropped."""
    nr = ranks.shape[0]
    place = 3 * nr + ntriple                       # the hand's terms start here
    for i in range(cells.shape[0]):
        c = cells[i]
        pos = c % players
        trip = (c // players // ntriple, c // players % ntriple)     # up, hand
        k = 0
        for pl in range(2):
            base = pl * place
            t = trip[pl]
            for term in range(3):                  # n, ge2, ge3: columns base + term * nr
                for j in range(nr):
                    x = counts[t, ranks[j]]
                    if term == 0 and x > 0:
                        cols[i, k], vals[i, k] = base + j, x * sd_n
                        k += 1
                    elif term == 1 and x >= 2:
                        cols[i, k], vals[i, k] = base + nr + j, sd_extra
                        k += 1
                    elif term == 2 and x >= 3:
                        cols[i, k], vals[i, k] = base + 2 * nr + j, sd_extra
                        k += 1
            cols[i, k], vals[i, k] = base + 3 * nr + t, sd_triple
            k += 1
        if pos > 0:
            cols[i, k], vals[i, k] = 2 * place + pos - 1, sd_pos
            k += 1
        nnz[i] = k


@jit
def _compact(cols, vals, indptr, lo, hi, indices, data, used):
    """Rows ``lo .. hi - 1`` of ``cols``/``vals`` into the CSR arrays, their columns marked
    in ``used``."""
    for i in range(lo, hi):
        for k in range(indptr[i + 1] - indptr[i]):
            indices[indptr[i] + k] = cols[i, k]
            data[indptr[i] + k] = vals[i, k]
            used[cols[i, k]] = True


@jit
def _renumber(indices, renumber, lo, hi):
    for k in range(lo, hi):
        indices[k] = renumber[indices[k]]


def design(players, cells, ranks, sd_triple, counts, ntriple, sd_n, sd_extra, threads=None):
    """The design of ``cells`` as CSR arrays ``(indptr, indices, data, columns)``: every
    term's column scaled by its prior sd, the columns no cell uses dropped (``columns``:
    the kept columns' numbers in the full layout, ascending). Built in chunks of cells on
    the process's threads."""
    from sim.runs.workers import Group

    cells = np.ascontiguousarray(cells, np.int64)
    ranks = np.asarray(ranks, np.int64)
    m = cells.size
    cols = np.zeros((m, 13), np.int64)
    vals = np.zeros((m, 13))
    nnz = np.zeros(m, np.int64)
    full = 2 * (3 * len(ranks) + ntriple) + players - 1
    with Group(threads) as group:
        group.wait(group.submit(m, lambda lo, hi: _rows(
            cells[lo:hi], players, ntriple, counts, ranks, sd_n, sd_extra, sd_triple, sd_n,
            cols[lo:hi], vals[lo:hi], nnz[lo:hi]), kind="glm design"))
        indptr = np.zeros(m + 1, np.int64)
        np.cumsum(nnz, out=indptr[1:])
        indices = np.empty(indptr[-1], np.int64)
        data = np.empty(indptr[-1])
        used = np.zeros(full, np.bool_)
        group.wait(group.submit(m, lambda lo, hi: _compact(cols, vals, indptr, lo, hi, indices,
                                                           data, used), kind="glm compact"))
        columns = np.flatnonzero(used)
        if columns.size < full:                     # renumber past the unused columns
            renumber = np.full(full, -1, np.int64)
            renumber[columns] = np.arange(columns.size)
            group.wait(group.submit(indices.size, lambda lo, hi: _renumber(
                indices, renumber, lo, hi), kind="glm renumber"))
    return indptr, indices, data, columns


@jit
def _step(indptr, indices, data, n, w, beta, b0, lo, hi, hess, grad, out):
    """Cells ``lo .. hi - 1``'s share of the objective (``out[0]``), its gradient (``grad``,
    the intercept first) and the upper triangle of its Hessian (``hess``), added in."""
    loss = 0.0
    for i in range(lo, hi):
        eta = b0
        for k in range(indptr[i], indptr[i + 1]):
            eta += data[k] * beta[indices[k]]
        if eta >= 0:
            e = math.exp(-eta)
            p = 1.0 / (1.0 + e)
            soft = eta + math.log1p(e)
        else:
            e = math.exp(eta)
            p = e / (1.0 + e)
            soft = math.log1p(e)
        loss += n[i] * soft - w[i] * eta
        r = n[i] * p - w[i]
        d = n[i] * p * (1.0 - p)
        grad[0] += r
        hess[0, 0] += d
        for k in range(indptr[i], indptr[i + 1]):
            a = indices[k] + 1
            va = data[k]
            grad[a] += r * va
            hess[0, a] += d * va
            dv = d * va
            for k2 in range(k, indptr[i + 1]):
                hess[a, indices[k2] + 1] += dv * data[k2]
    out[0] += loss


@jit
def _loss(indptr, indices, data, n, w, beta, b0, lo, hi, out):
    """Cells ``lo .. hi - 1``'s share of the objective, added to ``out[0]``."""
    loss = 0.0
    for i in range(lo, hi):
        eta = b0
        for k in range(indptr[i], indptr[i + 1]):
            eta += data[k] * beta[indices[k]]
        soft = eta + math.log1p(math.exp(-eta)) if eta >= 0 else math.log1p(math.exp(eta))
        loss += n[i] * soft - w[i] * eta
    out[0] += loss


@dataclass
class Fit:
    """A fitted model: ``coef`` (the scaled terms' coefficients), ``intercept``, ``hessian``
    (of the objective at the optimum, the intercept first: the posterior precision in
    scaled coordinates) and the Newton ``steps`` taken."""

    coef: np.ndarray
    intercept: float
    hessian: np.ndarray
    steps: int


def fit(indptr, indices, data, n, w, p, threads=None) -> Fit:
    """Minimise ``sum n log(1 + e^eta) - w eta + |beta|^2 / 2`` (eta = intercept + X beta,
    X the CSR design of ``p`` columns) by Newton's method with a halving line search, each
    step's sums over :data:`BLOCKS` blocks of cells on ``threads`` of the process's threads."""
    from scipy.linalg import cho_factor, cho_solve

    from sim.runs.workers import Group

    m = indptr.size - 1
    n, w = np.ascontiguousarray(n, float), np.ascontiguousarray(w, float)
    edges = np.linspace(0, m, BLOCKS + 1).astype(np.int64)
    hess = np.empty((BLOCKS, p + 1, p + 1))
    grad = np.zeros((BLOCKS, p + 1))
    loss = np.zeros((BLOCKS, 1))
    beta, b0 = np.zeros(p), 0.0

    def run(work):
        with Group(threads) as group:
            group.wait(group.submit(BLOCKS, work, kind="glm"))

    def sums(beta, b0):
        def work(lo, hi):
            for b in range(lo, hi):             # each block cleared on its own thread
                hess[b].fill(0.0)
                grad[b].fill(0.0)
                loss[b] = 0.0
                _step(indptr, indices, data, n, w, beta, b0, edges[b], edges[b + 1], hess[b],
                      grad[b], loss[b])
        run(work)
        h = np.empty((p + 1, p + 1))

        def add(lo, hi):                           # the blocks' rows, added on the threads
            np.add.reduce(hess[:, lo:hi], axis=0, out=h[lo:hi])
        with Group(threads) as group:
            group.wait(group.submit(p + 1, add, kind="glm sum"))
        g, f = grad[0].copy(), loss[0, 0]
        for b in range(1, BLOCKS):                 # in block order: the same whatever ran
            g += grad[b]
            f += loss[b, 0]
        h[np.arange(1, p + 1), np.arange(1, p + 1)] += 1.0   # the ridge (not the intercept)
        g[1:] += beta
        return f + beta @ beta / 2, g, h           # h: its upper triangle (Cholesky's)

    def objective(beta, b0):
        loss[:] = 0.0

        def work(lo, hi):
            for b in range(lo, hi):
                _loss(indptr, indices, data, n, w, beta, b0, edges[b], edges[b + 1], loss[b])
        run(work)
        f = loss[0, 0]
        for b in range(1, BLOCKS):
            f += loss[b, 0]
        return f + beta @ beta / 2

    f, g, h = sums(beta, b0)
    steps = 0
    for steps in range(1, MAX_STEPS + 1):
        delta = cho_solve(cho_factor(h, lower=False), g)     # reads the upper triangle
        t = 1.0
        while True:                                 # Armijo: a step that lowers f enough
            nb, nb0 = beta - t * delta[1:], b0 - t * delta[0]
            nf = objective(nb, nb0)
            if nf <= f - 1e-4 * t * (g @ delta) or t < 1e-10:
                break
            t /= 2
        beta, b0 = nb, nb0
        f, g, h = sums(beta, b0)
        if np.max(np.abs(t * delta)) < STEP_TOL:
            break
    return Fit(beta, float(b0), np.triu(h) + np.triu(h, 1).T, steps)


def linear(indptr, indices, data, beta, b0) -> np.ndarray:
    """``b0 + X beta`` for the CSR design ``X``."""
    from scipy import sparse

    X = sparse.csr_matrix((data, indices, indptr), shape=(indptr.size - 1, beta.size))
    return X @ beta + b0
