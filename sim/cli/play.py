"""``sim play``: a game in the terminal against bots, and the saved games ``sim replay`` shows.

The game is the batch core's: the deal is :func:`sim.kernel.referee.deal_game` from the game's random
stream (seed, game 0), the swap phase is :func:`sim.kernel.referee.swap_phase` (R5, V1; the human's
choice enters it as a fixed swap), the H16 opening is :func:`sim.kernel.referee.opening`, and every move
goes through :func:`sim.kernel.engine.apply_move` after a check against the legal word (R24). So
``--seed S`` deals the cards of game 0 of ``sim run --seed S`` with the same players and
rules.

The human sees what a player at the table sees (R26): their own hand, every face-up card,
the pile, the count, each seat's number of cards in hand (and the cards known to be there,
R26), face-down counts, the stock's size, the direction and who moves. Moves are typed in
plain words (:func:`parse`); an illegal one is explained with its rule (the reason
:func:`sim.kernel.position.apply` gives) and asked again. ``hint`` prints :mod:`sim.studies.analysis`'s answer
for the position, from the human's point of view.

When stdin is not a terminal, one line is read per question and echoed, so that a game can be
scripted; the end of input ends the game, saved as unfinished.
"""
from __future__ import annotations

import json
import os
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from sim.kernel import engine
from sim.kernel.compiler import FnTuple, jit_sig
from sim.kernel.cards import NAMES
from sim.kernel.layout import (
    BURNED, COUNT, CURRENT, DEALER, DECK, DIR, EV_GAME_OVER, FD, FDN, FIRST, FU, HANDN, HANDS,
    KNOWN, MAXP, NOUT, NR, OUTORDER, OVER, PLAYERS, PUB, R_COUNT, R_HAND, R_SEVEN, STARTRANK,
    STATE_SIZE, STOCKLEN, TOP, TURN, V1, V2,
)
from sim.studies.analysis import analyze_state, describe, move_words
from sim.kernel.moves import is_legal
from sim.kernel.position import _legal, _to_state, apply, move_to_dict, move_to_id, to_position
from sim.kernel.ruleset import Ruleset
from sim.kernel.strategy import SWAP_SIG

FORMAT = "shithead-sim played game"
VERSION = 1
HUMAN = "you"

HELP = ("Type a move: the cards to play (`7 7`, `10`, `jk`), `pickup`, `add K` (add that "
        "face-up card, then pick up, R12), or `blind` (turn your face-down card, R14). "
        "Also: `moves` (the legal moves), `hint` (sim analyze's answer), `help`, `quit`.")


def _fixed_swap(cards, obs, rng, params):
    """The human's swap choice, already made: a bit mask in ``params[0]``."""
    return np.int64(params[0])


_chosen = jit_sig(SWAP_SIG)(_fixed_swap)


# -- words ------------------------------------------------------------------------------------
_CARD = {name.lower(): name for name in NAMES} | {"joker": "JK"}
_PICKUP = {"pickup", "pick", "p", "take"}
_COMMANDS = {"hint": "hint", "help": "help", "?": "help", "moves": "moves", "legal": "moves",
             "quit": "quit", "exit": "quit"}        # not "q": a queen


def parse(text: str):
    """A line typed by the player: ``("move", {...})`` (a POSITION.md move), ``(command,
    None)`` for hint, help, moves, quit, or ``("garbage", why)``."""
    words = text.replace(",", " ").lower().split()
    if not words:
        return "empty", None
    if len(words) == 1 and words[0] in _COMMANDS:
        return _COMMANDS[words[0]], None
    if words[0] == "pick" and len(words) > 1 and words[1] == "up":
        words = ["pickup"] + words[2:]
    if words[0] in _PICKUP:
        if len(words) == 1:
            return "move", {"pickup": True}
        words = words[1:]
        if words[0] != "add":
            return "garbage", "after `pickup` only `add CARD` may follow"
    if words[0] == "add":
        if len(words) != 2 or words[1] not in _CARD:
            return "garbage", "`add` takes one face-up card, such as `add K`"
        return "move", {"pickup": True, "add": _CARD[words[1]]}
    if words == ["blind"] or words == ["b"]:
        return "move", {"blind": True}
    if words[0] == "play":
        words = words[1:]
    unknown = [w for w in words if w not in _CARD]
    if not words or unknown:
        what = f"{' '.join(unknown)!r} is not a card" if unknown else "no cards given"
        return "garbage", f"I did not understand that: {what}"
    return "move", {"play": [_CARD[w] for w in words]}


