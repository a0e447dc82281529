"""Long work is safe to stop and to resume: Ctrl-C (here a
KeyboardInterrupt raised by a progress callback, or a stop event) ends play within a chunk,
passes on the games played so far, and --resume gives exactly the uninterrupted result."""
from __future__ import annotations

import json
import threading

import numpy as np
import pytest

from sim.runs.batch import play_batch
from sim.runs.partial import Interrupted
from sim.runs.config import RunConfig
from sim.runs.runner import games_to_play, run
from sim.studies.compare import compare


# Large enough that a stop lands mid-run: the pool's threads play ahead of the thread that
# reports progress, and a small run would be over before the stop is seen.
def _cfg(games=60_000, batch=20_000, threads=2):
    return RunConfig(games=games, players=4, seed=5, strategies=["lowest", "random"] * 2,
                     batch=batch, threads=threads)


def _stop_at(games):
    def progress(done):
        if done >= games:
            raise KeyboardInterrupt
    return progress


def test_a_stopped_batch_gives_its_first_games_as_played():
    """A stop event answered between chunks; the games played are a prefix of the batch and
    equal to the same games of an unstopped batch (games depend on seed and index only)."""
    cfg = _cfg(games=200_000, batch=200_000)
    whole = play_batch(cfg, 0, 200_000, 2)
    stop = threading.Event()
    seen = []

    def tick(games):
        seen.append(games)
        if sum(seen) >= 2000:
            stop.set()
    with pytest.raises(Interrupted) as e:
        play_batch(cfg, 0, 200_000, 2, stop=stop, tick=tick)
    part = e.value.partial.result
    assert 0 < part.status.size < 200_000 and e.value.partial.done == part.status.size
    for name in ("status", "order", "turns", "pickups"):
        np.testing.assert_array_equal(getattr(part, name), getattr(whole, name)[:part.status.size])


def test_a_stop_from_another_thread_is_answered_at_the_next_chunk():
    """A stop set while a long batch plays (here by a timer, as Ctrl-C's handler would) starts
    no chunk after it: each of the 2 threads finishes at most the chunk it holds (chunks are
    sized to about 0.15 s, which bounds the wait), and the games returned are those played."""
    cfg = _cfg(games=10_000_000, batch=10_000_000)
    seen = []

    class Stop(threading.Event):
        def set(self):
            self.ticks_before = len(seen)
            super().set()
    stop = Stop()

    def tick(games):
        if not seen:                                  # play is under way: stop in 0.5 s
            threading.Timer(0.5, stop.set).start()
        seen.append(games)
    with pytest.raises(Interrupted) as e:
        play_batch(cfg, 0, cfg.games, 2, stop=stop, tick=tick)
    assert stop.ticks_before >= 1
    assert len(seen) - stop.ticks_before <= 2         # the chunks in play when it came
    assert 0 < e.value.partial.result.status.size <= sum(seen) < cfg.games


def test_an_interrupted_run_passes_on_its_partial_tally():
    with pytest.raises(Interrupted) as e:
        run(_cfg(), progress=_stop_at(30_000))
    tally = e.value.partial.result
    assert 30_000 <= tally.games < 60_000 and tally.loaded == 0


def test_a_partial_has_one_shape_wherever_the_interrupt_lands():
    """Ctrl-C at the first games or mid-run: a run's partial is its Tally; a backend's a Batch
    (also for a batch played ahead, or an empty one); set once."""
    from sim.runs.backends import LocalBackend
    from sim.runs.batch import Batch
    from sim.runs.tally import Tally

    for stop_at in (1, 30_000):
        with pytest.raises(Interrupted) as e:
            run(_cfg(), progress=_stop_at(stop_at))
        p = e.value.partial
        assert isinstance(p.result, Tally) and p.done == p.result.games and p.of == 60_000
        assert stop_at <= p.done < 60_000 and "after" in p.describe()
    for todo in ([(0, 0, 1000)], [(0, 0, 1000), (1, 1000, 1000)]):     # alone; played ahead
        passed_on = []
        with pytest.raises(Interrupted) as e:
            for _, b in LocalBackend(2).play(_cfg(), todo, tick=_stop_at(1)):
                passed_on.append(b.status.size)     # a batch finished whole when it came
        p = e.value.partial
        assert isinstance(p.result, Batch) and p.done == p.result.status.size
        assert p.done + sum(passed_on) > 0           # what was played is kept, somewhere
    with pytest.raises(AttributeError):
        e.value.partial = None
    with pytest.raises(TypeError):
        Interrupted((0, None))


