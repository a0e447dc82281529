"""How a near-tie is said, the one wording of ``sim swap``, ``sim analyze``, ``sim play``'s
``hint`` and ``sim review``: a single best choice is named only where its interval against
every other choice excludes 0; otherwise the tied group is named ("4 10 K, 5 10 K or 6 10 K
face up: not clearly different at 5,000 deals") with how many more samples would likely
separate them. The numbers are :func:`sim.studies.stats.tie_group`'s (a dict with ``tied``,
the group best first, ``clear``, ``n`` and ``more``). The verdict on one move against the best
(best, tied, mistake) is :func:`move_verdict`'s, the one owner of those words."""
from __future__ import annotations

BEST, TIED, MISTAKE = "best", "tied", "mistake"      # the verdicts on a move


def move_verdict(move, tied, mistake: bool = False) -> str:
    """The verdict on ``move`` against the best, in every command alike (``sim review``'s
    mark, ``sim analyze``'s and ``hint``'s table): :data:`BEST` for the best (``tied[0]``:
    the group best first), :data:`TIED` for a move not clearly different from it (in
    ``tied``), :data:`MISTAKE` for a move outside the tied group whose loss's interval
    excludes 0 (``mistake``: ``sim review``'s measure on fresh worlds), else ``""``: worse as
    ranked, but not clearly a loss. A move tied with the best is never a mistake (a
    review once marked a move MISTAKE on the line that listed it as tied)."""
    tied = list(tied)
    if tied and move == tied[0]:
        return BEST
    if move in tied:
        return TIED
    return MISTAKE if mistake else ""


def group_words(names, most: int | None = None) -> str:
    """``a``, ``a or b``, ``a, b or c``; past ``most`` names, ``a, b, c or 8 more``."""
    names = [str(x) for x in names]
    if most is not None and len(names) > most:
        return f"{', '.join(names[:most])} or {len(names) - most} more"
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} or {names[-1]}"


def about(n: int) -> str:
    """``n`` to two significant figures, with thousands separators (``about`` its number)."""
    if n < 100:
        return f"{n:,}"
    digits = len(str(int(n))) - 2
    return f"{int(round(n, -digits)):,}"


def more_text(tie: dict, unit: str) -> str:
    """How many more samples (``unit``: worlds, deals, games) would likely separate the tied
    group (an estimate: if the differences stayed as measured)."""
    if tie["more"] is None:
        return (f"far more {unit} than these {tie['n']:,} would be needed to separate them "
                f"(they may be equal)")
    return (f"about {about(max(tie['more'], 1))} more {unit} would likely separate them (if the "
            f"differences stayed as measured)")


def tie_text(tie: dict, unit: str, suffix: str = "") -> str:
    """The tied group in a sentence: ``4 10 K, 5 10 K or 6 10 K face up: not clearly
    different at 5,000 deals; about 20,000 more deals would likely separate them (...)``;
    ``suffix`` follows the names (`` face up``)."""
    return (f"{group_words(tie['tied'])}{suffix}: not clearly different at {tie['n']:,} "
            f"{unit}; {more_text(tie, unit)}")


def short_tie(tie: dict, unit: str) -> str:
    """The tied group in a table's margin: ``tied: 5 or Q (about 9,000 more worlds to
    separate)``, or ``far more`` worlds."""
    more = "far more" if tie["more"] is None else f"about {about(max(tie['more'], 1))} more"
    return f"tied: {group_words(tie['tied'], 4)} ({more} {unit} to separate)"
