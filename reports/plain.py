"""Plain lines of text for the commands that print without tables: the rules presets and
options (``sim rules``), the strategies (``sim strategies``) and a tuning's result
(``sim tune``); and the words of what a run saves as facts (the stopping of endless games,
the seats' neighbours), for the terminal and the page. Kept free of ``rich``, whose import
these short commands do not need."""
from __future__ import annotations


def plural(n, noun: str, many: str | None = None, fmt: str = "") -> str:
    """``n`` with its noun, in agreement: ``1 card``, ``0 cards``, ``2 cards`` (never
    "1 cards"); ``many``: an irregular plural; ``fmt``: how ``n`` is written (``","``
    for thousands separators). The one helper for counts in words."""
    return f"{n:{fmt}} {noun if n == 1 else many or noun + 's'}"


def rules_words(rules) -> str:
    """A ruleset in words, for a header: ``classic rules, changed: H5 skip_rank 8``.
    ``rules``: a :class:`~sim.kernel.ruleset.Ruleset`, a preset name or a docs/position.md
    ruleset (a preset with the changed options, as a run's summary saves it)."""
    from sim.kernel.ruleset import BY_KEY, Ruleset, value_text

    rules = rules if isinstance(rules, Ruleset) else Ruleset.parse(rules)
    changes = rules.changes()
    text = f"{rules.base} rules"
    if changes:
        text += ", changed: " + ", ".join(f"{BY_KEY[k].rule} {k} {value_text(v)}"
                                          for k, v in changes.items())
    return text


def rules_lines(names: list[str]) -> list[str]:
    """The presets ``names`` (docs/rules.md §11.4) and every house-rule option (§11.2) with its
    value under each."""
    from sim.kernel.ruleset import OPTIONS, PRESET_NOTES, PRESETS, value_text

    lines = ["Presets (--rules NAME):"]
    for n in names:
        lines.append(f"  {n:<20} {PRESET_NOTES[n]}")
    lines.append("\nOptions (--rule key=value), value under each preset:")
    width = max(len(n) for n in names)
    lines.append(f"  {'rule':<5} {'key':<20} " + " ".join(f"{n[:width]:<{width}}" for n in names))
    for opt in OPTIONS:
        values = [value_text(getattr(PRESETS[n], opt.key)) for n in names]
        cells = " ".join(f"{v[:width]:<{width}}" if len(v) <= width else v for v in values)
        lines.append(f"  {opt.rule:<5} {opt.key:<20} {cells}")
        lines.append(f"  {'':<5} {'':<20} {opt.meaning}")
    lines.append("\nExample: sim run --rules classic --rule seven_lower=true --rule skip_rank=8")
    return lines


def _params(s) -> str:
    if not s.params:
        return ""
    return " Parameters: " + ", ".join(
        f"{k}={d[0]!r}" + (f" ({d[1]}..{d[2]})" if d[1] is not None and d[1] > -1e300
                           else "") for k, d in s.params.items()) + "."


def strategy_lines(moves, swaps) -> list[str]:
    """The move strategies and swap policies (:class:`sim.kernel.strategy.Strategy`), each
    with its description, default swap, purity and parameters."""
    lines = ["Strategies (--strategy NAME, NAME(key=value), FILE.py:function):"]
    for s in moves:
        pure = "; pure" if s.pure else ""
        lines.append(f"  {s.name:<14} {s.description} [default swap: {s.swap}{pure}]"
                     f"{_params(s)}")
    lines.append("Swap policies (--swap):")
    for s in swaps:
        lines.append(f"  {s.name:<14} {s.description}{_params(s)}")
    lines.append("pure: a function of the position alone (no turn counter, no random draws); "
                 "when every seat is pure, a game whose position repeats is stopped as endless "
                 "(--no-cycle-stop to play it to --max-turns).")
    lines.append("Writing your own: docs/strategies.md")
    return lines


