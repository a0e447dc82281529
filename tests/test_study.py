"""The swap study (sim study swap): triple values, the derived table policy, head-to-heads."""
from __future__ import annotations

import json

import numpy as np
import pytest

import sim
from sim.kernel.cards import CODE
from sim.kernel.layout import PUB
from sim.runs.runner import RunConfig, play_batch
from sim.runs.registry import get_swap
from sim.studies.stats import format_p, mean_interval
from sim.studies.swapstudy import swap_study
from sim.studies.swapstudy.h2h import bh
from sim.studies.swapstudy.model import fit_split_model, write_split_file
from sim.studies.swapstudy.policy import best_splits
from sim.studies.swapstudy.table import triple_table
from sim.studies.swapstudy.triples import INDEX, NTRIPLE, SIZE, triple_names
from strategies.swaps import read_split, read_table

PRIOR_SD_TRIPLE_TEST = 0.1      # the triple terms' prior sd when none is chosen on held-out


def test_hand_triples_are_the_other_three_of_the_six():
    """The hand triple after the swap (R5) is recorded too: with ``none`` (no swap) face-ups
    and hand are the dealt ones, and each seat's two triples hold 6 cards together."""
    b = play_batch(RunConfig(games=1, players=4, seed=3, swaps=["random"]), 0, 100, 1)
    assert (b.hand_triples[:, 4:] == -1).all()
    assert ((b.hand_triples[:, :4] >= 0) & (b.hand_triples[:, :4] < SIZE)).all()
    up = b.triples[:, :4].ravel()
    hand = b.hand_triples[:, :4].ravel()
    assert (up != hand).any()            # a random swap does not copy one into the other


def test_face_up_triples_are_recorded_after_the_swap():
    """The record is the seat's face-ups after the swap (R5), sorted; -1 for empty seats."""
    b = play_batch(RunConfig(games=1, players=3, seed=2, swaps=["highest-up"]), 0, 200, 1)
    assert (b.triples[:, 3:] == -1).all()
    codes = b.triples[:, :3].ravel()
    assert ((codes >= 0) & (codes < SIZE)).all()
    for code in codes[:50]:
        names = triple_names(int(code))
        ranks = [["3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "2",
                  "JK"].index(n) for n in names]
        assert ranks == sorted(ranks)


@pytest.mark.slow
def test_study_cli_writes_values_table_and_verdict(cli, tmp_path):
    out = tmp_path / "study"
    r = cli("study", "swap", "--players", "3", "--games", "6000", "--out", out, "--json")
    assert r.exit_code == 0, r.output
    study = json.loads(r.output)
    triples = study["triples"]
    # every seat of every game: unfinished games (R25) count as not won, never left out
    assert sum(t["games"] for t in triples) == 3 * 6000
    assert triples[0]["shrunk"] >= triples[-1]["shrunk"]
    assert all(t["ci_low"] <= t["win_rate"] <= t["ci_high"] for t in triples)
    assert {h["policy"] for h in study["head_to_head"]} == {
        "table (old: raw triple win rates)", "none", "random", "highest-up", "specials-up",
        "lowest-hand"}
    for h in study["head_to_head"]:
        assert 0 <= h["p_value"] <= 1 and h["ci_low"] <= h["diff"] <= h["ci_high"]
        assert 0 <= h["p_adjusted"] <= 1 and h["unfinished"] >= 0
    assert "best of the policies tested" in study["verdict"].lower() or \
        "no policy tested is clearly best" in study["verdict"].lower()
    # the verdict says the correction it decides on; the SEs say what they are
    assert "Benjamini-Hochberg adjusted p" in study["verdict"]
    assert study["model"]["se"].startswith("SE: the Laplace posterior SD")
    assert study["model"]["position_term"] is True          # seed: R6 as dealt
    row = read_table(out / "swap_values.csv")        # the old table policy, raw rates
    assert row.max() == max(t["win_rate"] for t in triples)
    assert read_split(out / "split.csv")[0] == 3      # the split policy's fitted model
    assert json.loads((out / "study.json").read_text())["players"] == 3
    r = cli("study", "swap", "--players", "3", "--games", "3000", "--out", out)
    assert r.exit_code == 2 and "already holds a saved folder (swap-study)" in r.output
    out = tmp_path / "study2"
    r = cli("study", "swap", "--players", "3", "--games", "3000", "--out", out)
    assert r.exit_code == 0, r.output
    # the answer in plain words first, under the ruleset it ran under
    assert "highest-up" in study["answer"] and "Worth most face up" in study["answer"]
    assert r.output.index("Answer (3 players, seed rules)") < r.output.index("Split model")
    assert (out / "split_cov.npz").is_file()              # sim swap --model's intervals
    for text in ("Split model", "descriptive, not a policy", "p (BH", "Best face-up triples",
                 "a game nobody won", "split(file=", "Laplace posterior SD",
                 "rank terms only"):
        assert text in r.output, text


