"""Tournaments (sim compare): seat rotation, duplicate deals, honest intervals, ratings,
stopping when the answer is clear."""
from __future__ import annotations

import json
import math
from types import SimpleNamespace

import numpy as np
import pytest

import sim
from sim.studies import stats
from sim.studies.compare import compare
from sim.studies.rankings import beats as meetings
from sim.studies.tournament import Tournament
from sim.studies.compare import blocks as c_blocks
from sim.runs.config import RunError
from sim.kernel.referee import UNFINISHED
from sim.kernel.layout import MAXP
from sim.runs.runner import RunConfig, play_batch


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
    # At 0, the score part's Wilson bound for "none of 500 deviated", z^2 / (n + z^2), is a
    # little wider than Clopper-Pearson's (sim.studies.discordant).
    z2 = 1.959963984540054 ** 2
    assert b["ci_low"] == 0.0 and b["ci_high"] == pytest.approx(max(q, z2 / (500 + z2)))
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
    """--independent gives every rotation its own game indices; the default replays them.
    (A block is one call of the core, its games rotation by rotation.)"""
    import sim.studies.match as c
    firsts = []
    real = c.start

    def spy(group, cfg, first, n, numbers=None, seating=None, **kw):
        # the core plays deal by deal: rotations 0 and 1 of the first deal come first
        firsts.append((int(numbers[0]), int(numbers[1])))
        return real(group, cfg, first, n, numbers, seating, **kw)
    monkeypatch.setattr(c, "start", spy)
    compare(["lowest", "test-lowest-random-swap"], players=4, games=400, threads=1, block=200)
    assert firsts == [(0, 0)]
    firsts.clear()
    compare(["lowest", "test-lowest-random-swap"], players=4, games=400, threads=1, block=200,
            independent=True)
    assert firsts == [(0, 200)]


def test_until_clear_stops_early_or_says_the_cap_was_reached(cli):
    r = cli("compare", "lowest", "random", "--games", "40k", "--until-clear", "--json")
    assert r.exit_code == 0, r.output
    out = json.loads(r.output)
    assert out["info"]["stopped"] == "clear" and out["games"] < 40_000
    assert out["intervals"].startswith("anytime-valid") and out["info"]["leader"] == "lowest"
    r = cli("compare", "random", "test-wrapped-random", "--games", "2000", "--until-clear",
            "--json")
    out = json.loads(r.output)
    assert out["info"]["stopped"] == "games" and out["games"] == 2000


def test_compare_cli_tables_and_out(cli, tmp_path):
    r = cli("compare", "lowest", "random", "--players", "3", "--games", "3000",
            "--out", tmp_path / "c")
    assert r.exit_code == 0, r.output
    for word in ("Per strategy", "Head to head", "Win rate by seat", "starting player",
                 "rating", "seat 2 holds seat 0's strategy"):        # 2 strategies, 3 seats
        assert word in " ".join(r.output.split())
    saved = json.loads((tmp_path / "c" / "compare.json").read_text())
    assert saved["strategies"] == ["lowest", "random"]
    assert not (tmp_path / "c" / "summary.json").exists()     # a run's file: not a tournament's
    assert sim.load(tmp_path / "c").compare == saved


@pytest.mark.parametrize("args,message", [
    (("compare", "lowest"), "at least two"),
    (("compare", "lowest", "lowest"), "each strategy once"),
    (("compare", "lowest", "nosuch"), "unknown strategy"),
    (("compare", "lowest", "random", "--games", "1"), "at least one game per rotation"),
])
def test_compare_bad_input(cli, args, message):
    r = cli(*args)
    assert r.exit_code == 2 and message in r.output and "Traceback" not in r.output


# -- statistics over deals, anytime-valid stopping, ratings, records ----------------


