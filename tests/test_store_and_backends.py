"""Runs that survive and scale: --out (Parquet records, manifest, summary), --resume after an
interruption or a kill, refused resumes, and the Dask backend giving the local result."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pandas as pd
import pytest

from sim.runs.runner import RunConfig, RunError, run
from sim.runs.store import StoreError


def cfg(**kw):
    base = dict(games=6000, players=4, seed=21, strategies=["lowest", "random"] * 2,
                batch=1000, threads=1)
    base.update(kw)
    return RunConfig(**base)


@pytest.fixture(scope="module")
def reference():
    return run(cfg()).to_dict()


def test_out_writes_records_manifest_and_summary(tmp_path, reference):
    out = tmp_path / "run"
    assert run(cfg(), out=out).to_dict() == reference
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["options"]["seed"] == 21 and manifest["batch"] == 1000
    assert {"numba", "numpy", "python", "code"} <= set(manifest["versions"])
    assert [s["strategy"]["name"] for s in manifest["strategies"]] == ["lowest", "random"] * 2
    assert json.loads((out / "summary.json").read_text()) == reference
    parts = sorted((out / "games").glob("part-*.parquet"))
    assert len(parts) == 6
    df = pd.concat(pd.read_parquet(p) for p in parts)
    assert df["game"].tolist() == list(range(6000))
    for col in ("winner", "turns", "burns", "unfinished", "order_0", "pickups_0",
                "strategy_0", "swap_3"):
        assert col in df
    wins = df.loc[~df["unfinished"], "winner"].value_counts().sort_index().tolist()
    assert wins == [s["wins"] for s in reference["by_seat"]]


def test_resume_after_interruption_gives_the_uninterrupted_result(tmp_path, reference):
    out = tmp_path / "run"

    def stop_after_three(done):
        if done >= 3000:
            raise KeyboardInterrupt
    with pytest.raises(KeyboardInterrupt):
        run(cfg(), out=out, progress=stop_after_three)
    # the batches whole when the stop came are saved: those counted, and any the pool's
    # threads finished ahead of the caller
    assert 3 <= len(list((out / "games").glob("part-*.parquet"))) < 6
    assert not (out / "summary.json").exists()
    (out / "games" / "part-00001.parquet").unlink()         # a lost batch is played again
    assert run(cfg(), out=out, resume=True).to_dict() == reference


@pytest.mark.slow
def test_resume_after_a_kill(tmp_path, reference):
    """SIGKILL in the middle of a run: only whole batches remain, and --resume completes it."""
    out = tmp_path / "run"
    args = [sys.executable, "-m", "sim.cli", "run", "--games", "6000", "--seed", "21",
            "-s", "lowest", "-s", "random", "-s", "lowest", "-s", "random", "--batch", "1000",
            "--threads", "1", "--out", str(out), "--json"]
    slow = args[:5] + ["60000"] + args[6:]                   # long enough to be killed
    proc = subprocess.Popen(slow, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 60
    while time.time() < deadline and len(list((out / "games").glob("part-*.parquet"))) < 2:
        time.sleep(0.05)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    # The killed run had 60,000 games: resuming with 6,000 is refused (options differ) ...
    r = subprocess.run(args + ["--resume"], capture_output=True, text=True)
    assert r.returncode == 2 and "options.games" in r.stderr
    # ... and resuming the same run completes it, counting every batch once.
    r = subprocess.run(slow + ["--resume"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    done = json.loads(r.stdout)
    assert done["overall"]["games"] == 60000
    first = pd.concat(pd.read_parquet(p) for p in sorted((out / "games").glob("*.parquet")))
    assert first["game"].tolist() == list(range(60000))


def test_out_refuses_an_existing_run_and_a_changed_resume(tmp_path):
    out = tmp_path / "run"
    run(cfg(games=2000), out=out)
    with pytest.raises(StoreError, match=r"already holds a saved folder \(run\); add --resume"):
        run(cfg(games=2000), out=out)
    with pytest.raises(StoreError, match=r"^cannot resume .*run: options\.seed was 21, now 22$"):
        run(cfg(games=2000, seed=22), out=out, resume=True)
    with pytest.raises(StoreError, match=r"batch"):
        run(cfg(games=2000, batch=500), out=out, resume=True)
    with pytest.raises(StoreError, match=r"options\.options\.ten_anywhere was false, now true"):
        run(cfg(games=2000, rules={"base": "seed", "ten_anywhere": True}), out=out, resume=True)
    with pytest.raises(RunError, match="--resume needs --out"):
        run(cfg(games=2000), resume=True)


def test_one_wording_for_a_folder_that_cannot_be_resumed(tmp_path):
    """Another kind's folder, a folder saved before the manifest said what must match, a
    folder without a manifest: one line each, from the one owner of saved folders."""
    from sim.studies.compare import compare

    out = tmp_path / "run"
    run(cfg(games=1000), out=out)
    with pytest.raises(StoreError, match=r"^cannot resume .*: it holds a run folder, not a "
                                         r"compare one$"):
        compare(["lowest", "random"], players=2, games=100, out=out, resume=True)
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["state"] == "finished" and manifest["match"]["batch"] == 1000
    manifest.pop("match")
    (out / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(StoreError, match=r"^cannot resume .*older version"):
        run(cfg(games=1000), out=out, resume=True)
    with pytest.raises(StoreError, match=r"^cannot resume .*no manifest\.json"):
        run(cfg(games=1000), out=tmp_path / "new", resume=True)


def test_unwritable_out_is_a_clear_error(cli, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    r = cli("run", "--games", "100", "--out", blocker / "sub")
    assert r.exit_code == 2 and "cannot write" in r.output and "Traceback" not in r.output


@pytest.mark.parametrize("args,message", [
    (("--games", "0"), "--games"),
    (("--threads", "0"), "--threads"),
    (("--batch", "0"), "--batch"),
    (("--backend", "spark"), "--backend"),
    (("--workers", "2"), "--backend dask"),
    (("--backend", "dask", "--workers", "0"), "--workers"),
    (("--backend", "dask", "--scheduler", "tcp://127.0.0.1:9", "--workers", "1"), "not both"),
])
def test_bad_run_options(cli, args, message):
    r = cli("run", *args)
    assert r.exit_code == 2 and message in r.output and "Traceback" not in r.output


@pytest.mark.slow
def test_unreachable_scheduler_is_a_clear_error(cli):
    r = cli("run", "--games", "100", "--backend", "dask", "--scheduler", "tcp://127.0.0.1:9")
    assert r.exit_code == 2 and "cannot reach the Dask scheduler" in r.output


@pytest.mark.slow
def test_same_summary_whatever_threads_batches_and_backend(tmp_path, reference):
    """Bit-identical: 1 or 2 threads, any batch size, local or Dask (a LocalCluster of two
    worker processes, with a user's strategy file resolved on the workers)."""
    from sim.runs.backends import DaskBackend

    assert run(cfg(threads=2, batch=2500)).to_dict() == reference
    bots = tmp_path / "bots.py"
    bots.write_text("from strategies.basic import lowest as _l\n"
                    "from sim.kernel.strategy import move_strategy\n\n"
                    "@move_strategy(description='lowest, from a user file', swap='highest-up')\n"
                    "def mine(obs, hand, legal, rng, params):\n"
                    "    return _l(obs, hand, legal, rng, params)\n")
    spec = f"{bots}:mine"
    local = run(cfg(strategies=[spec, "random"] * 2, batch=1500)).to_dict()
    backend = DaskBackend(workers=2)
    try:
        distributed = run(cfg(strategies=[spec, "random"] * 2, batch=700),
                          backend=backend).to_dict()
        same = run(cfg(batch=1000), backend=backend).to_dict()
    finally:
        backend.close()
    assert distributed == local
    assert same == reference
    # The user strategy plays like the built-in it wraps.
    assert [s["wins"] for s in local["by_seat"]] == [s["wins"] for s in reference["by_seat"]]


def test_resume_is_refused_when_a_value_table_changed(tmp_path):
    """The manifest records a hash of each seat's parameters, e.g. a swap table's contents."""
    from strategies.swaps import write_table

    table = tmp_path / "t.csv"
    write_table(table, {("2", "10", "A"): 1.0})
    spec = f"table(file={table})"
    out = tmp_path / "run"
    run(cfg(games=2000, swaps=[spec]), out=out)
    write_table(table, {("2", "10", "A"): 1.0, ("3", "4", "5"): 2.0})
    with pytest.raises(StoreError, match="swap_params"):
        run(cfg(games=2000, swaps=[spec]), out=out, resume=True)


def test_a_bad_table_file_fails_before_anything_is_written(tmp_path):
    out = tmp_path / "run"
    with pytest.raises(RunError, match="no such file|not found|No such file|does not exist"):
        run(cfg(games=100, swaps=[f"table(file={tmp_path / 'missing.csv'})"]), out=out)
    assert not out.exists()


def test_the_run_modules_import_one_way():
    """Config <- batch <- store, backends <- runner; no module below imports one
    above it, not even inside a function (the old knot of function-level imports)."""
    import ast
    from pathlib import Path

    order = ["config", "batch", "store", "backends", "runner"]
    root = Path(__file__).resolve().parents[1] / "sim" / "runs"
    for i, name in enumerate(order):
        tree = ast.parse((root / f"{name}.py").read_text())
        imported = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module:
                imported.add(node.module)
                imported.update(f"{node.module}.{a.name}" for a in node.names)
            elif isinstance(node, ast.Import):
                imported.update(a.name for a in node.names)
        above = {f"sim.runs.{later}" for later in order[i + 1:]}
        assert not imported & above, (name, imported & above)


def test_the_local_backend_plays_the_next_batch_while_the_caller_holds_this_one():
    """LocalBackend plays the batches as one stream on the pool: the next ones are played
    while the caller holds one (its tally and saving overlap them), they are yielded in
    order, and the caller can stop part way."""
    from sim.runs import backends, workers

    todo = [(0, 0, 2000), (1, 2000, 2000), (2, 4000, 2000)]
    whole = dict(backends.LocalBackend(1).play(cfg(), todo))
    play = backends.LocalBackend(1).play(cfg(), todo)
    before = workers.stats()["units"]
    index, first = next(play)
    deadline = time.time() + 10
    while workers.stats()["units"] - before < 4000 and time.time() < deadline:
        time.sleep(0.01)              # the caller holds batch 0: the pool plays on
    assert index == 0 and workers.stats()["units"] - before >= 4000
    index, second = next(play)
    assert index == 1 and np.array_equal(second.turns, whole[1].turns)
    play.close()                          # the caller stops part way (an error, Ctrl-C)
    assert [i for i, _ in backends.LocalBackend(1).play(cfg(), todo)] == [0, 1, 2]


def test_workers_writing_one_strategy_file_at_once_do_not_collide(tmp_path, monkeypatch):
    """Two workers of one machine ship the same user file at once (CI caught the race: both
    wrote ``bots.tmp`` and one renamed the other's away)."""
    from concurrent.futures import ThreadPoolExecutor

    import sim.kernel.compiler as compiler
    from sim.runs import backends

    monkeypatch.setattr(compiler, "cache_dir", lambda: tmp_path / "numba")
    source = "def mine(obs, hand, legal, rng, params):\n    return 0\n" * 2000
    for attempt in range(5):
        text = source + f"# {attempt}\n"
        with ThreadPoolExecutor(8) as pool:
            paths = list(pool.map(lambda _: backends._materialize("/x/bots.py:mine", text),
                                  range(16)))
        assert len(set(paths)) == 1 and paths[0].read_text() == text
    assert not list((tmp_path / "user").rglob("*.tmp"))


@pytest.mark.parametrize("args", [
    ("run", "--games", "10"),
    ("analyze", "docs/examples/midgame-seed-4p.json", "--rollouts", "10"),
    ("swap", "4", "5", "6", "9", "10", "K", "--deals", "10"),
])
def test_a_seed_out_of_range_is_refused_in_one_line_by_every_command(cli, args):
    """One check of the seed (sim.runs.config.check_seed) for runs, analyses and the swap
    advisor: an integer from 0 to 2**63-1, since it seeds every game's stream."""
    r = cli(*args, "--seed", str(2**63))
    assert r.exit_code == 2 and "Traceback" not in r.output
    assert "--seed: expected an integer from 0 to 2**63-1" in r.output


def test_a_stop_advises_resume_only_for_a_folder_that_was_saved(tmp_path):
    """A Ctrl-C in the first seconds may come before the folder's manifest is written:
    then ``--resume`` would be refused, so it is not advised; once saved, it is."""
    from sim.runs.folder import MANIFEST, resume_advice

    assert resume_advice(None, "the finished batches are") == ""
    out = tmp_path / "run"
    assert "--resume" not in resume_advice(out, "x").replace("without --resume", "")
    assert "nothing was saved" in resume_advice(out, "x")
    out.mkdir()
    (out / MANIFEST).write_text('{"kind": "run"}')
    assert resume_advice(out, "the finished batches are") == (
        f"; the finished batches are in {out}, continue with --resume")


def test_an_unfinished_review_is_run_again_not_resumed(tmp_path):
    """``sim review`` has no --resume: its unfinished folder says to run it again."""
    from sim.runs.saved import unfinished

    said = unfinished(tmp_path, {"kind": "review"}, "review.json")
    assert "--resume" not in said and "Run `sim review` again" in said
    assert "--resume" in unfinished(tmp_path, {"kind": "compare"}, "compare.json")