def test_a_resumed_run_counts_the_games_it_loaded(tmp_path):
    out = tmp_path / "run"
    with pytest.raises(Interrupted):
        run(_cfg(), out=out, progress=_stop_at(20_000))
    # what --resume's estimate and bar count: the games of the batches not saved yet
    left = games_to_play(_cfg(), out, resume=True)
    assert games_to_play(_cfg(), out) == 60_000 and 0 < left <= 40_000
    tally = run(_cfg(), out=out, resume=True)
    assert tally.games == 60_000 and 20_000 <= tally.loaded < 60_000   # games/s: the rest
    assert tally.loaded == 60_000 - left
    assert games_to_play(_cfg(), out, resume=True) == 0
    assert tally.to_dict() == run(_cfg(), out=tmp_path / "whole").to_dict()
    _same_totals(out, tmp_path / "whole")


def _same_totals(resumed, whole):
    """What sim.load (and so sim report's title and tables) reads of a resumed folder is
    that of the uninterrupted one: options, totals, seat and strategy tables."""
    import sim

    a, b = sim.load(resumed), sim.load(whole)
    assert a.manifest["state"] == b.manifest["state"] == "finished"
    assert _without_timings(a.summary) == _without_timings(b.summary)
    assert a.summary["overall"]["games"] == b.summary["overall"]["games"] > 0
    assert a.by_strategy.equals(b.by_strategy) and a.by_seat.equals(b.by_seat)


def _compare(**kw):
    return compare(["lowest", "random", "counting"], players=4, games=30_000, seed=3,
                   threads=2, block=1000, **kw)


def _without_timings(d):
    return json.loads(json.dumps(d, default=float))


def test_compare_interrupted_then_resumed_gives_the_uninterrupted_result(tmp_path):
    t, info = _compare(out=tmp_path / "whole")
    reference = _without_timings(dict(t.to_dict(), info=info))
    out = tmp_path / "cmp"
    with pytest.raises(Interrupted) as e:
        _compare(out=out, progress=_stop_at(7000))
    part, part_info = e.value.partial.result.tournament, e.value.partial.result.info
    assert 7000 <= part.games < 30_000 and part_info["stopped"] == "interrupted"
    saved = sorted((out / "games").glob("part-*.parquet"))
    assert 0 < len(saved) < 10 and (out / "manifest.json").exists()
    assert "partial" in json.loads((out / "compare.json").read_text())   # compare closed it
    assert json.loads((out / "manifest.json").read_text())["state"] == "partial"
    t2, info2 = _compare(out=out, resume=True)
    assert _without_timings(dict(t2.to_dict(), info=info2)) == reference
    assert json.loads((out / "manifest.json").read_text())["state"] == "finished"
    assert _without_timings(json.loads((out / "compare.json").read_text())) == reference
    _same_totals(out, tmp_path / "whole")


def test_compare_resume_refuses_other_options(tmp_path):
    from sim.runs.folder import StoreError

    out = tmp_path / "cmp"
    with pytest.raises(Interrupted):
        _compare(out=out, progress=_stop_at(7000))
    with pytest.raises(StoreError, match=r"cannot resume .*plan\.seed was 3, now 4"):
        compare(["lowest", "random", "counting"], players=4, games=30_000, seed=4, threads=2,
                block=1000, out=out, resume=True)
    with pytest.raises(StoreError, match="already holds"):
        _compare(out=out)


def _study(out, **kw):
    from sim.studies.swapstudy import swap_study

    return swap_study(out, players=3, games=12_000, h2h_games=2000, threads=2, batch=3000,
                      seed=4, **kw)


def _study_result(study):
    d = _without_timings(study)
    for key in ("split_file", "policy_file", "table_file", "split_policy", "table_policy"):
        d.pop(key)                        # paths of the folder
    for row in d["head_to_head"]:
        row.pop("spec")                   # split(file=PATH)
    return d


@pytest.fixture(scope="module")
def study_reference(tmp_path_factory):
    out = tmp_path_factory.mktemp("ref")
    return _study_result(_study(out)), out


