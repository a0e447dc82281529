"""What ``sim analyze`` prints (and ``sim play``'s ``hint``): the moves of a position with
their estimates and intervals, the paired comparison of the best two, and how they were
found (:class:`sim.studies.analysis.Analysis`)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from reports.game import counted, pile_text
from reports.plain import plural
from reports.ties import move_verdict, tie_text
from sim.kernel.layout import COUNT, CURRENT, HANDS, NR, PLAYERS

if TYPE_CHECKING:
    from sim.studies.analysis import Analysis


def describe(a: Analysis, position_line: str | None = None, from_file: bool = True) -> list[str]:
    """The lines ``sim analyze`` prints (``from_file``: the position was read from a file,
    whose hidden cards are then said to be unused)."""
    info = a.info()
    lines = []
    if position_line:
        lines.append(position_line)
    if a.omniscient:
        lines.append("Omniscient (--omniscient): every playout starts from the position's own "
                     "hidden cards; nothing is re-dealt.")
    else:
        h = a.hidden
        parts = [f"other hands' unknown cards {h['other_hands']}", f"face-down {h['face_down']}",
                 f"stock {h['stock']}"] + ([f"removed {h['removed']}"] if "removed" in h else [])
        lines.append(f"Hidden cards re-dealt in every world (R26): {h['total']} "
                     f"({', '.join(parts)})"
                     + ("; the position writes them \"?\"." if a.view else
                        "; hidden cards written in the position are not used (--omniscient "
                        "uses them)." if from_file else "."))
    me = "" if a.me == a.opponents else f"; seat {a.seat} (after this move) plays {a.me}"
    times = ("" if info["playouts"] == a.n * len(a.moves) else
             " (fewer for the moves the race dropped)")
    lines.append(f"{plural(a.n, 'world', fmt=',')} x {plural(len(a.moves), 'move')}{times} = "
                 f"{plural(info['playouts'], 'playout', fmt=',')}, "
                 f"every move in the same worlds (common random numbers); the other seats "
                 f"play {a.opponents}{me}"
                 + ("" if me else f", seat {a.seat} too after this move")
                 + f"; seed {a.seed}; at most {plural(a.max_turns, 'turn')} a playout.")
    rate = info["playouts_per_second"]
    lines.append(f"{a.seconds:.2f} s" + (f" ({rate:,.0f} playouts/s)" if rate else "") + ".")
    lines.append("")
    lines.append(f"{a.measure[0].upper()}{a.measure[1:]}, {a.interval}, "
                 f"n = {a.n:,} playouts per move"
                 + (" (fewer for a dropped move):" if info["playouts"] < a.n * len(a.moves)
                    else ":"))
    rows = a.rows()
    width = max([4] + [len(r["move"]) for r in rows])
    head = "place" if a.v2 else "win"
    extra = "  first  Shithead" if a.v2 else ""
    short = any(r["n"] < a.n for r in rows)           # the race dropped a move
    tie = a.tie()
    lines.append(f"  {'#':>2}  {'move':<{width}}  {head:>6}  {'95% interval':<15}{extra}"
                 f"  unfinished" + ("  playouts" if short else "")
                 + ("  verdict" if tie else ""))
    for r in rows:
        more = f"  {r['first']:5.3f}  {r['shithead']:8.3f}" if a.v2 else ""
        # best / tied: the words of sim review's verdict (reports.ties)
        word = move_verdict(r["move"], tie["tied"]) if tie else ""
        lines.append((f"  {r['rank']:>2}  {r['move']:<{width}}  {r['estimate']:6.3f}  "
                      f"{r['low']:6.3f} - {r['high']:<6.3f}{more}  {r['unfinished']:>10}"
                      + (f"  {r['n']:>9,}" if short else "") + f"  {word}").rstrip())
    p = info["paired"]
    lines.append("")
    if p is None:
        lines.append("Only one legal move.")
    else:
        c = a.clear
        level = ("95%" if not c else
                 f"one-sided 95% at the low end, corrected for {c['looks']} looks x "
                 f"{c.get('comparisons', 1)} comparisons (Bonferroni, z = {p['z']:.2f})")
        lines.append(f"Best minus second, paired over the same worlds ({p['best']} vs "
                     f"{p['second']}{', lower is better' if a.v2 else ''}): "
                     f"{p['difference']:+.3f}, {level} interval "
                     f"{p['low']:+.3f} to {p['high']:+.3f}, n = {p['n']:,}.")
        lines.append(best_text(info["tie"], a.n) + ".")
    if a.clear:
        c = a.clear
        unit = "hundredths of a place" if a.v2 else "points"
        tol_unit = unit if c.get("tolerance") != 1 or a.v2 else "point"
        how = f"{c['worlds']:,} worlds (blocks of {c['block']:,}, cap {c['cap']:,})"
        if c.get("dropped"):
            how += ("; dropped from the race as clearly worse than the leader: "
                    + ", ".join(c["dropped"]))
        if c["stopped"] == "clear":
            lines.append(f"Until clear: the best move separated from every other after {how}.")
        elif c["stopped"] == "tolerance":
            lines.append(f"Until clear: too close to call, but no move left is better than "
                         f"{p['best']} by {c['tolerance']:g} {tol_unit} or more (--tolerance), "
                         f"after {how}.")
        elif c["stopped"] == "cap" and p is not None:
            gap = 100 * max(abs(p["low"]), abs(p["high"]))
            lines.append(f"Until clear: too close to call at this budget: the two best differ "
                         f"by less than {gap:.1f} {unit} (the interval above), after {how}.")
    return lines


def position_line(st) -> str:
    """One line about the position analysed: who moves, with what, on what."""
    me = int(st[CURRENT])
    hand = counted(st, HANDS + me * NR) or "-"
    return (f"Seat {me} to move of {int(st[PLAYERS])}: hand [{hand}]; "
            f"pile {pile_text(st)}, count {int(st[COUNT])}.")


def best_text(tie: dict, n: int) -> str:
    """The best move named alone where its paired interval against every other move
    excludes 0, else the tied moves (:meth:`sim.studies.analysis.Analysis.tie`,
    :mod:`reports.ties`)."""
    if tie["clear"]:
        return (f"Best: {tie['tied'][0]}, clearly better than every other move (paired, "
                f"{n:,} worlds)")
    return f"Best: {tie_text(tie, 'worlds')}"


def answer_line(a: Analysis) -> str:
    """The answer in one line, before the details (``sim play``'s ``hint``): the best move,
    its win chance (V2: expected place) with its interval, and whether the paired comparisons
    tell it from every other move; where they do not, the moves not clearly different
    (:mod:`reports.ties`) and how many more worlds would likely separate them."""
    rows = a.rows()
    best = rows[0]
    if a.v2:
        value = (f"expected place {best['estimate']:.2f} of {a.players} "
                 f"(95% {best['low']:.2f} to {best['high']:.2f})")
    else:
        value = (f"win chance {best['estimate']:.0%} "
                 f"(95% {best['low']:.0%} to {best['high']:.0%})")
    play = 'play ' * ('play' in best['json'])
    tie = a.tie()
    if tie is None:
        return f"Hint: {play}{best['move']}, {value}; the only legal move."
    second = rows[1]
    other = (f"{second['estimate']:.2f}" if a.v2 else f"{second['estimate']:.0%}")
    if tie["clear"]:
        return (f"Hint: {play}{best['move']}, {value}; clearly better than the next best "
                f"{second['move']} at {other} (paired, {a.n:,} worlds).")
    return (f"Hint: {tie_text(tie, 'worlds')}. Best measured: {play}{best['move']}, "
            f"{value}; next {second['move']} at {other}.")