def tune_lines(result: dict, field: list[str], players: int, v2: bool) -> list[str]:
    """``sim tune``'s answer: the best trial, then the best and the defaults measured again on
    fresh deals, their paired difference, and what to use."""
    f = result["fresh"]

    def line(label, r):
        return (f"  {label:<9} {100 * r['estimate']:6.2f}%  (95% CI {100 * r['ci_low']:.2f}% - "
                f"{100 * r['ci_high']:.2f}%)  {r['spec']}")
    best = result["best"]
    lines = [f"{plural(len(result['trials']), 'trial')} of "
             f"{plural(result['options']['games_per_trial'], 'game', fmt=',')} each against "
             f"{', '.join(field)} ({players} players); best trial #{best['number']}: "
             f"{100 * best['value']:.2f}% on the trials' deals."]
    what = "place share" if v2 else "win rate"
    lines.append(f"Fresh deals that no trial saw ({plural(f['games'], 'game', fmt=',')} each), "
                 f"{what} of the tuned seat:")
    lines.append(line("best", f["best"]))
    lines.append(line("defaults", f["default"]))
    d = f["difference"]
    lines.append(f"  best - defaults: {100 * d['estimate']:+.2f} points (95% CI "
                 f"{100 * d['ci_low']:+.2f} .. {100 * d['ci_high']:+.2f}, paired over deals, "
                 f"p = {d['p_value']:.3g})")
    if f.get("same"):
        lines.append("The best trial is the defaults: nothing to change.")
    elif f["better"]:
        lines.append(f"Use: '{f['best']['spec']}'")
    else:
        lines.append(f"No clear improvement over the defaults (the interval includes 0); the "
                     f"best found was '{f['best']['spec']}'")
    return lines


def seat_twins(row: dict, players: int, k: int) -> list:
    """A tournament's seat row: the seats holding its strategy in every game (recorded as
    ``shares_with``; for a compare.json saved before, from the design)."""
    from sim.studies.design import seat_companions

    twins = row.get("shares_with")
    return seat_companions(k, players)[row["seat"]] if twins is None else twins


def shared_text(row: dict, players: int, k: int) -> str:
    """:func:`seat_twins` in words: "seat 0 (every game)", "seats 2, 4, 6 (every game)" (short
    enough for eight seats' rows), or "no other seat"."""
    twins = seat_twins(row, players, k)
    if not twins:
        return "no other seat"
    return f"seat{'s' * (len(twins) > 1)} {', '.join(map(str, twins))} (every game)"


def seats_text(seats) -> str:
    """A seat, or seats as the tally lists them (``"0,1,2,3,5"``), with runs of three or more
    written as ranges (``"0-3,5"``): eight seats' rows stay narrow."""
    parts = [int(x) for x in str(seats).split(",") if x != ""]
    out, i = [], 0
    while i < len(parts):
        j = i
        while j + 1 < len(parts) and parts[j + 1] == parts[j] + 1:
            j += 1
        out += [f"{parts[i]}-{parts[j]}"] if j - i >= 2 else [str(p) for p in parts[i:j + 1]]
        i = j + 1
    return ",".join(out)


def cycle_stop_text(stop) -> str:
    """Why games proven endless are stopped or not, from the facts of
    :func:`sim.runs.tally.cycle_facts` (a folder saved before them holds these words)."""
    if isinstance(stop, str):
        return stop
    if not stop["asked"]:
        return "off (--no-cycle-stop)"
    impure = stop["impure"]
    if not impure:
        return "on: every seat's strategy is pure"
    one = len(impure) == 1
    return (f"off: {', '.join(impure)} {'is' if one else 'are'} not declared pure (a function "
            f"of the position only)"
            + (f"; on once {'its seats are' if one else 'their seats are'} out (V2: the seats "
               f"still to move are then all pure)" if stop["once_out"] else ""))


def neighbours_text(n: dict) -> str:
    """The note under a run whose seats hold different strategies, from the facts of
    :func:`sim.runs.tally.neighbours` (a folder saved before them holds the note): this
    seating named, and the tournament that compares the strategies fairly."""
    if "note" in n:
        return n["note"]
    seated = ", ".join(f"seat {s} {name}" for s, name in enumerate(n["seats"]))
    return (f"The seats hold different strategies ({seated}), so each strategy's row is its "
            "result in this seating, beside these neighbours, not a measure of the strategy: "
            "a seat's win rate depends on who plays before and after it, and another seating "
            "of the same strategies can give very different rows. To compare the strategies "
            "fairly, every one in every seat after every other on the same deals: "
            f"{n['fair_command']}")