@pytest.mark.slow
@pytest.mark.parametrize("stop_at", [7000, 15_000])  # in the values stage; the head-to-head
def test_swap_study_interrupted_then_resumed_gives_the_uninterrupted_result(
        tmp_path, stop_at, study_reference):
    reference, whole = study_reference
    out = tmp_path / "s"
    seen = []

    def progress(done):
        seen.append(done)
        if _total(seen) >= stop_at:
            raise KeyboardInterrupt

    def _total(values):          # progress counts per stage: add up the stages
        total, last = 0, 0
        for v in values:
            total += v - last if v >= last else v
            last = v
        return total
    with pytest.raises(Interrupted) as e:
        _study(out, progress=progress)
    stage = "values" if stop_at < 12_000 else "head-to-head"
    assert e.value.partial.stage == stage
    values = json.loads((out / "values.json").read_text())
    assert stage in values["partial"] and not (out / "summary.json").exists()
    assert json.loads((out / "manifest.json").read_text())["state"] == "partial"
    assert not (out / "study.json").exists()
    assert _study_result(_study(out, resume=True)) == reference
    _same_totals(out, whole)
    for name in ("values.json", "swap_values.csv", "policy.csv"):
        assert (out / name).read_text() == (whole / name).read_text()


@pytest.mark.slow
def test_swap_study_resume_refuses_other_options(tmp_path):
    from sim.runs.config import RunError

    out = tmp_path / "s"
    with pytest.raises(Interrupted):
        _study(out, progress=_stop_at(5000))
    with pytest.raises(RunError, match="seed"):
        from sim.studies.swapstudy import swap_study
        swap_study(out, players=3, games=12_000, h2h_games=2000, threads=2, batch=3000,
                   seed=5, resume=True)


def _tune_result(d):
    d = _without_timings(d)
    d.pop("seconds")
    for t in d["trials"]:
        t.pop("seconds")
    d["best"].pop("seconds")
    return d


@pytest.mark.slow
def test_tune_interrupted_then_resumed_gives_the_uninterrupted_result(tmp_path):
    from sim.studies.tune import tune

    args = dict(players=3, trials=14, games_per_trial=300, seed=2)   # 10 random, then TPE
    reference = _tune_result(tune("counting", ["lowest"], out=tmp_path / "whole", **args))
    out = tmp_path / "t"
    with pytest.raises(Interrupted) as e:
        tune("counting", ["lowest"], out=out, progress=_stop_at(12 * 300 + 150), **args)
    assert 11 < len(e.value.partial.result.trials) < 14 and e.value.partial.stage == "trials"
    resumed = tune("counting", ["lowest"], out=out, resume=True, **args)
    assert _tune_result(resumed) == reference
    assert _tune_result(json.loads((out / "tune.json").read_text())) == reference
    _same_totals(out, tmp_path / "whole")


def test_the_bar_says_compiling_until_the_first_games(monkeypatch):
    """An empty compile cache: the bar reads 'compiling (first run only)' until the first
    games are played, then its own label; a phase started meanwhile keeps saying so."""
    import sim.runs.batch as batch
    from sim.commands import common as options

    monkeypatch.setattr(batch, "compiled", lambda configs=None: False)
    monkeypatch.setattr(options.sys.stderr, "isatty", lambda: True, raising=False)
    with options.maybe_progress(True, 100, "value games") as progress:
        bar = progress.bar
        assert bar.tasks[0].description == options.COMPILING
        progress.phase("value games", 100)
        assert bar.tasks[-1].description == options.COMPILING
        progress(10)
        assert bar.tasks[-1].description == "value games"
        assert bar.tasks[-1].completed == 10
    monkeypatch.setattr(batch, "compiled", lambda configs=None: True)
    with options.maybe_progress(True, 100) as progress:
        assert progress.bar.tasks[0].description == "games"


def test_a_command_says_it_compiles_the_moment_numba_compiles(monkeypatch):
    """sim replay, analyze, review, play and its hint say, on stderr, the moment Numba starts
    compiling (a cold cache; options.compile_notice listens to Numba's compile events), in
    the words every command uses (options.say_compiling), once; code loaded from the cache,
    or --json / --quiet, say nothing."""
    import numba

    from sim.commands import common as options

    said = []
    monkeypatch.setattr(options, "_SAID", [False])
    monkeypatch.setattr(options, "_say", lambda text: said.append((text, True)))

    def fresh():                          # a function never compiled: Numba compiles it
        return numba.njit(lambda x: x + 1)
    with options.compile_notice(False):
        fresh()(1)
    assert said == []                     # --json, --quiet
    done = fresh()
    done(1)
    with options.compile_notice(True, "the playout kernel"):
        done(2)                           # compiled already: nothing to wait for
    assert said == []
    with options.compile_notice(True, "the playout kernel"):
        fresh()(1)
        fresh()(2)
    assert said == [(f"{options.COMPILING}: the playout kernel compiled and cached, seconds "
                     f"to a minute, once", True)]