def _fake_block(t, winners, starters=None, unfinished=None, orders=None):
    """One block of a synthetic tournament: ``winners[d, r]`` is the seat that won rotation
    ``r`` of deal ``d`` (or ``orders[d, r]`` the whole finishing order, V2)."""
    deals = winners.shape[0] if winners is not None else orders.shape[0]
    batches = []
    for r in range(t.k):
        order = np.full((deals, MAXP), -1, np.int8)
        if orders is not None:
            order[:, :orders.shape[2]] = orders[:, r]
        else:
            order[:, 0] = winners[:, r]
        status = np.zeros(deals, np.int8)
        if unfinished is not None:
            status[unfinished[:, r]] = UNFINISHED
            order[unfinished[:, r]] = -1
        batches.append(SimpleNamespace(order=order, status=status, turns=np.ones(deals),
                                       starter=(np.zeros(deals, np.int8) if starters is None
                                                else starters[:, r].astype(np.int8))))
    t.add_block(batches)


def _null_block(t, rng, deals):
    """Deals where every seat is equally likely to win, identical strategies (the null)."""
    _fake_block(t, rng.integers(t.players, size=(deals, t.k)))


@pytest.mark.slow
@pytest.mark.parametrize("k", [2, 3])
def test_until_clear_false_leader_rate_is_at_most_5_percent_on_identical_strategies(k):
    """Identical strategies, looked at after every block up to 24k deals
    (19 looks); the anytime-valid rule declares a leader in at most 5% of repetitions, where
    a plain 95% interval of leader minus runner-up, looked at after every block, is fooled
    far more often."""
    rng = np.random.default_rng(2024 + k)
    reps, declared, naive = 60, 0, 0
    for _ in range(reps):
        t = Tournament(["a", "b", "c"][:k], 4, False, sequential=True)
        fooled = False
        for first, n in c_blocks(24_000, None, True):
            _null_block(t, rng, n)
            if not fooled:
                x = np.concatenate(t.per_deal)
                second, lead = np.argsort(x.mean(axis=0))[-2:]
                fooled = stats.mean_interval(x[:, lead] - x[:, second], 0.05,
                                             (-1, 1))["ci_low"] > 0
            if t.clear_leader()[1]:
                declared += 1
                break
        naive += fooled
    assert declared <= 0.05 * reps
    if k == 2:
        assert naive >= 0.15 * reps        # the test can tell a rule that ignores the looks


def test_until_clear_decides_on_the_paired_difference_not_on_overlapping_intervals():
    """a and b share a large per-deal effect (the deal's luck), a is ahead by 1 point in
    every other deal: their own 95% intervals overlap, the paired difference is clear."""
    rng = np.random.default_rng(1)
    d = 3000
    luck = rng.choice([0.0, 0.4], size=d)
    a = luck + 0.1 + rng.choice([0.0, 0.02], size=d)
    b = luck + 0.1
    t = Tournament(["a", "b", "c"], 4, False, sequential=True)
    t.per_deal.append(np.stack([a, b, np.full(d, 0.05)], axis=1))
    ia, ib = stats.mean_interval(a), stats.mean_interval(b)
    assert ia["ci_low"] < ib["ci_high"]                     # individual intervals overlap
    assert t.clear_leader() == ("a", True)
    lead = t.leader_comparisons()
    assert lead["strategy"] == "a" and lead["clear"] and lead["level"] == 1 - 0.05 / 2


def test_until_clear_reports_the_anytime_intervals_it_decided_on(cli):
    """After --until-clear the printed and saved intervals are the confidence sequences
    (wider than the fixed-sample ones from the same deals), and the output says so."""
    t, _ = compare(["lowest", "highest"], players=4, games=0, max_games=20_000,
                   until_clear=True, seed=3, threads=2)
    d = t.to_dict()
    x = np.concatenate(t.per_deal)
    for i, row in enumerate(d["per_strategy"]):
        cs = stats.confidence_sequence(x[:, i])
        fixed = stats.mean_interval(x[:, i])
        assert (row["ci_low"], row["ci_high"]) == (cs["ci_low"], cs["ci_high"])
        assert row["ci_high"] - row["ci_low"] > fixed["ci_high"] - fixed["ci_low"]
    r = cli("compare", "lowest", "highest", "--seed", "3", "--max-games", "20k",
            "--until-clear")
    assert "95% CS" in r.output and "anytime-valid" in r.output
    assert "not corrected for the looks" in " ".join(r.output.split())   # ratings' ones
    lead = d["per_strategy"][0]
    assert f"{100 * lead['ci_low']:.2f}% - {100 * lead['ci_high']:.2f}%" in r.output


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


