"""The game state: one flat ``int32`` array, public part first.

``st[:PUB]`` is everything every player may see (R26): it is the observation a strategy gets,
with no copy (as a read-only array), together with its own hand row. Everything hidden (the
hands, the face-down stacks, the stock) lies after ``PUB`` and is never handed to a strategy. Offsets are module constants, which Numba folds into the code.

Per-seat blocks hold 6 seats whatever the number of players; per-rank blocks hold 14 ranks in
the order of :mod:`sim.cards`.
"""
from __future__ import annotations

MAXP = 6      # seats (R1)
NR = 14       # ranks incl. joker
DECK = 54     # largest deck (R1)

# -- public scalars -------------------------------------------------------------------------
PLAYERS = 0   # number of seats, 2..6
CURRENT = 1   # seat to move
DIR = 2       # +1 clockwise, -1 after a joker (R23)
COUNT = 3     # cards every play on this pile must have; 0 = the mover leads (R7, R9)
TOP = 4       # effective top rank for R9 (jokers looked through, R23); -1 = anything goes
TOPRANK = 5   # physical top rank of the pile, -1 when empty
RUN = 6       # how many cards of TOPRANK lie on top of the pile together (R22)
PILELEN = 7
STOCKLEN = 8
TURN = 9      # moves made so far (R25)
NOUT = 10     # seats out so far
V2 = 11       # ruleset flag: play to the last (V2)
V1 = 12       # ruleset flag: choose the face-ups (V1)
DEALER = 13
LASTMOVER = 14  # seat that made the last move, -1 before the first
OVER = 15     # 1 once the game is over
# -- public per seat ------------------------------------------------------------------------
HANDN = 16    # hand sizes
FUN = 22      # face-up counts
FDN = 28      # face-down counts
OUTORDER = 34  # seats in the order they went out, -1 padded
PICKUPS = 40  # pick-ups per seat (statistics)
FIRST = 46    # the seat that started (R6)
# -- public per seat and rank (seat * NR + rank) --------------------------------------------
FU = 48       # face-up cards
KNOWN = FU + MAXP * NR        # cards known to be in each hand: picked up or swapped (R26)
# -- public per rank ------------------------------------------------------------------------
PILECNT = KNOWN + MAXP * NR   # cards of each rank in the pile
BURNED = PILECNT + NR         # cards of each rank burned (R21, R22)
PILE = BURNED + NR            # the pile, bottom to top (PILELEN cards; every play is public)
PUB = PILE + DECK
# -- hidden ---------------------------------------------------------------------------------
HANDS = PUB                   # hand cards per seat and rank
FD = HANDS + MAXP * NR        # face-down stacks, seat * DECK + i, i = 0 bottom (R17)
STOCK = FD + MAXP * DECK      # stock, last = next drawn
# -- derived, hidden: what each seat can play, kept with every change of a hand or face-ups --
# Per seat 4 words (seat * 4 + k): k = 0, 1 its hand, k = 2, 3 its face-ups. Word 0 (2) has
# bit r when the seat holds at least 1 card of rank r, bit NR + r for at least 2; word 1 (3)
# the same for at least 3 and 4. Together they are the legal word of a lead (R7), and one
# 14-bit group of them, masked by the pile's top, is the legal plays of a follow (R9):
# the legal word costs O(1) instead of a loop over the ranks (engine.derive_have). The pile's
# two words, in the same code, make a pick-up's update O(1) too.
HAVE = STOCK + DECK
PILEHAVE = HAVE + 4 * MAXP
SIZE = PILEHAVE + 2
# -- statistics (not part of the position) ---------------------------------------------------
BURNS = SIZE                  # burns this game
TRIPLES = SIZE + 1            # per seat: its face-up triple after the swap, r1*196 + r2*14 + r3
HTRIPLES = TRIPLES + MAXP     # per seat: its hand triple after the swap, same code
STATE_SIZE = HTRIPLES + MAXP

# -- moves: one integer id each (R7-R16) -----------------------------------------------------
# play n cards (1..4) of rank r: (n - 1) * NR + r; pick up after adding face-up rank r: ADD + r;
# pick up; blind turn. Plays are grouped by card count so that the legal plays of a pile with
# count c are one 14-bit group of the legal word (below), one bit per rank.
ADD = NR * 4
PICKUP = ADD + NR
BLIND = PICKUP + 1
NMOVES = BLIND + 1

# -- the legal word: a uint64 bit set handed to strategies ------------------------------------
# bits 0..55: the play with that id is legal; L_PICKUP: a pick-up is legal (R10); L_BLIND: the
# blind turn, the only move (R14, R16); L_ADD: adding a face-up card before picking up is legal
# (R12), for every rank the mover holds face up.
L_PICKUP = ADD
L_BLIND = ADD + 1
L_ADD = ADD + 2
RANKS_MASK = (1 << NR) - 1

# -- events of a move (POSITION.md names them) ------------------------------------------------
EV_BURN, EV_REVERSE, EV_BLIND_FAIL, EV_PICKUP, EV_OUT, EV_GAME_OVER = 1, 2, 4, 8, 16, 32
EVENT_NAMES = (
    (EV_BURN, "burn"), (EV_REVERSE, "reverse"), (EV_BLIND_FAIL, "blind_fail"),
    (EV_PICKUP, "pickup"), (EV_OUT, "out"), (EV_GAME_OVER, "game_over"),
)
