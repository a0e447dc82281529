"""How a near-tie is said, the one wording of ``sim swap``, ``sim analyze``, ``sim play``'s
``hint`` and ``sim review``: a single best choice is named only where its interval against
every other choice excludes 0; otherwise the tied group is named ("4 10 K, 5 10 K or 6 10 K
face up: not clearly different at 5,000 deals") with how many more samples would likely
separate them. The numbers are :func:`sim.studies.stats.tie_group`'s (a dict with ``tied``,
the group best first, ``clear``, ``n`` and ``more``)."""
from __future__ import annotations


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
