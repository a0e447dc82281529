"""One game told for a person: the table as a seat sees it, each move and what it caused, the
result, a game saved by ``sim play`` told again turn by turn, and a game of a run
(``sim replay``).

Every move told is applied with the kernel's own :func:`sim.kernel.engine.apply_move`, so what
is shown is what was played.
"""
from __future__ import annotations

from reports.plain import plural, rules_words
from sim.kernel import engine, dealing
from sim.kernel.cards import NAMES, joker_count
from sim.kernel.layout import (
    BURNED, CHAIN, COUNT, CURRENT, DEALER, DIR, EVENT_NAMES, FD, FDN, FDS, FIRST, FU, HANDN,
    HANDS, KNOWN, MAXP, NOUT, NR, OUTORDER, OVER, PILE, PILECNT, PILELEN, PLAYERS, R_COUNT,
    R_JOKERS, R_REV, R_SEVEN, STARTRANK, STOCKLEN, TOP, TOPRANK, TURN, V2,
)
from sim.kernel.position import move_to_dict
from sim.kernel.ruleset import Ruleset

HUMAN = "you"          # the human's seat in the list of seats of a game of ``sim play``


def counted(st, base) -> str:
    """The cards of a per-rank count block (a hand, face-ups), lowest rank first."""
    return " ".join(NAMES[r] for r in range(NR) for _ in range(int(st[base + r])))


def pile_text(st, show=8) -> str:
    """The pile's top ``show`` cards and its size: ``[... 7 7 9] (12 cards)``."""
    n = int(st[PILELEN])
    cards = [NAMES[r] for r in st[PILE:PILE + n]]
    head = "... " if n > show else ""
    return f"[{head}{' '.join(cards[-show:])}] ({plural(n, 'card')})" if n else "[] (empty)"


def move_text(m, source, st=None) -> str:
    """Move id ``m`` in words, played from ``source`` (hand, face-up, face-down); ``st``, the
    state it is made in, tells how many face-ups an H11 ``one_then_rank`` add takes."""
    move = move_to_dict(int(m), st)
    if "play" in move:
        return f"plays {' '.join(move['play'])} from {source}"
    if "blind" in move:
        return "turns face-down"
    if "end" in move:                              # H19
        return "ends the turn"
    if "add" in move:
        return f"adds face-up {' '.join([move['add']] * move.get('n', 1))} and picks up"
    return "picks up"


def label(seats, s) -> str:
    """How a seat is named in the story of a game: ``seat 2 (counting)``, ``seat 0 (you)``."""
    return f"seat {s} ({seats[s]})"


def place(n) -> str:
    return {1: "1st", 2: "2nd", 3: "3rd"}.get(n, f"{n}th")


def reversed_by(st) -> list[str]:
    """The rules that can have turned the direction of play, as their ids: R23 where the deck
    holds jokers (R1, H13), H7 where a ``reverse_rank`` is set; where both are in play, those
    whose cards may have been played (in the pile, burned, or known in a hand: picked up or
    swapped, R26), when that tells them apart (an H7 reversal is not cited as
    R23). The state holds the direction, not its cause, so both are cited when both may
    have acted."""
    rules = []
    if joker_count(int(st[R_JOKERS]), int(st[PLAYERS])):
        rules.append(("R23", NAMES.index("JK")))
    if st[R_REV] >= 0:
        rules.append(("H7", int(st[R_REV])))
    seen = [rule for rule, r in rules
            if st[PILECNT + r] or st[BURNED + r] or st[KNOWN + r:KNOWN + MAXP * NR:NR].any()]
    return seen if len(rules) > 1 and seen else [rule for rule, _ in rules]


def direction_text(st) -> str:
    """The direction of play with the rule that turned it: ``clockwise``, ``anticlockwise
    (H7)`` after a ``reverse_rank`` play, ``anticlockwise (R23)`` after a joker
    (:func:`reversed_by`)."""
    if st[DIR] == 1:
        return "clockwise"
    rules = reversed_by(st)
    return f"anticlockwise ({', '.join(rules)})" if rules else "anticlockwise"


