"""Endless games end when they are proven endless (sim.kernel.cycle, R25).

- a game stopped as a cycle really repeats: replayed without detection, its position (counters
  aside) right after the detection turn equals the one a cycle's length earlier, and that
  length is the smallest; the game then runs to the turn limit;
- with detection on and off every finished game's record is identical, the unfinished games
  are the same, and only their turns and pick-ups differ; the summaries agree;
- a strategy that does not declare itself pure turns detection off; a user's strategy opts in;
- the reason (cap or cycle) reaches the records, the store (and --resume), --json, the text
  summary and the replay.
"""
from __future__ import annotations

import json
import textwrap

import numpy as np
import pandas as pd
import pytest

from sim.kernel import cycle
from sim.kernel.referee import FINISHED, UNFINISHED
from sim.kernel.cycle import END_CAP, END_CYCLE, END_FINISHED, position_key
from sim.kernel.engine import apply_move
from sim.kernel.layout import EV_PICKUP, PICKUPS, STATE_SIZE, TURN
from sim.runs.runner import RunConfig, play_batch, record_game, run
from reports.plain import cycle_stop_text
from sim.runs.tally import Tally, cycle_facts

# Tables of pure strategies that cycle in a few of 600 games (seed 5), across the presets,
# table sizes, mixed seats and V2 (R25: play to the last).
CYCLING = [
    ("seed", 2, ["lowest"]),
    ("seed", 3, ["lowest"]),
    ("seed", 4, ["lowest", "highest"]),
    ("seed", 5, ["save-specials"]),
    ("classic", 3, ["cheapest"]),
    ("masters-of-shithead", 3, ["cheapest"]),
    ("boothj5", 2, ["cheapest"]),
    ({"base": "seed", "last_player_loses": True}, 4, ["lowest"]),
]


def _config(rules, players, strategies, stop=True, **kw):
    seats = (strategies * players)[:players]
    return RunConfig(games=600, players=players, seed=5, strategies=seats, rules=rules,
                     cycle_stop=stop, **kw)


def _words(cfg) -> str:
    """How the terminal and the page say whether endless games are stopped in ``cfg``."""
    return cycle_stop_text(cycle_facts(cfg))


def _replay_keys(cfg, game):
    """The game replayed without detection: its record and, after each pick-up turn t, the
    position (counters aside, sim.kernel.cycle.position_key) as {t: key}."""
    off = RunConfig(**{**_args(cfg), "cycle_stop": False})
    rec = record_game(off, game)
    st = rec.start.copy()
    keys = {}
    for m in rec.moves:
        if apply_move(st, m) & EV_PICKUP:
            keys[int(st[TURN])] = position_key(st)
    return rec, keys


def _args(cfg):
    return dict(games=cfg.games, players=cfg.players, seed=cfg.seed,
                strategies=list(cfg.strategies), swaps=list(cfg.swaps), rules=cfg.rules,
                max_turns=cfg.max_turns, cycle_stop=cfg.cycle_stop)


@pytest.mark.parametrize("rules,players,strategies", CYCLING)
def test_a_detected_cycle_really_repeats(rules, players, strategies):
    cfg = _config(rules, players, strategies)
    assert cfg.cycle_detect
    b = play_batch(cfg, 0, cfg.games, 1)
    found = np.flatnonzero(b.end == END_CYCLE)
    assert found.size > 0, "this table should have endless games"
    assert (b.status[found] == UNFINISHED).all()
    for g in found[:3]:
        stop, period = int(b.turns[g]), int(b.cycle_turns[g])
        assert 0 < period <= stop < cfg.max_turns
        rec, keys = _replay_keys(cfg, int(g))
        # without detection the game runs to the limit (R25): it was endless indeed ...
        assert rec.status == UNFINISHED and len(rec.moves) == cfg.max_turns
        # ... the detection turn was a pick-up, and the position after it is the one a
        # period earlier, counters aside ...
        assert stop in keys and stop - period in keys
        assert np.array_equal(keys[stop], keys[stop - period])
        # ... never after a shorter span (the period is the cycle's length) ...
        assert not any(np.array_equal(keys[stop], keys[t]) for t in keys
                       if stop - period < t < stop)
        # ... and from there on it repeats with that period, for good
        for t in keys:
            if stop - period <= t and t + period in keys:
                assert np.array_equal(keys[t], keys[t + period])
        # the kernel's own replay (sim replay) stops where the batch did
        on = record_game(cfg, int(g))
        assert on.end == END_CYCLE and len(on.moves) == stop and on.cycle_turns == period


