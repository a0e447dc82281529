"""``sim study rules`` in the terminal: the answer in words, the changes that play every game
as the base does (listed once), what each measure means and its scale, then one line per
other ruleset with each measure's paired difference from the base (``*``: its 95% interval
excludes 0)."""
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


def no_effect(result: dict) -> list[str]:
    """The changes whose games were all identical to the base's (for a result saved before
    this was recorded: none)."""
    return result.get("no_effect") or [r["ident"] for r in result["rulesets"]
                                       if r.get("identical")]


def no_effect_line(result: dict) -> str | None:
    same = no_effect(result)
    if not same:
        return None
    return (f"No effect under this base (identical games): {', '.join(same)}. Every game of "
            f"every table had the same record as under the base (turns, ending, starter, "
            f"winner, Shithead), so these are left out below.")


def ruleslab_lines(result: dict) -> list[str]:
    from sim.studies.ruleslab.measures import definitions
    from sim.studies.ruleslab.study import headline

    cols = [c for c in COLUMNS if any(c[0] in r for r in result["rulesets"])]
    lines = [f"Rules lab, {result['players']} players, base {result['base']}, seed "
             f"{result['seed']}: {result['measured']} of {result['of']} rulesets measured, "
             f"{result['games_played']:,} games played"
             + (f" in {result['seconds']:.0f} s" if "seconds" in result else "") + "."]
    lines += headline(result)
    same = no_effect_line(result)
    if same:
        lines.append(same)
    lines.append("")
    lines.append("The measures (the columns):")
    meaning = definitions()
    for key, name, _, _ in cols:
        lines.append(f"  {name} = {meaning[key]}")
    lines.append("Base row: the values; other rows: the paired difference from the base "
                 "(turns; points for shares; * = the 95% interval excludes 0).")
    head = f"{'ruleset':44s}" + "".join(f"{name:>11s}" for _, name, _, _ in cols)
    lines.append(head)
    skip = set(no_effect(result))
    for r in result["rulesets"]:
        if r["ident"] in skip:
            continue
        lines.append(f"{r['ident'][:44]:44s}" + "".join(
            f"{cell(r, key, form, scale):>11s}" for key, _, form, scale in cols))
    if result["refused"]:
        lines.append("Not allowed with this base (§11.3): " + "; ".join(
            f"{x['ident']} ({x['reason']})" for x in result["refused"]))
    if result.get("skipped"):
        lines.append("Not measured, sure to play games measured already: " + "; ".join(
            f"{x['ident']} ({x['reason']})" for x in result["skipped"]))
    lines.append("More on each measure: docs/rules-lab.md.")
    return lines
