"""`sim review` and `sim replay --at` (item 3): a planted blunder is found,
the analysis's own best moves are not called mistakes beyond its error rate, a position of
any turn goes into sim.rules and sim analyze, bad inputs are one `error:` line and exit 2."""
from __future__ import annotations

import json
import math

import numpy as np
import pytest

from sim.commands.savedgame import run_record, save
from sim.kernel.position import apply, legal_ids, legal_moves, move_to_id, validate
from sim.runs.onegame import record_game
from sim.runs.config import RunConfig
from sim.studies import review as rv
from sim.studies import swapreview
from sim.studies.analysis import Z95, analyze_state

RUN = ["--seed", "5", "--players", "3", "--strategy", "counting"]


def _run_game(game=0, players=3, seed=5):
    cfg = RunConfig(games=game + 1, players=players, seed=seed,
                    strategies=["counting"] * players)
    return run_record(cfg, game, record_game(cfg, game))


def _blunder_game():
    """A two-player game of a run cut at its winner's last move (R18: the play that takes
    it out), which becomes a pick-up (R10) while the other seat holds 2 cards or fewer: a
    move that throws a won game away."""
    from sim.kernel.layout import FDN, FUN, HANDN
    for game in range(60):
        g = _run_game(game, players=2)
        if g["status"] != "finished" or len(g["moves"]) > 200:
            continue
        turn = len(g["moves"])
        st = rv.state_at(g, turn)
        other = 1 - g["moves"][-1]["seat"]
        pickup = {"pickup": True}
        if (move_to_id(pickup) in legal_ids(st)
                and st[HANDN + other] + st[FUN + other] + st[FDN + other] <= 2):
            g["moves"][-1] = {"seat": g["moves"][-1]["seat"], "move": pickup}
            g.update(status="unfinished", result=None, reason="planted blunder")
            return g, turn
    raise AssertionError("no game of the run ends on a pile that may be picked up")


def test_a_planted_blunder_is_found(cli, tmp_path):
    """R18: the winner could go out; picking up instead is a mistake, its loss's interval
    above 0, and the summary counts it."""
    g, turn = _blunder_game()
    seat = g["moves"][-1]["seat"]
    path = save(g, tmp_path / "blunder.json")
    r = cli("review", path, "--seat", seat, "--rollouts", "60", "--json", "--quiet")
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout)
    last = out["decisions"][-1]
    assert last["turn"] == turn and last["made"] == "pickup" and last["mistake"]
    assert last["value_best"] == 1.0 and last["low"] > 0.5           # going out wins (R18)
    assert last["best_json"] != {"pickup": True}
    assert out["summary"]["mistakes"] >= 1
    assert out["summary"]["decisions"] == out["summary"]["of"] == len(out["decisions"])


@pytest.mark.slow
def test_the_analysis_own_best_moves_are_not_called_mistakes():
    """A seat that plays analyze_state's best move at every turn (its own seeds) is reviewed
    with other seeds: at most the error rate's share of its decisions is marked a mistake
    (5% at most per decision by the Bonferroni interval; here at most 1 in 10 + 1)."""
    from sim.cli.table import Table
    from sim.kernel.layout import CURRENT, OVER, TURN
    from sim.kernel.ruleset import Ruleset
    from sim.commands.savedgame import record

    t = Table(2, Ruleset.parse("seed"), seed=11, seat=0, opponents=["counting"])
    t.deal()
    t.swap(0b000111)                                  # keep the dealt face-ups (R5)
    t.opening()
    while not t.st[OVER] and t.st[TURN] < 400:
        if int(t.st[CURRENT]) == 0 and len(t.legal()) > 1:
            a = analyze_state(t.st.copy(), rollouts=400, seed=1000 + int(t.st[TURN]))
            m = a.moves[a.order()[0]]
        else:
            m = t.bot_move() if int(t.st[CURRENT]) else t.legal()[0]
        t.play(m)
    t.reason = "game over"
    game = json.loads(json.dumps(record(t)))
    r = rv.review(game, rollouts=300, seed=7)
    assert r.total >= 8 and len(r.decisions) == r.total
    turns = [d for d in r.decisions if d.turn > 0]          # the swap was not the analysis's
    mistakes = [(d.turn, d.made, d.best, d.low) for d in turns if d.mistake]
    assert len(mistakes) <= 1 + len(turns) // 10, mistakes
    # and the same review again is the same, bit for bit (--seed)
    again = rv.review(game, rollouts=300, seed=7)
    assert [d.loss for d in again.decisions] == [d.loss for d in r.decisions]