def test_the_counters_are_all_that_differ_and_they_do():
    """The repeated position is not the same state: the turn and pick-up counters moved on,
    which is why they are left out of the comparison (and why a pure strategy may not read
    them)."""
    cfg = _config("seed", 3, ["lowest"])
    b = play_batch(cfg, 0, cfg.games, 1)
    g = int(np.flatnonzero(b.end == END_CYCLE)[0])
    stop, period = int(b.turns[g]), int(b.cycle_turns[g])
    rec = record_game(RunConfig(**{**_args(cfg), "cycle_stop": False}), g)
    states = {}
    st = rec.start.copy()
    for m in rec.moves[:stop]:
        apply_move(st, m)
        if int(st[TURN]) in (stop - period, stop):
            states[int(st[TURN])] = st.copy()
    a, z = states[stop - period], states[stop]
    differ = np.flatnonzero(a[:STATE_SIZE] != z[:STATE_SIZE])
    from sim.kernel.layout import BURNS
    assert set(differ) <= {TURN, BURNS} | set(range(PICKUPS, PICKUPS + 6))
    assert TURN in differ and any(PICKUPS <= i < PICKUPS + 6 for i in differ)
    assert a[BURNS] == z[BURNS]                       # nothing burns in a cycle


def _same_results(on, off, cfg):
    """Everything but the turns and pick-ups of unfinished games is identical."""
    done = off.status == FINISHED
    assert np.array_equal(on.status, off.status)
    assert np.array_equal(on.end == END_FINISHED, done)
    assert set(np.unique(on.end[~done])) <= {END_CAP, END_CYCLE}
    assert (off.end[~done] == END_CAP).all() and not off.cycle_turns.any()
    for name in ("order", "burns", "starter", "dealer", "triples", "hand_triples"):
        assert np.array_equal(getattr(on, name), getattr(off, name)), name
    assert np.array_equal(on.turns[done], off.turns[done])
    assert np.array_equal(on.pickups[done], off.pickups[done])
    assert (on.turns[~done] <= off.turns[~done]).all()
    assert (off.turns[~done] == cfg.max_turns).all()
    assert (on.turns[on.end == END_CAP] == cfg.max_turns).all()
    assert (on.cycle_turns[on.end == END_CYCLE] > 0).all()
    assert not on.cycle_turns[on.end != END_CYCLE].any()


@pytest.mark.parametrize("rules,players,strategies,max_turns", [
    (rules, players, strategies, 10_000) for rules, players, strategies in CYCLING
] + [
    ("seed", 6, ["lowest", "cheapest", "highest"], 10_000),
    ("seed", 4, ["highest"], 600),                   # long cycles: some found, some capped
    ({"base": "classic", "choose_face_ups": True}, 3, ["lowest", "cheapest"], 10_000),
])
def test_results_are_the_same_with_and_without_detection(rules, players, strategies,
                                                         max_turns):
    on_cfg = _config(rules, players, strategies, True, max_turns=max_turns)
    off_cfg = _config(rules, players, strategies, False, max_turns=max_turns)
    assert on_cfg.cycle_detect and not off_cfg.cycle_detect
    on, off = play_batch(on_cfg, 0, 600, 2), play_batch(off_cfg, 0, 600, 1)
    _same_results(on, off, on_cfg)
    assert (on.end == END_CYCLE).any() or not (off.status == UNFINISHED).any()
    if max_turns == 600:
        assert (on.end == END_CAP).any() and (on.end == END_CYCLE).any()
    # the summaries: the same but for the split of the unfinished and the turns played
    t_on, t_off = Tally(on_cfg), Tally(off_cfg)
    t_on.add(on)
    t_off.add(off)
    a, b = t_on.to_dict(), t_off.to_dict()
    for d in (a, b):
        d.pop("config")
        for k in ("unfinished_cap", "unfinished_cycle", "cycle_stop", "turns_played"):
            d["overall"].pop(k)
    assert json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)
    assert t_on.played <= t_off.played
    assert t_on.cycles == int((on.end == END_CYCLE).sum())


