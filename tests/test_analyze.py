"""`sim analyze` and `sim.analyze`: every legal move valued by playouts in worlds re-dealt from
what the seat to move may know (R26), with common random numbers, exact interval labels and
clear errors."""
from __future__ import annotations

import copy
import json
from pathlib import Path

import numba
import pytest

from sim.studies.analysis import NORMAL, WILSON, analyze
from tests.positions import pos

EXAMPLES = Path(__file__).resolve().parents[1] / "docs" / "examples"


def forced():
    """Seat 0 holds 5 and K on a 4 (count 1), nothing on the table, the stock empty; seat 1
    holds one 9. K wins: 9 cannot follow it, seat 1 picks up and seat 0 goes out with the 5
    (R9, R10, R18). The 5 or a pick-up lose: seat 1 goes out with its 9."""
    return pos(players=2, current=0, hands=[["5", "K"], ["9"]], pile=["4"], count=1)


def test_a_forced_win_ranks_first_and_forced_losses_last():
    import sim

    df = sim.analyze(forced(), rollouts=60, seed=3)            # the package's export
    assert list(df["move"]) == ["K", "5", "pickup"]          # ties keep the legal order
    assert df["estimate"].tolist() == [1.0, 0.0, 0.0]
    assert df["n"].tolist() == [60] * 3
    assert df.attrs["interval"] == WILSON and df.attrs["n"] == 60
    assert df.iloc[0]["low"] > 0.9 and df.iloc[1]["high"] < 0.1      # Wilson, n = 60
    assert df.iloc[0]["json"] == {"play": ["K"]}
    assert df.attrs["paired"]["difference"] == 1.0


def test_going_out_now_beats_picking_up():
    """R18: a player whose last card is a legal play goes out and wins at once."""
    p = pos(players=3, current=1, hands=[["3", "3", "3"], ["8"], ["4", "4", "4"]],
            face_down=[["J"], [], ["Q"]], pile=["6"], count=1)
    df = analyze(p, rollouts=40, seed=1)
    assert df.iloc[0]["move"] == "8" and df.iloc[0]["estimate"] == 1.0
    assert df.iloc[-1]["move"] == "pickup" and df.iloc[-1]["estimate"] < 1.0


def test_V2_estimates_the_finishing_place_lower_first():
    p = forced()
    p["ruleset"] = {"base": "seed", "last_player_loses": True}
    df = analyze(p, rollouts=30, seed=2)
    assert df.attrs["interval"] == NORMAL
    assert list(df["move"]) == ["K", "5", "pickup"]
    assert df["estimate"].tolist() == [1.0, 2.0, 2.0]          # first out, or the Shithead
    assert df["first"].tolist() == [1.0, 0.0, 0.0] and df["shithead"].tolist() == [0, 1, 1]


def _midgame():
    return json.loads((EXAMPLES / "midgame-seed-4p.json").read_text())


def _exchange(p, a, b):
    """Swap the first card of list ``a`` with the first of ``b`` (each (key, seat or None))."""
    def ref(where):
        key, seat = where
        return p[key] if seat is None else p[key][seat]
    la, lb = ref(a), ref(b)
    la[0], lb[0] = lb[0], la[0]


def test_answers_do_not_depend_on_hidden_cards_R26():
    """Same seed: moving hidden cards around (a face-down card with a stock card, another
    seat's hand card with a face-down card) or writing them as '?' changes nothing."""
    p = _midgame()
    me = p["current"]
    q = copy.deepcopy(p)
    _exchange(q, ("face_down", me), ("stock", None))
    _exchange(q, ("hands", (me + 1) % 4), ("face_down", (me + 2) % 4))
    assert q != p
    view = copy.deepcopy(p)
    for s in range(4):
        view["face_down"][s] = ["?"] * len(p["face_down"][s])
        if s != me:
            view["hands"][s] = ["?"] * len(p["hands"][s])
    view["stock"] = ["?"] * len(p["stock"])
    a, b, c = (analyze(x, rollouts=50, seed=9).drop(columns="json") for x in (p, q, view))
    assert a.equals(b) and a.equals(c)
    assert a.attrs["hidden"] == {"other_hands": 12, "face_down": 12, "stock": 6, "total": 30}


def _two_unknown(hand, down):
    """Seat 0 holds 5 and K on a 4; seat 1 holds one card and one face-down card: 9 and A in
    some order, all else burned. K wins outright when seat 1's hand card is the 9 (it cannot
    follow, picks up, and seat 0 goes out with the 5); when it is the A, seat 1 follows with
    it, seat 0 must pick up and seat 1 goes out on a blind lead (R9, R10, R14, R18)."""
    return pos(players=2, current=0, hands=[["5", "K"], [hand]], face_down=[[], [down]],
               pile=["4"], count=1)