def test_a_planted_bad_swap_is_found():
    """R5: the three lowest of six cards put face up (10, K, 2 kept in the hand) is a
    mistake; the swap the seat's default policy made is not."""
    from sim.kernel import dealing
    from sim.kernel.cards import NAMES
    from sim.kernel.position import to_state

    g = _run_game(3)
    ok = swapreview.swap_decision(g, 0, rollouts=300, seed=0)
    assert ok.turn == 0 and not ok.mistake and ok.moves >= 10
    cards = sorted(int(c) for c in dealing.swap_choices(to_state(g["dealt"]), 0))
    g["start"]["face_up"][0] = [NAMES[c] for c in cards[:3]]
    bad = swapreview.swap_decision(g, 0, rollouts=300, seed=0)
    assert bad.made == "up " + " ".join(NAMES[c] for c in cards[:3])
    assert bad.mistake and bad.low > 0.05 and bad.best != bad.made


def test_an_illegal_move_in_a_swap_playout_is_an_error_not_a_loss():
    """R24: an opponent model's illegal move in the swap's playouts stops the review, as in
    the turns' playouts, rather than counting as a lost game."""
    import tests.test_strategies_seats  # noqa: F401  (registers test-always-pickup)

    with pytest.raises(ValueError, match="not a legal move.*R24"):
        swapreview.swap_decision(_run_game(3), 0, rollouts=3, seed=0, opponents="test-always-pickup")


def test_review_text_and_report_page(cli, tmp_path):
    g, turn = _blunder_game()
    path = save(g, tmp_path / "g.json")
    out = tmp_path / "rev"
    r = cli("review", path, "--seat", g["moves"][-1]["seat"], "--rollouts", "40", "--out", out)
    assert r.exit_code == 0, r.output
    assert "Budget: 40 worlds per decision" in r.stdout and "MISTAKE" in r.stdout
    assert r.stdout.splitlines()[-2].startswith("Summary: ")
    assert "95% normal interval of the total, ± 1.96 √(Σ se²)" in r.stdout.splitlines()[-2]
    assert {"manifest.json", "review.json", "game.json"} <= {p.name for p in out.iterdir()}
    assert not (out / "summary.json").exists()             # a run's file, not a review's
    r = cli("report", out)
    assert r.exit_code == 0, r.output
    html = (out / "report.html").read_text()
    assert "Review of seat" in html and "MISTAKE" in html and 'data-layout="ok"' in html


def test_review_json_shape(cli, tmp_path):
    path = save(_run_game(game=1, players=2), tmp_path / "g.json")
    r = cli("review", path, "--seat", "1", "--rollouts", "20", "--json", "--quiet")
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout)
    assert list(out)[:4] == ["kind", "version", "ruleset", "options"]
    assert out["kind"] == "review" and out["options"]["rollouts"] == 20
    assert {"seat", "v2", "measure", "budget", "summary", "decisions"} <= set(out)
    s = out["summary"]
    assert {"decisions", "mistakes", "total_loss", "total_se", "total_low", "total_high",
            "seconds_per_decision", "complete"} <= set(s)
    d = out["decisions"][0]
    assert {"turn", "made", "best", "value_made", "value_best", "loss", "low", "high", "se",
            "mistake", "worlds"} <= set(d)
    assert d["worlds"] == 20 and d["low"] <= d["loss"] <= d["high"] and d["se"] >= 0
    assert s["total_se"] == pytest.approx(math.sqrt(sum(x["se"] ** 2
                                                        for x in out["decisions"])))


