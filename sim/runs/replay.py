"""A game told turn by turn, for a person: the deal, each swap, every move and its events.

The moves come from the batch kernel (:func:`sim.runs.batch.record_game`) and are re-applied with
the same jitted :func:`sim.kernel.engine.apply_move`, so what is shown is what was simulated.
"""
from __future__ import annotations


from sim.kernel.cards import NAMES
from sim.kernel.engine import apply_move, play_source, swap_choices
from sim.kernel.layout import (
    COUNT, CURRENT, DEALER, DECK, DIR, EVENT_NAMES, FD, FDN, FIRST, FU, HANDS, NR,
    OUTORDER, PILE, PILELEN, STARTRANK, STOCKLEN,
)
from sim.kernel.position import move_to_dict
from sim.runs.batch import GameRecord
from sim.runs.config import RunConfig


def _cards(st, base):
    return " ".join(NAMES[r] for r in range(NR) for _ in range(int(st[base + r]))) or "-"


def _pile(st, show=8):
    n = int(st[PILELEN])
    cards = [NAMES[r] for r in st[PILE:PILE + n]]
    head = "... " if n > show else ""
    return f"[{head}{' '.join(cards[-show:])}] ({n} card{'s' * (n != 1)})" if n else "[] (empty)"


def _move_text(m, source):
    move = move_to_dict(int(m))
    if "play" in move:
        return f"plays {' '.join(move['play'])} from {source}"
    if "blind" in move:
        return "turns face-down"
    if "add" in move:
        return f"adds face-up {move['add']} and picks up"
    return "picks up"


def describe(cfg: RunConfig, game: int, rec: GameRecord) -> list[str]:
    """The lines of a replay."""
    st = rec.dealt
    lines = [f"Game {game} of seed {cfg.seed}: {cfg.players} players, rules {cfg.rules}",
             f"Dealer: seat {int(st[DEALER])}; stock {int(st[STOCKLEN])} cards (R3, R4)"]
    for s in range(cfg.players):
        fd = " ".join(NAMES[r] for r in st[FD + s * DECK:FD + s * DECK + st[FDN + s]])
        lines.append(f"  seat {s} ({cfg.strategies[s]}, swap {cfg.swaps[s]}): face-down [{fd}] "
                     f"(top last), face-up [{_cards(st, FU + s * NR)}], "
                     f"hand [{_cards(st, HANDS + s * NR)}]")
    lines.append("Swaps (R5" + (", V1" if cfg.options["choose_face_ups"] else "") + "):")
    for s in range(cfg.players):
        cards = swap_choices(st, s)            # 2 x hand size (H12), in the mask's bit order
        up = [NAMES[c] for i, c in enumerate(cards) if (rec.swaps[s] >> i) & 1]
        shown = " ".join(up) if 2 * len(up) == len(cards) else f"invalid choice {rec.swaps[s]}"
        lines.append(f"  seat {s} puts face up: {shown}")
    st = rec.start.copy()
    rank = int(st[STARTRANK])
    why = ("R6" if cfg.ruleset.starter == "dealt" else "H14, H15") + (
        f": the rank {NAMES[rank]}" if rank >= 0 else ": no listed rank, first in deal order")
    lines.append(f"Seat {int(st[FIRST])} starts ({why}).")
    forced = cfg.ruleset.forced_opening and rank >= 0
    for turn, m in enumerate(rec.moves, 1):
        p = int(st[CURRENT])
        source = ("hand", "face-up", "face-down")[play_source(st)]
        before = int(st[STOCKLEN])
        ev = apply_move(st, m)
        drew = before - int(st[STOCKLEN])
        names = [name for bit, name in EVENT_NAMES if ev & bit]
        text = f"{turn:5d}. seat {p} {_move_text(m, source)}"
        if forced and turn == 1:
            text += " (the forced opening, H16)"
        if drew:
            text += f", draws {drew}"
        text += f" -> pile {_pile(st)} count {int(st[COUNT])}"
        if int(st[DIR]) == -1:
            text += ", direction -1"
        if names:
            text += "  <" + ", ".join(names) + ">"
        lines.append(text)
    if rec.status == 0:
        order = [int(s) for s in st[OUTORDER:OUTORDER + cfg.players] if s >= 0]
        if cfg.options["last_player_loses"]:
            loser = (set(range(cfg.players)) - set(order)).pop()
            lines.append(f"Finishing order (V2): {order}; seat {loser} is the Shithead.")
        else:
            lines.append(f"Seat {order[0]} wins after {len(rec.moves)} turns (R18, R25).")
    elif rec.status == 1 and rec.cycle_turns:
        n = len(rec.moves)
        lines.append(f"Unfinished: proven endless after {n} turns, the position after turn "
                     f"{n} (a pick-up) is the one after turn {n - rec.cycle_turns}: a cycle "
                     f"of {rec.cycle_turns} turns that would repeat forever (R25; "
                     f"--no-cycle-stop plays it to the limit of {cfg.max_turns} turns).")
    elif rec.status == 1:
        lines.append(f"Unfinished: stopped at the limit of {cfg.max_turns} turns (R25).")
    else:
        lines.append(f"Stopped by a strategy error (R24): {rec.error.tolist()}")
    return lines