def test_omniscient_uses_the_hidden_cards_and_sampling_does_not():
    nine, ace = _two_unknown("9", "A"), _two_unknown("A", "9")
    sampled = [analyze(p, rollouts=80, seed=4).set_index("move")["estimate"] for p in (nine, ace)]
    assert sampled[0].equals(sampled[1])               # seen from seat 0, the same position
    assert 0.0 < sampled[0]["K"] < 1.0                 # a mix of both deals
    known = [analyze(p, rollouts=20, seed=4, omniscient=True).set_index("move")["estimate"]
             for p in (nine, ace)]
    assert known[0]["K"] == 1.0 and known[1]["K"] == 0.0


def test_known_cards_stay_in_their_hand_R26():
    """A card known to be in a hand (picked up, R26) is dealt back to it in every world."""
    for card, value in (("9", 1.0), ("A", 0.0)):
        p = _two_unknown("9", "A")
        p["hands"][1], p["face_down"][1] = [card], ["A" if card == "9" else "9"]
        p["known"] = [[], [card]]
        assert analyze(p, rollouts=20, seed=4).set_index("move")["estimate"]["K"] == value
    bad = _two_unknown("9", "A")
    bad["known"] = [[], ["A"]]
    with pytest.raises(ValueError, match=r"known\[1\]"):
        analyze(bad, rollouts=5)


def test_results_do_not_depend_on_threads():
    p = _midgame()
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = analyze(p, rollouts=40, seed=5)
        numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
        two = analyze(p, rollouts=40, seed=5)
    finally:
        numba.set_num_threads(before)
    assert one.drop(columns="json").equals(two.drop(columns="json"))


def test_until_clear_stops_when_the_best_move_separates():
    from sim.studies.analysis import run_analysis

    a = run_analysis(forced(), rollouts=10, seed=1, until_clear=True, max_rollouts=100)
    assert a.clear["stopped"] == "clear" and a.n == 10
    assert a.clear["looks"] == 10 and a.clear["z"] > 2.5          # Bonferroni: 10 looks x 2
    tied = pos(players=2, current=0, hands=[["5", "6"], ["9"]], pile=["4"], count=1)
    b = run_analysis(tied, rollouts=10, seed=1, until_clear=True, max_rollouts=30)
    assert b.clear["stopped"] == "cap" and b.n == 30            # every move loses: no leader


def test_the_race_drops_clearly_worse_moves_and_stops_within_tolerance():
    """sim.studies.race.race on made-up worlds: a move losing where the leader wins in
    every world is dropped; two moves equal in every world are never separated, but 2,000
    identical worlds show they differ by less than 1 point (not with --tolerance 0)."""
    import numpy as np

    from sim.studies.race import race

    s = np.zeros((200, 3))
    s[:100, 0] = s[:100, 1] = 1.0                  # moves 0 and 1 win alike, move 2 never
    active, leader, stopped = race(s, np.ones(3, bool), False, 1.0, 3.0, 0.01)
    assert leader == 0 and active.tolist() == [True, True, False] and stopped is None
    big = np.repeat(s, 10, axis=0)
    assert race(big, active, False, 1.0, 3.0, 0.01)[2] == "tolerance"
    assert race(big, active, False, 1.0, 3.0, 0.0)[2] is None
    v2 = np.array([[1.0, 3.0]] * 50)               # V2: the lower place leads
    assert race(v2, np.ones(2, bool), True, 3.0, 3.0, 0.0)[1:] == (0, "clear")


def test_until_clear_drops_moves_without_changing_the_worlds_of_the_others():
    """A move dropped by the race plays no further worlds (NaN, a smaller n); the moves
    left play exactly the worlds they play in a plain analysis of as many worlds (a world
    is seeded by its index), and the same seed gives the same answer."""
    import numpy as np

    from sim.studies.analysis import run_analysis

    a = run_analysis(_midgame(), rollouts=300, seed=2, until_clear=True, max_rollouts=1500)
    again = run_analysis(_midgame(), rollouts=300, seed=2, until_clear=True, max_rollouts=1500)
    assert np.array_equal(a.scores, again.scores, equal_nan=True) and a.clear == again.clear
    assert a.clear["dropped"] and a.clear["comparisons"] == len(a.moves) - 1
    plain = run_analysis(_midgame(), rollouts=a.n, seed=2)
    played = ~np.isnan(a.scores)
    assert np.array_equal(a.scores[played], plain.scores[played])
    rows = {r["move"]: r["n"] for r in a.rows()}
    assert min(rows.values()) < a.n == max(rows.values())
    assert a.info()["playouts"] == int(played.sum()) < a.n * len(a.moves)