# -- the time left: this run's own speed (sim.runs.estimate) -----------------------------------
def _truth_and_estimates(speeds, total, compile_s=15.0, step=1.0):
    """A run on a fake clock: ``compile_s`` seconds of nothing (a cold cache), then
    ``speeds[k]`` units a second in second ``k`` of play; (seconds truly left, estimate)
    at each progress update once the estimate is given."""
    from sim.runs.estimate import Eta

    t, done, k = compile_s, 0.0, 0
    eta = Eta(total, clock=lambda: t)
    eta.update(0, now=0.0)
    updates = []
    while done < total:
        rate = speeds[min(k, len(speeds) - 1)]
        done = min(total, done + rate * step)
        t += step
        k += 1
        updates.append((t, done, eta.update(done)))
    end = t
    return [(end - at, left) for at, done, left in updates if left is not None]


def test_the_time_left_follows_this_runs_own_speed():
    """With a fake clock: the estimate comes after 2 s of play, then stays within a factor
    of two of the time truly left, through a cold start and a noisy speed, a speed that
    drifts to half, and a stage that is slower from the start; never from another run."""
    rng = np.random.default_rng(0)
    noisy = list(10_000 * (1 + 0.2 * rng.standard_normal(3000)).clip(0.5, 1.5))
    drifting = [10_000 / (1 + k / 300) for k in range(3000)]         # slows to half by 300 s
    for speeds, total in ((noisy, 6_000_000), (drifting, 3_000_000), ([2_000] * 3000, 600_000)):
        pairs = _truth_and_estimates(speeds, total)
        assert pairs, "an estimate is given once the run has played 2 s"
        for truth, left in pairs:
            if truth >= 10:                 # the last seconds: any estimate is near 0
                assert 0.5 <= left / truth <= 2.0, (truth, left)
    # an estimate needs this run's play: nothing after the compile alone
    from sim.runs.estimate import Eta
    eta = Eta(1000, clock=lambda: 100.0)
    assert eta.update(0, now=0.0) is None and eta.update(0, now=100.0) is None


def test_the_bar_shows_the_time_left_of_this_run(monkeypatch):
    """The bar's last column is Eta's answer for the stage under way, reset at each phase."""
    from sim.commands import common as options
    from sim.runs import batch, estimate

    monkeypatch.setattr(options.sys.stderr, "isatty", lambda: True, raising=False)
    monkeypatch.setattr(batch, "compiled", lambda configs=None: True)
    clock = [0.0]
    monkeypatch.setattr(estimate.time, "monotonic", lambda: clock[0])
    with options.maybe_progress(True, 1000) as progress:
        for k in range(1, 6):
            clock[0] = float(k)
            progress(100 * k)
        assert progress.bar.tasks[-1].fields["left"] == "about 5 s left"
        progress.phase("head-to-head games", 500)
        assert progress.bar.tasks[-1].fields["left"] == ""


def test_duration_text():
    from sim.runs.estimate import duration_text

    assert [duration_text(s) for s in (0.2, 42, 600, 3 * 3600)] == [
        "about 1 s", "about 42 s", "about 10 min", "about 3.0 h"]


@pytest.mark.parametrize("args", [
    ["run", "--games", "2000"],
    ["compare", "lowest", "random", "--games", "300"],
    pytest.param(["study", "swap", "--players", "3", "--games", "300", "--h2h-games", "50"],
                 marks=pytest.mark.slow),
    ["tune", "counting", "--against", "lowest", "--players", "3", "--trials", "2",
     "--games-per-trial", "60"],
    ["study", "rules", "--only", "hand_size", "--games", "300", "--skill-deals", "20",
     "--mc-deals", "0"],
])
def test_every_long_command_keeps_stdout_for_its_answer(cli, tmp_path, args):
    """No estimate from elsewhere before the games (the time left is the bar's, from this
    run); with --json stdout is the JSON alone."""
    def out(name):                        # the swap study needs a folder
        return ["--out", tmp_path / name] if args[0] == "study" else []
    shown = cli(*args, *out("a"))
    assert shown.exit_code == 0, shown.output
    assert "(estimate)" not in shown.stderr
    quiet = cli(*args, "--json", *out("b"))
    assert json.loads(quiet.stdout)["kind"]


# -- an interrupted folder: sim report renders it labelled PARTIAL, or names --resume --------
def _report(path, tmp_path):
    from reports.html import write_report

    return write_report(path, tmp_path / "r.html")[0].read_text()


def _killed(out, *names):
    """The folder as a kill would have left it: without the files written on Ctrl-C."""
    for name in names:
        (out / name).unlink(missing_ok=True)