def test_ratings_stay_finite_under_perfect_separation_and_report_a_bound():
    """'a' wins every game. The ratings stay finite, 'a' gets a lower
    bound and 'b' an upper bound, and doubling the games moves them by far less than
    hundreds of points."""
    def tournament(deals):
        t = Tournament(["a", "b"], 4, False)
        # rotation 0 seats a,b,a,b and rotation 1 b,a,b,a: a's seat 0 then seat 1 wins
        _fake_block(t, np.tile([0, 1], (deals, 1)))
        return t.to_dict()["per_strategy"]

    small, big = tournament(2000), tournament(4000)
    for rows in (small, big):
        for r in rows:
            assert all(math.isfinite(r[k]) for k in ("rating", "rating_low", "rating_high"))
        assert [r["rating_bound"] for r in rows] == ["lower", "upper"]
    for a, b in zip(small, big):
        assert abs(b["rating"] - a["rating"]) < 100
        assert abs(b["rating_low"] - a["rating_low"]) < 100
    assert small[0]["rating_low"] > 300          # still says a is much stronger


@pytest.mark.slow
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


def test_seat_and_starter_intervals_are_over_deals_not_over_games():
    """Every rotation of a deal gives a seat the same cards; when the seat
    that wins one rotation wins them all, games are not independent and the interval over
    deals is about sqrt(rotations) wider than Wilson's over games."""
    from sim.runs.tally import wilson

    rng = np.random.default_rng(5)
    t = Tournament(["a", "b", "c", "d"], 4, False)
    seat = rng.integers(4, size=4000)
    _fake_block(t, np.repeat(seat[:, None], 4, axis=1), starters=np.repeat(
        seat[:, None], 4, axis=1))                       # the starter always wins, too
    d = t.to_dict()
    s0 = d["seat_effect"][0]
    assert s0["games"] == 16_000 and s0["wins"] == 4 * int((seat == 0).sum())
    lo, hi = wilson(s0["wins"], s0["games"])
    ref = stats.mean_interval((seat == 0).astype(float))
    assert (s0["ci_low"], s0["ci_high"]) == pytest.approx((ref["ci_low"], ref["ci_high"]))
    assert (s0["ci_high"] - s0["ci_low"]) > 1.8 * (hi - lo)
    st = d["starter_effect"]
    assert st["win_rate"] == 1.0 and st["ci_high"] == 1.0 and st["ci_low"] > 0.99


def test_a_zero_standard_error_gives_numbers_not_nan():
    """One deal, or every deal alike (standard error 0), give finite
    intervals, ratings and p-values; tiny p-values print as < 1e-16, not 0."""
    from rich.console import Console

    from reports.text import print_compare

    for deals in (1, 500):
        t = Tournament(["a", "b", "c"], 3, False)
        _fake_block(t, np.tile([0, 2, 1], (deals, 1)))     # 'a' wins every game
        d = t.to_dict()
        d["info"] = {"options": {"last_player_loses": False}, "independent": False,
                     "until_clear": False, "seed": 0}
        json.dumps(d, allow_nan=False)                     # no NaN anywhere
        con = Console(record=True, width=200)
        print_compare(d, 1.0, con)
        text = con.export_text()
        assert "nan" not in text.lower()
        if deals == 500:
            assert "< 1e-16" in text
    assert stats.format_p(0.0) == "< 1e-16" and stats.format_p(0.031) == "0.031"


def test_unfinished_games_count_as_won_by_nobody_and_are_reported():
    """An unfinished game adds 0 to every result but counts in every
    denominator, and every table reports it."""
    from rich.console import Console

    from reports.text import print_compare

    t = Tournament(["a", "b"], 4, False)
    winners = np.tile([0, 1], (100, 1))
    gone = np.zeros((100, 2), bool)
    gone[:10, 0] = True                          # rotation 0 of 10 deals hit the turn cap
    _fake_block(t, winners, unfinished=gone)
    d = t.to_dict()
    a, b = d["per_strategy"]
    assert d["unfinished"] == 10 and a["games"] == 400
    assert a["win_rate"] == pytest.approx((200 - 10) / 400)   # 10 wins lost, not re-based
    assert a["unfinished"] == b["unfinished"] == 20              # 2 seats each, 10 games
    assert all(r["unfinished"] == 10 for r in d["seat_effect"])
    assert d["starter_effect"]["unfinished"] == 10
    d["info"] = {"options": {"last_player_loses": False}, "independent": False,
                 "until_clear": False, "seed": 0}
    # one policy for the head to head and the ratings too, with counts beside them.
    # 4 seats, 2 of each strategy: 4 pairs (a, b) per game, 10 unfinished games.
    h = d["head_to_head"]
    assert h["unfinished"][0][1] == h["unfinished"][1][0] == 40
    assert h["meetings"][0][1] == 2 * 190       # the winner and the 2 seats of the other
    assert d["ratings"]["unfinished"] == 10
    con = Console(record=True, width=250)
    print_compare(d, 1.0, con)
    text = con.export_text()
    assert "a game nobody won" in text and "undecided (unfinished)" in text
    assert "10 unfinished games give no choice event" in text


