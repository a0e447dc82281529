"""Agent-steps per second of the learning environments (sim.env), random legal actions, beside
`sim run`'s turns per second on the same table: the batched tables (sim.env.vector) on 1 and
2 threads, the AEC environment (sim.env.aec) stepped from Python.

    python benchmarks/env_speed.py [--players 4] [--tables 4096] [--seconds 3] [--rules seed]
                                   [--swap highest-up|choose]

The batched figure includes drawing the random actions (sim.env.vector.random_legal); the
target is 1,000,000 agent-steps/s on one core at 4 players.
"""
from __future__ import annotations

import argparse
import time

import numpy as np

from sim.env.vector import VectorTables
from sim.kernel.rng import seed_game


def batched(players, tables, seconds, rules, threads, swap="highest-up"):
    v = VectorTables(tables, players=players, rules=rules, threads=threads, swap=swap)
    v.reset(seed=1)
    rng = np.zeros(4, np.uint64)
    seed_game(rng, np.uint64(2), 0)
    actions = np.zeros(tables, np.int64)
    for _ in range(20):                                   # compile and warm up
        v.step(v.random_actions(rng, actions))
    steps, t0, acting = 0, time.perf_counter(), 0.0
    while time.perf_counter() - t0 < seconds:
        ta = time.perf_counter()
        v.random_actions(rng, actions)
        acting += time.perf_counter() - ta
        v.step(actions)
        steps += tables
    wall = time.perf_counter() - t0
    calls = steps // tables
    # the random actions (the stand-in for a learner's policy, on the main thread) and the
    # step, per call: where a step's time goes
    return steps / wall, 1e3 * acting / calls, 1e3 * (wall - acting) / calls


def aec(players, seconds, rules, swap="highest-up"):
    from sim.env.aec import ShitheadEnv

    env = ShitheadEnv(players=players, rules=rules, swap=swap)
    gen = np.random.default_rng(1)
    env.reset(seed=1)
    steps, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        if not env.agents:
            env.reset()
            continue
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        env.step(int(gen.choice(np.flatnonzero(obs["action_mask"]))))
        steps += 1
    return steps / (time.perf_counter() - t0)


def sim_run(players, seconds, rules):
    from sim.runs.runner import RunConfig, play_batch

    cfg = RunConfig(games=1, players=players, seed=1, strategies=["random"], rules=rules)
    play_batch(cfg, 0, 500, 1)
    n, t0 = 2000, time.perf_counter()
    b = play_batch(cfg, 0, n, 1)
    dt = time.perf_counter() - t0
    n = max(n, int(n * seconds / dt))
    t0 = time.perf_counter()
    b = play_batch(cfg, 0, n, 1)
    return b.turns.sum() / (time.perf_counter() - t0)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--tables", type=int, default=4096)
    ap.add_argument("--seconds", type=float, default=3.0)
    ap.add_argument("--rules", default="seed")
    ap.add_argument("--swap", default="highest-up",
                    help="every seat's swap policy, or 'choose': the swap is an action")
    a = ap.parse_args()
    print(f"{a.players} players, {a.rules} rules, swap {a.swap}, random legal actions")
    for threads in (1, 2):
        rate, acting, step = batched(a.players, a.tables, a.seconds, a.rules, threads, a.swap)
        print(f"batched env, {a.tables} tables, {threads} thread(s): {rate:>12,.0f} agent-steps/s"
              f" (a call: random actions {acting:.2f} ms, step {step:.2f} ms)", flush=True)
    print(f"AEC env (PettingZoo, Python loop):        {aec(a.players, a.seconds, a.rules, a.swap):>12,.0f}"
          f" agent-steps/s", flush=True)
    print(f"sim run (random, 1 thread):               {sim_run(a.players, a.seconds, a.rules):>12,.0f}"
          f" turns/s", flush=True)


if __name__ == "__main__":
    main()
