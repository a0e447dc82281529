"""`sim swap`: the splits of six cards ranked by playouts on deals where
the seat holds them, or by a swap study's model; bad input; JSON; `hint` at `sim play`'s swap
prompt; the deal that holds the cards (R3-R5)."""
from __future__ import annotations

import io
import json

import numpy as np
import pytest

from tests.conftest import assert_conserved
from sim.cli.play import Terminal, _swap_phase
from sim.cli.table import Table
from sim.kernel.cards import CODE, NAMES
from sim.kernel.layout import FU, FUN, HANDN, HANDS, NR, STATE_SIZE
from sim.kernel.rng import seed_game
from sim.kernel.ruleset import Ruleset
from sim.kernel.sampling import deal_holding
from sim.studies.swapstudy import advice
from sim.studies.swapstudy.triples import table_code
from strategies.swaps import read_split, split_value, write_split

HAND = "4 5 6 9 10 K"


def codes(text):
    return [CODE[c] for c in text.split()]


@pytest.fixture(scope="module")
def four_five():
    """sim swap 4 5 6 9 10 K by 600 deals of playouts (shared: one kernel call)."""
    return advice.by_playouts(codes(HAND), deals=600, seed=3)


# -- the deal --------------------------------------------------------------------------------
@pytest.mark.parametrize("rules,players", [("seed", 4), ("seed", 6), ("boothj5", 3)])
def test_the_deal_gives_the_seat_its_six_cards_and_is_otherwise_a_deal(rules, players):
    """R1, R4, R5: seat 1 holds exactly the six among its face-ups and hand, the deck is
    conserved, and each of the six is face up half the time (as dealt: random)."""
    vec = Ruleset.parse(rules).vector()
    want = np.bincount(codes("2 2 10 A 3 JK" if players == 6 else "2 2 10 A 3 7"),
                       minlength=NR).astype(np.int64)
    st, rng = np.zeros(STATE_SIZE, np.int32), np.zeros(4, np.uint64)
    up = np.zeros(NR)
    n = 1500
    for g in range(n):
        seed_game(rng, 11, g)
        assert deal_holding(st, rng, players, vec, 1, want)
        held = st[FU + NR:FU + 2 * NR] + st[HANDS + NR:HANDS + 2 * NR]
        assert held.tolist() == want.tolist()
        assert st[FUN + 1] == 3 and st[HANDN + 1] == 3
        assert_conserved(st)
        up += st[FU + NR:FU + 2 * NR]
    share = up[want > 0] / (n * want[want > 0])
    assert np.all(np.abs(share - 0.5) < 0.05), share


def test_a_deck_without_the_cards_is_refused():
    """R1, H13: no jokers at 4 players under the seed rules: the deal cannot hold one."""
    want = np.bincount(codes("JK 3 4 5 6 7"), minlength=NR).astype(np.int64)
    st, rng = np.zeros(STATE_SIZE, np.int32), np.zeros(4, np.uint64)
    seed_game(rng, 0, 0)
    assert not deal_holding(st, rng, 4, Ruleset.parse("seed").vector(), 0, want)


# -- the advice by playouts ------------------------------------------------------------------
def test_the_20_splits_are_listed_best_first(four_five):
    """R5: six distinct cards split into three face up and three in hand 20 ways, each
    valued, best first, with the usual advice (highest-up) named."""
    a = four_five
    rows = a["splits"]
    assert len(rows) == 20
    assert len({(tuple(r["face_up"]), tuple(r["hand"])) for r in rows}) == 20
    assert all(sorted(r["face_up"] + r["hand"], key=NAMES.index) == HAND.split()
               for r in rows)
    values = [r["value"] for r in rows]
    assert values == sorted(values, reverse=True)
    assert [r["rank"] for r in rows] == list(range(1, 21))
    assert all(r["low"] <= r["value"] <= r["high"] for r in rows)
    assert rows[0]["vs_best"] == 0 and all(r["vs_best"] <= 0 for r in rows)
    assert all(r["vs_best_low"] <= r["vs_best"] <= r["vs_best_high"] for r in rows[1:])
    assert a["answer"] == advice.answer(rows[0])
    from reports.swap import summary
    tie = a["tie"]
    assert tie["tied"][0] == " ".join(rows[0]["face_up"]) and not tie["clear"]
    first = summary(a).split("\n")[0]        # 600 deals do not tell the best splits apart
    assert first.startswith(f"{', '.join(tie['tied'][:-1])} or {tie['tied'][-1]} face up: "
                            f"not clearly different at 600 deals; ") and "more deals" in first
    assert a["usual"]["face_up"] == ["9", "10", "K"]          # highest-up's choice
    assert a["games"] == 600 * 20 and "600 deals x 20 splits" in a["budget"]


