"""``sim play`` at the terminal: the game's questions and answers, from the deal to the result.

The human sees what a player at the table sees (R26, :func:`reports.game.table_view`) and the
cards it draws (R8). Moves are typed in plain words (:mod:`sim.cli.words`); an illegal one is
explained in words with its rule (the reason :func:`sim.kernel.position.why_illegal` gives)
and asked again. ``hint`` prints ``sim analyze``'s answer for the position, from the human's
point of view, its answer first. The game itself is :class:`sim.cli.table.Table`; it is saved
as :mod:`sim.commands.savedgame` writes it: the save file is checked before the deal, ``save``
writes it mid-game, every ending writes it (elsewhere, or on screen, if that fails), and
``sim play --load`` continues it.

When stdin is not a terminal, one line is read per question and echoed, so that a game can be
scripted; the end of input ends the game, saved as unfinished. At a terminal the line can be
edited and earlier lines recalled with the arrow keys where the platform has readline
(:func:`line_editing`).
"""
from __future__ import annotations

import atexit
import sys
from contextlib import contextmanager
from pathlib import Path

from reports.game import counted, result_lines, table_view
from reports.plain import plural
from sim.commands.savedgame import check_writable, default_save_path, dumps, record, save
from sim.cli.table import Table
from sim.cli.words import HELP, in_typed_words, parse
from sim.kernel.cards import NAMES
from sim.kernel.layout import (
    CHAIN, CURRENT, DEALER, FU, KNOWN, NR, OVER, R_HAND, STARTRANK, STOCKLEN, TOPRANK, TURN,
    V1,
)
from sim.studies.review import move_phrase


# the lines typed at ``sim play``'s prompts, kept between games (beside the saved games)
HISTORY = Path.home() / ".cache" / "shithead-sim" / "play_history"
_editing: bool | None = None          # line_editing's answer, once per process


def line_editing(history: Path | None = None) -> bool:
    """Line editing and history for ``input()`` where the platform has readline: importing
    it is enough, so that the arrow keys move in the line and recall earlier lines instead of
    being read as a move ("'\\x1b[a' is not a card"). The lines of earlier games
    are read from ``history`` (the terminal's: :data:`HISTORY`; None: this session's only)
    and this session's written back at exit, never failing: an unreadable or unwritable
    file is left alone. False (plain ``input()``) without readline.
    Once per process."""
    global _editing
    if _editing is not None:
        return _editing
    try:
        import readline
    except ImportError:
        _editing = False
        return False
    _editing = True
    if history is not None:
        try:
            readline.read_history_file(str(history))
        except OSError:                  # none yet, or unreadable: this session's lines only
            pass
        readline.set_history_length(1000)
        atexit.register(_keep_history, readline, history)
    return True


def _keep_history(readline, history: Path) -> None:
    try:
        history.parent.mkdir(parents=True, exist_ok=True)
        readline.write_history_file(str(history))
    except OSError:                      # unwritable: the history is this session's only
        pass


class Terminal:
    """Questions and answers: ``input()`` on a terminal, with line editing where there is
    readline (:func:`line_editing`); otherwise one line of stdin per question, echoed after
    the prompt so that a scripted game reads like a played one."""

    def __init__(self, stdin=None, echo=None):
        self.stdin = stdin if stdin is not None else sys.stdin
        self.tty = bool(getattr(self.stdin, "isatty", lambda: False)())
        self.echo = echo or _echo
        self.editing = line_editing(HISTORY) if self.tty else False

    def say(self, text: str = "") -> None:
        self.echo(text)

    @contextmanager
    def working(self, what: str):
        """A status line on stderr while ``what`` runs, erased before the answer is said, so
        that the answer stays the first line; only at a terminal (a script reads answers)."""
        if not self.tty:
            yield
            return
        sys.stderr.write(f"({what} ...)")
        sys.stderr.flush()
        try:
            yield
        finally:
            sys.stderr.write("\r\033[K")
            sys.stderr.flush()

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


def play(table: Table, term: Terminal, save_to: Path | None = None) -> dict:
    """Play ``table`` at the terminal ``term`` (from the deal, or from where a game set up by
    :func:`resume` stands); save the game; return its record. The save
    file is checked first: ``ValueError`` before anything is dealt when it cannot be
    written."""
    save_to = (check_writable(save_to) if save_to is not None else
               check_writable(default_save_path(table.seed), "the default save file"))
    say = term.say
    human = table.seat
    say(f"Shithead, {table.players} players, rules {table.rules}; you are seat {human}; "
        + ", ".join(f"seat {s}: {n}" for s, n in enumerate(table.seats) if s != human)
        + f". Seed {table.seed} (--seed {table.seed} deals these cards again).")
    say(HELP.rstrip("\n"))
    try:
        if table.start is None:
            if table.dealt is None:
                table.deal()
            else:
                say("Continuing the saved game at the swap (R5).")
            stopped = _swap_phase(table, term, save_to)
            if stopped:
                return _finish(table, term, save_to, stopped)
            line = table.opening()
            if line:
                say(f"Forced opening (H16): every hand card of the rank that made the starter "
                    f"start.\n{line}")
        else:
            say(f"Continuing the saved game: {plural(len(table.log), 'move')} played again, "
                f"as saved.")
        while not table.st[OVER]:
            if int(table.st[TURN]) >= table.max_turns:
                say(f"Stopped at the limit of {plural(table.max_turns, 'turn')} (R25).")
                return _finish(table, term, save_to, "turn limit")
            if int(table.st[CURRENT]) == human:
                m = _ask_move(table, term, save_to)
                if m is None or m == "quit":
                    return _finish(table, term, save_to, "quit" if m else "end of input")
            else:
                m = table.bot_move()
            say(table.play(m)[0])
            if table.drawn:
                say(f"      you drew {' '.join(table.drawn)} (R8)")
    except KeyboardInterrupt:
        say("")
        return _finish(table, term, save_to, "interrupted")
    for text in result_lines(table.st, table.seats):
        say(text)
    return _finish(table, term, save_to, "game over")