def test_replay_at_round_trips_into_the_rules_and_analyze(cli, tmp_path):
    """The position before turn 10 is valid docs/position.md; the move made at turn 10 is legal
    there and leads to the position before turn 11 (R24); the mover's view goes into
    sim analyze, which names that move among its moves."""
    saved = tmp_path / "run.json"
    r = cli("replay", *RUN, "--game", "0", "--save", saved)
    assert r.exit_code == 0, r.output
    game = json.loads(saved.read_text())
    told = cli("replay", "--file", saved)                  # no human seat to name
    assert told.exit_code == 0 and "saved by sim replay" in told.output
    assert "seat None" not in told.output
    positions = []
    for t in (10, 11):
        r = cli("replay", *RUN, "--game", "0", "--at", t, "--json")
        assert r.exit_code == 0, r.output
        positions.append(json.loads(r.stdout))
    validate(positions[0])
    move = game["moves"][9]["move"]
    assert move in legal_moves(positions[0])
    after = apply(positions[0], move)
    assert {k: v for k, v in after.items() if k not in ("events", "winner")} == positions[1]
    # --file gives the same position as --seed/--game
    r = cli("replay", "--file", saved, "--at", "10", "--json")
    assert json.loads(r.stdout) == positions[0]
    r = cli("replay", "--file", saved, "--at", "10", "--json", "--as-mover")
    view = json.loads(r.stdout)
    me = view["current"]
    assert view["hands"][me] == positions[0]["hands"][me]
    assert len(view["stock"]) == len(positions[0]["stock"])                # R26: the stock is
    assert all(c == "?" for c in view["stock"])                            # counted, not seen
    assert all(c == "?" for fd in view["face_down"] for c in fd)      # R26: unseen by all
    f = tmp_path / "view.json"
    f.write_text(r.stdout)
    r = cli("analyze", f, "--rollouts", "30", "--json")
    assert r.exit_code == 0, r.output
    a = json.loads(r.stdout)
    assert a["view"]
    assert move in [m["json"] for m in a["moves"]]


def test_the_view_keeps_what_the_mover_knows():
    """R26: cards picked up are known to all; the view names them in that hand."""
    g = _run_game(0)
    for turn, st, p, m in rv.game_states(g):
        from sim.kernel.layout import KNOWN, NR
        known = [s for s in range(3) if s != p and st[KNOWN + s * NR:KNOWN + s * NR + NR].any()]
        if known:
            from sim.studies.view import state_of, to_view
            view = to_view(st, g["rules"])
            back, is_view = state_of(view)
            assert is_view
            s = known[0]
            assert (back[KNOWN + s * NR:KNOWN + s * NR + NR]
                    == st[KNOWN + s * NR:KNOWN + s * NR + NR]).all()
            return
    raise AssertionError("no turn with a known card in another hand")


def test_the_turn_after_the_last_move_of_a_game_that_goes_on():
    """A game cut after its 50th move goes on (R24: the next seat to move): --at 51 is the
    position after that move; a finished game has no turn after its last."""
    from sim.kernel import engine

    g = _run_game(1, players=2)
    n = len(g["moves"])
    with pytest.raises(ValueError, match=f"from 1 to {n} .*got {n + 1}"):
        rv.state_at(g, n + 1)                              # finished: R18
    g.update(moves=g["moves"][:50], status="unfinished", result=None)
    st = rv.state_at(g, 50)
    engine.apply_move(st, move_to_id(g["moves"][49]["move"]))
    assert (rv.state_at(g, 51) == st).all()
    with pytest.raises(ValueError, match="from 1 to 50 .*got 52"):
        rv.state_at(g, 52)


@pytest.mark.parametrize("args,words", [
    (["--at", "0", "--json"], "--at: expected a turn from 1"),
    (["--at", "100000", "--json"], "--at: expected a turn from 1"),
    (["--json"], "go with --at"),
    (["--as-mover"], "go with --at"),
])
def test_replay_at_bad_turn(cli, args, words):
    r = cli("replay", *RUN, "--game", "0", *args)
    assert r.exit_code == 2, r.output
    lines = r.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and words in lines[0]


