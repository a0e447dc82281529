"""What the player types in ``sim play``, read: moves in plain words (``7 7``, ``pickup``,
``add K``, ``add K K``, ``blind``, ``end``), the commands, and the face-up choice of the swap
(R5, V1). A move is written back as typed by :func:`sim.studies.review.move_phrase`; a
reason the kernel gives in the JSON API's words (``{"end": true}``) is said in the typed
words by :func:`in_typed_words`."""
from __future__ import annotations

import ast
import difflib
import json
import re

from reports.plain import plural
from sim.commands.common import CARD

_PICKUP = {"pickup", "pick", "p", "take"}
_END = {"end", "stop", "done"}                        # H19: end the turn in a chain
_COMMANDS = {"hint": "hint", "help": "help", "?": "help", "moves": "moves", "legal": "moves",
             "save": "save", "quit": "quit", "exit": "quit"}        # not "q": a queen

# the words typed for moves and commands, for "did you mean" (the cards are too short to guess)
_WORDS = sorted(_PICKUP | _END | set(_COMMANDS) | {"add", "blind", "play", "rule", "joker"})

HELP = """\
How to play (type a line, then Enter):
  7 7   10   jk   q      play these cards, of one rank (R7, R9): from your hand,
                         then face up once the hand is empty (R11, R13)
  pickup                 pick up the pile (R10)
  add K    add K K       add face-up Ks, then pick up (face-up stage, R12, H11)
  blind                  turn a face-down card, when only those are left (R14)
  end                    end your turn in a chain instead of playing on (H19)
Also:
  moves                  the legal moves now
  hint                   the best move and its win chance (sim analyze, R26)
  rule R9                a rule's text (as `sim rules explain R9`)
  save                   save the game now (continue it: sim play --load FILE)
  help                   this text
  quit                   stop; the game is saved, unfinished
"""

def parse(text: str):
    """A line typed by the player: ``("move", {...})`` (a docs/position.md move), ``(command,
    None)`` for hint, help, moves, save, quit, ``("rule", word)``, or ``("garbage", why)``."""
    words = text.replace(",", " ").lower().split()
    if not words:
        return "empty", None
    if "\x1b" in text:                    # an arrow key read as text: no line editing here
        return "garbage", ("I did not understand that: an arrow or other control key is not "
                           "part of a move (this terminal has no line editing: type the move "
                           "again)")
    if len(words) == 1 and words[0] in _COMMANDS:
        return _COMMANDS[words[0]], None
    if words[0] in ("rule", "rules", "explain"):
        if len(words) != 2:
            return "garbage", "`rule` takes one rule, such as `rule R9`"
        return "rule", text.split()[1]
    if words[0] in _END and (len(words) == 1 or words[1:] in (["turn"], ["my", "turn"])):
        return "move", {"end": True}
    if words[0] == "pick" and len(words) > 1 and words[1] == "up":
        words = ["pickup"] + words[2:]
    if words[0] in _PICKUP:
        if len(words) == 1:
            return "move", {"pickup": True}
        words = words[1:] if words[1] == "add" else ["add"] + words[1:]
    if words[0] == "add":
        cards = [CARD.get(w) for w in words[1:]]
        if not cards or None in cards or len(set(cards)) > 1:
            return "garbage", ("`add` takes face-up cards of one rank, such as `add K` or "
                               "`add K K`")
        # ``n``: how many go along, as written (H11 one_then_rank); without it, as the
        # ruleset says (R12: one; H11 must_add_rank: all of them)
        return "move", {"pickup": True, "add": cards[0]} | (
            {"n": len(cards)} if len(cards) > 1 else {})
    if words == ["blind"] or words == ["b"]:
        return "move", {"blind": True}
    if words[0] == "play":
        words = words[1:]
    unknown = [w for w in words if w not in CARD]
    if not words or unknown:
        what = f"{' '.join(unknown)!r} is not a card" if unknown else "no cards given"
        near = difflib.get_close_matches(unknown[0], _WORDS, n=1, cutoff=0.75) if unknown else []
        return "garbage", f"I did not understand that: {what}" + (
            f"; did you mean `{near[0]}`?" if near and len(near[0]) > 2 else "")
    cards = [CARD[w] for w in words]
    if len(set(cards)) > 1:
        return "garbage", (f"a play is cards of one rank (R7, R9), such as `{words[0]} "
                           f"{words[0]}`; not {' and '.join(sorted(set(cards), key=cards.index))}")
    if len(cards) > 8:
        return "garbage", (f"at most 8 cards of one rank exist, with two decks (R1, H18), not "
                           f"{len(cards)}")
    return "move", {"play": cards}


def swap_mask(text: str, cards: list[str], v1: bool):
    """The face-up choice typed as ``text`` as a bit mask over ``cards`` (the swap phase's
    order: dealt face-ups first, then the hand; V1: the cards dealt to the hand), or a
    reason it is not one: ``(mask, None)`` or ``(None, why)``."""
    hs = len(cards) // 2
    words = text.replace(",", " ").lower().split()
    if words == ["keep"]:
        if v1:
            return None, "under V1 no face-ups were dealt: name the cards to put face up"
        return (1 << hs) - 1, None
    if not words or any(w not in CARD for w in words):
        return None, (f"name {plural(hs, 'card')} to put face up, such as "
                      f"`{' '.join(cards[:hs])}`" + ("" if v1 else ", or `keep`"))
    chosen = [CARD[w] for w in words]
    if len(chosen) != hs:
        return None, (f"choose exactly {plural(hs, 'card')} to put face up, not {len(chosen)} "
                      f"(R5)")
    mask = 0
    for c in chosen:                       # a dealt face-up slot first: it stays unknown
        free = [i for i, x in enumerate(cards) if x == c and not (mask >> i) & 1]
        if not free:
            return None, f"you have no {'more ' if c in cards else ''}{c} to put face up"
        mask |= 1 << free[0]
    return mask, None


def typed(move: dict) -> str:
    """A docs/position.md move as the player types it, which :func:`parse` reads back:
    ``7 7``, ``pickup``, ``add K K`` (H11: as many cards as go along), ``blind``, ``end``."""
    if "play" in move:
        return " ".join(move["play"])
    if "blind" in move:
        return "blind"
    if "end" in move:                                  # H19
        return "end"
    if "add" in move:                                  # R12, H11
        return "add " + " ".join([str(move["add"])] * int(move.get("n", 1)))
    return "pickup"


_OBJECT = re.compile(r"\{[^{}]*\}")
_MOVE_KEYS = {"play", "pickup", "add", "n", "blind", "end"}


def in_typed_words(text: str) -> str:
    """``text``, a reason the kernel gives (:func:`sim.kernel.position.why_illegal`, written
    for the JSON API), with each move written there as a JSON or Python object said as the
    player types it, in backquotes: ``only more 7s or {"end": true} may follow`` becomes
    ``only more 7s or `end` may follow`` (H19). Anything else is left as it is."""
    def one(found):
        raw = found.group(0)
        for read in (json.loads, ast.literal_eval):
            try:
                move = read(raw)
            except (ValueError, SyntaxError, TypeError):
                continue
            if isinstance(move, dict) and move and set(move) <= _MOVE_KEYS:
                try:
                    return f"`{typed(move)}`"
                except (TypeError, ValueError):
                    return raw
        return raw
    return _OBJECT.sub(one, text)