# -- item 2: the value of the split, not of the cards ------------------------------------------
def synthetic_stage(players=4, seat_games=200_000, seed=1):
    """Seat-games with random splits of random six-card sets, where winning depends on
    *owning* 2s (wherever they lie) and on a 10 lying face up, and on nothing else."""
    rs = np.random.RandomState(seed)
    deck = np.array([r for r in range(13) for _ in range(4)])
    ncell = NTRIPLE * NTRIPLE * players
    cell_n, cell_w = np.zeros(ncell, np.int64), np.zeros(ncell)
    count, score, unf = np.zeros(SIZE, np.int64), np.zeros(SIZE), np.zeros(SIZE, np.int64)
    for _ in range(seat_games // 1000):
        cards = np.stack([rs.choice(deck, 6, replace=False) for _ in range(1000)])
        order = rs.rand(1000, 6).argsort(axis=1)                       # a random split
        both = np.take_along_axis(cards, order, axis=1)
        up, hand = np.sort(both[:, :3], axis=1), np.sort(both[:, 3:], axis=1)
        twos = (cards == CODE["2"]).sum(axis=1)
        tens_up = (up == CODE["10"]).sum(axis=1)
        p = 0.15 + 0.15 * twos + 0.04 * tens_up
        won = (rs.rand(1000) < p).astype(float)
        code_up = up[:, 0] * 196 + up[:, 1] * 14 + up[:, 2]
        code_hand = hand[:, 0] * 196 + hand[:, 1] * 14 + hand[:, 2]
        cell = (INDEX[code_up] * NTRIPLE + INDEX[code_hand]) * players
        cell_n += np.bincount(cell, minlength=ncell)
        cell_w += np.bincount(cell, weights=won, minlength=ncell)
        count += np.bincount(code_up, minlength=SIZE)
        score += np.bincount(code_up, weights=won, minlength=SIZE)
    return {"cell_n": cell_n, "cell_w": cell_w, "count": count, "score": score, "unf": unf,
            "deck": [4] * 13 + [0]}                           # R1, H13: no jokers


@pytest.mark.slow
def test_the_split_model_values_the_split_and_not_owning_the_cards(tmp_path):
    """Owning a 2 wins (wherever it lies); a 10 wins more face up. The raw triple rates put
    the 2s first; the split model sees that a 2's place does not matter and a 10's does, so
    the split policy puts the 10 up, not the 2."""
    stage = synthetic_stage()
    rows, _ = triple_table(stage)
    assert "2" in rows[0]["triple"]                      # the descriptive table: owning
    model = fit_split_model(stage, 4)
    gain = model["gain"]
    assert gain[CODE["10"]] == max(gain[:13])
    assert abs(gain[CODE["2"]]) < 3 * model["gain_se"][CODE["2"]] + 0.02
    assert gain[CODE["10"]] - gain[CODE["2"]] > 0.1
    path = write_split_file(tmp_path / "split.csv", model)
    spec = f"split(file={str(path)!r})"
    s = get_swap(spec)
    cards = np.array([CODE[c] for c in ("2", "3", "10", "5", "6", "7")], np.int32)
    mask = int(s.fn(cards, np.zeros(PUB, np.int32), np.zeros(4, np.uint64), s.row()))
    assert mask & 0b100 and not mask & 0b001              # the 10 goes up, the 2 need not
    choice, top, second = best_splits(read_split(path), np.sort(cards)[None, :])
    assert CODE["10"] in np.sort(cards)[list(choice[0])]
    assert top[0] > second[0]


@pytest.mark.slow
def test_split_model_shrinks_rare_cells(tmp_path):
    """A cell seen a handful of times moves its pair/triple terms little: the prior keeps
    them near 0 (each card counts alone), where raw rates would jump to 0% or 100%."""
    stage = synthetic_stage(seat_games=50_000)
    model = fit_split_model(stage, 4)
    extra = [c for c in model["coef"] if c["term"] in ("ge2", "ge3", "triple")]
    assert extra and max(abs(c["coef"]) for c in extra) < 0.5
    assert all(c["se"] > 0 for c in model["coef"])
    # the up value of a triple is its rank terms plus its own, shrunk, term
    rare = min((c for c in model["coef"] if c["term"] == "triple"), key=lambda c: c["se"] * -1)
    assert abs(rare["coef"]) < 3 * PRIOR_SD_TRIPLE_TEST


# -- item 5: a zero spread never crashes; tiny p-values ----------------------------------------
def test_a_paired_difference_never_gives_nan():
    """The head-to-head's per-deal differences go through stats.mean_interval (bounds -1..1)."""
    def paired(d):
        return mean_interval(np.asarray(d, float), bounds=(-1.0, 1.0), null=0.0)
    r = paired(np.zeros(500))                           # every deal: the same result
    assert r["p_value"] == 1.0 and r["estimate"] == 0.0 and r["ci_low"] < 0 < r["ci_high"]
    r = paired(np.full(40, 0.5))                         # no spread, but all one way
    assert 0 < r["p_value"] < 1e-6 and r["ci_low"] < 0.5 < r["ci_high"]
    r = paired([0.5])                                    # one deal: the widest interval
    assert 0 < r["p_value"] <= 1 and r["ci_low"] < 0 < r["ci_high"]
    assert bh([1.0, float("nan"), 0.01]) == pytest.approx([1.0, 1.0, 0.03])
    assert format_p(0.0) == "< 1e-16" and format_p(1e-300) == "< 1e-16" and format_p(0.0312) == "0.031"


def test_study_where_no_game_finishes_does_not_crash(tmp_path):
    """Every game unfinished (a 1-turn limit): every result is 0, the spread between deals is
    0; the study still ends, with p-values of 1 and no clear winner."""
    study = swap_study(tmp_path / "s", players=3, games=300, h2h_games=200, max_turns=1,
                       threads=1)
    assert study["unfinished"] == 300
    assert all(h["p_value"] == 1.0 and h["p_adjusted"] == 1.0 and h["unfinished"] == 400
               for h in study["head_to_head"])
    assert "No policy tested is clearly best" in study["verdict"]
    assert "no model fitted" in study["model"]["note"]


# -- item 6: unfinished games are games not won -------------------------------------------------
@pytest.mark.slow
def test_unfinished_games_count_as_not_won_everywhere(tmp_path, capsys):
    study = swap_study(tmp_path / "s", players=3, games=900, h2h_games=300, max_turns=110,
                       threads=1)
    unf = study["unfinished"]
    assert 0 < unf < 900
    rows = study["triples"]
    assert sum(r["games"] for r in rows) == 3 * 900                    # every seat-game
    assert sum(r["unfinished"] for r in rows) == 3 * unf
    assert sum(r["wins"] for r in rows) == 900 - unf                   # one winner a game
    assert study["model"]["seat_games"] == 3 * 900
    assert all(h["unfinished"] > 0 for h in study["head_to_head"])
    assert "a game nobody won" in study["unfinished_policy"]
    from reports.text import print_study
    print_study(study)
    out = capsys.readouterr().out
    assert study["unfinished_policy"][:40] in out.replace("\n", " ")


# -- item 8: per-game records -----------------------------------------------------------------
@pytest.mark.slow
def test_study_saves_per_game_records(tmp_path):
    out = tmp_path / "s"
    study = swap_study(out, players=3, games=500, h2h_games=200, threads=1, batch=200)
    run = sim.load(out)
    games = run.games
    h2h = len(study["head_to_head"]) * 2 * 200
    assert len(games) == 500 + h2h
    values = games[games["stage"] == "values"]
    assert values.index.tolist() == list(range(500))          # the values stage first
    assert values["game"].tolist() == list(range(500))
    assert (values[[f"swap_{s}" for s in range(3)]] == "random").all().all()
    assert (values["strategy_0"] == "lowest").all()
    duel = games[games["stage"] == "head-to-head"]
    assert len(duel) == h2h and (duel["seed"] == study["h2h_seed"]).all()
    assert duel["swap_0"].astype(str).str.startswith("split(").any()
    assert set(duel["opponent"]) == {h["policy"] for h in study["head_to_head"]}
    assert {f"faceup_{s}" for s in range(3)} | {f"hand_{s}" for s in range(3)} <= set(games)
    # the values stage's records give the triple table again
    won = values["winner"].to_numpy()[:, None] == np.arange(3)[None, :]
    won &= ~values["unfinished"].to_numpy()[:, None]
    codes = values[[f"faceup_{s}" for s in range(3)]].to_numpy()
    best = study["triples"][0]
    code = sum(CODE[c] * m for c, m in zip(best["triple"], (196, 14, 1)))
    assert (codes == code).sum() == best["games"] and won[codes == code].sum() == best["wins"]
    assert run.by_seat["swap"].tolist() == ["random"] * 3       # the values stage's summary


def test_triple_codes_are_the_sorted_face_up_and_hand_ranks():
    """The records' triple codes (sim.kernel.referee.triple_code, read from the have-words) against the
    counts per rank after the swap, for every seat of many deals; -1 under another hand size
    (H12)."""
    from sim.kernel import referee as core
    from sim.kernel.ruleset import Ruleset
    from sim.kernel.layout import FU, HANDS, HTRIPLES, NR, STATE_SIZE, TRIPLES
    from sim.kernel.rng import seed_game

    def code(counts):
        ranks = [r for r in range(NR) for _ in range(counts[r])]
        return ranks[0] * NR * NR + ranks[1] * NR + ranks[2] if len(ranks) == 3 else -1

    seen = set()
    for players, swap, rule in ((4, "random", []), (2, "highest-up", []),
                                (3, "random", ["hand_size=4"])):
        cfg = RunConfig(games=1, players=players, seed=5, strategies=["lowest"], swaps=[swap],
                        rules=Ruleset.build("seed", rule))
        pool, kinds = cfg.pool, cfg.seat_table
        for game in range(200):
            st, rng = np.zeros(STATE_SIZE, np.int32), np.zeros(4, np.uint64)
            seed_game(rng, np.uint64(5), game)
            core.deal_game(st, rng, players, cfg.ruleset.vector())
            assert core.swap_phase(st, rng, pool.swaps, kinds, pool.params, np.zeros(6, np.int64),
                                   np.zeros(core.SWAP_CARDS, np.int32), np.zeros(3, np.int64))
            for s in range(players):
                for block, at in ((FU, TRIPLES), (HANDS, HTRIPLES)):
                    want = code(st[block + s * NR:block + s * NR + NR])
                    assert st[at + s] == want
                    seen.add(want >= 0)
    assert seen == {True, False}


@pytest.mark.slow
@pytest.mark.parametrize("rules, expect", [("seed", True), ("masters-of-shithead", False),
                                           ({"base": "seed", "starter": "hand"}, False)])
def test_the_position_term_is_left_out_where_the_swap_decides_who_starts(rules, expect):
    """Under starter=hand the hands after the swap decide who starts (a 3 in
    hand makes its seat start), so the seat's position after the starter is an outcome of
    the split, not a covariate: every cell has position 0 and the model no position term.
    Under R6 as dealt the deal fixes the start and the term stays."""
    from sim.studies.swapstudy.values import values_stage

    stage = values_stage(4, 2000, 3, rules, "lowest", 1)
    cells = np.flatnonzero(stage["cell_n"].sum(axis=0))
    assert stage["position"] is expect
    assert bool(((cells % 4) != 0).any()) is expect
    coef = fit_split_model(stage, 4)["coef"]
    assert any(c["place"] == "position" for c in coef) is expect
