"""The learned value of a position (strategies.value) and the simulated games it is fitted on."""
from __future__ import annotations

import numpy as np

from sim.kernel.layout import CURRENT, FDN, MAXP, NOUT, OUTORDER, PLAYERS, V2
from sim.kernel.ruleset import Ruleset
from sim.runs.registry import get_move
from strategies.montecarlo import NPOL, mixture_positions
from strategies.value import COEF, FEATURES, NFEAT, value
from tests.test_montecarlo import states

W = get_move("montecarlo").row()[6:6 + NPOL]          # the default mixture's weights


def _value(st, me):
    return value(st, me, COEF, np.empty(MAXP), np.empty(NFEAT))


def test_seed_values_are_a_distribution_over_the_winner():
    """Seed rules: the chances of going out first sum to 1 over the seats; once a seat is out
    the winner is known (R25: the first out wins)."""
    checked = 0
    for st in states(n_games=8, every=9):
        if st[V2]:
            continue
        v = [_value(st, s) for s in range(st[PLAYERS])]
        assert all(0.0 <= x <= 1.0 for x in v)
        assert st[NOUT] == 0                # a seed game ends with the first out (R25)
        assert abs(sum(v) - 1.0) < 1e-9
        checked += 1
        out = st.copy()                     # the same world with a seat out: it has won
        out[NOUT], out[OUTORDER] = 1, (st[CURRENT] + 1) % st[PLAYERS]
        w = [_value(out, s) for s in range(st[PLAYERS])]
        assert w[out[OUTORDER]] == 1.0 and sum(w) == 1.0
    assert checked > 10


def test_v2_values_are_expected_shares_behind():
    """V2 (last player loses): the value is the expected share of the others behind; a seat
    out already has its share, and the shares of all seats add up to half the places."""
    checked = 0
    for st in states(n_games=8, every=9):
        if not st[V2]:
            continue
        n = st[PLAYERS]
        v = [_value(st, s) for s in range(n)]
        assert all(0.0 <= x <= 1.0 for x in v)
        for i in range(st[NOUT]):
            assert v[st[OUTORDER + i]] == (n - 1 - i) / (n - 1)
        assert abs(sum(v) - n / 2) < 1e-9              # every pair is ordered once
        checked += 1
    assert checked > 10


def test_fewer_cards_left_is_worth_more():
    """The fitted model says what every player knows: a card less in the face-down stack is
    better (and so are fewer hand and face-up cards)."""
    assert COEF[FEATURES.index("face-down")] < 0
    assert COEF[FEATURES.index("face-up")] < 0
    assert COEF[FEATURES.index("hand")] < 0
    for st in states(n_games=8, every=13):
        if st[V2] or st[NOUT] or not st[FDN + st[CURRENT]]:
            continue
        me = st[CURRENT]
        fewer = st.copy()
        fewer[FDN + me] -= 1          # the count only: the features read counts
        assert _value(fewer, me) > _value(st, me)
        return
    raise AssertionError("no position with a face-down card to take")


def test_fitting_games_are_reproducible_and_finish():
    """The positions the model is fitted on depend only on the seed; places are 0.. for the
    seats that went out, in order."""
    def run(seed):
        X = np.zeros((400, 4, NFEAT))
        alive = np.zeros((400, 4), np.int64)
        place = np.zeros((400, 4), np.int64)
        turn = np.zeros(400, np.int64)
        n = mixture_positions(np.uint64(seed), 10, 4, Ruleset.build("classic").vector(), W, 5,
                              X, alive, place, turn)
        return n, X[:n], place[:n], turn[:n]
    n, X, place, turn = run(3)
    n2, X2, place2, turn2 = run(3)
    assert n > 50 and n == n2 and np.array_equal(X, X2) and np.array_equal(place, place2)
    assert (turn % 5 == 0).all()
    assert ((place == 0).sum(axis=1) == 1).all()      # someone went out first in every game
    assert run(4)[0] != n or not np.array_equal(run(4)[1], X)