def test_detection_starts_once_the_impure_seats_are_out():
    """V2 (classic): a seat that is not pure (random) stops the detection only while it holds
    cards; once it is out, three highest seats go round for ever and are stopped. The
    results are those of the turn limit alone; a replay ends the same way; under seed rules
    (the game ends at the first out) nothing changes."""
    from sim.runs.onegame import record_game

    on = _config("classic", 4, ["random", "highest", "highest", "highest"], True)
    off = _config("classic", 4, ["random", "highest", "highest", "highest"], False)
    assert not on.cycle_detect and "on once its seats are out" in _words(on)
    a, b = play_batch(on, 0, 200, 2), play_batch(off, 0, 200, 1)
    _same_results(a, b, on)
    stopped = np.flatnonzero(a.end == END_CYCLE)
    assert stopped.size > 0 and a.turns.sum() < b.turns.sum() / 2
    for g in stopped:                        # the random seat (0) was out when it stopped
        assert 0 in a.order[g]
    rec = record_game(on, int(stopped[0]))
    assert rec.end == END_CYCLE and rec.cycle_turns == a.cycle_turns[stopped[0]]
    assert len(rec.moves) == a.turns[stopped[0]]
    for g in stopped[:5]:                    # the cycle really repeats (the game replayed)
        _, keys = _replay_keys(on, int(g))
        t, period = int(a.turns[g]), int(a.cycle_turns[g])
        assert np.array_equal(keys[t], keys[t - period])
    seed_rules = _config("seed", 4, ["random", "highest", "highest", "highest"], True)
    assert "on once" not in _words(seed_rules)
    assert not (play_batch(seed_rules, 0, 200, 1).end == END_CYCLE).any()


def test_the_stop_is_saved_as_facts_and_worded_by_the_reports():
    """Facts in the summary, words in reports: V2 with a pure seat beside an impure one
    starts once the impure seats are out; with every seat impure it never starts, and the
    words do not promise it (R25, V2); a summary saved with the words shows them."""
    mixed = _config("classic", 3, ["random", "lowest", "lowest"])
    assert cycle_facts(mixed) == {"asked": True, "impure": ["random"], "once_out": True}
    assert _words(mixed) == ("off: random is not declared pure (a function of the position "
                             "only); on once its seats are out (V2: the seats still to move "
                             "are then all pure)")
    every = _config("classic", 3, ["random"])
    assert cycle_facts(every) == {"asked": True, "impure": ["random"], "once_out": False}
    assert _words(every) == ("off: random is not declared pure (a function of the position "
                             "only)")
    assert _words(_config("seed", 3, ["lowest"])) == "on: every seat's strategy is pure"
    assert _words(_config("seed", 3, ["random"], False)) == "off (--no-cycle-stop)"
    assert cycle_stop_text("on: as saved before the facts") == "on: as saved before the facts"


def test_threads_and_batches_do_not_change_what_is_detected():
    cfg = _config("seed", 3, ["lowest"])
    whole = play_batch(cfg, 0, 600, 2)
    parts = [play_batch(cfg, first, 200, 1) for first in (0, 200, 400)]
    for name in ("status", "turns", "end", "cycle_turns", "pickups"):
        assert np.array_equal(getattr(whole, name),
                              np.concatenate([getattr(p, name) for p in parts])), name


def test_a_strategy_not_declared_pure_turns_detection_off():
    """counting reads the turn counter and draws from the rng; test-lowest-random-swap plays
    lowest's moves but is not declared pure: either one at the table means no detection."""
    cfg = _config("seed", 3, ["lowest", "lowest", "counting"])
    assert not cfg.cycle_detect and "counting" in _words(cfg)
    b = play_batch(cfg, 0, 300, 1)
    assert not (b.end == END_CYCLE).any() and not b.cycle_turns.any()
    undeclared = _config("seed", 3, ["test-lowest-random-swap"])
    assert not undeclared.cycle_detect
    assert "test-lowest-random-swap" in _words(undeclared)
    same = _config("seed", 3, ["lowest"], False, swaps=["random"])
    a, c = play_batch(undeclared, 0, 600, 1), play_batch(same, 0, 600, 1)
    assert (a.status == UNFINISHED).any()
    assert not (a.end == END_CYCLE).any()
    assert np.array_equal(a.turns, c.turns) and np.array_equal(a.end, c.end)
    # the swap policy does not matter (it acts before the first move): lowest with random
    # swaps is still pure, and its endless games are stopped
    pure = _config("seed", 3, ["lowest"], True, swaps=["random"])
    assert pure.cycle_detect
    _same_results(play_batch(pure, 0, 600, 1), c, pure)