def table_view(st, seat: int, seats: list[str]) -> list[str]:
    """What the player at ``seat`` sees (R26)."""
    players = int(st[PLAYERS])
    count, top = int(st[COUNT]), int(st[TOP])
    if st[CHAIN] and not st[OVER]:            # H19: the run goes on, or the turn ends
        mover = "you" if int(st[CURRENT]) == seat else f"seat {int(st[CURRENT])}"
        rank = NAMES[int(st[TOPRANK])]
        rule = f"{mover} may play more {rank}s or end the turn (H19)"
    elif count == 0:
        rule = "you lead" if int(st[CURRENT]) == seat else "the next player leads"
    else:
        cards = f"{plural(count, 'card')} (R9)" if st[R_COUNT] else \
            "any number of cards (H1)"
        if top < 0:
            rule = f"play {cards} of any rank"
        elif st[R_SEVEN] and NAMES[top] == "7":
            rule = f"play {cards}: 7 or lower on this 7 (H4)"
        else:
            rule = f"play {cards}: {NAMES[top]} or higher"
    lines = [f"  pile {pile_text(st)}; {rule}",
             f"  stock {plural(int(st[STOCKLEN]), 'card')}; burned "
             f"{int(st[BURNED:BURNED + NR].sum())}; direction {direction_text(st)}"]
    out = [int(s) for s in st[OUTORDER:OUTORDER + st[NOUT]]]
    for s in range(players):
        who = f"you (seat {s})" if s == seat else f"seat {s} {seats[s]}"
        mark = ">" if s == int(st[CURRENT]) and not st[OVER] else " "
        if s in out:
            lines.append(f"{mark} {who:<22} out ({place(out.index(s) + 1)})")
            continue
        if s == seat:
            hand = f"hand [{counted(st, HANDS + s * NR)}]"
        else:
            known = counted(st, KNOWN + s * NR)
            hand = f"hand {int(st[HANDN + s])}" + (f" (known: {known})" if known else "")
        lines.append(f"{mark} {who:<22} {hand:<28} face-up [{counted(st, FU + s * NR)}]  "
                     f"face-down {int(st[FDN + s])}")
    return lines


def _play(st, m: int) -> tuple[str, int, list[str], int]:
    """Apply legal move ``m`` of the seat to move with the kernel: the move in words (from
    the hand, face-up or face-down), the cards drawn after it, its events' names, the events."""
    text = move_text(m, ("hand", "face-up", "face-down")[engine.play_source(st)], st)
    before = int(st[STOCKLEN])
    ev = int(engine.apply_move(st, m))
    return text, before - int(st[STOCKLEN]), [n for bit, n in EVENT_NAMES if ev & bit], ev


def _told(st, m: int) -> tuple[str, list[str], int]:
    """Apply legal move ``m`` of the seat to move: what it did in words (the blind cards
    turned, the draws), its events' names, the events."""
    p = int(st[CURRENT])
    turned = ""
    if engine.play_source(st) == 2:           # R14, R17: the top of the stack, turned
        n = int(st[COUNT]) if st[COUNT] > 0 and st[R_COUNT] else 1
        k = int(st[FDN + p])
        turned = " ".join(NAMES[r] for r in st[FD + p * FDS + max(0, k - n):FD + p * FDS + k])
    text, drew, names, ev = _play(st, m)
    if turned:
        text += f": {turned}" + (", which cannot be played (R15)" if "blind_fail" in names
                                 else "")
    if drew:
        text += f", draws {drew}"
    return text, names, ev


def tell_move(st, m: int, who: str) -> tuple[str, int]:
    """Apply legal move ``m`` of the seat to move and say what happened (events, draws,
    blind cards); returns the line and the events. A move in a chain (H19) says so: the
    mover goes on with the run, or ends the turn."""
    going_on = bool(st[CHAIN])
    text, names, ev = _told(st, m)
    if going_on and not text.startswith("ends"):
        text = "goes on: " + text
    line = f"{int(st[TURN]):4d}. {who} {text} -> pile {pile_text(st)}"
    if names:
        line += "  <" + ", ".join(names) + ">"
    return line, ev


class Turns:
    """The moves of a game gathered into turns, for the story of a game: a turn is one move,
    or under H19 a chain of them by one seat (a run's plays and its ``end``), told as one
    line and numbered by its moves (``12-14.``), so that ``--at`` still names a move. Feed
    it each move once applied (:meth:`add`); it returns the turn once the turn has passed."""

    def __init__(self):
        self.first, self.parts, self.names = None, [], []

    def add(self, turn: int, text: str, names, st):
        """Move number ``turn`` in words, its events, the state after it: ``(label, the
        turn's moves in words, its events)`` when the turn has passed, else None."""
        self.first = self.first or turn
        self.parts.append(text)
        self.names += [n for n in names if n not in self.names]
        if st[CHAIN] and not st[OVER]:           # H19: the mover goes on, or ends
            return None
        return self.done(turn)

    def done(self, turn: int):
        """The turn so far, ended at move ``turn`` (None if it has no move)."""
        if self.first is None:
            return None
        label = str(turn) if self.first == turn else f"{self.first}-{turn}"
        out = (label, "; ".join(self.parts), self.names)
        self.first, self.parts, self.names = None, [], []
        return out