# -- the table as a player sees it --------------------------------------------------------
def _counted(st, base):
    return " ".join(NAMES[r] for r in range(NR) for _ in range(int(st[base + r])))


def label(seats, s) -> str:
    """How a seat is named in the story of a game: ``seat 2 (counting)``, ``seat 0 (you)``."""
    return f"seat {s} ({seats[s]})"


def _place(n):
    return {1: "1st", 2: "2nd", 3: "3rd"}.get(n, f"{n}th")


def table_view(st, seat: int, seats: list[str]) -> list[str]:
    """What the player at ``seat`` sees (R26)."""
    from sim.runs.replay import _pile

    players = int(st[PLAYERS])
    count, top = int(st[COUNT]), int(st[TOP])
    if count == 0:
        rule = "you lead" if int(st[CURRENT]) == seat else "the next player leads"
    else:
        cards = f"{count} card{'s' * (count > 1)} (R9)" if st[R_COUNT] else \
            "any number of cards (H1)"
        if top < 0:
            rule = f"play {cards} of any rank"
        elif st[R_SEVEN] and NAMES[top] == "7":
            rule = f"play {cards}: 7 or lower on this 7 (H4)"
        else:
            rule = f"play {cards}: {NAMES[top]} or higher"
    lines = [f"  pile {_pile(st)}; {rule}",
             f"  stock {int(st[STOCKLEN])} cards; burned {int(st[BURNED:BURNED + NR].sum())}; "
             f"direction {'clockwise' if st[DIR] == 1 else 'anticlockwise (R23)'}"]
    out = [int(s) for s in st[OUTORDER:OUTORDER + st[NOUT]]]
    for s in range(players):
        who = f"you (seat {s})" if s == seat else f"seat {s} {seats[s]}"
        mark = ">" if s == int(st[CURRENT]) and not st[OVER] else " "
        if s in out:
            lines.append(f"{mark} {who:<22} out ({_place(out.index(s) + 1)})")
            continue
        if s == seat:
            hand = f"hand [{_counted(st, HANDS + s * NR)}]"
        else:
            known = _counted(st, KNOWN + s * NR)
            hand = f"hand {int(st[HANDN + s])}" + (f" (known: {known})" if known else "")
        lines.append(f"{mark} {who:<22} {hand:<28} face-up [{_counted(st, FU + s * NR)}]  "
                     f"face-down {int(st[FDN + s])}")
    return lines


def tell_move(st, m: int, who: str) -> tuple[str, int]:
    """Apply legal move ``m`` of the seat to move and say what happened (events, draws,
    blind cards); returns the line and the events."""
    from sim.kernel.layout import EVENT_NAMES
    from sim.runs.replay import _move_text, _pile

    p = int(st[CURRENT])
    source = engine.play_source(st)
    turned = ""
    if source == 2:                           # R14, R17: the top of the stack, turned
        n = int(st[COUNT]) if st[COUNT] > 0 and st[R_COUNT] else 1
        k = int(st[FDN + p])
        turned = " ".join(NAMES[r] for r in st[FD + p * DECK + max(0, k - n):FD + p * DECK + k])
    before = int(st[STOCKLEN])
    ev = int(engine.apply_move(st, m))
    drew = before - int(st[STOCKLEN])
    names = [name for bit, name in EVENT_NAMES if ev & bit]
    text = _move_text(m, ("hand", "face-up", "face-down")[source])
    if turned:
        text += f": {turned}" + (", which cannot be played (R15)" if "blind_fail" in names
                                 else "")
    if drew:
        text += f", draws {drew}"
    line = f"{int(st[TURN]):4d}. {who} {text} -> pile {_pile(st)}"
    if names:
        line += "  <" + ", ".join(names) + ">"
    return line, ev


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
                 f"{label(seats, loser)} is the Shithead, after {turns} turns."]
        if human is not None:
            place = order.index(human) + 1 if human in order else players
            lines.append(f"Your place: {_place(place)} of {players}"
                         + (": you are the Shithead." if human == loser else "."))
        return lines
    w = order[0]
    lines = [f"{label(seats, w).capitalize()} wins after {turns} turns (R18, R25)."]
    if human is not None:
        lines.append("You win!" if w == human else "You lose.")
    return lines


def result_of(st) -> dict:
    order = [int(s) for s in st[OUTORDER:OUTORDER + st[NOUT]]]
    res = {"winner": order[0], "order": order}
    if st[V2]:
        res["shithead"] = (set(range(int(st[PLAYERS]))) - set(order)).pop()
    return res