def test_the_built_ins_that_are_pure():
    from sim.runs.registry import all_moves

    pure = {name for name, s in all_moves().items() if s.pure}
    assert {"lowest", "highest", "save-specials", "cheapest"} <= pure
    assert not pure & {"random", "counting", "montecarlo", "simple"}   # rng, TURN (§11.6)
    assert RunConfig(strategies=["save-specials(burn_pile=3)"]).cycle_detect   # parameters


_USER = '''
from strategies.basic import lowest
from sim.kernel.strategy import move_strategy


@move_strategy(description="lowest, in a user's file", pure={pure})
def mine(obs, hand, legal, rng, params):
    return lowest(obs, hand, legal, rng, params)
'''


@pytest.mark.parametrize("pure", [True, False])
def test_a_user_strategy_can_opt_in(tmp_path, pure):
    path = tmp_path / f"bot_{pure}.py"
    path.write_text(textwrap.dedent(_USER.format(pure=pure)))
    cfg = _config("seed", 3, [f"{path}:mine"])
    assert cfg.cycle_detect is pure
    b = play_batch(cfg, 0, 600, 1)
    assert bool((b.end == END_CYCLE).any()) is pure
    lowest = play_batch(_config("seed", 3, ["lowest"], pure, swaps=["none"]), 0, 600, 1)
    assert np.array_equal(b.status, lowest.status)
    assert np.array_equal(b.end, lowest.end) and np.array_equal(b.turns, lowest.turns)


def test_pure_must_be_a_bool():
    from sim.kernel.strategy import move_strategy

    with pytest.raises(TypeError, match="pure"):
        move_strategy("never-registered", pure="yes")


def test_brent_finds_every_cycle_at_the_predicted_step():
    """sim.kernel.cycle.seen_again on made-up sequences x_0, x_1, ... with a tail of ``mu`` and a
    cycle of ``lam`` (one value in one word of the position): Brent's algorithm finds the
    cycle at step 2**k - 1 + lam, k the least with 2**k - 1 >= mu and 2**k >= lam, and gives
    its length; a sequence that never repeats is never stopped."""
    from sim.kernel.layout import HANDN, HANDS

    for mu in range(0, 12):
        for lam in range(1, 12):
            seen = np.zeros(cycle.SIZE, np.int32)
            cycle.reset(seen)
            st = np.zeros(STATE_SIZE, np.int32)
            k = 0
            while not (2 ** k - 1 >= mu and 2 ** k >= lam):
                k += 1
            expect = 2 ** k - 1 + lam
            for i in range(expect + 1):
                x = i if i < mu else mu + (i - mu) % lam
                st[HANDS + 5] = x                      # a hidden word: the hands count too
                st[HANDN + 1] = 7                       # the same everywhere
                st[TURN] = 3 * i                        # counters are not compared
                st[PICKUPS] = i
                hit = cycle.seen_again(st, seen)
                assert hit == (i == expect), (mu, lam, i)
            assert seen[cycle.PERIOD] == 3 * lam
    seen = np.zeros(cycle.SIZE, np.int32)
    cycle.reset(seen)
    st = np.zeros(STATE_SIZE, np.int32)
    for i in range(3000):
        st[HANDS] = i
        assert not cycle.seen_again(st, seen)


# -- the reason in records, store, resume, CLI ------------------------------------------------
def test_store_records_the_reason_and_resume_still_works(tmp_path):
    cfg = RunConfig(games=1200, players=3, seed=5, strategies=["lowest"], batch=400,
                    threads=1)
    out = tmp_path / "run"
    whole = run(cfg, out=out)
    assert whole.cycles > 0
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["format"] == 4 and manifest["options"]["cycle_stop"] is True
    df = pd.concat(pd.read_parquet(p) for p in sorted((out / "games").glob("*.parquet")))
    by = df["unfinished_by"].astype(object)
    assert (by == "cycle").sum() == whole.cycles
    assert (by.isna() == ~df["unfinished"]).all()
    assert (df.loc[by == "cycle", "cycle_turns"] > 0).all()
    assert (df.loc[by != "cycle", "cycle_turns"] == 0).all()
    summary = json.loads((out / "summary.json").read_text())
    assert summary["overall"]["unfinished_cycle"] == whole.cycles
    assert summary["overall"]["unfinished_cap"] == whole.unfinished - whole.cycles
    # a killed run: one batch lost; --resume re-reads the others (the reasons too)
    (out / "games" / "part-00001.parquet").unlink()
    (out / "summary.json").unlink()
    again = run(cfg, out=out, resume=True)
    assert again.to_dict() == whole.to_dict()
    # the records depend on it, so a resume with detection switched is refused
    from sim.runs.store import StoreError
    off = RunConfig(**{**_args(cfg), "cycle_stop": False, "batch": 400})
    with pytest.raises(StoreError, match="cycle_stop"):
        run(off, out=out, resume=True)


