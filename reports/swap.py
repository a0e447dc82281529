"""``sim swap``'s text: the answer on top, then every split of the six cards best first
(:mod:`sim.studies.swapstudy.advice`)."""
from __future__ import annotations


def advice_lines(a) -> list[str]:
    """The advice as printed: the answer and its margins, the table, the budget."""
    model = a["method"] == "model"
    lines = a["summary"].split("\n")
    lines.append("")
    lines.append(f"Your cards: {' '.join(a['cards'])}; {a['players']} players. Value: "
                 + ("the model's log-odds, up to a constant (higher is better)" if model
                    else a["measure"])
                 + "; vs best: points of "
                 + ("win rate" if "win" in a["measure"] else "share beaten")
                 + " against the best split, with its 95% interval"
                 + (" (paired over the same deals)." if not model else "."))
    head = f"{'#':>3}  {'face up':<10} {'hand':<10} {'value':>7} {'95% CI':>15} {'vs best':>8} " \
           f"{'95% CI':>16}"
    lines.append(head)
    for r in a["splits"]:
        usual = "  <- usual advice" if r["face_up"] == a["usual"]["face_up"] else ""
        ci = ("" if r["low"] is None else
              (f"{r['low']:+.3f} to {r['high']:+.3f}" if model else
               f"{100 * r['low']:.1f} to {100 * r['high']:.1f}"))
        value = f"{r['value']:+.3f}" if model else f"{100 * r['value']:.1f}%"
        dci = ("(the best)" if r["rank"] == 1 else "" if r["vs_best_low"] is None else
               f"{r['vs_best_low']:+.2f} to {r['vs_best_high']:+.2f}")
        lines.append(f"{r['rank']:>3}  {' '.join(r['face_up']):<10} {' '.join(r['hand']):<10} "
                     f"{value:>7} {ci:>15} {r['vs_best']:>+8.2f} {dci:>16}{usual}")
    lines.append("")
    lines.append(f"Budget: {a['budget']}.")
    if not model:
        lines.append(f"Played in {a['seconds']:.1f} s; unfinished games (R25, a loss): "
                     f"{a['unfinished']:,}.")
    else:
        lines.append(f"Intervals: {a['interval_note']}.")
    return lines