def test_review_bad_inputs(cli, tmp_path):
    path = save(_run_game(game=1, players=2), tmp_path / "g.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{}")
    for args, words in ((["--seat", "5"], "--seat: expected a seat from 0 to 1"),
                        ([], "--seat: this game has no human seat"),
                        (["--seat", "0", "--rollouts", "0"], "--rollouts"),
                        (["--seat", "0", "--seed", "-1"], "--seed")):
        r = cli("review", path, *args)
        assert r.exit_code == 2, (args, r.output)
        lines = r.output.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: ") and words in lines[0], lines
    for f, words in ((bad, "not a game saved by sim play"), (tmp_path / "none.json",
                                                              "cannot read")):
        r = cli("review", f)
        assert r.exit_code == 2 and r.output.startswith("error: ") and words in r.output
    # a folder another command saved is refused before the review, and left as it was
    other = tmp_path / "cmp"
    other.mkdir()
    (other / "manifest.json").write_text('{"command": "compare"}')
    r = cli("review", path, "--seat", "0", "--out", other)
    assert r.exit_code == 2 and "already holds a saved folder" in r.output
    assert (other / "manifest.json").read_text() == '{"command": "compare"}'
    g = json.loads(path.read_text())
    g["moves"][3]["move"] = {"play": ["2", "2", "2", "2"]}
    save(g, bad)
    r = cli("review", bad, "--seat", "0")
    assert r.exit_code == 2 and "move 4" in r.output and "not legal (R24)" in r.output


def _crossed(dealt, start, players):
    """Seats whose swap crossed equal ranks: a dealt face-up taken into the hand while a
    card of its rank went up (R5), so the kernel knows more in the hand (R26) than the
    dealt face-ups no longer face up."""
    from sim.kernel.layout import FU, KNOWN, NR
    return [s for s in range(players) for r in range(NR)
            if start[KNOWN + s * NR + r] > max(0, dealt[FU + s * NR + r] - start[FU + s * NR + r])]


@pytest.mark.parametrize("swap,rules", [
    ("lowest-hand", "seed"), ("random", "seed"), ("random", "boothj5"),
    ("random", {"base": "seed", "choose_face_ups": True}), ("lowest-hand", "masters-of-shithead")])
def test_start_state_is_the_kernels_state_after_the_swap(swap, rules):
    """R5, R26: a saved game's state after the swap is the kernel's, every value: the dealt
    face-ups taken into a hand known there as dealing.apply_swap counts them, also when equal
    ranks cross (lowest-hand keeps a dealt 7 in hand and puts the hand's 7 up); R6, H14,
    H15, H16 (boothj5), V1: the starter and its rank are the referee's swap_phase's."""
    from sim.kernel.layout import CURRENT, FIRST, KNOWN, NR, STARTRANK
    cfg = RunConfig(games=20, players=3, seed=2, strategies=["counting"] * 3, swaps=[swap] * 3,
                    rules=rules)
    crossed = 0
    for game in range(20):
        rec = record_game(cfg, game)
        st = rv.start_state(run_record(cfg, game, rec))
        assert (st[KNOWN:KNOWN + 3 * NR] == rec.start[KNOWN:KNOWN + 3 * NR]).all(), game
        assert (st[CURRENT], st[FIRST], st[STARTRANK]) == (
            rec.start[CURRENT], rec.start[FIRST], rec.start[STARTRANK])
        assert np.array_equal(st, rec.start), (game, np.nonzero(st != rec.start)[0])
        crossed += len(_crossed(rec.dealt, rec.start, 3))
    if cfg.ruleset.choose_face_ups:
        assert crossed == 0                                    # V1: no face-up was dealt
    else:
        assert crossed > 0                                     # the case is met


def test_start_state_replays_the_humans_saved_swap():
    """R5, R26: sim play's human swaps the dealt face-up 7 into the hand and the hand's 7 up
    (a mask that crosses equal ranks, saved with the game): the state after the swap is the
    table's own, 7 known in the hand. Without the game's seed (its bots' choices not found
    again) the bots' choices are the first that give their saved face-ups, the human's its
    saved mask, and the starter is still the referee's."""
    from sim.commands.savedgame import record
    from sim.cli.table import Table
    from sim.kernel import dealing
    from sim.kernel.layout import CURRENT, FIRST, KNOWN, NR, STARTRANK
    from sim.kernel.ruleset import Ruleset

    for seed in range(100):
        t = Table(3, Ruleset.parse("seed"), seed=seed, seat=0, opponents=["counting"])
        t.deal()
        cards = [int(c) for c in dealing.swap_choices(t.st, 0)]
        pairs = [(i, j) for i in range(3) for j in range(3, 6) if cards[i] == cards[j]]
        if pairs:
            break
    i, j = pairs[0]
    t.swap((0b111 & ~(1 << i)) | (1 << j))
    game = json.loads(json.dumps(record(t)))
    st = rv.start_state(game)
    assert np.array_equal(st, t.start)
    assert st[KNOWN + cards[i]] == 1 and 0 in _crossed(t.dealt, t.start, 3)
    game["seed"] = None
    st = rv.start_state(game)
    assert st[KNOWN + cards[i]] == 1
    assert [st[x] for x in (CURRENT, FIRST, STARTRANK)] == [t.start[x] for x in
                                                            (CURRENT, FIRST, STARTRANK)]
    assert (st[KNOWN + NR:KNOWN + 3 * NR] <= t.start[KNOWN + NR:KNOWN + 3 * NR]).all()


