"""Tournaments (sim compare): seat rotation, duplicate deals, honest intervals, ratings,
stopping when the answer is clear."""
from __future__ import annotations

import json

import numpy as np
import pytest

from sim import stats
from sim.compare import Tournament, compare
from sim.runner import RunConfig, play_batch


def test_every_strategy_sits_in_every_seat_equally_often():
    for k, n in ((2, 4), (3, 4), (4, 4), (5, 3), (6, 6)):
        t = Tournament([f"s{i}" for i in range(k)], n, False)
        counts = np.zeros((k, n), int)
        for r in range(k):
            for seat, i in enumerate(t.seats(r)):
                counts[i, seat] += 1
        assert (counts == 1).all(), (k, n)


def test_duplicate_deals_replay_the_same_deal_under_every_rotation():
    """The deal (dealer, starter) depends on seed and index only, not on who sits where."""
    a = play_batch(RunConfig(games=1, players=4, seed=3,
                             strategies=["lowest", "random", "lowest", "random"]), 0, 500, 1)
    b = play_batch(RunConfig(games=1, players=4, seed=3,
                             strategies=["random", "lowest", "random", "lowest"]), 0, 500, 1)
    assert np.array_equal(a.dealer, b.dealer) and np.array_equal(a.starter, b.starter)
    assert not np.array_equal(a.order, b.order)


def test_an_interval_never_collapses_when_every_deal_gives_the_same_result():
    """One strategy winning every game gives every deal the same result; the spread between
    deals is 0, but 500 deals cannot rule out a deviation in ~0.7% of deals."""
    t = Tournament(["a", "b"], 4, False)
    t.per_deal.append(np.tile([0.5, 0.0], (500, 1)))
    a, b = t.estimates()
    assert a["win_rate"] == 0.5 and b["win_rate"] == 0.0
    q = 1 - 0.025 ** (1 / 500)
    assert a["ci_low"] == pytest.approx(0.5 - q) and a["ci_high"] == pytest.approx(0.5 + q)
    assert b["ci_low"] == 0.0 and b["ci_high"] == pytest.approx(q)
    t.per_deal.append(np.tile([0.5, 0.0], (19_500, 1)))          # more deals: narrower
    assert t.estimates()[0]["ci_low"] > a["ci_low"]


def test_results_add_up_and_lowest_beats_random():
    t, info = compare(["lowest", "random"], players=4, games=4000, seed=1, threads=2)
    d = t.to_dict()
    assert d["games"] == 4000 and d["deals"] == 2000
    rates = {r["strategy"]: r for r in d["per_strategy"]}
    # One winner per game: over 2 rotations each strategy holds 4 seats per deal.
    assert rates["lowest"]["win_rate"] + rates["random"]["win_rate"] == pytest.approx(
        2 / 4, abs=1e-9)
    assert rates["lowest"]["ci_low"] > rates["random"]["ci_high"]
    assert rates["lowest"]["rating_low"] > rates["random"]["rating_high"]
    h2h = d["head_to_head"]["matrix"]
    assert h2h[0][1] + h2h[1][0] == pytest.approx(1) and h2h[0][1] > 0.9
    assert sum(s["wins"] for s in d["seat_effect"]) == 4000 - d["unfinished"]


def test_independent_design_uses_fresh_deals(monkeypatch):
    """--independent gives every rotation its own game indices; the default replays them."""
    import sim.compare as c
    firsts = []
    real = c.play_batch

    def spy(cfg, first, n, threads):
        firsts.append(first)
        return real(cfg, first, n, threads)
    monkeypatch.setattr(c, "play_batch", spy)
    compare(["lowest", "test-lowest-random-swap"], players=4, games=400, threads=1, block=200)
    assert firsts == [0, 0]
    firsts.clear()
    compare(["lowest", "test-lowest-random-swap"], players=4, games=400, threads=1, block=200,
            independent=True)
    assert firsts == [0, 200]


def test_until_clear_stops_early_or_says_the_cap_was_reached(cli):
    r = cli("compare", "lowest", "random", "--games", "40k", "--until-clear", "--json")
    assert r.exit_code == 0, r.output
    out = json.loads(r.output)
    assert out["info"]["stopped"] == "clear" and out["games"] < 40_000
    assert out["info"]["z"] > 1.96                                # corrected for the looks
    r = cli("compare", "random", "test-wrapped-random", "--games", "2000", "--until-clear",
            "--json")
    out = json.loads(r.output)
    assert out["info"]["stopped"] == "games" and out["games"] == 2000


def test_compare_cli_tables_and_out(cli, tmp_path):
    r = cli("compare", "lowest", "random", "--players", "3", "--games", "3000",
            "--out", tmp_path / "c")
    assert r.exit_code == 0, r.output
    for word in ("Per strategy", "Head to head", "Seat effect", "starting player", "rating"):
        assert word in r.output
    saved = json.loads((tmp_path / "c" / "compare.json").read_text())
    assert saved["strategies"] == ["lowest", "random"]
    assert (tmp_path / "c" / "summary.json").exists()


@pytest.mark.parametrize("args,message", [
    (("compare", "lowest"), "at least two"),
    (("compare", "lowest", "lowest"), "each strategy once"),
    (("compare", "lowest", "nosuch"), "unknown strategy"),
    (("compare", "lowest", "random", "--games", "1"), "at least one game per rotation"),
])
def test_compare_bad_input(cli, args, message):
    r = cli(*args)
    assert r.exit_code == 2 and message in r.output and "Traceback" not in r.output


def test_confidence_sequence_covers_at_every_look():
    """The confidence sequence of a mean in [0, 1] misses the true mean at some look in at
    most 5% of repetitions (100 repetitions of 25 looks; a miss is a p-value <= 0.05 for the
    true mean, which is exactly the true mean falling outside the interval)."""
    rng = np.random.default_rng(7)
    misses = 0
    for _ in range(100):
        x = rng.choice([0.0, 0.25, 0.5, 1.0], p=[0.4, 0.3, 0.2, 0.1], size=2000)
        misses += any(stats.sequential_p(stats._Counts.of(x[:n]), 0.275) <= 0.05
                      for n in range(80, 2001, 80))
    assert misses <= 5
    ci = stats.confidence_sequence(x, null=0.275)
    assert ci["ci_low"] <= 0.275 <= ci["ci_high"] and ci["p_value"] > 0.05
    assert stats.confidence_sequence(x, null=ci["ci_low"] - 1e-6)["p_value"] <= 0.05


def test_plackett_luce_is_choix_opt_rankings_with_the_stated_prior():
    """The ratings' model: with distinct strategies at every seat the MAP equals choix's
    Plackett-Luce fit with the penalty alpha = 1 / (2 prior_sd^2)."""
    import choix

    rng = np.random.default_rng(3)
    strength = np.array([0.8, 0.2, -0.3, -0.7])
    rankings = []
    for _ in range(400):
        left, rank = list(range(4)), []
        while left:
            p = np.exp(strength[left]) / np.exp(strength[left]).sum()
            rank.append(left.pop(rng.choice(len(left), p=p)))
        rankings.append(rank)
    chosen, among = [], []
    for rank in rankings:
        for pos in range(3):
            row = np.zeros(4, int)
            row[rank[pos:]] = 1
            chosen.append(rank[pos])
            among.append(row)
    theta, _ = stats.plackett_luce(stats.Choices.merge(chosen, among, 4), 4, prior_sd=1.0)
    ref = choix.opt_rankings(4, rankings, alpha=0.5)
    assert np.allclose(theta, ref, atol=1e-3)