def test_head_to_head_gives_meetings_and_an_interval_over_deals():
    """Each pair's head to head counts its meetings (a seat of each in one game, one ahead)
    and its share's interval is over deals, the pair's two shares adding up to one."""
    t, _ = compare(["lowest", "random", "counting"], players=4, games=3000, seed=2,
                   threads=2)
    h = t.to_dict()["head_to_head"]
    beats, _, _ = meetings(t)
    for i in range(3):
        for j in range(3):
            if i != j:
                met = beats[:, i, j] + beats[:, j, i]
                assert h["meetings"][i][j] == int(met.sum()) > 0
                ref = stats.ratio_interval(beats[:, i, j], met)
                assert h["matrix"][i][j] == pytest.approx(ref["estimate"])
                assert h["ci_low"][i][j] <= h["matrix"][i][j] <= h["ci_high"][i][j]
                assert h["ci_low"][i][j] == pytest.approx(1 - h["ci_high"][j][i])


@pytest.mark.slow
def test_compare_out_saves_per_game_records(cli, tmp_path):
    """Sim.load(DIR).games holds every game of the comparison, with its
    deal and rotation; the deal's dealer and starter are the same in every rotation."""
    import sim

    out = tmp_path / "c"
    r = cli("compare", "lowest", "random", "counting", "--games", "1500", "--out", out)
    assert r.exit_code == 0, r.output
    g = sim.load(out).games
    assert len(g) == 1500 and g["game"].is_unique
    assert set(g["rotation"]) == {0, 1, 2} and g.groupby("deal").size().eq(3).all()
    assert (g.groupby("deal")[["starter", "dealer"]].nunique() == 1).all().all()
    first = g[g["deal"] == 0].sort_values("rotation")
    assert list(first["strategy_0"]) == ["lowest", "random", "counting"]
    saved = json.loads((out / "compare.json").read_text())
    assert sum(r["wins"] for r in saved["seat_effect"]) == int((~g["unfinished"]).sum())
    r = cli("report", out)                         # the HTML report reads the records too
    assert r.exit_code == 0, r.output
    r = cli("compare", "lowest", "random", "--games", "100", "--out", out)
    assert r.exit_code == 2 and "already holds" in r.output


def test_compare_takes_the_options_of_run(cli):
    """--quiet/-q, --threads, --seed, --json as in sim run."""
    outs = []
    for quiet in ("--quiet", "-q"):
        r = cli("compare", "lowest", "random", "--games", "400", quiet, "--threads", "1",
                "--seed", "9", "--json")
        assert r.exit_code == 0, r.output
        outs.append(json.loads(r.output))
    assert outs[0]["per_strategy"] == outs[1]["per_strategy"]
    assert outs[0]["info"]["seed"] == 9


def test_wilson_closed_form_equals_scipys_wilson_interval():
    """sim.runs.tally.wilson is the closed form (no scipy import at start-up); SciPy's
    binomtest(...).proportion_ci(method="wilson") is the independent reference."""
    from scipy.stats import binomtest

    from sim.runs.tally import wilson
    cases = [(0, 1), (1, 1), (3, 10), (250_055, 1_000_000), (7, 7), (0, 50_000), (12, 31)]
    for wins, games in cases:
        for level in (0.5, 0.9, 0.95, 0.99):
            ci = binomtest(wins, games).proportion_ci(level, method="wilson")
            lo, hi = wilson(wins, games, level)
            assert abs(lo - ci.low) < 1e-12 and abs(hi - ci.high) < 1e-12, (wins, games, level)