# -- input and output ---------------------------------------------------------------------
class Terminal:
    """Questions and answers: ``input()`` on a terminal; otherwise one line of stdin per
    question, echoed after the prompt so that a scripted game reads like a played one."""

    def __init__(self, stdin=None, echo=None):
        self.stdin = stdin if stdin is not None else sys.stdin
        self.tty = bool(getattr(self.stdin, "isatty", lambda: False)())
        self.echo = echo or _echo

    def say(self, text: str = "") -> None:
        self.echo(text)

    def ask(self, prompt: str):
        """The player's line, or None at the end of input."""
        if self.tty:
            try:
                return input(prompt)
            except EOFError:
                self.say("")
                return None
        line = self.stdin.readline()
        if not line:
            self.say(prompt + "(end of input)")
            return None
        line = line.rstrip("\r\n")
        self.say(prompt + line)
        return line


def _echo(text):
    import typer

    typer.echo(text)


# -- the game ------------------------------------------------------------------------------
@dataclass
class Table:
    """One game at the terminal: the rules, the seats, the state and what was played."""

    players: int
    rules: Ruleset
    seed: int
    seat: int = 0
    opponents: list = field(default_factory=lambda: ["counting"])
    max_turns: int = 10_000
    hint_rollouts: int = 500

    def __post_init__(self):
        from sim.runs.registry import get_move, get_swap

        self.rules.check_players(self.players)
        if not 0 <= self.seat < self.players:
            raise ValueError(f"--seat: expected a seat from 0 to {self.players - 1}, got "
                             f"{self.seat}")
        if not 0 <= self.seed < 2**63:
            raise ValueError(f"--seed: expected an integer from 0 to 2**63-1, got {self.seed}")
        bots = self.players - 1
        names = list(self.opponents or ["counting"])
        if len(names) == 1:
            names *= bots
        if len(names) != bots:
            raise ValueError(f"--opponents: give one strategy for every bot or one per bot "
                             f"seat ({bots}), got {len(names)}")
        it = iter(names)
        self.seats = [HUMAN if s == self.seat else next(it) for s in range(self.players)]
        self.moves_of = {s: get_move(n) for s, n in enumerate(self.seats) if n != HUMAN}
        self.swaps_of = {s: get_swap(m.swap) for s, m in self.moves_of.items()}
        self.rows = {s: m.row() for s, m in self.moves_of.items()}
        self.st = np.zeros(STATE_SIZE, np.int32)
        self.rng = np.zeros(4, np.uint64)
        self.dealt = None
        self.start = None
        self.log: list[dict] = []
        self.reason = "not started"

    # -- set-up -----------------------------------------------------------------------------
    def deal(self) -> None:
        """R3, R4 (H12, H13, H17): the deal of game 0 of ``seed``, as a run deals it."""
        from sim.kernel import referee as core
        from sim.kernel.rng import seed_game

        seed_game(self.rng, np.uint64(self.seed), 0)
        core.deal_game(self.st, self.rng, self.players, self.rules.vector())
        self.dealt = self.st.copy()

    def swap_choices(self) -> list[str]:
        """The human's cards to choose from (R5: dealt face-ups first, then the hand; V1: the
        cards dealt to the hand), as the swap phase orders them."""
        k = 2 * int(self.st[R_HAND])
        cards = np.zeros(k + engine.SWAP_SCRATCH, np.int32)
        engine.swap_cards(self.st, self.seat, cards)
        return [NAMES[r] for r in cards[:k]]

    def choose_mask(self, text: str):
        """The human's face-up choice as a mask over :meth:`swap_choices`, or a reason."""
        cards = self.swap_choices()
        hs = len(cards) // 2
        v1 = bool(self.st[V1])
        words = text.replace(",", " ").lower().split()
        if words == ["keep"]:
            if v1:
                return None, "under V1 no face-ups were dealt: name the cards to put face up"
            return (1 << hs) - 1, None
        if not words or any(w not in _CARD for w in words):
            return None, (f"name {hs} cards to put face up, such as "
                          f"`{' '.join(cards[:hs])}`" + ("" if v1 else ", or `keep`"))
        chosen = [_CARD[w] for w in words]
        if len(chosen) != hs:
            return None, f"choose exactly {hs} cards to put face up, not {len(chosen)} (R5)"
        mask = 0
        for c in chosen:                       # a dealt face-up slot first: it stays unknown
            free = [i for i, x in enumerate(cards) if x == c and not (mask >> i) & 1]
            if not free:
                return None, f"you have no {'more ' if c in cards else ''}{c} to put face up"
            mask |= 1 << free[0]
        return mask, None

    def swap(self, mask: int) -> None:
        """R5/V1 for every seat (the bots' policies, the human's ``mask``), then R6."""
        from sim.kernel import referee as core
        from sim.kernel.fastpath import kinds

        some_bot = next(iter(self.moves_of.values()))
        fns, moves, rows = [], [], np.zeros((2 * MAXP, 1))
        for s in range(MAXP):
            bot = s < self.players and s != self.seat
            fns.append(self.swaps_of[s].fn if bot else _chosen)
            moves.append((self.moves_of[s] if bot else some_bot).fn)
            row = self.swaps_of[s].row() if bot else np.array([float(mask)])
            if row.size > rows.shape[1]:
                rows = np.pad(rows, ((0, 0), (0, row.size - rows.shape[1])))
            rows[MAXP + s, :row.size] = row
        fns = FnTuple(fns)
        choice = np.zeros(MAXP, np.int64)
        err = np.zeros(3, np.int64)
        cards = np.zeros(core.SWAP_CARDS, np.int32)
        if not core.swap_phase(self.st, self.rng, fns, kinds(tuple(moves), fns), rows, choice,
                               cards, err):
            s = int(err[0])
            raise ValueError(f"swap policy {self.swaps_of[s].name!r} (seat {s}) returned "
                             f"{int(err[1])}, which is not a choice of half its cards (R5)")
        self.start = self.st.copy()

    def opening(self):
        """H16: the starter's forced first move, when the ruleset has one; its line."""
        from sim.kernel import referee as core

        log = np.full(1, -1, np.int32)
        core.opening(self.st.copy(), log)          # which move it is: the core decides
        if log[0] < 0:
            return None
        return self.play(int(log[0]))[0]

    # -- play -------------------------------------------------------------------------------
    def label(self, s: int) -> str:
        return label(self.seats, s)

    def _record(self, s, m):
        self.log.append({"seat": s, "move": move_to_dict(m)})

    def legal(self) -> list[int]:
        return _legal(self.st)

    def bot_move(self) -> int:
        """The bot to move chooses (R26: the public state and its own hand only)."""
        p = int(self.st[CURRENT])
        obs = self.st[:PUB]
        hand = self.st[HANDS + p * NR:HANDS + p * NR + NR]
        obs.flags.writeable = False
        hand.flags.writeable = False
        legal = engine.legal_word(self.st)
        m = int(self.moves_of[p].fn(obs, hand, legal, self.rng, self.rows[p]))
        if not is_legal(legal, m, obs):
            raise ValueError(f"strategy {self.seats[p]!r} (seat {p}) returned move id {m}, "
                             f"which is not a legal move (R24)")
        return m

    def play(self, m: int) -> tuple[str, bool]:
        p = int(self.st[CURRENT])
        self._record(p, m)
        line, ev = tell_move(self.st, m, self.label(p))
        return line, bool(ev & EV_GAME_OVER)

    def why_illegal(self, move: dict) -> str | None:
        """None if ``move`` is legal here, else why not (R24, with the rule)."""
        try:
            m = move_to_id(move)
        except ValueError as e:
            return str(e)
        if m in self.legal():
            return None
        try:
            apply(to_position(self.st, self.rules), move)
        except ValueError as e:
            return str(e)
        return "not a legal move here (R24)"

    def hint(self) -> list[str]:
        a = analyze_state(self.st.copy(), rollouts=self.hint_rollouts,
                          seed=(self.seed + int(self.st[TURN])) % 2**63)
        return describe(a, from_file=False)

    # -- the record -------------------------------------------------------------------------
    def record(self) -> dict:
        over = self.start is not None and bool(self.st[OVER])
        return {
            "format": FORMAT, "version": VERSION,
            "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
            "seed": self.seed, "players": self.players, "rules": self.rules.to_json(),
            "seat": self.seat, "seats": self.seats,
            "swaps": [None if s == self.seat else self.swaps_of[s].name
                      for s in range(self.players)],
            "max_turns": self.max_turns,
            "dealt": to_position(self.dealt, self.rules) if self.dealt is not None else None,
            "start": to_position(self.start, self.rules) if self.start is not None else None,
            "first": int(self.start[FIRST]) if self.start is not None else None,
            "moves": self.log,
            "status": "finished" if over else "unfinished",
            "reason": self.reason,
            "turns": int(self.st[TURN]),
            "result": result_of(self.st) if over else None,
        }


