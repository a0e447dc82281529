"""sim.env.gym: Gymnasium's env_checker, the opponents' strategies seated by name, and a
learner's results over whole games."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

pytest.importorskip("gymnasium")

from gymnasium.utils.env_checker import check_env  # noqa: E402

from sim.env.gym import ShitheadGymEnv  # noqa: E402


def test_check_env():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # env_checker steps with actions sampled without the mask: illegal="lowest"
        check_env(ShitheadGymEnv(opponents=["counting", "random", "lowest"], illegal="lowest"),
                  skip_render_check=True)
        check_env(ShitheadGymEnv(seat=2, opponents="lowest", players=5, rules="classic",
                                 illegal="lowest"), skip_render_check=True)


def _episodes(env, n, seed):
    gen = np.random.default_rng(seed)
    out = []
    for g in range(n):
        obs, _ = env.reset(seed=seed) if g == 0 else env.reset()
        total, done = 0.0, False
        while not done:
            assert obs["action_mask"].any() and obs["observation"][-1] == env.seat
            obs, r, term, trunc, _ = env.step(int(gen.choice(np.flatnonzero(obs["action_mask"]))))
            total += r
            done = term or trunc
        out.append(total)
    return out


def test_episodes_and_rewards():
    env = ShitheadGymEnv(seat=1, opponents="counting", players=4, reward="win")
    results = _episodes(env, 30, 4)
    assert set(results) <= {0.0, 1.0}
    assert sum(results) < 15            # random play against counting rarely wins
    env = ShitheadGymEnv(opponents="lowest", players=4, rules="classic")
    assert set(_episodes(env, 10, 1)) <= {1.0, 1 / 3, -1 / 3, -1.0}


def test_same_seed_same_episode():
    a, b = (ShitheadGymEnv(opponents=["random"], players=3) for _ in range(2))
    assert _episodes(a, 3, 9) == _episodes(b, 3, 9)


def test_user_file_strategy(tmp_path):
    bot = tmp_path / "bots.py"
    bot.write_text("from sim.moves import nth_legal\nfrom sim.strategy import move_strategy\n\n"
                   "@move_strategy(description='first legal id', swap='none')\n"
                   "def plain(obs, hand, legal, rng, params):\n"
                   "    return nth_legal(legal, obs, 0)\n")
    env = ShitheadGymEnv(opponents=[f"{bot}:plain"], players=2)
    assert len(_episodes(env, 2, 0)) == 2


def test_learner_swaps_by_action():
    """swap="choose": the learner's first step of each episode is its swap (R5), the
    opponents swap by their policies; the episodes are seeded as before."""
    from sim.env.spec import N_ACTIONS_CHOOSE
    from sim.kernel.layout import FU, NMOVES, NR

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(ShitheadGymEnv(opponents="lowest", players=3, swap="choose",
                                 illegal="lowest"), skip_render_check=True)
    env = ShitheadGymEnv(seat=1, opponents="lowest", players=3, swap="choose")
    assert env.action_space.n == N_ACTIONS_CHOOSE
    obs, _ = env.reset(seed=3)
    assert np.array_equal(np.flatnonzero(obs["action_mask"]), NMOVES + np.arange(20))
    cards = env.table.observe(1)[FU + NR:FU + 2 * NR].copy()      # the dealt face-ups
    obs, r, term, trunc, _ = env.step(NMOVES)                     # keep them face up
    assert not env.table.swapping and r == 0 and not (term or trunc)
    assert np.array_equal(env.table.st[FU + NR:FU + 2 * NR], cards)   # R5: kept face up
    assert obs["action_mask"][:NMOVES].any() and not obs["action_mask"][NMOVES:].any()
    a, b = (ShitheadGymEnv(opponents=["random"], players=3, swap="choose") for _ in range(2))
    assert _episodes(a, 3, 9) == _episodes(b, 3, 9)


def test_bad_input():
    with pytest.raises(ValueError, match="seat"):
        ShitheadGymEnv(seat=4, opponents="lowest", players=4)
    with pytest.raises(ValueError, match="opponents"):
        ShitheadGymEnv(opponents=["lowest", "lowest"], players=4)
    with pytest.raises(ValueError, match="unknown strategy"):
        ShitheadGymEnv(opponents="nobody")


def test_missing_gymnasium_says_which_install(monkeypatch):
    import sys

    import sim.env
    from sim.runs.config import RunError

    monkeypatch.setitem(sys.modules, "gymnasium", None)      # as if not installed
    monkeypatch.delitem(sys.modules, "sim.env.gym", raising=False)
    with pytest.raises(RunError, match=r"pip install 'shithead-sim\[rl\]'"):
        sim.env.gym_env(opponents="lowest")
    with pytest.raises(RunError, match=r"pip install 'shithead-sim\[rl\]'"):
        from sim.env.gym import ShitheadGymEnv as Again

        Again(opponents="lowest")