# -- seating: fixed or balanced cyclic orders ----------------------------------------------
def test_seat_orders_list_every_order_or_draw_one_per_deal():
    from sim.studies.design import seat_orders

    d = np.arange(1000)
    assert (seat_orders(2, "balanced", 0, d) == [0, 1]).all()
    assert (seat_orders(5, "fixed", 0, d) == np.arange(5)).all()
    for k, m in ((3, 2), (4, 6), (5, 24), (6, 120)):
        o = seat_orders(k, "balanced", 0, d)
        assert len(np.unique(o, axis=0)) == m and (o[:, 0] == 0).all()
        assert (o[:m] == o[m:2 * m]).all()                   # deal d: order d mod (k - 1)!
        assert (np.sort(o, axis=1) == np.arange(k)).all()
    big = seat_orders(8, "balanced", 3, d)
    assert (big[:, 0] == 0).all() and (np.sort(big, axis=1) == np.arange(8)).all()
    assert len(np.unique(big, axis=0)) > 900                 # about one order per deal
    assert (big[500:] == seat_orders(8, "balanced", 3, d[500:])).all()   # per deal alone
    assert (big != seat_orders(8, "balanced", 4, d)).any()
    with pytest.raises(RunError, match="--seating"):
        seat_orders(3, "shuffled", 0, d)


@pytest.mark.parametrize("k", [3, 4, 5, 8])
def test_balanced_orders_put_every_strategy_after_every_other_equally_often(k):
    from sim.studies.design import seat_orders

    orders = seat_orders(k, "balanced", 0, np.arange(20_000 if k == 8 else 120))
    for distance in range(1, k):
        follows = np.zeros((k, k))
        np.add.at(follows, (np.roll(orders, -distance, axis=1).ravel(), orders.ravel()), 1)
        off = follows[~np.eye(k, dtype=bool)] / len(orders)
        assert np.trace(follows) == 0
        if k == 8:                                           # on average: random orders
            assert np.abs(off - 1 / (k - 1)).max() < 0.02
        else:                                                # exactly
            assert off.min() == off.max()


def test_balanced_seating_removes_the_neighbour_effect():
    """lowest and a copy of it under another name: in the fixed order the copy always follows
    random (which hands out 2s and 10s) and wins twice as often; balanced, they are level."""
    names = ["lowest", "random", "test-wrapped-lowest"]
    fixed, info = compare(names, players=3, games=6000, seed=1, threads=1, seating="fixed")
    assert info["seating"] == "fixed"
    rate = {r["strategy"]: r["win_rate"] for r in fixed.estimates()}
    assert rate["test-wrapped-lowest"] > rate["lowest"] + 0.25
    fair, info = compare(names, players=3, games=6000, seed=1, threads=1)
    assert info["seating"] == "balanced"
    diff = {c["against"]: c for c in fair.leader_comparisons()["comparisons"]}
    other = "lowest" if "lowest" in diff else "test-wrapped-lowest"
    assert diff[other]["ci_low"] < 0 < diff[other]["ci_high"]


def test_balanced_tournaments_do_not_depend_on_threads_or_blocks(tmp_path):
    names = ["lowest", "random", "highest", "counting"]
    a, _ = compare(names, players=4, games=2400, seed=2, threads=1, block=70)
    b, _ = compare(names, players=4, games=2400, seed=2, threads=2,
                   out=tmp_path / "run")
    assert a.estimates() == b.estimates()
    assert a.head_to_head() == b.head_to_head()
    import pandas as pd
    games = pd.read_parquet(tmp_path / "run" / "games")
    assert len(games) == 2400 and sorted(games["game"]) == list(range(2400))
    # each deal's four rotations sit the same cyclic order, deal d the order d mod 6
    seats = games.sort_values("game")[[f"strategy_{s}" for s in range(4)]].to_numpy()
    for d in (0, 1, 7, 599):
        rows = seats[4 * d:4 * d + 4]
        assert all(list(rows[r]) == list(np.roll(rows[0], -r)) for r in range(4))
        assert (list(seats[4 * d]) == list(seats[4 * ((d + 6) % 600)]))