def test_the_positions_own_rules_decide():
    p = forced()
    assert len(analyze(p, rollouts=5, rules="seed")) == 3          # the same rules: fine
    with pytest.raises(ValueError, match="position's own ruleset is seed"):
        analyze(p, rollouts=5, rules="classic")


@pytest.mark.parametrize("change,message", [
    (lambda p: p["hands"][0].__setitem__(0, "?"), r"hands\[0\]: '\?' stands only"),
    (lambda p: p["pile"].__setitem__(0, "?"), r"pile: '\?' stands only"),
    (lambda p: p["hands"][1].append("?"), r"1 '\?' but 0 card"),
    (lambda p: p.__setitem__("count", 0), "count"),
])
def test_bad_positions_are_refused(change, message):
    p = forced()
    change(p)
    with pytest.raises(ValueError, match=message):
        analyze(p, rollouts=5)


def test_omniscient_needs_the_hidden_cards():
    p = forced()
    p["hands"][1] = ["?"]
    assert len(analyze(p, rollouts=5)) == 3
    with pytest.raises(ValueError, match="--omniscient"):
        analyze(p, rollouts=5, omniscient=True)


# -- the command line ------------------------------------------------------------------------
def test_cli_prints_every_move_best_first_with_its_interval(cli, tmp_path):
    f = tmp_path / "p.json"
    f.write_text(json.dumps(forced()))
    r = cli("analyze", f, "--rollouts", "50", "--seed", "2")
    assert r.exit_code == 0, r.output
    out = r.output
    assert "95% Wilson score interval, n = 50 playouts per move" in out
    assert "Hidden cards re-dealt in every world (R26): 1" in out
    assert out.index("  1  K") < out.index("  2  5") < out.index("  3  pickup")
    assert "other seats play counting" in out


def test_cli_says_how_hidden_cards_were_given(cli):
    r = cli("analyze", EXAMPLES / "view-seed-4p.json", "--rollouts", "5")
    assert r.exit_code == 0, r.output
    assert "(other hands' unknown cards 6, face-down 12, stock 2); the position writes them" \
        in r.output
    r = cli("analyze", EXAMPLES / "midgame-seed-4p.json", "--rollouts", "5", "--omniscient")
    assert r.exit_code == 0 and "Omniscient (--omniscient)" in r.output


def test_cli_json_reads_stdin(tmp_path):
    import subprocess
    import sys

    r = subprocess.run([sys.executable, "-m", "sim.cli", "analyze", "-", "--json", "--rollouts",
                        "20"], input=json.dumps(forced()), capture_output=True, text=True,
                       check=False)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert [m["move"] for m in out["moves"]] == ["K", "5", "pickup"]
    assert out["interval"] == WILSON and out["n"] == 20 and out["moves"][0]["n"] == 20


@pytest.mark.parametrize("content,message", [
    ("{not json", "not valid JSON"),
    (json.dumps({"players": 2}), "error: "),
    (json.dumps([1, 2]), "JSON object"),
])
def test_cli_bad_input_is_one_error_line(cli, tmp_path, content, message):
    f = tmp_path / "p.json"
    f.write_text(content)
    r = cli("analyze", f, "--rollouts", "5")
    assert r.exit_code == 2
    assert r.output.startswith("error: ") and message in r.output
    assert r.output.count("\n") == 1 and "Traceback" not in r.output


def test_cli_until_clear_says_how_it_stopped_and_checks_tolerance(cli, tmp_path):
    f = tmp_path / "p.json"
    f.write_text(json.dumps(_midgame()))
    r = cli("analyze", f, "--rollouts", "300", "--until-clear", "--max-rollouts", "600")
    assert r.exit_code == 0, r.output
    assert "Until clear: " in r.output and "dropped from the race" in r.output
    r = cli("analyze", f, "--until-clear", "--tolerance", "-1")
    assert r.exit_code == 2 and r.output.startswith("error: --tolerance")


def test_cli_refuses_rules_that_differ_from_the_positions(cli, tmp_path):
    f = tmp_path / "p.json"
    f.write_text(json.dumps(forced()))
    r = cli("analyze", f, "--rollouts", "5", "--rule", "ten_anywhere=true")
    assert r.exit_code == 2 and "position's own ruleset is seed" in r.output
    assert cli("analyze", f, "--rollouts", "5", "--rules", "seed").exit_code == 0
    assert cli("analyze", tmp_path / "missing.json").exit_code == 2


