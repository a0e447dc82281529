"""Endless games end when they are proven endless: Brent's cycle detection on the
positions right after each pick-up.

When every seat's strategy is *pure* (:func:`sim.kernel.strategy.move_strategy`, ``pure=True``: a
function of the position it sees, reading no counter such as ``TURN`` or ``PICKUPS`` and
drawing no random number), the game from any position on is a fixed function of that
position. If a position comes back, the game repeats it forever and can never end (R25): it
is stopped at once and recorded as *unfinished* with the reason ``cycle`` (a game stopped at
the turn limit has the reason ``cap``). The set of unfinished games, and with it every win
rate, is the same as with the limit alone; only the turns (and pick-ups) played in an
unfinished game differ.

A seat whose strategy is not pure (``random``, a search bot) stops the detection only while
it still holds cards: once such seats are all out (V2, where play goes on until one is
left), the seats still to move are pure, and from there the game is again a function of the
position (a search bot at a table of ``highest`` under ``classic`` goes out first, and the
three ``highest`` seats then go round for ever).

**Why the positions after pick-ups are enough.** Along a cycle nothing may change for good:
cards burned (R21, R22) only grow, the stock (R8) and the face-down stacks (R14-R17) only
shrink, face-up cards (R11, R12) only leave, seats out (R18, V2) only grow. So a cycle burns
nothing, draws nothing, turns no face-down card and plays no face-up card: every move in it is
a play from the hand, which adds to the pile, or a pick-up (R10, R12, R15), which empties it.
The pile has to come back too, so every cycle holds a pick-up, and the sequence of positions
just after the pick-ups (pile empty) repeats exactly when the game does. Brent's algorithm on
that sequence needs one saved position and two counters (constant memory), and costs nothing
on the turns without a pick-up.

**From turn** :data:`START` **on.** The referee looks only at the pick-ups from turn 200 on:
a finished game of ``lowest`` lasts 55 to 140 turns (median, 6 to 3 players; 99% end by turn
170 to 340), so most games never pay for the detection, while an endless game is still
stopped long before the turn limit (the figures: benchmarks/results/cycles.md).

**What is compared.** The whole public block ``st[:PUB]`` (R26: everything a strategy can
read, including each hand's ``KNOWN`` cards and the stale pile slots past ``PILELEN``) except
the counters ``TURN`` and ``PICKUPS`` and the ruleset block (constant in a game), and the
hands. The public scalars include H19's ``CHAIN`` (0 at a pick-up, which never happens in a
chain) and H18's ``NDECKS``. Nothing else can differ between two positions of one game with equal public blocks:
the face-down stacks and the stock are what is left of the deal, given by ``FDN`` and
``STOCKLEN`` since they only shrink from the top; the cards set aside (H17) never change; the
have-words (:data:`sim.kernel.layout.HAVE`) are derived from the hands, face-ups and pile. The
comparison is exact (no hash, so no false positive ever) and stops at the first difference,
which is almost always among the first few words (the seat to move, the hand sizes); a
branch-free pass over those first words (:func:`_differ`) rules out most positions without
the mispredicted exits of a word-by-word loop.

A saved position's ``TURN`` gives the cycle's length in turns when it comes back.
"""
from __future__ import annotations

import numpy as np

from sim.kernel.compiler import jit
from sim.kernel.derived import holds_cards
from sim.kernel.layout import HANDS, MAXP, NR, PICKUPS, PLAYERS, RULES, TURN

# Why a game ended (per-game records: sim.runs.batch.Batch.end; the store's ``unfinished_by``).
END_FINISHED, END_CAP, END_CYCLE = 0, 1, 2
END_NAMES = ("finished", "cap", "cycle")