def _swap_phase(table: Table, term: Terminal, save_to: Path) -> str | None:
    """R5 (V1) at the terminal; None once swapped, else why it stopped."""
    st = table.st
    say = term.say
    hs = int(st[R_HAND])
    say(f"Dealer: seat {int(st[DEALER])}. Stock: {plural(int(st[STOCKLEN]), 'card')}.")
    for s in range(table.players):
        if s != table.seat and not st[V1]:
            say(f"  seat {s} {table.seats[s]}: face-up as dealt [{counted(st, FU + s * NR)}]")
    cards = table.swap_choices()
    if st[V1]:
        say(f"Your cards (V1): [{' '.join(cards)}]; {plural(hs, 'face-down card')} you "
            f"cannot see.")
        prompt = f"Choose {plural(hs, 'card')} to put face up (V1): "
    else:
        say(f"Your face-up cards as dealt: [{' '.join(cards[:hs])}]; your hand: "
            f"[{' '.join(cards[hs:])}]; {plural(hs, 'face-down card')} you cannot see.")
        prompt = f"Swap (R5): name the {plural(hs, 'card')} to have face up, or `keep`: "
    while True:
        text = term.ask(prompt)
        if text is None:
            return "end of input"
        what, arg = parse(text)
        if what == "quit":
            return "quit"
        if what == "save":
            table.reason = "saved at the swap"
            _save(record(table), save_to, term)
            continue
        if what == "hint":                 # sim swap's answer for these six cards
            from reports.swap import hint_text
            with term.working("playing out every split"):
                answer = hint_text(table.swap_choices(), table.players, table.cfg.ruleset)
            say(answer)
            continue
        if what == "rule":
            _explain(arg, term)
            continue
        if what in ("help", "moves"):
            say("Name the cards you want face up, e.g. "
                f"`{' '.join(sorted(cards, key=NAMES.index, reverse=True)[:hs])}`; the others "
                "go to your hand. Face-up cards are played once your hand is empty (R11). "
                "Also: hint, rule R5, save, quit.")
            continue
        mask, why = table.choose_mask(text)
        if why:
            say(f"Not a swap: {why}.")
            continue
        break
    table.swap(mask)
    st = table.st
    for s in range(table.players):
        known = counted(st, KNOWN + s * NR)
        took = f"; took {known} from the face-ups into the hand: known to all (R26)" \
            if known else ""
        say(f"  {table.label(s)} face up: [{counted(st, FU + s * NR)}]{took}")
    r = int(st[STARTRANK])
    why = f"the rank {NAMES[r]} (R6, H14, H15)" if r >= 0 else "no listed rank: left of the dealer"
    say(f"{table.label(int(st[CURRENT])).capitalize()} starts: {why}.")
    return None


def _ask_move(table: Table, term: Terminal, save_to: Path):
    """The human's legal move id, ``"quit"``, or None at the end of input."""
    say = term.say
    st = table.st
    legal = table.legal()
    words = [move_phrase(st, m) for m in legal]
    if st[CHAIN]:                          # H19: the run goes on, or the turn ends
        rank = NAMES[int(st[TOPRANK])]
        say(f"Turn {int(st[TURN]) + 1}: you may go on (H19): play another {rank} or end your "
            f"turn: " + ", ".join(f"`{w}`" for w in words) + ".")
    else:
        say(f"Turn {int(st[TURN]) + 1}: your move (seat {table.seat}).")
    for line in table_view(st, table.seat, table.seats):
        say(line)
    may = "  you may: " + " | ".join(words)
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
            with term.working(f"sim analyze: {plural(table.hint_rollouts, 'world')} a move"):
                answer, *details = table.hint()
            say(answer)
            for line in details:
                say("  " + line if line else "")
        elif what == "save":
            table.reason = f"saved at turn {int(st[TURN]) + 1}"
            _save(record(table), save_to, term)
        elif what == "rule":
            _explain(arg, term)
        elif what == "garbage":
            say(f"{arg[0].upper()}{arg[1:]}. Type `help` for how to write a move.")
        else:
            why = table.why_illegal(arg)
            if why is None:
                return table.typed_id(arg)
            say(f"Not legal: {in_typed_words(why)}.")      # `end`, not {"end": true}