def test_an_interrupted_run_folder_names_resume(tmp_path):
    out = tmp_path / "run"
    with pytest.raises(Interrupted):
        run(_cfg(), out=out, progress=_stop_at(20_000))
    with pytest.raises(ValueError, match=r"did not finish.*sim run.*--out .*--resume"):
        _report(out, tmp_path)


def test_an_interrupted_compare_folder_is_reported_partial_or_names_resume(tmp_path):
    out = tmp_path / "cmp"
    with pytest.raises(Interrupted):
        _compare(out=out, progress=_stop_at(7000))
    page = _report(out, tmp_path)                       # Ctrl-C: the partial result saved
    assert "PARTIAL" in page and "--resume" in page
    _killed(out, "compare.json")                        # killed: the blocks and the manifest
    with pytest.raises(ValueError, match=r"compare.*did not finish.*sim compare.*--resume"):
        _report(out, tmp_path)
    _compare(out=out, resume=True)                      # and --resume reads it still


@pytest.mark.slow
def test_an_interrupted_swap_study_folder_is_reported_partial_or_names_resume(tmp_path):
    out = tmp_path / "s"
    with pytest.raises(Interrupted):
        _study(out, progress=_stop_at(7000))
    page = _report(out, tmp_path)
    assert "PARTIAL" in page and "--resume" in page
    _killed(out, "values.json")
    with pytest.raises(ValueError, match=r"swap-study.*did not finish.*sim study swap.*"
                                         r"--resume"):
        _report(out, tmp_path)


def test_an_interrupted_tuning_folder_is_reported_partial_or_names_resume(tmp_path):
    from sim.studies.tune import tune

    args = dict(players=3, trials=6, games_per_trial=300, seed=2)
    reference = _tune_result(tune("counting", ["lowest"], **args))
    out = tmp_path / "t"
    with pytest.raises(Interrupted):
        tune("counting", ["lowest"], out=out, progress=_stop_at(3 * 300 + 150), **args)
    page = _report(out, tmp_path)
    assert "PARTIAL" in page and "Best so far: trial" in page and "--resume" in page
    _killed(out, "tune.json")
    with pytest.raises(ValueError, match=r"tune.*did not finish.*[1-5] of 6 trials.*sim tune.*"
                                         r"--resume"):
        _report(out, tmp_path)
    resumed = tune("counting", ["lowest"], out=out, resume=True, **args)
    assert _tune_result(resumed) == reference
    assert "PARTIAL" not in _report(out, tmp_path)


# -- the Dask backend: tasks of a batch, progress, Ctrl-C, the same results -------------------
@pytest.fixture(scope="module")
def dask_client():
    distributed = pytest.importorskip("distributed")
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                       dashboard_address=None)
    client = distributed.Client(cluster)
    yield client
    client.close()
    cluster.close()


@pytest.mark.slow
def test_dask_plays_a_batch_as_tasks_with_progress_and_the_local_result(dask_client):
    from sim.runs.backends import DaskBackend

    ticks = []
    cfg = _cfg(games=6000, batch=2500)
    tally = run(cfg, progress=ticks.append, backend=DaskBackend(client=dask_client))
    assert tally.to_dict() == run(cfg).to_dict()
    assert len(ticks) > 3 and ticks[-1] == 6000        # more ticks than the 3 batches


@pytest.mark.slow
def test_dask_ctrl_c_passes_on_the_games_played(dask_client, tmp_path):
    from sim.runs.backends import DaskBackend

    cfg = _cfg(games=200_000, batch=50_000)
    out = tmp_path / "d"
    with pytest.raises(Interrupted) as e:
        run(cfg, out=out, progress=_stop_at(1000), backend=DaskBackend(client=dask_client))
    tally = e.value.partial.result
    assert 1000 <= tally.games < 200_000
    tally = run(cfg, out=out, resume=True, backend=DaskBackend(client=dask_client))
    assert tally.to_dict() == run(cfg).to_dict()


def test_batch_join_keeps_the_games_and_their_numbers():
    from sim.runs.batch import Batch

    cfg = _cfg(games=300)
    whole = play_batch(cfg, 0, 300, 1)
    parts = [play_batch(cfg, 0, 100, 1), play_batch(cfg, 100, 200, 1)]
    joined = Batch.join(parts)
    assert joined.numbers is None and joined.first == 0
    for name in ("status", "order", "turns", "pickups"):
        np.testing.assert_array_equal(getattr(joined, name), getattr(whole, name))
    gap = Batch.join([parts[0], play_batch(cfg, 200, 100, 1)])
    assert gap.games.tolist() == list(range(100)) + list(range(200, 300))
