"""``sim study rules`` in the terminal: the answer in words, then one line per ruleset with
each measure's paired difference from the base (``*``: its 95% interval excludes 0)."""
from __future__ import annotations

COLUMNS = (("turns", "turns", "{:+.1f}", 1), ("endless", "endless", "{:+.1f}", 100),
           ("first_mover", "1st mover", "{:+.1f}", 100),
           ("skill_counting", "skill C", "{:+.3f}", 1),
           ("skill_montecarlo", "skill MC", "{:+.3f}", 1), ("luck", "luck", "{:+.3f}", 1))


def cell(row, key, form, scale) -> str:
    m = row.get(key)
    if m is None:
        return "-"
    if "diff" not in m:
        return form.format(scale * m["estimate"]).lstrip("+") if m["estimate"] is not None \
            else "-"
    d = m["diff"]
    if d["estimate"] is None:
        return "-"
    return form.format(scale * d["estimate"]) + ("*" if d["effect"] else " ")


def ruleslab_lines(result: dict) -> list[str]:
    from sim.studies.ruleslab.study import headline

    cols = [c for c in COLUMNS if any(c[0] in r for r in result["rulesets"])]
    lines = [f"Rules lab, {result['players']} players, base {result['base']}, seed "
             f"{result['seed']}: {result['measured']} of {result['of']} rulesets measured, "
             f"{result['games_played']:,} games played"
             + (f" in {result['seconds']:.0f} s" if "seconds" in result else "") + "."]
    lines += headline(result)
    lines.append("")
    lines.append("Base row: the values; other rows: the paired difference from the base "
                 "(turns; points for shares; * = the 95% interval excludes 0).")
    head = f"{'ruleset':44s}" + "".join(f"{name:>11s}" for _, name, _, _ in cols)
    lines.append(head)
    for r in result["rulesets"]:
        lines.append(f"{r['ident'][:44]:44s}" + "".join(
            f"{cell(r, key, form, scale):>11s}" for key, _, form, scale in cols))
    if result["refused"]:
        lines.append("Not allowed with this base (§11.3): " + "; ".join(
            f"{x['ident']} ({x['reason']})" for x in result["refused"]))
    lines.append("Definitions: docs/rules-lab.md.")
    return lines