def test_equal_cards_make_equal_splits():
    """R5 with a pair: 4 4 5 6 9 K has 14 different splits, not 20 (up: both 4s and one of the
    four others, one 4 and two, or no 4 and three: 4 + 6 + 4), each listed once."""
    splits = advice.splits_of(sorted(codes("4 4 5 6 9 K")))
    assert len(splits) == 14 and len(set(splits)) == 14


def test_the_same_seed_gives_the_same_numbers_whatever_the_threads(four_five):
    import numba
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        again = advice.by_playouts(codes(HAND), deals=600, seed=3)
    finally:
        numba.set_num_threads(before)
    assert [r["value"] for r in again["splits"]] == [r["value"] for r in four_five["splits"]]
    other = advice.by_playouts(codes(HAND), deals=600, seed=4)
    assert [r["value"] for r in other["splits"]] != [r["value"] for r in four_five["splits"]]


def test_low_cards_face_up_is_clearly_the_worst():
    """Seed rules, 4 players: the swap study finds 10, A and 2 worth most face up, 3 to 9 in
    hand (face-up cards are played last, R11, where a low card rarely beats the pile, R9).
    So 3 4 5 face up, 10 A 2 in hand is the worst split, clearly; the best puts two of the
    specials and the ace up."""
    a = advice.by_playouts(codes("3 4 5 10 A 2"), deals=800, seed=1)
    worst = a["splits"][-1]
    assert worst["face_up"] == ["3", "4", "5"]
    assert worst["vs_best_high"] < -10                   # points of win rate, clearly
    assert len({"10", "A", "2"} & set(a["best"]["face_up"])) >= 2


# -- the advice from a study's model ---------------------------------------------------------
def _study_folder(tmp_path, players=4, rules="seed"):
    """A swap-study folder whose model values a 10 face up most and a 4 in hand most."""
    from sim.studies.swapstudy.triples import TRIPLES
    values = {}
    for t in TRIPLES:
        if 13 in t:
            continue
        names = tuple(NAMES[r] for r in t)
        up = 0.3 * names.count("10") + 0.01 * sum(t)
        hand = 0.2 * names.count("4") - 0.005 * sum(t)
        values[names] = (up, hand)
    d = tmp_path / "study"
    d.mkdir()
    write_split(d / "split.csv", values)
    (d / "study.json").write_text(json.dumps({
        "players": players, "rules": rules, "games": 1000, "strategy": "lowest", "seed": 0,
        "model": {"mean": 0.25}}))
    return d


def test_the_model_path_gives_the_models_values(tmp_path):
    d = _study_folder(tmp_path)
    a = advice.by_model(codes(HAND), d)
    row = read_split(d / "split.csv")
    for r in a["splits"]:
        up, hand = codes(" ".join(r["face_up"])), codes(" ".join(r["hand"]))
        assert r["value"] == pytest.approx(float(split_value(row, table_code(up),
                                                             table_code(hand))))
    best = max(advice.splits_of(sorted(codes(HAND))),
               key=lambda s: split_value(row, table_code(s[0]), table_code(s[1])))
    assert a["best"]["face_up"] == [NAMES[c] for c in best[0]]
    assert "10" in a["best"]["face_up"] and "4" in a["best"]["hand"]
    assert a["method"] == "model" and a["splits"][1]["vs_best_low"] is None   # no cov saved
    assert "no split_cov.npz" in a["interval_note"]