# The scratch array ``seen`` (int32, :data:`SIZE` long; a zero-length array turns detection
# off): Brent's counters, the cycle's length once found, the seats whose strategies are not
# pure (a bit each: no detection while any of them still holds cards), the saved position.
POWER, LAM, PERIOD, IMPURE = 0, 1, 2, 3
SAVED = 4                            # st[:RULES] as it was at the saved pick-up
SAVED_HANDS = SAVED + RULES          # the hands, st[HANDS:HANDS + MAXP * NR]
SIZE = SAVED_HANDS + MAXP * NR
START = 200                          # the first turn whose pick-up is looked at


@jit(inline="always")
def end_of(unfinished, seen):
    """Why a game ended (``END_*``) and the length in turns of the cycle that stopped it (0
    for the others), from whether it is unfinished and its ``seen`` after the game."""
    if not unfinished:
        return END_FINISHED, 0
    if seen.shape[0] > 0 and seen[PERIOD] > 0:
        return END_CYCLE, seen[PERIOD]
    return END_CAP, 0


@jit(inline="always")
def reset(seen):
    """A new game: nothing saved yet, no cycle found."""
    if seen.shape[0] > 0:
        seen[POWER] = 1
        seen[LAM] = -1
        seen[PERIOD] = 0


@jit
def seen_again(st, seen):
    """One step of Brent's algorithm, called right after each pick-up: True when this
    position equals the saved one, which proves the game endless. Then ``seen[PERIOD]``
    holds the cycle's length in turns (the smallest: Brent's first match is at the cycle's
    length once the saved position lies on the cycle).

    While a seat in ``seen[IMPURE]`` still holds cards it says False and saves nothing; once
    they are all out (V2: play goes on without them), every seat still to move is pure and
    the detection starts afresh."""
    if seen[IMPURE]:
        for s in range(st[PLAYERS]):
            if (seen[IMPURE] >> s) & 1 and holds_cards(st, s):
                return False
        seen[IMPURE] = 0
        seen[POWER] = 1
        seen[LAM] = -1
    lam = seen[LAM] + 1
    if lam > 0:
        if _differ(st, seen) == 0 and _same(st, seen):
            seen[PERIOD] = st[TURN] - seen[SAVED + TURN]
            return True
        if lam < seen[POWER]:
            seen[LAM] = lam
            return False
        seen[POWER] *= 2
    for i in range(RULES):           # the tortoise moves to here
        seen[SAVED + i] = st[i]
    for i in range(MAXP * NR):
        seen[SAVED_HANDS + i] = st[HANDS + i]
    seen[LAM] = 0
    return False


@jit(inline="always")
def _differ(st, seen):
    """Zero when the first words (the scalars and per-seat counts, counters aside) equal the
    saved ones: an OR of XORs, without a branch (unsigned indices spare the negative-index
    checks, so that the loops vectorise)."""
    d = 0
    for i in range(np.uint64(TURN)):
        d |= st[i] ^ seen[np.uint64(SAVED) + i]
    for i in range(np.uint64(TURN + 1), np.uint64(PICKUPS)):
        d |= st[i] ^ seen[np.uint64(SAVED) + i]
    return d


@jit(inline="always")
def _same(st, seen):
    """The position equals the saved one, counters aside (see the module's docstring)."""
    for i in range(TURN):
        if st[i] != seen[SAVED + i]:
            return False
    for i in range(TURN + 1, PICKUPS):
        if st[i] != seen[SAVED + i]:
            return False
    for i in range(MAXP * NR):
        if st[HANDS + i] != seen[SAVED_HANDS + i]:
            return False
    for i in range(PICKUPS + MAXP, RULES):
        if st[i] != seen[SAVED + i]:
            return False
    return True


def position_key(st):
    """What :func:`seen_again` compares, as one array (for tests and for a reader who wants
    to check a cycle by hand): ``st[:RULES]`` with the counters zeroed, then the hands."""
    pub = np.array(st[:RULES], np.int64)
    pub[TURN] = 0
    pub[PICKUPS:PICKUPS + MAXP] = 0
    return np.concatenate([pub, np.asarray(st[HANDS:HANDS + MAXP * NR], np.int64)])
