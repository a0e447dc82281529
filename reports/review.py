"""What ``sim review`` prints: the budget, one line per decision of the seat (the move made,
the best move, the loss with its interval, a mark on mistakes, the tied moves where the best
is not clear: :mod:`reports.ties`, whose :func:`~reports.ties.move_verdict` says which is a
mistake) and the summary line, whose words follow its numbers
(:class:`sim.studies.review.Review`)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from reports.plain import plural
from reports.ties import MISTAKE, move_verdict, short_tie

if TYPE_CHECKING:
    from sim.studies.review import Decision, Review


def value_text(x: float, v2: bool) -> str:
    """A win chance as a percentage; under V2 an expected place."""
    return f"{x:.2f}" if v2 else f"{100 * x:.1f}%"


def loss_text(x: float, v2: bool) -> str:
    """A loss: win-chance points, or places under V2."""
    return f"{x:+.2f}" if v2 else f"{100 * x:+.1f}"


def turn_text(turn: int) -> str:
    """Turn 0 is the swap (R5, V1)."""
    return "swap" if turn == 0 else f"turn {turn}"


def judged(d: Decision) -> str:
    """The verdict on the move made (:func:`reports.ties.move_verdict`): a mistake only
    outside the moves tied with the best, never one listed as tied. A review
    saved before the tied moves were kept has the best alone."""
    return move_verdict(d.made, d.tied or [d.best], d.mistake)


def summary(r: Review) -> dict:
    """:meth:`Review.summary` with its mistakes counted as the lines mark them
    (:func:`judged`)."""
    return {**r.summary(), "mistakes": sum(judged(d) == MISTAKE for d in r.decisions)}


def judged_dict(r: Review) -> dict:
    """The review as ``--json`` gives it: :meth:`Review.to_dict` with each decision's
    ``verdict`` (``best``, ``tied``, ``mistake`` or ``""``) and ``mistake`` following it, and
    the summary's ``mistakes`` counted so: the JSON never calls a tied move a mistake
    either."""
    out = r.to_dict()
    for d, x in zip(r.decisions, out["decisions"]):
        x["verdict"] = judged(d)
        x["mistake"] = x["verdict"] == MISTAKE
    out["summary"] = summary(r)
    return out


def decision_line(d: Decision, v2: bool) -> str:
    mark = "MISTAKE" if judged(d) == MISTAKE else ""
    best = "=" if d.best == d.made else d.best
    when = "swap" if d.turn == 0 else str(d.turn)
    tie = ("  " + short_tie({"tied": d.tied, "more": d.more}, "worlds")
           if len(d.tied) > 1 else "")
    return (f"{when:>5}  {d.made:<12} {best:<12} {value_text(d.value_made, v2):>7} "
            f"{value_text(d.value_best, v2):>7} {loss_text(d.loss, v2):>7}  "
            f"[{loss_text(d.low, v2)}, {loss_text(d.high, v2)}]  {mark}{tie}").rstrip()


def header(r: Review, game_line: str = "") -> list[str]:
    unit = "expected place (V2, 1 = first out; lower is better), loss in places" if r.v2 \
        else "win chance, loss in percentage points"
    lines = [game_line] if game_line else []
    lines += [f"Review of seat {r.seat}: {plural(r.total, 'decision')} with a choice, its swap "
              f"included ({plural(r.forced, 'turn')} with one legal move left out), "
              f"{plural(r.turns, 'move')} in the game.",
              f"Budget: {r.budget()}.",
              f"Values: {unit}; the values and the loss measured on the fresh worlds, "
              f"where the best was not chosen: a loss below 0 is a move made that did better "
              f"there than the move named best (kept as measured, not clipped to 0). Best: "
              f"the best on the ranking worlds; where other moves are not clearly different "
              f"from it there, the line ends with them (tied: ...). MISTAKE: the loss's "
              f"interval excludes 0 and the move made is not one of the tied moves (a move "
              f"tied with the best is never called a mistake).",
              f"{'turn':>5}  {'made':<12} {'best':<12} {'made':>7} {'best':>7} {'loss':>7}  "
              f"95% interval"]
    return lines


def summary_line(r: Review) -> str:
    s = summary(r)
    unit = "places" if r.v2 else "points of win chance"
    scale = 1 if r.v2 else 100
    done = "" if s["complete"] else f" (PARTIAL: {s['decisions']} of {s['of']} reviewed)"
    per = f"{s['seconds_per_decision']:.1f} s a decision" if s["decisions"] else "no decision"
    return (f"Summary: {plural(s['decisions'], 'decision')}, {plural(s['mistakes'], 'mistake')}"
            f", total loss {scale * s['total_loss']:.2f} {unit} "
            f"({total_interval_text(s, scale)}){verdict(s)}; {s['seconds']:.0f} s, "
            f"{per}{done}.")


def verdict(s: dict) -> str:
    """What the mistakes and the total's interval say together, in words that follow the
    numbers: a total clearly above 0 without a single clear mistake is small losses that
    add up; a total not clearly above 0 beside mistakes says so; a total clearly below 0 is the moves made measuring better than the moves named best."""
    if s["total_low"] is None or not s["decisions"]:
        return ""
    tied = (f"; on {s['tied']} of them the best move was not clear (tied)" if s["tied"]
            else "")
    if s["total_low"] > 0 and not s["mistakes"]:
        return (f": no single decision is clearly a mistake, but together they lost: small "
                f"losses that add up over {plural(s['decisions'], 'decision')}{tied}")
    if s["total_low"] > 0:
        return f": the moves made lost, in total{tied}"
    if s["total_high"] < 0:
        return (f": the moves made did better on the fresh worlds, in total, than the moves "
                f"named best (the names were noise there){tied}")
    if s["mistakes"]:
        return f": but the total is not clearly above 0 (its interval includes 0){tied}"
    return f": no clear loss, single or in total{tied}"


def total_interval_text(s: dict, scale: float) -> str:
    """The total loss's interval as the summary names it (:meth:`Review.summary`)."""
    if s["total_se"] is None:
        return "no interval: the review was saved without the decisions' standard errors"
    return (f"95% normal interval of the total, ± 1.96 √(Σ se²): "
            f"{scale * s['total_low']:.2f} to {scale * s['total_high']:.2f}")


def chain_text(chain) -> str:
    """An H19 turn of several moves (``[first, last]``) as the review heads its decisions,
    numbered as ``sim replay`` numbers it."""
    return (f"turn {chain[0]}-{chain[1]}: one turn of {chain[1] - chain[0] + 1} moves, a "
            f"chain (H19)")


def describe(r: Review, game_line: str = "") -> list[str]:
    """Every line ``sim review`` prints; the decisions of one H19 chain under one heading."""
    lines, chain = header(r, game_line), []
    for d in r.decisions:
        if d.chain and d.chain != chain:
            lines.append(f"{'':>5}  {chain_text(d.chain)}")
        chain = d.chain
        lines.append(decision_line(d, r.v2))
    return lines + [summary_line(r)]