def default_save_path(seed: int) -> Path:
    return (Path.home() / ".cache" / "shithead-sim" / "games"
            / f"{time.strftime('%Y%m%d-%H%M%S')}-seed{seed}.json")


def _dumps(record: dict) -> str:
    """JSON with one key a line, and one line per move: short enough to read."""
    def value(k, v):
        if k == "moves" and v:
            return "[\n  " + ",\n  ".join(json.dumps(x) for x in v) + "\n ]"
        return json.dumps(v)
    return "{\n" + ",\n".join(f" {json.dumps(k)}: {value(k, v)}" for k, v in record.items()) \
        + "\n}\n"


def save(record: dict, path: Path) -> Path:
    """Write the game (whole, or not at all: written, then renamed)."""
    path = Path(path).expanduser()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(_dumps(record))
        os.replace(tmp, path)
    except OSError as e:
        raise ValueError(f"--save: cannot write {path}: {e.strerror or e}") from None
    return path


def play(table: Table, term: Terminal, save_to: Path | None = None) -> dict:
    """Play ``table`` at the terminal ``term``; save the game; return its record."""
    say = term.say
    human = table.seat
    say(f"Shithead, {table.players} players, rules {table.rules}; you are seat {human}; "
        + ", ".join(f"seat {s}: {n}" for s, n in enumerate(table.seats) if s != human)
        + f". Seed {table.seed} (--seed {table.seed} deals these cards again).")
    say(HELP)
    table.deal()
    try:
        stopped = _swap_phase(table, term)
        if stopped:
            return _finish(table, term, save_to, stopped)
        line = table.opening()
        if line:
            say(f"Forced opening (H16): every hand card of the rank that made the starter "
                f"start.\n{line}")
        while not table.st[OVER]:
            if int(table.st[TURN]) >= table.max_turns:
                say(f"Stopped at the limit of {table.max_turns} turns (R25).")
                return _finish(table, term, save_to, "turn limit")
            if int(table.st[CURRENT]) == human:
                m = _ask_move(table, term)
                if m is None or m == "quit":
                    return _finish(table, term, save_to, "quit" if m else "end of input")
            else:
                m = table.bot_move()
            say(table.play(m)[0])
    except KeyboardInterrupt:
        say("")
        return _finish(table, term, save_to, "interrupted")
    for text in result_lines(table.st, table.seats):
        say(text)
    return _finish(table, term, save_to, "game over")


