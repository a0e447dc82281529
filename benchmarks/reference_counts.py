"""Counts the games and moves that tests/test_differential.py compares between the kernel and
the independent reference (tests/reference_rules.py): every preset at every player count of its
range (12 games each) and every allowed H11 x H18 x H19 x H20 combination (2 games at each
player count), the slow tests' own games, with a counter on the kernel's ``apply``. Run from the
repository root: ``python benchmarks/reference_counts.py``."""
import collections
import sys

sys.path.insert(0, "tests")
sys.path.insert(0, ".")
import test_differential as td  # noqa: E402
import sim.kernel.position as real  # noqa: E402
count = collections.Counter()
orig = real.apply
cur = [None]
def counting(p, m):
    count[cur[0]] += 1
    return orig(p, m)
td.real.apply = counting
rows = []
for cid, ruleset, players in td.PRESET_CASES:
    cur[0] = cid
    for seed in range(12):
        td.run_game(seed, ruleset, players)
    rows.append((cid, 12, count[cid]))
    print(cid, 12, count[cid], flush=True)
cur[0] = "new-combos"
g = 0
for ruleset in td.NEW_COMBOS:
    for players in td.allowed_players(ruleset):
        for seed in range(2):
            td.run_game(1000 * players + seed, ruleset, players); g += 1
print("new-combos", len(td.NEW_COMBOS), "rulesets", g, "games", count["new-combos"], "moves", flush=True)