def test_a_worker_gets_the_option():
    from sim.runs import backends

    cfg = RunConfig(games=10, players=3, strategies=["lowest"], cycle_stop=False)
    again = backends._worker_config(backends._spec(cfg))
    assert again.cycle_stop is False and not again.cycle_detect


def test_cli_json_text_and_replay(cli):
    args = ("run", "--games", "600", "--players", "3", "--seed", "5", "--threads", "1")
    on = json.loads(cli(*args, "--json").output)["overall"]
    off = json.loads(cli(*args, "--json", "--no-cycle-stop").output)["overall"]
    assert on["unfinished"] == off["unfinished"] > 0
    assert on["unfinished_cycle"] == on["unfinished"] and on["unfinished_cap"] == 0
    assert off["unfinished_cycle"] == 0 and off["unfinished_cap"] == off["unfinished"]
    assert on["cycle_stop"] == {"asked": True, "impure": [], "once_out": False}
    assert off["cycle_stop"] == {"asked": False, "impure": [], "once_out": False}
    assert on["turns_played"] < off["turns_played"]
    assert on["mean_turns"] == off["mean_turns"]
    text = cli(*args).output
    assert "stopped as endless" in text and "Stopping endless games: on" in text
    cfg = RunConfig(games=600, players=3, seed=5, strategies=["lowest"])
    g = int(np.flatnonzero(play_batch(cfg, 0, 600, 1).end == END_CYCLE)[0])
    shown = cli("replay", "--games", "600", "--players", "3", "--seed", "5", "--game", g).output
    assert "proven endless" in shown
    shown = cli("replay", "--games", "600", "--players", "3", "--seed", "5", "--game", g,
                "--no-cycle-stop").output
    assert "limit of 10000 turns" in shown
    listed = cli("strategies").output
    assert "default swap: highest-up; pure]" in listed          # lowest
    assert [ln for ln in listed.splitlines() if ln.strip().startswith("counting ")
            and "pure]" not in ln]


def test_compare_counts_the_reasons():
    from sim.studies.compare import compare

    t, info = compare(["lowest", "highest"], players=3, games=600, seed=5, threads=1)
    d = t.to_dict()
    assert d["unfinished_cycle"] > 0 and info["cycle_stop"] == {"asked": True, "impure": [],
                                                                 "once_out": False}
    assert d["unfinished_cap"] + d["unfinished_cycle"] == d["unfinished"]
    t2, info2 = compare(["lowest", "highest"], players=3, games=600, seed=5, threads=1,
                        cycle_stop=False)
    d2 = t2.to_dict()
    assert d2["unfinished_cycle"] == 0 and d2["unfinished"] == d["unfinished"]
    assert d2["per_strategy"] == d["per_strategy"]


@pytest.mark.slow
def test_study_swap_and_tune_take_no_cycle_stop(cli, tmp_path):
    """--no-cycle-stop reaches the swap study's and sim tune's games (recorded in their
    options); an old tuning saved without the option resumes as cycle_stop=True."""
    r = cli("study", "swap", "--games", "400", "--h2h-games", "100", "--no-cycle-stop",
            "--out", tmp_path / "s", "--json", "--quiet")
    assert r.exit_code == 0, r.output
    man = json.loads((tmp_path / "s" / "manifest.json").read_text())
    assert man["options"]["cycle_stop"] is False
    r = cli("tune", "save-specials", "--against", "lowest", "--trials", "2",
            "--games-per-trial", "40", "--no-cycle-stop", "--out", tmp_path / "t", "--json",
            "--quiet")
    assert r.exit_code == 0, r.output
    man = json.loads((tmp_path / "t" / "manifest.json").read_text())
    assert man["options"]["cycle_stop"] is False
    r = cli("tune", "save-specials", "--against", "lowest", "--trials", "3",
            "--games-per-trial", "40", "--out", tmp_path / "t", "--resume", "--json",
            "--quiet")
    assert r.exit_code != 0 and "cycle_stop" in r.output