def result_of(st) -> dict:
    """The result of a finished game as ``sim play`` saves it: winner, order (V2: Shithead)."""
    order = [int(s) for s in st[OUTORDER:OUTORDER + st[NOUT]]]
    res = {"winner": order[0], "order": order}
    if st[V2]:
        res["shithead"] = (set(range(int(st[PLAYERS]))) - set(order)).pop()
    return res


def result_lines(st, seats: list[str]) -> list[str]:
    """The end of a game: the winner (R18, R25), or the finishing order and the Shithead
    (V2); the human's own result."""
    players = int(st[PLAYERS])
    order = [int(s) for s in st[OUTORDER:OUTORDER + st[NOUT]]]
    turns = int(st[TURN])
    human = seats.index(HUMAN) if HUMAN in seats else None
    if st[V2]:
        loser = (set(range(players)) - set(order)).pop()
        lines = [f"Finishing order (V2): {', '.join(label(seats, s) for s in order)}; "
                 f"{label(seats, loser)} is the Shithead, after {plural(turns, 'turn')}."]
        if human is not None:
            at = order.index(human) + 1 if human in order else players
            lines.append(f"Your place: {place(at)} of {players}"
                         + (": you are the Shithead." if human == loser else "."))
        return lines
    w = order[0]
    lines = [f"{label(seats, w).capitalize()} wins after {plural(turns, 'turn')} (R18, R25)."]
    if human is not None:
        lines.append("You win!" if w == human else "You lose.")
    return lines


def describe_saved(game: dict) -> list[str]:
    """A saved game told turn by turn: its deal, the swaps, every move (each checked legal,
    R24, and applied by the kernel) and the result, checked against the recorded one."""
    seats = game["seats"]
    rules = Ruleset.parse(game["rules"])
    players = game["players"]
    if game.get("seat") is None:            # saved by sim replay --save: no human seat
        lines = [f"Game {game.get('game')} of seed {game.get('seed')}, saved by sim replay: "
                 f"{players} players, rules {rules}."]
    else:
        lines = [f"Game played with sim play on {game.get('created', '?')}: {players} "
                 f"players, rules {rules}, seed {game.get('seed')}; the human at seat "
                 f"{game.get('seat')}."]
    dealt = game["dealt"]
    if dealt is not None:
        lines.append(f"Dealer: seat {dealt.get('dealer')}; stock "
                     f"{plural(len(dealt['stock']), 'card')} (R3, R4)")
        for s in range(players):
            lines.append(f"  seat {s} ({seats[s]}): face-down [{' '.join(dealt['face_down'][s])}]"
                         f" (top last), face-up [{' '.join(dealt['face_up'][s])}], hand "
                         f"[{' '.join(dealt['hands'][s])}]")
    start = game["start"]
    if start is None:
        lines.append("Unfinished before the swap.")
        return lines
    lines.append("After the swaps (R5" + (", V1" if rules.choose_face_ups else "") + "):")
    for s in range(players):
        lines.append(f"  seat {s} face up: [{' '.join(start['face_up'][s])}], hand "
                     f"[{' '.join(start['hands'][s])}]")
    from sim.studies.review import game_states, start_state

    st = start_state(game)
    lines.append(f"Seat {int(st[CURRENT])} starts (R6).")
    if rules.play_on:
        lines.append(CHAIN_NOTE)
    turns = Turns()
    try:
        for turn, st, p, m in game_states(game):       # each move checked (R24)
            text, names, _ = _told(st, m)
            told = turns.add(turn, text, names, st)
            if told:
                lines.append(_turn_line(told, label(seats, p), st))
    except ValueError as e:
        raise ValueError(f"--file: {e}") from None
    if turns.first is not None:                     # stopped in a chain
        lines.append(_turn_line(turns.done(int(st[TURN])), label(seats, int(st[CURRENT])), st))
    if st[OVER]:
        lines += result_lines(st, seats)
        if game.get("result") != result_of(st):
            raise ValueError(f"--file: the moves give {result_of(st)}, but the file records "
                             f"{game.get('result')}")
    else:
        lines.append(f"Unfinished after {plural(int(st[TURN]), 'turn')} "
                     f"({game.get('reason', '?')}).")
        if game.get("status") != "unfinished":
            raise ValueError("--file: the moves do not end the game, but the file says it "
                             "finished")
    return lines


CHAIN_NOTE = ("Play on (H19): a turn may be a chain of moves, told as one line numbered by "
              "its moves (12-14.); --at N names move N.")


