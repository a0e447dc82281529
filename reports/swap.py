"""``sim swap``'s text: the answer on top, then every split of the six cards best first
(:mod:`sim.studies.swapstudy.advice`). A single split is named best only where its interval
against every other excludes 0; otherwise the tied splits are named (:mod:`reports.ties`)."""
from __future__ import annotations

from reports.ties import tie_text


def _points(row, what):
    """``x.xx points of WHAT (95% CI a to b)``: the best's margin over a row."""
    if row["vs_best_low"] is None:
        return f"{-row['vs_best']:.2f} points of {what} (no interval: none saved)"
    return (f"{-row['vs_best']:.2f} points of {what} (95% CI {-row['vs_best_high']:.2f} to "
            f"{-row['vs_best_low']:.2f})")


def unit(a) -> str:
    """What the advice's samples are: the playouts' deals, or the study's games."""
    return "deals" if a["method"] == "playouts" else "games of the study"


def summary(a) -> str:
    """The answer and its margins in plain words (its first line is the answer): the best
    split alone when it is clear (:func:`sim.studies.swapstudy.advice.tie`), else the tied
    group and how many more deals would likely separate it, then the best measured."""
    what = "win rate" if "win" in a["measure"] else "share beaten"
    u, nxt, tie = a["usual"], a["next"], a.get("tie")
    tied = tie is not None and not tie["clear"]
    if tied:
        lines = [f"{tie_text(tie, unit(a), ' face up')}.",
                 f"Best measured: {a['answer']}"
                 + (f", ahead of up {' '.join(nxt['face_up'])} by {_points(nxt, what)}."
                    if nxt is not None else ".")]
    else:
        lines = [f"{a['answer'][0].upper()}{a['answer'][1:]}."]
    parts = []
    if nxt is not None and not tied:
        parts.append(f"the next best split (up {' '.join(nxt['face_up'])}) by "
                     f"{_points(nxt, what)}")
    in_group = tied and " ".join(u["face_up"]) in tie["tied"]
    if not u["is_best"] and not in_group and (tied or u["row"] is not nxt):
        parts.append(f"the usual advice ({u['policy']}: up {' '.join(u['face_up'])}) by "
                     f"{_points(u['row'], what)}")
    if parts:
        lines.append(f"It beats {', and '.join(parts)}.")
    if u["is_best"]:
        lines.append(f"That is also the usual advice ({u['policy']}).")
    elif in_group:
        lines.append(f"The usual advice ({u['policy']}: up {' '.join(u['face_up'])}) is "
                     f"among them.")
    elif nxt is not None and u["row"] is nxt:
        lines.append(f"The next best is the usual advice ({u['policy']}).")
    return "\n".join(lines)


def hint_text(names, players, ruleset) -> str:
    """``sim play``'s ``hint`` at the swap: ``sim swap``'s answer for these six cards (names)
    at this table, the answer on the first line, then the budget."""
    from sim.studies.swapstudy.advice import hint

    a = hint(names, players, ruleset)
    if isinstance(a, str):
        return a
    return f"{summary(a)}\n(sim swap {' '.join(names)}: {a['budget']}.)"


def advice_lines(a) -> list[str]:
    """The advice as printed: the answer and its margins, the table, the budget."""
    model = a["method"] == "model"
    lines = summary(a).split("\n")
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