@pytest.mark.slow
def test_ctrl_c_prints_the_partial_review(tmp_path):
    """Ctrl-C after the first decisions: the decisions reviewed so far and a PARTIAL summary
    are printed, exit 130."""
    import os
    import signal
    import subprocess
    import sys
    import time

    path = save(_run_game(game=1, players=2), tmp_path / "g.json")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    p = subprocess.Popen([sys.executable, "-m", "sim.cli", "review", str(path), "--seat", "0",
                          "--rollouts", "2000"], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, env=env)
    seen = 0
    t0 = time.time()
    while seen < 2 and time.time() - t0 < 300:         # two decisions reviewed
        line = p.stderr.readline()
        seen += line.startswith("  ") and "turn" in line
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=120)
    assert p.returncode == 130, err[-2000:]
    assert "PARTIAL" in out and "Summary:" in out and "Traceback" not in err


def test_an_interrupted_review_is_one_partial_review_saved_as_such(tmp_path, monkeypatch):
    """Ctrl-C during the third decision (here: as the second is reported; the next ones'
    worlds are under way): Interrupted carrying the review of the two made (the swap, R5,
    and the first turn), marked interrupted and saved marked partial."""
    import sim
    from sim.runs.partial import Interrupted

    started = []

    def on_decision(r, d):
        if len(r.decisions) == 2:
            raise KeyboardInterrupt

    with pytest.raises(Interrupted) as e:
        rv.review(_run_game(1, players=2), 0, rollouts=4, out=tmp_path / "r",
                  on_start=lambda r: started.append(r.total), on_decision=on_decision)
    p = e.value.partial
    assert isinstance(p.result, rv.Review) and p.result.interrupted
    assert [d.turn > 0 for d in p.result.decisions] == [False, True]
    assert (p.done, p.of, p.unit) == (2, started[0], "decisions") and started[0] > 2
    saved = sim.load(tmp_path / "r")
    assert saved.manifest["state"] == "partial" and "interrupted" in saved.summary["partial"]
    assert json.loads((tmp_path / "r" / "review.json").read_text())["interrupted"] is True


def _synthetic_review(rng, kinds, worlds):
    """A review of made-up decisions: per decision ``(moves, p(-1), p(+1))``, the named
    best's column minus the move made's on the fresh worlds drawn from -1, 0, +1 with those
    chances (true loss ``p(+1) - p(-1)``), through the review's own measurement
    (:func:`rv.measured_loss`); ``p(-1)`` None: the best is the move made."""
    decisions = []
    for turn, (k, pm, p1) in enumerate(kinds):
        if pm is None:
            fresh = np.zeros((worlds, 1))
        else:
            fresh = np.zeros((worlds, 2))
            fresh[:, 0] = rng.choice([-1.0, 0.0, 1.0], worlds, p=[pm, 1 - pm - p1, p1])
        decisions.append(rv.Decision(turn=turn, moves=k, made="7", best="9", worlds=worlds,
                                     seconds=0.0, **rv.measured_loss(fresh, False, 1.0)))
    return rv.Review(0, 2, False, worlds, 0, "counting", len(kinds), 40, 0, decisions)