@pytest.mark.parametrize("name", ["midgame-seed-4p", "late-classic-3p", "view-seed-4p"])
def test_the_documented_examples_analyse(name):
    p = json.loads((EXAMPLES / f"{name}.json").read_text())
    df = analyze(p, rollouts=20, seed=1)
    assert len(df) >= 3 and (df["low"] <= df["estimate"]).all()
    assert (df["estimate"] <= df["high"]).all()


def test_a_clear_best_is_named_alone_and_a_tie_as_a_tie():
    """The best move is named alone only where its paired interval against every other
    move excludes 0 (K wins, R18; 5 and pickup lose); moves that lose in every world are a
    tie that more worlds would never separate ("far more"), in the hint's line and in sim
    analyze's text (reports.ties: one wording)."""
    from reports.analysis import answer_line, describe
    from sim.studies.analysis import run_analysis

    a = run_analysis(forced(), rollouts=60, seed=3)
    assert a.tie() == {"tied": ["K"], "clear": True, "n": 60, "more": 0}
    assert a.info()["tie"] == a.tie()
    assert "; clearly better than the next best 5 at 0% (paired, 60 worlds)." in answer_line(a)
    assert "Best: K, clearly better than every other move (paired, 60 worlds)." in describe(a)
    lose = pos(players=2, current=0, hands=[["5", "6"], ["9"]], pile=["4"], count=1)
    b = run_analysis(lose, rollouts=30, seed=3)          # 9 follows either; seat 1 goes out
    assert b.tie() == {"tied": ["5", "6", "pickup"], "clear": False, "n": 30, "more": None}
    line = answer_line(b)
    assert line.startswith("Hint: 5, 6 or pickup: not clearly different at 30 worlds; far "
                           "more worlds than these 30 would be needed to separate them (they "
                           "may be equal). Best measured: play 5, win chance 0%"), line
    assert ("Best: 5, 6 or pickup: not clearly different at 30 worlds; far more worlds than "
            "these 30 would be needed to separate them (they may be equal).") in describe(b)


# -- the moves of round 2's house rules: chains (H19), partial adds (H11), big plays (H18) ----
def test_H19_analyze_values_every_continuation_and_end_like_any_move():
    """Seat 0 in a chain of 5s holds two more 5s, the stock empty; seat 1 holds one 6. Going
    on (one 5, then counting goes on with the other; or both) goes out and wins (R18); END
    leaves the 5 on top, and the 6 goes out on it."""
    p = pos(players=2, current=0, hands=[["5", "5"], ["6"]], pile=["4", "5"], count=1,
            run=1, ruleset={"base": "seed", "count_rule": False, "play_on": True})
    df = analyze(p, rollouts=20, seed=1)
    assert sorted(df["move"]) == ["5", "5 5", "end"]
    assert df.set_index("move")["estimate"].to_dict() == {"5": 1.0, "5 5": 1.0, "end": 0.0}
    assert df.iloc[-1]["json"] == {"end": True}


def test_H11_analyze_lists_every_k_of_a_one_then_rank_pick_up_each_in_its_own_words():
    """Seat 0 on face-ups 4 4 9 cannot play on the A: it picks up with one 4, both 4s or the
    9 (H11 one_then_rank), three moves written apart (``add 4``, ``add 4 4``, ``add 9``)."""
    p = pos(players=2, current=0, hands=[[], ["7", "8"]], face_up=[["4", "4", "9"], []],
            face_down=[["5"], ["6"]], pile=["A"], count=1,
            ruleset={"base": "seed", "faceup_pickup": "one_then_rank"})
    df = analyze(p, rollouts=10, seed=1)
    got = dict(zip(df["move"], df["json"]))
    assert got == {"add 4": {"pickup": True, "add": "4", "n": 1},
                   "add 4 4": {"pickup": True, "add": "4", "n": 2},
                   "add 9": {"pickup": True, "add": "9", "n": 1}}


def test_H18_analyze_lists_plays_of_five_to_eight_cards():
    p = pos(players=2, current=0, hands=[["6"] * 6, ["7"]], decks=2,
            ruleset={"base": "seed", "count_rule": False, "decks": 2})
    df = analyze(p, rollouts=10, seed=1)
    assert {" ".join(["6"] * n) for n in range(1, 7)} == set(df["move"])
    # four or more burn (R22) and the mover leads the rest, out (R18); fewer: the 7 goes out
    assert df.set_index("move")["estimate"].to_dict() == {
        " ".join(["6"] * n): float(n >= 4) for n in range(1, 7)}
