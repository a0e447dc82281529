"""The rulesets a rules lab measures: the base preset, every single option change from it
that §11.3 allows (every value of every H option, V1 and V2), and every other preset.

A change is refused exactly as ``--rule`` refuses it (:meth:`Ruleset.build`, then the deal
must fit the deck at this number of players); the refused ones are listed with the reason.
A change that is sure to play the games of a ruleset already measured is skipped, with the
reason: a ``decks`` value (H18) giving as many decks at this number of players as the base or
an earlier value (``masters`` is 2 decks at 4-6 players, as ``decks=2``), and H20 under H3
``false`` (nothing burns by four of a kind) or without V2 (the game ends at the first out,
the move H20 changes, with the same winner). ``starter_order`` (H15) takes any list of
ranks: two alternatives are measured, the order reversed and the order with 2s first.
"""
from __future__ import annotations

from dataclasses import dataclass

from sim.kernel.ruleset import ALL_RANKS, OPTIONS, PLAIN, PRESETS, Ruleset, value_text


@dataclass(frozen=True)
class Variant:
    """One ruleset of the study: ``ident`` names it in files and JSON (``base``,
    ``key=value`` or ``preset:NAME``), ``kind`` is base, option or preset."""

    ident: str
    kind: str
    ruleset: Ruleset
    key: str | None = None
    rule: str | None = None        # H1..H17, V1, V2

    def label(self) -> str:
        if self.kind == "base":
            return f"{self.ruleset.base} (base)"
        if self.kind == "preset":
            return f"preset {self.ident.partition(':')[2]}"
        return f"{self.rule} {self.ident}"


def values_of(opt) -> list:
    """Every value an option takes (H15: the two alternative orders of the module doc)."""
    if opt.kind is bool:
        return [False, True]
    if opt.kind == "rank":
        return [None] + [r for r in PLAIN if r != "10"]
    if opt.kind == "order":
        return [tuple(reversed(PLAIN)), ALL_RANKS]
    return list(opt.kind)


def same_games(rs: Ruleset, key: str, players: int, decks: dict) -> str:
    """Why the change of ``key`` to ``rs`` plays games already measured ("" if it may not):
    its number of decks (H18) is one of ``decks`` (decks at ``players`` -> the ident that
    has it), or H20 without H3 or without V2."""
    if key == "decks":
        d = rs.decks_for(players)
        if d in decks:
            return (f"{d} deck{'s' if d > 1 else ''} at {players} players: the games of "
                    f"{decks[d]} (H18)")
    if key == "out_before_burn" and not rs.four_burns:
        return "moot with four_burns=false: nothing burns by four of a kind (H20, H3)"
    if key == "out_before_burn" and not rs.last_player_loses:
        return ("moot without last_player_loses: the game ends at the first out, the move "
                "H20 changes, with the same winner (H20, V2)")
    return ""


def variants(base: str, players: int, overrides=(), only=()) -> tuple[list[Variant],
                                                                        list[dict], list[dict]]:
    """(the rulesets measured, the changes refused with their reason, the changes skipped
    as sure to play games already measured, with the reason), base first: the preset
    ``base`` with ``overrides`` (``key=value`` strings, as ``--rule``). ``only``: option
    keys and preset names to measure (default: all of them). ``ValueError`` naming the
    option at fault (``--only``, ``--base/--rule``, ``--players``)."""
    wanted = set(only)
    unknown = wanted - {o.key for o in OPTIONS} - set(PRESETS)
    if unknown:
        raise ValueError(f"--only: {', '.join(sorted(unknown))} is neither an option nor a "
                         f"preset (see `sim rules`)")
    try:
        root = Ruleset.build(base, list(overrides))
    except ValueError as e:
        raise ValueError(f"--base/--rule: {e}") from None
    try:
        root.check_players(players)           # R1, H18: before anything is measured
    except ValueError as e:
        raise ValueError(f"--players: {e}") from None
    kept = root.changes()
    out, refused, skipped = [Variant("base", "base", root)], [], []
    decks = {root.decks_for(players): "the base"}
    for opt in OPTIONS:
        if wanted and opt.key not in wanted:
            continue
        for value in values_of(opt):
            if value == getattr(root, opt.key):
                continue
            ident = f"{opt.key}={value_text(value)}"
            try:
                rs = Ruleset.build(base, {**kept, opt.key: list(value)
                                          if isinstance(value, tuple) else value})
                rs.check_players(players)
            except ValueError as e:
                refused.append({"ident": ident, "rule": opt.rule, "reason": str(e)})
                continue
            same = same_games(rs, opt.key, players, decks)
            if same:
                skipped.append({"ident": ident, "rule": opt.rule, "reason": same})
                continue
            if opt.key == "decks":
                decks[rs.decks_for(players)] = ident
            out.append(Variant(ident, "option", rs, opt.key, opt.rule))
    for name in PRESETS:
        if (name == base and not kept) or (wanted and name not in wanted):
            continue
        rs = PRESETS[name]
        try:
            rs.check_players(players)
        except ValueError as e:
            refused.append({"ident": f"preset:{name}", "rule": None, "reason": str(e)})
            continue
        out.append(Variant(f"preset:{name}", "preset", rs))
    return out, refused, skipped