def _swap_phase(table: Table, term: Terminal) -> str | None:
    """R5 (V1) at the terminal; None once swapped, else why it stopped."""
    st = table.st
    say = term.say
    hs = int(st[R_HAND])
    say(f"Dealer: seat {int(st[DEALER])}. Stock: {int(st[STOCKLEN])} cards.")
    for s in range(table.players):
        if s != table.seat and not st[V1]:
            say(f"  seat {s} {table.seats[s]}: face-up as dealt [{_counted(st, FU + s * NR)}]")
    cards = table.swap_choices()
    if st[V1]:
        say(f"Your cards (V1): [{' '.join(cards)}]; {hs} face-down cards you cannot see.")
        prompt = f"Choose {hs} cards to put face up (V1): "
    else:
        say(f"Your face-up cards as dealt: [{' '.join(cards[:hs])}]; your hand: "
            f"[{' '.join(cards[hs:])}]; {hs} face-down cards you cannot see.")
        prompt = f"Swap (R5): name the {hs} cards to have face up, or `keep`: "
    while True:
        text = term.ask(prompt)
        if text is None:
            return "end of input"
        what, _ = parse(text)
        if what == "quit":
            return "quit"
        if what == "help":
            say("Name the cards you want face up, e.g. "
                f"`{' '.join(sorted(cards, key=NAMES.index, reverse=True)[:hs])}`; the others "
                "go to your hand. Face-up cards are played once your hand is empty (R11).")
            continue
        mask, why = table.choose_mask(text)
        if why:
            say(f"Not a swap: {why}.")
            continue
        break
    table.swap(mask)
    st = table.st
    for s in range(table.players):
        known = _counted(st, KNOWN + s * NR)
        took = f"; took {known} from the face-ups into the hand: known to all (R26)" \
            if known else ""
        say(f"  {table.label(s)} face up: [{_counted(st, FU + s * NR)}]{took}")
    r = int(st[STARTRANK])
    why = f"the rank {NAMES[r]} (R6, H14, H15)" if r >= 0 else "no listed rank: left of the dealer"
    say(f"{table.label(int(st[CURRENT])).capitalize()} starts: {why}.")
    return None


