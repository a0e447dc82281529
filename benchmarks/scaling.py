"""Speed at every thread count: each long command's work per second at 1, 2, 4, ... threads
up to this machine's cores, its speed-up and efficiency, the reference kernel's beside
``sim run``'s, the serial work per unit, and the speed-up that serial work predicts at 16
and 64 threads.

    python benchmarks/scaling.py                        # about a minute per command on one thread
    python benchmarks/scaling.py --scale 0.1            # a tenth of it: a quick look
    python benchmarks/scaling.py --commands run,analyze --threads 1,2 --out FILE.md

Every command's work is the same at every thread count (its result too: it depends on the
seed and options alone); it is run once small to load the compiled code, then timed at each
thread count (the median of ``--reps``), in this one process.

**The serial part.** The process's pool of threads (:mod:`sim.runs.workers`) counts the
seconds its threads spend in chunks of work (``busy``): the parallel part. What the wall
clock holds beyond ``busy / T`` at ``T`` threads is the serial part, ``S(T) = wall - busy /
T``: the command's own set-up, the main thread's work the threads had to wait for, the tail
of the last chunks, and the threads' waits for each other. The call of the core that starts
each chunk holds Python's GIL (``call``, measured once, times the chunks), so it is counted
in the serial part too, not the parallel. Amdahl's law, from the largest ``S`` measured and
the one-thread parallel part ``P``, predicts the speed-up at ``N`` threads as ``(S1 + P) /
(S + P / N)``, and the efficiency as that over ``N``. ``main``: the main thread's own CPU
time per unit (tallying, saving, optimiser), done while the threads play, but a limit when
the threads outrun it (at ``N >= P / main``): the prediction is capped there.

On a 2-core machine the prediction is what can be checked; where a machine with more cores
is at hand, run this there and compare (benchmarks/results/scaling-*.md).
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numba
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = next((p / "shared" / "reference" for p in ROOT.parents
                  if (p / "shared" / "reference").is_dir()), None)


# -- the work of each command, at a given scale (1.0: about a minute on one thread here) --------
def work_run(scale, threads):
    from sim.runs.config import RunConfig
    from sim.runs.runner import run
    games = max(20_000, int(20_000_000 * scale))
    tally = run(RunConfig(games=games, players=4, seed=1, threads=threads))
    return tally.games, "games"


def work_run_out(scale, threads):
    from sim.runs.config import RunConfig
    from sim.runs.runner import run
    games = max(20_000, int(10_000_000 * scale))
    with tempfile.TemporaryDirectory() as d:       # every game's record saved (Parquet)
        tally = run(RunConfig(games=games, players=4, seed=1, threads=threads),
                    out=Path(d) / "r")
    return tally.games, "games"


def work_compare(scale, threads):
    from sim.studies.compare import compare
    games = max(300, int(9000 * scale) // 3 * 3)
    t, _ = compare(["lowest", "counting", "montecarlo"], players=4, games=games, seed=1,
                   threads=threads)
    return t.games, "games"


def work_study_swap(scale, threads):
    from sim.studies.swapstudy.study import swap_study
    games = max(20_000, int(3_000_000 * scale))
    with tempfile.TemporaryDirectory() as d:
        s = swap_study(Path(d) / "s", players=4, games=games, seed=1, threads=threads)
    return s["games"] + sum(r["games"] for r in s["head_to_head"]), "games"


def work_study_rules(scale, threads):
    from sim.studies.ruleslab.study import rules_lab
    r = rules_lab(players=4, seed=1, games=max(2000, int(40_000 * scale)),
                  skill_deals=max(500, int(10_000 * scale)),
                  mc_deals=max(20, int(100 * scale) // 20 * 20), threads=threads)
    return r["games_played"], "games"


def work_tune(scale, threads):
    from sim.studies.tune import tune
    trials, per_trial = max(4, int(40 * scale)), 200_000
    r = tune("counting", ["lowest", "random"], players=4, trials=trials,
             games_per_trial=per_trial, seed=1, threads=threads)
    return trials * per_trial + 2 * r["options"]["fresh_games"], "games"


def _position():
    from sim.studies.view import state_of
    data = json.loads((ROOT / "docs" / "examples" / "midgame-seed-4p.json").read_text())
    return state_of(data)[0]


def work_analyze(scale, threads):
    from sim.studies.analysis import analyze_state
    a = analyze_state(_position(), rollouts=max(1000, int(800_000 * scale)), seed=1,
                      threads=threads)
    return int(np.isfinite(a.scores).sum()), "playouts"


_GAME = {}


def _game():
    """A game of a run (seed 7, game 3), as ``sim replay --save`` saves it."""
    if not _GAME:
        from sim.commands.savedgame import run_record
        from sim.runs.config import RunConfig
        from sim.runs.onegame import record_game
        cfg = RunConfig(games=4, players=4, seed=7)
        _GAME["g"] = run_record(cfg, 3, record_game(cfg, 3))
    return _GAME["g"]


def work_review(scale, threads):
    from sim.studies.review import review
    r = review(_game(), 1, rollouts=max(200, int(36_000 * scale)), threads=threads)
    return sum(d.worlds * d.moves for d in r.decisions), "playouts"


def work_swap(scale, threads):
    from sim.studies.swapstudy.advice import by_playouts
    from sim.commands.swap import read_cards
    a = by_playouts(read_cards("4 5 6 9 10 K"), players=4,
                    deals=max(1000, int(800_000 * scale)), seed=1, threads=threads)
    return a["games"], "games"


COMMANDS = {"run": work_run, "run-out": work_run_out, "compare": work_compare, "study-swap": work_study_swap,
            "study-rules": work_study_rules, "tune": work_tune, "analyze": work_analyze,
            "review": work_review, "swap": work_swap}


# -- measuring ---------------------------------------------------------------------------------
def call_cost() -> float:
    """Seconds of one call of the core that plays one game, less the game: what a chunk's
    start holds the GIL for."""
    from sim.runs.batch import start
    from sim.runs.config import RunConfig
    from sim.runs.workers import Group

    cfg = RunConfig(games=10, players=4)
    with Group(1) as g:
        p = start(g, cfg, 0, 1)
        g.wait(p.jobs)
        block = p.job.block
    for _ in range(50):
        block(0, 1)
    times = []
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(400):
            block(0, 1)
        times.append((time.perf_counter() - t0) / 400)
    return statistics.median(times)


def timed(fn, scale, threads):
    """(wall s, busy s, chunks, main-thread CPU s, units, unit name) of one run of ``fn``."""
    from sim.runs import workers
    s0 = workers.stats()
    c0 = time.thread_time()
    t0 = time.perf_counter()
    units, what = fn(scale, threads)
    wall = time.perf_counter() - t0
    main = time.thread_time() - c0
    s1 = workers.stats()
    return wall, s1["busy"] - s0["busy"], s1["chunks"] - s0["chunks"], main, units, what


def reference_rates(threads_list, seconds):
    """The reference kernel's 4-player greedy games/s at each thread count (None if absent)."""
    if REFERENCE is None:
        return None
    sys.path.insert(0, str(REFERENCE))
    import limit_kernel as k
    k.run_batch(2000, 4, 1, 1, 10_000)
    out = {}
    for t in threads_list:
        numba.set_num_threads(t)
        n = 200_000
        while True:
            t0 = time.perf_counter()
            k.run_batch(n, 4, 1, 1, 10_000)
            dt = time.perf_counter() - t0
            if dt > seconds / 3 or n > 1e8:
                break
            n *= 4
        rates = []
        for rep in range(3):
            t0 = time.perf_counter()
            k.run_batch(n, 4, 1, rep + 2, 10_000)
            rates.append(n / (time.perf_counter() - t0))
        out[t] = statistics.median(rates)
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    return out


