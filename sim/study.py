"""The face-up swap study: which face-up cards should a player keep?

1. **Values.** Every seat plays ``strategy`` with *random* swaps (so every face-up triple a
   player can hold turns up), and each seat's face-up triple after the swap is recorded
   (sim.core.triple_code). A triple's value is the win rate of the seats that held it, with
   its sample size and 95% Wilson interval (under V2: the share of the other seats finished
   behind).
2. **Best policy.** The values become a value table (``swap_values.csv``, the format of the
   ``table`` swap policy): ``table(file=DIR/swap_values.csv)`` keeps, of the 20 ways to put 3
   of its 6 cards face up, the triple of highest value.
3. **Head-to-head.** The table policy against every built-in swap policy, same move
   strategy for everyone, seats alternating (T P T P ... then P T P T ... on the same deals:
   duplicate deals). Per deal, the difference between the table seats' and the other seats'
   win rates; its mean, 95% interval and a two-sided p-value (t-test over deals, scipy).
"""
from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np

from sim.cards import NAMES, NRANK
from sim.layout import MAXP
from sim.runner import RunConfig, RunError, batches, play_batch

SIZE = NRANK ** 3
BUILTIN_SWAPS = ("none", "random", "highest-up", "specials-up", "lowest-hand")


def triple_names(code: int) -> list[str]:
    return [NAMES[code // (NRANK * NRANK)], NAMES[code // NRANK % NRANK], NAMES[code % NRANK]]


def _seat_scores(b, players, v2):
    """(n, players) score of each seat: 1 for the winner (seed), place share under V2."""
    done = b.status == 0
    score = np.zeros((b.status.size, players))
    for pos in range(players - 1 if v2 else 1):
        seat = b.order[:, pos].astype(np.int64)
        ok = done & (seat >= 0)
        value = 1.0 if not v2 else (players - 1 - pos) / (players - 1)
        score[np.flatnonzero(ok), seat[ok]] = value
    return score, done


def triple_values(players, games, seed, rules, strategy, threads, progress=None):
    """Phase 1: per triple code, seat-games and summed score."""
    cfg = RunConfig(games=games, players=players, seed=seed, strategies=[strategy],
                    swaps=["random"], rules=rules, threads=threads)
    v2 = bool(cfg.options["last_player_loses"])
    count = np.zeros(SIZE, np.int64)
    score = np.zeros(SIZE)
    done_games = unfinished = 0
    for _, first, n in batches(cfg):
        b = play_batch(cfg, first, n, threads)
        seat_score, done = _seat_scores(b, players, v2)
        unfinished += int((~done).sum())      # counted here, left out of the values
        codes = b.triples[:, :players].astype(np.int64)
        valid = done[:, None] & (codes >= 0)
        count += np.bincount(codes[valid], minlength=SIZE)
        score += np.bincount(codes[valid], weights=seat_score[valid], minlength=SIZE)
        done_games += n
        if progress:
            progress(done_games)
    return count, score, unfinished


def head_to_head(table_spec, other, players, games, seed, rules, strategy, threads):
    """Phase 3: table policy vs ``other`` on duplicate deals; per-deal paired differences."""
    from scipy import stats

    patterns = [[table_spec if s % 2 == r else other for s in range(players)] for r in (0, 1)]
    cfgs = [RunConfig(games=games, players=players, seed=seed, strategies=[strategy],
                      swaps=p, rules=rules, threads=threads) for p in patterns]
    v2 = bool(cfgs[0].options["last_player_loses"])
    diffs = []
    tw = ow = 0.0
    for _, first, n in batches(cfgs[0]):
        d = np.zeros(n)
        for cfg, pattern in zip(cfgs, patterns):
            score, _ = _seat_scores(play_batch(cfg, first, n, threads), players, v2)
            mine = np.array([p == table_spec for p in pattern])
            t, o = score[:, mine].sum(axis=1), score[:, ~mine].sum(axis=1)
            d += t / mine.sum() - o / (~mine).sum()      # per seat: table minus other
            tw += t.sum()
            ow += o.sum()
        diffs.append(d / 2)
    diffs = np.concatenate(diffs)
    mean = float(diffs.mean())
    se = float(diffs.std(ddof=1) / math.sqrt(diffs.size))
    p = float(stats.ttest_1samp(diffs, 0.0).pvalue) if se > 0 else float("nan")
    return {"policy": other, "deals": int(diffs.size), "games": int(2 * diffs.size),
            "table_share": tw / (tw + ow) if tw + ow else float("nan"),
            "diff": mean, "ci_low": mean - 1.959963984540054 * se,
            "ci_high": mean + 1.959963984540054 * se, "p_value": p}


def swap_study(out, players=4, games=100_000, seed=0, rules="seed", strategy="lowest",
               threads=None, h2h_games=None, progress=None):
    """Run the three phases; write study.json, swap_values.csv, summary.json and
    manifest.json into ``out``; return the study as a dict."""
    import numba

    from sim.tally import wilson
    from sim.store import StoreError, _atomic_write, versions
    from strategies.swaps import write_table

    out = Path(out).expanduser()
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise StoreError(f"--out: cannot write to {out}: {e.strerror or e}") from None
    threads = threads or numba.config.NUMBA_NUM_THREADS
    if games < 1:
        raise RunError(f"--games: expected a positive number, got {games}")
    count, score, unfinished = triple_values(players, games, seed, rules, strategy, threads, progress)
    rows = []
    for code in np.flatnonzero(count):
        n, w = int(count[code]), float(score[code])
        lo, hi = wilson(int(round(w)), n)
        rows.append({"triple": triple_names(code), "games": n, "wins": w, "win_rate": w / n,
                     "ci_low": lo, "ci_high": hi})
    rows.sort(key=lambda r: -r["win_rate"])
    table_file = write_table(out / "swap_values.csv",
                             {tuple(r["triple"]): r["win_rate"] for r in rows})
    table_spec = f"table(file={table_file})"
    h2h_games = h2h_games or max(1000, games // 5)
    h2h = [head_to_head(table_spec, other, players, h2h_games, seed + 1, rules, strategy,
                        threads) for other in BUILTIN_SWAPS]
    # Five comparisons at once: p-values also adjusted (Benjamini-Hochberg, scipy).
    from scipy.stats import false_discovery_control
    adjusted = false_discovery_control([r["p_value"] for r in h2h])
    for r, p in zip(h2h, adjusted):
        r["p_adjusted"] = float(p)
        r["table_share"] = float(r["table_share"])
    worst = min(h2h, key=lambda r: r["diff"])
    beats_all = all(r["ci_low"] > 0 for r in h2h)
    if beats_all:
        verdict = (f"The value table is the best swap policy under these rules: it beats every "
                   f"built-in policy; its smallest margin is {100 * worst['diff']:+.2f} points "
                   f"of win rate per seat against {worst['policy']} "
                   f"(95% CI {100 * worst['ci_low']:+.2f} to {100 * worst['ci_high']:+.2f}, "
                   f"p={worst['p_value']:.2g}).")
    elif worst["ci_high"] < 0:
        verdict = (f"{worst['policy']} is the best swap policy found under these rules: it "
                   f"beats the value table by {-100 * worst['diff']:.2f} points of win rate per "
                   f"seat (95% CI {-100 * worst['ci_high']:.2f} to {-100 * worst['ci_low']:.2f}"
                   f", p={worst['p_value']:.2g}); the table in turn beats "
                   + ", ".join(r["policy"] for r in h2h if r["ci_low"] > 0) + ".")
    else:
        rivals = [r for r in h2h if r["ci_low"] <= 0]
        verdict = ("No policy is clearly best: the value table does not clearly beat "
                   + "; ".join(f"{r['policy']}: {100 * r['diff']:+.2f} points "
                               f"(95% CI {100 * r['ci_low']:+.2f} to "
                               f"{100 * r['ci_high']:+.2f}, p={r['p_value']:.2g})"
                               for r in rivals) + ".")
    study = {"players": players, "games": games, "unfinished": unfinished, "seed": seed,
             "rules": rules,
             "strategy": strategy, "triples": rows, "table_file": str(table_file),
             "table_policy": table_spec, "head_to_head": h2h, "verdict": verdict,
             "h2h_games_per_policy": 2 * h2h_games}
    manifest = {"kind": "swap-study", "options": {k: study[k] for k in
                                                 ("players", "games", "seed", "rules",
                                                  "strategy")}, "versions": versions()}
    summary = {"config": manifest["options"], "overall": {"games": games},
               "by_seat": [], "by_strategy": []}
    for name, data in (("study.json", study), ("summary.json", summary),
                       ("manifest.json", manifest)):
        _atomic_write(out / name, json.dumps(data, indent=2, default=float).encode())
    return study


__all__ = ["swap_study", "triple_names", "MAXP"]