@pytest.mark.parametrize("names", [
    ["lowest", "random", "highest"],
    # nine: the pool of 16 (sim.kernel.fastpath.POOLS), the core's second compile
    ["lowest", "random", "highest", "save-specials", "counting", "cheapest", "simple",
     "test-wrapped-random", "test-wrapped-lowest"],
])
def test_a_seated_batch_plays_each_game_as_its_own_table_would(names):
    """sim.runs.batch.Seating: one core call that seats the pool's strategies game by game gives
    every game exactly the records of a run of that game's table (its cards, moves, and the
    cycle stop only where every seated strategy is pure: lowest and highest are, random is
    not)."""
    from sim.runs.batch import Seating, play_batch
    from sim.kernel.fastpath import make_pool

    players = 3
    made = {}

    def config(seats):
        if seats not in made:
            made[seats] = RunConfig(games=1, players=players, seed=7,
                                    strategies=[names[i] for i in seats])
        return made[seats]

    pool = make_pool([config((i,) * players).seat_entry(0) for i in range(len(names))])
    assert len(pool[0]) == (MAXP if len(names) <= MAXP else 16)
    rng = np.random.default_rng(5)
    n = 240
    rows = np.zeros((n, MAXP), np.int8)
    rows[:, :players] = rng.integers(0, len(names), (n, players))
    rows[:, players:] = rows[:, :1]
    rows[:40] = rows[0]                       # a run of one seating: seated once for them all
    numbers = rng.permutation(5000)[:n].astype(np.int64)
    b = play_batch(config((0, 1, 2)), 0, 0, 2, numbers=numbers,
                   seating=Seating(pool, rows, config))
    cycles = 0
    for g in range(n):
        one = play_batch(config(tuple(rows[g, :players])), 0, 0, 1, numbers=numbers[g:g + 1])
        for f in ("status", "turns", "order", "pickups", "starter", "dealer", "triples",
                  "end", "cycle_turns"):
            assert (getattr(b, f)[g] == getattr(one, f)[0]).all(), (g, f)
        cycles += int(b.cycle_turns[g] > 0)
    assert cycles > 0                         # the per-game cycle stop was exercised


def test_a_seated_batch_names_the_table_of_an_illegal_move():
    """R24 in a seated batch: the error names the strategy and the seat of that game's table,
    and its position replays that game."""
    from sim.runs.batch import Seating, play_batch
    from sim.kernel.fastpath import make_pool

    import tests.test_strategies_seats  # noqa: F401  (registers test-always-pickup)

    names = ["lowest", "test-always-pickup"]

    def config(seats):
        return RunConfig(games=1, players=2, seed=4, strategies=[names[i] for i in seats])

    pool = make_pool([config((i, i)).seat_entry(0) for i in range(2)])
    rows = np.zeros((30, MAXP), np.int8)
    rows[10:20:2, 1] = 1                      # the picker at seat 1 of games 10, 12, ...
    rows[11:20:2, 0] = 1                      # ... and at seat 0 of games 11, 13, ...
    with pytest.raises(RunError) as e:
        play_batch(config((0, 0)), 0, 0, 1, numbers=np.arange(100, 130),
                   seating=Seating(pool, rows, config))
    msg = str(e.value)
    game = int(msg.split(" in game ")[1].split()[0])
    seat = int(msg.split("(seat ")[1].split(")")[0])
    assert "strategy 'test-always-pickup'" in msg and 110 <= game < 120
    assert rows[game - 100, seat] == 1 and rows[game - 100, 1 - seat] == 0
    position = json.loads(msg.split("\n")[-1])
    assert position["current"] == seat


def test_compare_refuses_more_strategies_than_one_core_call_seats():
    from sim.kernel.fastpath import POOL

    with pytest.raises(RunError, match=f"at most {POOL} strategies"):
        compare(["lowest"] + [f"x{i}" for i in range(POOL)], players=4, games=100)


# -- the win rate by seat: a seat effect only where the design makes it one -----------------


def _companies(games, players):
    """Per seat, how often it held each strategy beside each company (the others' multiset),
    from a saved tournament's per-game strategy columns."""
    from collections import Counter

    cols = games[[f"strategy_{s}" for s in range(players)]].astype(str).to_numpy()
    return [Counter((row[s], tuple(sorted(np.delete(row, s)))) for row in cols)
            for s in range(players)]