def predict(rows, call):
    """Amdahl's prediction from the measured rows of one command: (S, P, main, {N: speed-up})."""
    one = next(r for r in rows if r["threads"] == 1)
    p = one["busy"] - one["chunks"] * call
    serial = max(r["wall"] - (r["busy"] - r["chunks"] * call) / r["threads"] for r in rows)
    serial = max(serial, 0.0)
    main = one["main"]
    out = {}
    for n in (16, 64):
        t = serial + p / n
        if main > 0:
            t = max(t, main)          # the main thread's own work: done meanwhile, but a floor
        out[n] = one["wall"] / t
    return serial, p, main, out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    cores = numba.config.NUMBA_NUM_THREADS
    default = [t for t in (1, 2, 4, 8, 16, 32, 64, 128) if t < cores] + [cores]
    ap.add_argument("--threads", default=",".join(str(t) for t in sorted(set(default))),
                    help="thread counts, comma-separated (default: 1, 2, 4, ... the cores)")
    ap.add_argument("--commands", default=",".join(COMMANDS),
                    help=f"commands, comma-separated (default all: {', '.join(COMMANDS)})")
    ap.add_argument("--scale", type=float, default=1.0,
                    help="work per command: 1.0 is about a minute on one thread of a 2-core "
                         "AMD EPYC (default 1.0)")
    ap.add_argument("--reps", type=int, default=1, help="timed runs per cell (median)")
    ap.add_argument("--out", type=Path, help="also write the table (Markdown) here")
    ap.add_argument("--json", type=Path, help="also write every measurement (JSON) here")
    a = ap.parse_args(argv)
    threads_list = [int(t) for t in a.threads.split(",")]
    if 1 not in threads_list:
        threads_list = [1] + threads_list
    names = [c.strip() for c in a.commands.split(",") if c.strip()]
    bad = [c for c in names if c not in COMMANDS]
    if bad:
        ap.error(f"unknown command(s) {', '.join(bad)}; known: {', '.join(COMMANDS)}")

    from sim.kernel.compiler import install
    install()
    call = call_cost()
    lines = [f"# Scaling: {platform.processor() or platform.machine()}, {cores} cores "
             f"(NUMBA_NUM_THREADS), Python {platform.python_version()}, Numba "
             f"{numba.__version__}, {time.strftime('%Y-%m-%d')}",
             "",
             f"`python benchmarks/scaling.py --scale {a.scale} --threads {a.threads} "
             f"--reps {a.reps}`; load before: {os.getloadavg()[0]:.2f}. A chunk's call of the "
             f"core: {call * 1e6:.0f} us (counted serial).",
             "",
             "| command | threads | units/s | speed-up | efficiency | serial us/unit | "
             "main us/unit | chunks |",
             "|---|---|---|---|---|---|---|---|"]
    print("\n".join(lines), flush=True)
    record = {"call": call, "cores": cores, "scale": a.scale, "commands": {}}
    summary = []
    for name in names:
        fn = COMMANDS[name]
        fn(a.scale / 50, 1)                               # load (or compile) what it uses
        rows = []
        for t in threads_list:
            runs = [timed(fn, a.scale, t) for _ in range(a.reps)]
            wall, busy, chunks, main_cpu, units, what = sorted(runs)[len(runs) // 2]
            rows.append({"threads": t, "wall": wall, "busy": busy, "chunks": chunks,
                         "main": main_cpu, "units": units, "what": what})
        one = rows[0]
        for r in rows:
            r["speedup"] = one["wall"] / r["wall"]
            r["serial"] = r["wall"] - (r["busy"] - r["chunks"] * call) / r["threads"]
            line = (f"| {name} | {r['threads']} | {r['units'] / r['wall']:,.0f} {r['what']}/s | "
                    f"{r['speedup']:.2f}x | {r['speedup'] / r['threads']:.2f} | "
                    f"{max(r['serial'], 0) / r['units'] * 1e6:.3f} | "
                    f"{r['main'] / r['units'] * 1e6:.3f} | {r['chunks']} |")
            lines.append(line)
            print(line, flush=True)
        serial, p, main_cpu, pred = predict(rows, call)
        summary.append((name, serial, p, main_cpu, one, pred))
        record["commands"][name] = {"rows": rows, "serial": serial, "parallel": p,
                                    "predicted": pred}
    ref = reference_rates(threads_list, 3.0) if "run" in names else None
    more = []
    if ref:
        run_rows = record["commands"]["run"]["rows"]
        more += ["", "Reference kernel (../shared/reference, 4p greedy, prange) beside "
                  "`sim run` (4p lowest):", "",
                  "| threads | reference games/s | speed-up | sim run games/s | ratio |",
                  "|---|---|---|---|---|"]
        for r in run_rows:
            rr = ref[r["threads"]]
            more.append(f"| {r['threads']} | {rr:,.0f} | {rr / ref[1]:.2f}x | "
                         f"{r['units'] / r['wall']:,.0f} | {r['units'] / r['wall'] / rr:.2f} |")
        record["reference"] = ref
    more += ["", "Prediction (Amdahl's law from the serial part measured, module docstring):",
              "", "| command | one thread s | serial s (largest) | serial share | main s | "
              "16 threads | 64 threads |", "|---|---|---|---|---|---|---|"]
    for name, serial, p, main_cpu, one, pred in summary:
        more.append(f"| {name} | {one['wall']:.1f} | {serial:.2f} | "
                     f"{serial / one['wall']:.2%} | {main_cpu:.2f} | {pred[16]:.1f}x "
                     f"({pred[16] / 16:.2f}) | {pred[64]:.1f}x ({pred[64] / 64:.2f}) |")
    print("\n".join(more), flush=True)
    lines += more
    if a.out:
        a.out.write_text("\n".join(lines) + "\n")
    if a.json:
        a.json.write_text(json.dumps(record, indent=1, default=float))


if __name__ == "__main__":
    main()