def _ask_move(table: Table, term: Terminal):
    """The human's legal move id, ``"quit"``, or None at the end of input."""
    say = term.say
    st = table.st
    legal = table.legal()
    say(f"Turn {int(st[TURN]) + 1}: your move (seat {table.seat}).")
    for line in table_view(st, table.seat, table.seats):
        say(line)
    may = "  you may: " + " | ".join(move_words(m) for m in legal)
    say(may)
    while True:
        text = term.ask("your move> ")
        if text is None:
            return None
        what, arg = parse(text)
        if what == "empty":
            continue
        if what == "quit":
            return "quit"
        if what == "help":
            say(HELP)
        elif what == "moves":
            say(may)
        elif what == "hint":
            say("Thinking (sim analyze from your point of view: hidden cards re-dealt)...")
            for line in table.hint():
                say("  " + line if line else "")
        elif what == "garbage":
            say(f"{arg}. Type `help` for how to write a move.")
        else:
            why = table.why_illegal(arg)
            if why is None:
                return move_to_id(arg)
            say(f"Not legal: {why}")


def _finish(table: Table, term: Terminal, save_to, reason: str) -> dict:
    table.reason = reason
    rec = table.record()
    if rec["status"] == "unfinished":
        term.say(f"The game is unfinished ({reason}).")
    path = save(rec, save_to or default_save_path(table.seed))
    term.say(f"Saved to {path} (show it with: sim replay --file {path}).")
    rec["path"] = str(path)
    return rec


# -- saved games, for sim replay -------------------------------------------------------------
def load(path) -> dict:
    """A game saved by ``sim play``; ``ValueError`` saying what is wrong."""
    try:
        data = json.loads(Path(path).expanduser().read_text())
    except OSError as e:
        raise ValueError(f"--file: cannot read {path}: {e.strerror or e}") from None
    except json.JSONDecodeError as e:
        raise ValueError(f"--file: {path} is not valid JSON ({e.msg} at line {e.lineno})") \
            from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ValueError(f"--file: {path} is not a game saved by sim play")
    missing = {"players", "rules", "seats", "dealt", "start", "moves", "status"} - set(data)
    if missing:
        raise ValueError(f"--file: {path} lacks {', '.join(sorted(missing))}")
    return data


def describe_saved(game: dict) -> list[str]:
    """A saved game told turn by turn: its deal, the swaps, every move (each checked legal,
    R24, and applied by the kernel) and the result, checked against the recorded one."""
    seats = game["seats"]
    rules = Ruleset.parse(game["rules"])
    players = game["players"]
    lines = [f"Game played with sim play on {game.get('created', '?')}: {players} players, "
             f"rules {rules}, seed {game.get('seed')}; the human at seat {game.get('seat')}."]
    dealt = game["dealt"]
    if dealt is not None:
        lines.append(f"Dealer: seat {dealt.get('dealer')}; stock {len(dealt['stock'])} cards "
                     f"(R3, R4)")
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
    st = _to_state(start)
    lines.append(f"Seat {int(st[CURRENT])} starts (R6).")
    for i, entry in enumerate(game["moves"], 1):
        p = int(st[CURRENT])
        if st[OVER] or entry.get("seat") != p:
            raise ValueError(f"--file: move {i} is seat {entry.get('seat')}'s, but seat {p} is "
                             f"to move" + (" (the game is over)" if st[OVER] else ""))
        m = move_to_id(entry["move"])
        if m not in _legal(st):
            raise ValueError(f"--file: move {i} {entry['move']} is not legal (R24)")
        line, _ = tell_move(st, m, label(seats, p))
        lines.append(line)
    if st[OVER]:
        lines += result_lines(st, seats)
        if game.get("result") != result_of(st):
            raise ValueError(f"--file: the moves give {result_of(st)}, but the file records "
                             f"{game.get('result')}")
    else:
        lines.append(f"Unfinished after {int(st[TURN])} turns ({game.get('reason', '?')}).")
        if game.get("status") != "unfinished":
            raise ValueError("--file: the moves do not end the game, but the file says it "
                             "finished")
    return lines


__all__ = ["Table", "Terminal", "play", "parse", "load", "describe_saved", "save",
           "default_save_path"]