def test_three_strategies_at_four_seats_is_not_shown_as_a_seat_effect(cli, tmp_path):
    """3 strategies at 4 seats: seat 3 holds seat 0's strategy in every game, so the win rate
    by seat mixes position with company; the terminal, the JSON and the page say which seats
    share and do not call it a seat effect. 2 strategies at 4 seats: a seat effect."""
    import sim
    from reports.html import write_report

    out = tmp_path / "c3"
    r = cli("compare", "lowest", "counting", "random", "--players", "4", "--games", "300",
            "--out", out)
    assert r.exit_code == 0, r.output
    games = sim.load(out).games
    assert (games["strategy_3"] == games["strategy_0"]).all()          # the design, measured
    for s in (1, 2):
        assert (games[f"strategy_{s}"] != games["strategy_0"]).all()
    per_seat = _companies(games, 4)
    assert per_seat[0] != per_seat[1]                                 # not the same company
    text = " ".join(r.output.split())
    assert "Seat effect" not in text and "not a seat effect" in text
    assert "seat 3 holds seat 0's strategy" in text and "seat 3 (every game)" in text
    saved = json.loads((out / "compare.json").read_text())
    assert saved["seat_design"]["balanced"] is False
    assert [row["shares_with"] for row in saved["seat_effect"]] == [[3], [], [], [0]]
    html = write_report(out)[0].read_text()
    assert "Seat effect in the tournament" not in html
    assert "Win rate by seat in the tournament (not a seat effect)" in html
    assert "seat 3 holds seat 0&#39;s strategy" in html or "seat 3 holds seat 0's" in html
    assert "same strategy as" in html

    two = tmp_path / "c2"
    r = cli("compare", "lowest", "random", "--players", "4", "--games", "200", "--out", two)
    assert r.exit_code == 0, r.output
    per_seat = _companies(sim.load(two).games, 4)
    assert all(c == per_seat[0] for c in per_seat)                    # every seat alike
    assert "Seat effect (all strategies pooled" in " ".join(r.output.split())
    assert json.loads((two / "compare.json").read_text())["seat_design"]["balanced"] is True
    assert "Seat effect in the tournament" in write_report(two)[0].read_text()


def test_the_seat_design_rule_matches_the_companies_of_every_design():
    """companies_balanced is what the seatings give: over a whole cycle of the design every
    seat's (strategy, company) counts are alike exactly when it says so (up to six
    strategies, where the balanced design lists every cyclic order)."""
    import itertools
    from collections import Counter

    from sim.studies.design import companies_balanced, rotations, seat_orders, seat_design_of

    for k, n, seating in itertools.product(range(2, 7), range(2, 7), ("fixed", "balanced")):
        seating = seating if k > 2 else "fixed"
        st = rotations(seat_orders(k, seating, 0, np.arange(math.factorial(k - 1))),
                       n).reshape(-1, n)
        per = [Counter((g[s], tuple(sorted(np.delete(g, s)))) for g in st) for s in range(n)]
        assert all(p == per[0] for p in per) == companies_balanced(k, n, seating), (k, n)
    old = {"strategies": ["a", "b", "c"], "players": 4, "info": {"seating": "balanced"}}
    assert not seat_design_of(old)["balanced"]                   # a compare.json from before
    assert "seat 3 holds seat 0's strategy" in seat_design_of(old)["note"]


def test_one_seats_value_is_its_column_of_every_seats():
    """match.seat_value (a swap's playouts value seat 0 over millions of games) is the
    seat's column of seat_values(places(...)), seed rules and V2, finished or not."""
    from sim.studies.match import places, seat_value, seat_values

    rng = np.random.default_rng(1)
    for n in (2, 3, 4, 6, 8):
        for v2 in (False, True):
            order = np.array([rng.permutation(n) for _ in range(2000)], np.int8)
            order[:, n - 1 if v2 else 1:] = -1                # the places not recorded
            done = rng.random(2000) < 0.9
            every = seat_values(places(order, done, v2), done, v2)
            for seat in range(n):
                assert np.array_equal(seat_value(order, done, v2, seat), every[:, seat])