@pytest.mark.slow
def test_the_model_of_a_real_fit_gives_intervals(tmp_path):
    """split_cov.npz (what the study saves beside split.csv): the difference of two splits
    gets an interval around it; the best's margin over itself is 0."""
    from sim.studies.swapstudy.model import fit_split_model, write_cov_file, write_split_file
    from tests.test_study import synthetic_stage
    model = fit_split_model(synthetic_stage(seat_games=40_000), 4, sd_triple=0.1)
    d = tmp_path / "fit"
    d.mkdir()
    write_split_file(d / "split.csv", model)
    assert write_cov_file(d / "split_cov.npz", model) is not None
    (d / "study.json").write_text(json.dumps({
        "players": 4, "rules": "seed", "games": 40_000, "strategy": "lowest", "seed": 0,
        "model": {"mean": model["mean"]}}))
    a = advice.by_model(codes("2 10 4 5 6 9"), d)
    assert "10" in a["best"]["face_up"]                   # the synthetic 10 face up
    for r in a["splits"][1:]:
        assert r["vs_best_low"] < r["vs_best"] < r["vs_best_high"]


# -- the command -----------------------------------------------------------------------------
@pytest.mark.parametrize("args,message", [
    (["4", "5", "6", "9", "10"], "give the 6 cards"),
    (["4", "5", "6", "9", "10", "K", "A"], "got 7"),
    (["4", "5", "6", "9", "10", "X"], "unknown card 'X'"),
    (["4", "4", "4", "4", "4", "5"], "5 x 4: the deck holds only 4"),
    (["jk", "4", "5", "6", "7", "8"], "no jokers"),
    (HAND.split() + ["--deals", "0"], "--deals"),
    (HAND.split() + ["--rule", "hand_size=4"], "hand_size=4"),
    (HAND.split() + ["--players", "7"], "2 to 6 players"),
    (HAND.split() + ["--model", "/nonexistent/dir"], "holds no swap study"),
])
def test_bad_input_is_one_error_line_and_exit_2(cli, args, message):
    r = cli("swap", *args)
    assert r.exit_code == 2, r.output
    lines = r.output.strip().split("\n")
    assert len(lines) == 1 and lines[0].startswith("error: ") and message in lines[0], lines


def test_a_model_of_other_players_or_rules_is_refused(cli, tmp_path):
    d = _study_folder(tmp_path)
    r = cli("swap", *HAND.split(), "--model", d, "--players", "3")
    assert r.exit_code == 2 and "run with 4 players, not 3" in r.output
    r = cli("swap", *HAND.split(), "--model", d, "--rules", "classic")
    assert r.exit_code == 2 and "ran under other rules" in r.output
    r = cli("swap", *HAND.split(), "--model", d, "--players", "4")
    assert r.exit_code == 0, r.output
    assert r.output.startswith("Put ") and "the split model of" in r.output


def test_playout_options_with_a_model_are_refused_not_ignored(cli, tmp_path):
    """--model plays no games: --deals, --strategy, --seed and --max-turns would be silently
    ignored, so giving one with it is an error naming it."""
    d = _study_folder(tmp_path)
    for extra, name in ((["--deals", "300"], "--deals"), (["-s", "counting"], "--strategy"),
                        (["--seed", "3"], "--seed"), (["--max-turns", "50"], "--max-turns")):
        r = cli("swap", *HAND.split(), "--model", d, *extra)
        assert r.exit_code == 2, r.output
        assert r.output.startswith("error: --model values the splits"), r.output
        assert f"{name} set(s) the playouts" in r.output, r.output


@pytest.mark.parametrize("damage", ["no model.mean", "no rules", "bad rules", "cov not npz",
                                    "cov lacks a key"])