def _explain(word: str, term: Terminal) -> None:
    """``rule R9`` at the prompt: the rule's text, as ``sim rules explain`` prints it."""
    from reports.rules_text import accepted, explain_lines

    try:
        term.say("\n".join(explain_lines(word)))
    except KeyError:
        term.say(f"No rule {word!r}: expected {accepted()}.")


def _save(rec: dict, path: Path, term: Terminal) -> Path | None:
    """Write the game to ``path``; if that fails, to the default place, else print it: a game
    is never lost. Where it went (None: printed)."""
    tries = [path] + [p for p in (default_save_path(rec["seed"]),) if p != path]
    for i, where in enumerate(tries):
        try:
            saved = save(rec, where)
        except ValueError as e:
            term.say(f"Could not save the game: {e}" + (" (trying elsewhere)." if
                                                          i + 1 < len(tries) else "."))
            continue
        more = "" if rec["status"] == "finished" else f"; continue it: sim play --load {saved}"
        term.say(f"Saved to {saved} (show it: sim replay --file {saved}{more}).")
        return saved
    term.say("The game as JSON (keep it in a file to replay it or continue it with --load):")
    term.say(dumps(rec).rstrip("\n"))
    return None


def _finish(table: Table, term: Terminal, save_to: Path, reason: str) -> dict:
    table.reason = reason
    rec = record(table)
    if rec["status"] == "unfinished":
        term.say(f"The game is unfinished ({reason}).")
    path = _save(rec, save_to, term)
    rec["path"] = str(path) if path else None
    return rec


def resume(path, hint_rollouts: int = 500):
    """The game saved at ``path`` set up again to be continued (``sim play --load``): the
    same seed, rules, seats and bots deal the same cards, the human's saved face-up choice
    is swapped again, and every saved move is played again in order, the bots choosing
    theirs anew from the same random stream (each must be the move saved). So the game goes
    on exactly as it would have without the save. ``ValueError`` when the file is finished,
    or when anything does not come out as saved (another version of a bot, a changed file)."""
    from reports.game import HUMAN
    from sim.commands.savedgame import load
    from sim.kernel.position import move_to_id, to_position
    from sim.kernel.ruleset import Ruleset
    from sim.studies.analysis import move_words

    game = load(path, "--load")
    if game["status"] == "finished":
        res = game.get("result") or {}
        who = f"; seat {res['winner']} won" if "winner" in res else ""
        raise ValueError(f"--load: the game in {path} is finished{who} after "
                         f"{game.get('turns')} turns: there is nothing to continue "
                         f"(sim replay --file {path} shows it)")
    bad = f"--load: {path} does not continue as saved"
    try:
        seats, seat = list(game["seats"]), int(game["seat"])
        if seats[seat] != HUMAN:
            raise ValueError(f"seat {seat} is not the human's")
        table = Table(int(game["players"]), Ruleset.parse(game["rules"]), int(game["seed"]),
                      seat, [s for i, s in enumerate(seats) if i != seat],
                      int(game.get("max_turns", 10_000)), hint_rollouts)
    except (KeyError, TypeError, ValueError) as e:
        raise ValueError(f"--load: {path} cannot be set up again: {e}") from None
    table.deal()
    if to_position(table.dealt, table.rules) != game["dealt"]:
        raise ValueError(f"{bad}: the seed deals other cards")
    if game["start"] is None:
        return table                                     # saved before the swap (R5)
    mask = game.get("swap_mask")
    if mask is None:                                     # the face-ups of the saved swap
        mask, why = table.choose_mask(" ".join(game["start"]["face_up"][seat]))
        if why:
            raise ValueError(f"{bad}: {why}")
    table.swap(int(mask))
    if to_position(table.start, table.rules) != game["start"]:
        raise ValueError(f"{bad}: the swaps give other face-up cards (R5)")
    moves = game["moves"]
    done = 1 if table.opening() is not None else 0       # H16: played again by the core
    if table.log != moves[:done]:
        raise ValueError(f"{bad}: the forced opening differs (H16)")
    for i, entry in enumerate(moves[done:], done + 1):
        p = int(table.st[CURRENT])
        if table.st[OVER] or entry.get("seat") != p:
            raise ValueError(f"{bad}: move {i} is not seat {entry.get('seat')}'s to make")
        try:
            saved = move_to_id(entry.get("move"), table.st)      # H11 n: all, or fewer
        except ValueError as e:
            raise ValueError(f"{bad}: move {i}: {e}") from None
        m = saved if p == seat else table.bot_move()
        if m != saved or m not in table.legal():
            raise ValueError(f"{bad}: move {i} ({move_words(saved)}) is not legal (R24)"
                             if p == seat else f"{bad}: at move {i} the bot {seats[p]!r} "
                             f"now plays {move_words(m)}, not the saved {move_words(saved)}")
        table.play(m)
    return table
