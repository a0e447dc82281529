"""sim.env.vector: the batched tables play exactly the AEC environment's games, observation
for observation, with the same actions, through auto-resets; R24's refusal."""
from __future__ import annotations

import numpy as np
import pytest

from sim.env.table import Table
from sim.env.vector import VectorTables
from sim.kernel.rng import seed_game


@pytest.mark.parametrize("kw", [dict(players=4), dict(players=4, rules="classic"),
                                dict(players=5, rules="masters-of-shithead"),
                                dict(players=3, max_turns=40),
                                dict(players=4, swap="choose"),
                                dict(players=3, rules="classic", max_turns=60,
                                     swap=["choose", "highest-up", "choose"]),
                                dict(players=3, rule=["hand_size=4"], swap="choose")])
def test_same_as_the_aec_tables(kw):
    from sim.env.spec import TableSpec

    n, seed = 3, 21
    vec = VectorTables(n, **kw)
    batch = vec.reset(seed=seed)
    spec = TableSpec(**kw)
    tables = [Table(spec) for _ in range(n)]
    for i, t in enumerate(tables):
        t.start(seed, i)
    rng = np.zeros(4, np.uint64)
    seed_game(rng, np.uint64(3), 0)
    games = np.arange(n)
    ended = 0
    for _ in range(2000):
        for i, t in enumerate(tables):
            assert batch.seat[i] == t.current
            assert np.array_equal(batch.obs[i], t.observe(t.current))
            assert np.array_equal(batch.mask[i], t.mask(t.current))
        actions = vec.random_actions(rng)
        batch = vec.step(actions)
        for i, t in enumerate(tables):
            status, _ = t.play(actions[i])
            assert np.array_equal(batch.reward[i], t.rewards[:spec.players])
            assert batch.done[i] == (status == 1) and batch.truncated[i] == (status == 2)
            if status:
                ended += 1
                games[i] += n
                t.start(seed, int(games[i]))
    assert ended > 0 and np.array_equal(vec.games, games)


def test_threads_give_the_same_games():
    a, b = VectorTables(64, players=4), VectorTables(64, players=4, threads=2)
    ra, rb = a.reset(seed=5), b.reset(seed=5)
    rng = np.zeros(4, np.uint64)
    seed_game(rng, np.uint64(1), 0)
    for _ in range(200):
        actions = a.random_actions(rng)
        ra, rb = a.step(actions), b.step(actions)
        assert np.array_equal(ra.obs, rb.obs) and np.array_equal(ra.reward, rb.reward)


def test_bad_input():
    with pytest.raises(ValueError, match="tables"):
        VectorTables(0)
    with pytest.raises(ValueError, match="players"):
        VectorTables(2, players=1)
    v = VectorTables(2)
    with pytest.raises(ValueError, match="reset"):
        v.step(np.zeros(2, np.int64))
    b = v.reset(seed=1)
    bad = np.array([np.flatnonzero(b.mask[0] == 0)[0], 0], np.int64)
    with pytest.raises(ValueError, match="R24"):
        v.step(bad)
    with pytest.raises(ValueError, match="actions"):
        v.step(np.zeros(3, np.int64))


def test_swap_phase():
    """swap="choose": each table's first steps are its seats' swaps (swap ids only), then
    play; a move id in the swap phase is refused (R24)."""
    from sim.env.spec import N_ACTIONS_CHOOSE
    from sim.kernel.layout import NMOVES

    v = VectorTables(3, players=4, swap="choose")
    b = v.reset(seed=2)
    assert b.mask.shape == (3, N_ACTIONS_CHOOSE)
    for _ in range(4):
        assert (b.mask[:, :NMOVES] == 0).all() and (b.mask[:, NMOVES:NMOVES + 20] == 1).all()
        b = v.step(np.full(3, NMOVES + 19))
    assert (b.mask[:, :NMOVES].sum(1) > 0).all() and (b.mask[:, NMOVES:] == 0).all()
    v.reset(seed=2)
    with pytest.raises(ValueError, match="R24"):
        v.step(np.zeros(3, np.int64))