def test_a_damaged_study_folder_is_one_error_line(cli, tmp_path, damage):
    """A study.json missing what the advice reads, or a damaged split_cov.npz: one error
    line (exit 2), never a traceback."""
    d = _study_folder(tmp_path)
    study = json.loads((d / "study.json").read_text())
    if damage == "no model.mean":
        study["model"] = {}
    elif damage == "no rules":
        del study["rules"]
    elif damage == "bad rules":
        study["rules"] = "no-such-preset"
    elif damage == "cov not npz":
        (d / "split_cov.npz").write_bytes(b"not a zip")
    else:
        np.savez(d / "split_cov.npz", place=np.array(["up"]), id=np.array([0]))
    (d / "study.json").write_text(json.dumps(study))
    r = cli("swap", *HAND.split(), "--model", d)
    assert r.exit_code == 2, r.output
    lines = r.output.strip().split("\n")
    assert len(lines) == 1 and lines[0].startswith("error: --model: "), lines


def test_the_text_answers_first_and_spellings_are_read(cli):
    r = cli("swap", "4", "5", "6", "9", "t", "k", "--deals", "300", "-q")
    assert r.exit_code == 0, r.output
    lines = r.output.split("\n")
    assert lines[0].endswith(" face up: not clearly different at 300 deals; about 1,900 "
                             "more deals would likely separate them (if the differences "
                             "stayed as measured).")                  # 300 deals: a tie
    assert lines[1].startswith("Best measured: put 4 10 K face up, keep 5 6 9, ahead of ")
    assert "The usual advice (highest-up: up 9 10 K) is among them." in r.output
    table = [ln for ln in lines if ln[:3].strip().isdigit()]
    assert len(table) == 20
    assert "Budget: 300 deals x 20 splits = 6,000 games" in r.output


def test_json_shape(cli):
    r = cli("swap", *HAND.split(), "--deals", "300", "--json", "--seed", "5")
    assert r.exit_code == 0, r.output
    d = json.loads(r.output)
    assert d["kind"] == "swap-advice" and d["version"] >= 1
    assert d["ruleset"]["hand_size"] == 3 and d["options"]["deals"] == 300
    assert d["options"]["seed"] == 5 and d["cards"] == HAND.split()
    assert d["method"] == "playouts" and d["deals"] == 300 and d["players"] == 4
    assert len(d["splits"]) == 20
    for key in ("rank", "face_up", "hand", "value", "low", "high", "vs_best", "vs_best_low",
                "vs_best_high"):
        assert all(key in row for row in d["splits"]), key
    assert d["answer"] == advice.answer(d["splits"][0])
    assert d["usual"]["policy"] == "highest-up" and d["best"] == d["splits"][0]


# -- sim play's hint at the swap --------------------------------------------------------------
def test_hint_at_the_swap_prompt_gives_the_advice_first(monkeypatch, tmp_path):
    """`hint` at the swap (R5) answers with sim swap's advice for the six cards, the answer
    on its first line (no longer "Not a swap")."""
    calls = []
    real = advice.by_playouts

    def quick(cards, **kw):
        calls.append((sorted(cards), kw["players"]))
        return real(cards, players=kw["players"], rules=kw["rules"], deals=200)
    monkeypatch.setattr(advice, "by_playouts", quick)
    t = Table(3, Ruleset.parse("seed"), 7)
    t.deal()
    six = sorted(CODE[c] for c in t.swap_choices())
    said = []
    term = Terminal(io.StringIO("hint\nkeep\n"), echo=said.append)
    assert _swap_phase(t, term, tmp_path / "game.json") is None
    at = next(i for i, s in enumerate(said) if s.endswith("hint"))
    assert (said[at + 1].startswith("Put ") and " face up, keep " in said[at + 1]
            or " face up: not clearly different at 200 deals" in said[at + 1]), said[at + 1]
    assert "Not a swap" not in "\n".join(said)
    assert calls == [(six, 3)]


def test_the_swap_prompt_takes_rule_and_moves_as_its_help_lists(tmp_path):
    """`rule R5` and `moves` at the swap prompt (the help lists them) answer, not "Not a
    swap"; a swap typed afterwards still swaps."""
    t = Table(3, Ruleset.parse("seed"), 7)
    t.deal()
    said = []
    term = Terminal(io.StringIO("rule R5\nmoves\nkeep\n"), echo=said.append)
    assert _swap_phase(t, term, tmp_path / "game.json") is None
    text = "\n".join(said)
    assert "Not a swap" not in text
    assert "R5" in said[next(i for i, s in enumerate(said) if s.endswith("rule R5")) + 1]
    after = said[next(i for i, s in enumerate(said) if s.endswith("moves")) + 1]
    assert after.startswith("Name the cards you want face up")