def _turn_line(told, who: str, st) -> str:
    """A turn of :class:`Turns` as ``sim replay --file`` and ``sim play`` tell a move."""
    label, text, names = told
    line = f"{label:>4}. {who} {text} -> pile {pile_text(st)}"
    return line + ("  <" + ", ".join(names) + ">" if names else "")


def replay_lines(cfg, game: int, rec) -> list[str]:
    """A game of a run told turn by turn (``sim replay``): the deal, each swap, every move and
    its events, re-applied with the kernel's :func:`~sim.kernel.engine.apply_move` from the
    record of :func:`sim.runs.onegame.record_game` (``cfg``: its RunConfig)."""
    st = rec.dealt
    lines = [f"Game {game} of seed {cfg.seed}: {cfg.players} players, "
             f"{rules_words(cfg.ruleset)}",
             f"Dealer: seat {int(st[DEALER])}; stock {plural(int(st[STOCKLEN]), 'card')} "
             f"(R3, R4)"]
    for s in range(cfg.players):
        fd = " ".join(NAMES[r] for r in st[FD + s * FDS:FD + s * FDS + st[FDN + s]])
        lines.append(f"  seat {s} ({cfg.strategies[s]}, swap {cfg.swaps[s]}): face-down [{fd}] "
                     f"(top last), face-up [{counted(st, FU + s * NR) or '-'}], "
                     f"hand [{counted(st, HANDS + s * NR) or '-'}]")
    lines.append("Swaps (R5" + (", V1" if cfg.options["choose_face_ups"] else "") + "):")
    for s in range(cfg.players):
        cards = dealing.swap_choices(st, s)            # 2 x hand size (H12), in the mask's bit order
        up = [NAMES[c] for i, c in enumerate(cards) if (rec.swaps[s] >> i) & 1]
        shown = " ".join(up) if 2 * len(up) == len(cards) else f"invalid choice {rec.swaps[s]}"
        lines.append(f"  seat {s} puts face up: {shown}")
    st = rec.start.copy()
    rank = int(st[STARTRANK])
    why = ("R6" if cfg.ruleset.starter == "dealt" else "H14, H15") + (
        f": the rank {NAMES[rank]}" if rank >= 0 else ": no listed rank, first in deal order")
    lines.append(f"Seat {int(st[FIRST])} starts ({why}).")
    if cfg.ruleset.play_on:
        lines.append(CHAIN_NOTE)
    forced = cfg.ruleset.forced_opening and rank >= 0
    turns = Turns()

    def told(turn_of, p):
        label, moves, names = turn_of
        text = f"{label:>5}. seat {p} {moves} -> pile {pile_text(st)} count {int(st[COUNT])}"
        if int(st[DIR]) == -1:
            text += ", direction -1"
        if names:
            text += "  <" + ", ".join(names) + ">"
        return text

    for turn, m in enumerate(rec.moves, 1):
        p = int(st[CURRENT])
        move, drew, names, _ = _play(st, m)
        if forced and turn == 1:
            move += " (the forced opening, H16)"
        if drew:
            move += f", draws {drew}"
        turn_of = turns.add(turn, move, names, st)
        if turn_of:
            lines.append(told(turn_of, p))
    if turns.first is not None:                     # stopped in a chain (R25)
        lines.append(told(turns.done(len(rec.moves)), int(st[CURRENT])))
    if rec.status == 0:
        order = [int(s) for s in st[OUTORDER:OUTORDER + cfg.players] if s >= 0]
        if cfg.options["last_player_loses"]:
            loser = (set(range(cfg.players)) - set(order)).pop()
            lines.append(f"Finishing order (V2): {order}; seat {loser} is the Shithead.")
        else:
            lines.append(f"Seat {order[0]} wins after {plural(len(rec.moves), 'turn')} "
                         f"(R18, R25).")
    elif rec.status == 1 and rec.cycle_turns:
        n = len(rec.moves)
        lines.append(f"Unfinished: proven endless after {plural(n, 'turn')}, the position "
                     f"after turn {n} (a pick-up) is the one after turn "
                     f"{n - rec.cycle_turns}: a cycle of {plural(rec.cycle_turns, 'turn')} "
                     f"that would repeat forever (R25; --no-cycle-stop plays it to the limit "
                     f"of {plural(cfg.max_turns, 'turn')}).")
    elif rec.status == 1:
        lines.append(f"Unfinished: stopped at the limit of {plural(cfg.max_turns, 'turn')} "
                     f"(R25).")
    else:
        lines.append(f"Stopped by a strategy error (R24): {rec.error.tolist()}")
    return lines