@pytest.mark.slow
def test_the_total_loss_interval_is_95_percent():
    """The summary's total loss +- 1.96 sqrt(sum of the decisions' se**2) covers the sum of
    the true losses in about 95% of reviews (1,000 synthetic reviews of seven decisions, one
    whose differences are all +1: se 0, and one whose best is the move made)."""
    rng = np.random.default_rng(3)
    kinds = [(3, 0.2, 0.3), (6, 0.1, 0.15), (10, 0.3, 0.3), (20, 0.05, 0.25), (4, 0.0, 1.0),
             (2, 0.25, 0.2), (5, None, None)]
    truth = sum(p1 - pm for _, pm, p1 in kinds if pm is not None)
    new = 0
    for _ in range(1000):
        r = _synthetic_review(rng, kinds, 300)
        assert r.decisions[4].se == 0.0 and r.decisions[4].loss == 1.0    # all equal
        assert r.decisions[6].se == 0.0 and r.decisions[6].high == 0.0    # best = made
        s = r.summary()
        assert s["total_high"] - s["total_loss"] == pytest.approx(
            Z95 * math.sqrt(sum(d.se ** 2 for d in r.decisions)))
        new += s["total_low"] <= truth <= s["total_high"]
    assert 930 <= new <= 970, new


def test_equal_moves_lose_nothing_on_average_the_winners_curse_is_gone():
    """Every move of a decision equally good (four moves, results correlated as common
    random numbers make them): the best chosen on the ranking worlds and its loss measured
    there (before) leans high, the largest of noisy leads; measured on fresh worlds
    (:func:`rv.measured_loss`, now) it averages 0, and the total's interval over 30 such
    decisions covers the true total, 0, about 95% of the time (before: almost never).
    benchmarks/review_bias.py has the full table."""
    rng = np.random.default_rng(5)
    reps, k, worlds, decisions = 200, 4, 300, 30

    def results():
        common = rng.standard_normal((worlds, 1))
        return (0.9 * common + 0.44 * rng.standard_normal((worlds, k)) < -0.39).astype(float)
    old, new, covered, covered_old = [], [], 0, 0
    for _ in range(reps):
        tot = {"old": 0.0, "new": 0.0}
        var = {"old": 0.0, "new": 0.0}
        for _ in range(decisions):
            ranking, fresh = results(), results()
            best = int(np.argmax(ranking.mean(axis=0)))
            cols = [best] if best == 1 else [best, 1]          # the move made: column 1
            m = rv.measured_loss(fresh[:, cols], False, 1.0)
            d = ranking[:, best] - ranking[:, 1]
            tot["new"] += m["loss"]
            var["new"] += m["se"] ** 2
            tot["old"] += d.mean()
            var["old"] += d.var(ddof=1) / worlds
            new.append(m["loss"])
            old.append(d.mean())
        covered += abs(tot["new"]) <= Z95 * math.sqrt(var["new"])
        covered_old += abs(tot["old"]) <= Z95 * math.sqrt(var["old"])
    se = np.std(new) / math.sqrt(len(new))
    assert abs(np.mean(new)) < 3 * se, (np.mean(new), se)
    assert np.mean(old) > 10 * np.std(old) / math.sqrt(len(old))        # the curse, before
    assert covered >= 0.9 * reps and covered_old <= 0.1 * reps, (covered, covered_old)


def _review_of(losses, ses, mistakes):
    ds = [rv.Decision(turn=t, moves=3, made="7", best="9", value_made=0.3, value_best=0.3 + x,
                      loss=x, low=x - 2 * s, high=x + 2 * s, mistake=m, worlds=300,
                      seconds=0.0, se=s, fresh=300)
          for t, (x, s, m) in enumerate(zip(losses, ses, mistakes))]
    return rv.Review(0, 3, False, 300, 5, "counting", len(ds), 60, 0, ds)


def test_the_summary_words_follow_its_numbers():
    """0 mistakes beside a total whose interval excludes 0 says that small losses add up; a
    total below 0 says the moves made did better than the names; mistakes beside a total
    whose interval holds 0 say it is not clearly above 0; a clear loss says so."""
    from reports.review import summary_line

    add_up = summary_line(_review_of([0.01] * 30, [0.02] * 30, [False] * 30))
    assert "0 mistakes" in add_up and "no single decision is clearly a mistake, but " \
        "together they lost: small losses that add up over 30 decisions" in add_up
    below = summary_line(_review_of([-0.02] * 20, [0.02] * 20, [False] * 20))
    assert "did better on the fresh worlds, in total, than the moves named best" in below
    offset = summary_line(_review_of([0.2, -0.1, -0.1], [0.05, 0.05, 0.05],
                                     [True, False, False]))
    assert "1 mistake," in offset and "but the total is not clearly above 0 (its " \
        "interval includes 0)" in offset
    clear = summary_line(_review_of([0.2, 0.0], [0.02, 0.0], [True, False]))
    assert "the moves made lost, in total" in clear
    none = summary_line(_review_of([0.0, 0.01], [0.0, 0.02], [False, False]))
    assert "no clear loss, single or in total" in none