def test_a_long_answer_shows_a_status_line_only_at_a_terminal(capsys):
    """hint works for seconds: at a terminal a status line on stderr, erased before the
    answer (which stays the first line said); a scripted game gets none."""
    class Tty(io.StringIO):
        def isatty(self):
            return True
    for stdin, shown in ((Tty(""), True), (io.StringIO(""), False)):
        with Terminal(stdin, echo=lambda _: None).working("thinking"):
            pass
        err = capsys.readouterr().err
        assert ("(thinking ...)" in err and err.endswith("\r\033[K")) == shown, repr(err)
        assert bool(err) == shown


# -- ties said as ties -------------------------------------------------------------------------
def _rows(diffs, half):
    """Advice rows best first, each ``vs_best`` (points) with an interval of +- ``half``."""
    rows = [{"face_up": ["K", "A", str(i)], "vs_best": -d, "vs_best_low": -d - half,
             "vs_best_high": -d + half} for i, d in enumerate(diffs)]
    rows[0]["vs_best_low"] = rows[0]["vs_best_high"] = 0.0
    return rows


def test_a_tie_names_every_split_whose_interval_against_the_best_holds_0():
    """The tied group is the best and every split whose paired interval against it includes
    0, the third included though the second is clearly worse (a wider interval); more deals
    to separate them: n (half / difference)**2 - n for the hardest, 'far more' (None) past
    100 n or at a difference of 0; a clear best has no group."""
    t = advice.tie(_rows([0, 1.0, 1.2], 1.4), 5000)
    assert t["tied"] == ["K A 0", "K A 1", "K A 2"] and not t["clear"]
    assert t["more"] == round(5000 * (1.4 / 1.0) ** 2) - 5000
    rows = _rows([0, 3.0, 0.5], 1.4)
    rows[1]["vs_best_low"], rows[1]["vs_best_high"] = -3.5, -2.5        # clearly worse
    assert advice.tie(rows, 5000)["tied"] == ["K A 0", "K A 2"]
    assert advice.tie(_rows([0, 0.0], 1.4), 5000)["more"] is None
    assert advice.tie(_rows([0, 0.1], 1.4), 5000)["more"] is None          # > 100 x 5000
    clear = advice.tie(_rows([0, 3.0, 4.0], 1.4), 5000)
    assert clear["clear"] and clear["tied"] == ["K A 0"] and clear["more"] == 0


def test_the_headline_names_a_clear_best_alone_and_a_tie_as_a_tie():
    """reports.swap.summary: "Put ... face up" only for a clear best; a tie opens with the
    group, "not clearly different", the deals to separate them, then the best measured."""
    from reports.swap import summary

    def advice_of(rows):
        for r in rows:
            r["hand"] = ["3", "4", "5"]
        usual = rows[-1]
        return {"measure": "win chance", "usual": {"policy": "highest-up",
                                                    "face_up": usual["face_up"], "row": usual,
                                                    "is_best": False},
                "next": rows[1], "answer": advice.answer(rows[0]), "method": "playouts",
                "tie": advice.tie(rows, 5000)}
    tied = summary(advice_of(_rows([0, 0.4, 1.1, 5.1], 1.4))).split("\n")
    assert tied[0] == ("K A 0, K A 1 or K A 2 face up: not clearly different at 5,000 deals; "
                       "about 56,000 more deals would likely separate them (if the "
                       "differences stayed as measured).")
    assert tied[1].startswith("Best measured: put K A 0 face up, keep 3 4 5, ahead of up "
                              "K A 1 by 0.40 points")
    assert "Put " not in "\n".join(tied)
    clear = summary(advice_of(_rows([0, 3.0, 5.1], 1.4))).split("\n")
    assert clear[0] == "Put K A 0 face up, keep 3 4 5."
    assert clear[1].startswith("It beats the next best split (up K A 1) by 3.00 points")