def test_the_loss_is_measured_on_fresh_worlds_and_the_ranking_is_hints():
    """A turn of a game: the ranking is analyze_decision's on ``rollouts`` worlds (hint's
    analysis), the values and the loss are the next ``rollouts`` worlds' (the same seed's
    worlds rollouts .. 2 rollouts - 1, which an analysis of twice the worlds plays)."""
    from sim.studies.analysis import analyze_decision, move_words

    g = _run_game(0)
    turn, st, m = next((t, s, m) for t, s, m, _ in rv.plan(g, 0)[0]
                       if len(legal_ids(s)) >= 3)
    d = rv.decide(st, m, rollouts=40, seed=9, turn=turn)
    a = analyze_decision(st, rollouts=40, seed=9)
    assert d.ranking == [move_words(a.moves[i]) for i in a.order()]
    assert d.best == d.ranking[0] and d.worlds == 40 and d.fresh == 40
    both = analyze_decision(st, rollouts=80, seed=9)
    assert np.array_equal(both.scores[:40], a.scores)          # the same ranking worlds
    words = [move_words(x) for x in both.moves]
    fresh = both.scores[40:]
    b, i = words.index(d.best), words.index(d.made)
    assert d.value_best == pytest.approx(fresh[:, b].mean())
    assert d.value_made == pytest.approx(fresh[:, i].mean())
    assert d.loss == pytest.approx(fresh[:, b].mean() - fresh[:, i].mean())
    assert d.tied[0] == d.best and (len(d.tied) == 1) == a.tie()["clear"]


def test_hint_and_review_rank_a_decision_alike(monkeypatch):
    """sim play's hint and sim review (its default seed, the game's; --rollouts the hint's)
    rank a decision on the same worlds, so identically, and name the same best or tie."""
    import sim.cli.table as table_module
    from sim.commands.savedgame import record
    from sim.cli.table import Table
    from sim.kernel.layout import CURRENT, TURN
    from sim.kernel.ruleset import Ruleset
    from sim.studies.analysis import move_words

    seen = []
    real = table_module.analyze_decision

    def spy(st, **kw):
        seen.append(real(st, **kw))
        return seen[-1]
    monkeypatch.setattr(table_module, "analyze_decision", spy)
    t = Table(3, Ruleset.parse("seed"), seed=5, seat=0, opponents=["counting"],
              hint_rollouts=60)
    t.deal()
    t.swap(0b000111)
    t.opening()
    hinted = None
    while hinted is None:
        if int(t.st[CURRENT]) == 0 and len(t.legal()) > 1:
            answer = t.hint()[0]
            hinted = int(t.st[TURN]) + 1
        t.play(t.legal()[0] if int(t.st[CURRENT]) == 0 else t.bot_move())
    t.reason = "quit"
    game = json.loads(json.dumps(record(t)))
    turn, st, m, _ = next(x for x in rv.plan(game, 0)[0] if x[0] == hinted)
    d = rv.decide(st, m, rollouts=60, seed=rv.default_seed(game), turn=turn)
    a = seen[0]
    assert d.ranking == [move_words(a.moves[i]) for i in a.order()]
    assert d.tied == a.tie()["tied"] and d.more == a.tie()["more"]
    assert d.best in answer
    r = rv.review(game, rollouts=60)
    assert r.seed == 5 and next(x for x in r.decisions if x.turn == hinted).ranking == d.ranking


def test_a_move_tied_with_the_best_is_never_a_mistake_even_in_the_saved_review():
    """The loss's interval may exclude 0 on the fresh worlds while the ranking
    worlds call the move made tied with the best: the decision (and review.json, which
    keeps it) says no mistake, as every report does (reports.ties.move_verdict)."""
    fresh = np.column_stack([np.ones(400), np.r_[np.zeros(200), np.ones(200)]])
    assert rv.measured_loss(fresh, False, 1.0)["mistake"]
    assert not rv.measured_loss(fresh, False, 1.0, tied=True)["mistake"]
