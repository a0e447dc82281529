"""The game state: one flat ``int32`` array, public part first.

``st[:PUB]`` is everything every player may see (R26): it is the observation a strategy gets,
with no copy (as a read-only array), together with its own hand row. Everything hidden (the
hands, the face-down stacks, the stock) lies after ``PUB`` and is never handed to a strategy. Offsets are module constants, which Numba folds into the code.

Per-seat blocks hold :data:`MAXP` seats whatever the number of players; per-rank blocks hold
14 ranks in the order of :mod:`sim.kernel.cards`. Counts per rank go up to 8 (two decks, H18).
"""
from __future__ import annotations

MAXP = 8      # seats (R1; 2-8 with two decks, H18)
NR = 14       # ranks incl. joker
DECK = 106    # largest deck: two decks and two jokers (H13, H18)
FDS = 4       # a face-down stack's slots: the most it holds (hand_size <= 4, H12)

# -- public scalars -------------------------------------------------------------------------
PLAYERS = 0   # number of seats, 2..8
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
REMOVEDN = 11  # cards set aside before the deal (H17; which ones is hidden)
STARTRANK = 12  # the rank that made the starter start (R6, H14, H15); -1: none
DEALER = 13
LASTMOVER = 14  # seat that made the last move, -1 before the first
OVER = 15     # 1 once the game is over
CHAIN = 16    # H19: cards the current run has put on the pile while the mover is in a chain
              # (docs/position.md's ``run``), else 0
NDECKS = 17   # H18: the decks of this game, 1 or 2
# -- public per seat ------------------------------------------------------------------------
HANDN = 18                    # hand sizes
FUN = HANDN + MAXP            # face-up counts
FDN = FUN + MAXP              # face-down counts
OUTORDER = FDN + MAXP         # seats in the order they went out, -1 padded
PICKUPS = OUTORDER + MAXP     # pick-ups per seat (statistics)
FIRST = PICKUPS + MAXP        # the seat that started (R6)
# -- public per seat and rank (seat * NR + rank) --------------------------------------------
FU = FIRST + 1                # face-up cards
KNOWN = FU + MAXP * NR        # cards known to be in each hand: picked up or swapped (R26)
# -- public per rank ------------------------------------------------------------------------
PILECNT = KNOWN + MAXP * NR   # cards of each rank in the pile
BURNED = PILECNT + NR         # cards of each rank burned (R21, R22)
PILE = BURNED + NR            # the pile, bottom to top (PILELEN cards; every play is public)
# -- public: the ruleset (docs/rules.md §11), sim.kernel.ruleset.Ruleset.vector() copied in by the deal ----
RULES = PILE + DECK
R_COUNT = RULES + 0           # H1 count rule (1 = on, seed)
R_TEN = RULES + 1             # H2 ten on anything
R_FOUR = RULES + 2            # H3 four of a kind burns
R_SEVEN = RULES + 3           # H4 seven-lower
R_TRANS = RULES + 4           # H5 transparent rank code, -1 none
R_SKIP = RULES + 5            # H6 skip rank code, -1 none
R_SKIPPC = RULES + 6          # H6 one skip per card
R_REV = RULES + 7             # H7 reverse rank code, -1 none
R_REVPC = RULES + 8           # H7 one reversal per card
R_COVER = RULES + 9           # H8 cover rank code, -1 none
R_AGAIN = RULES + 10          # H9 the burner plays again
R_VOLPICK = RULES + 11        # H10 0 except_blind, 1 always, 2 never
R_FUPICK = RULES + 12         # H11 0 may_add_one, 1 pile_only, 2 must_add_rank,
                              # 3 one_then_rank
R_HAND = RULES + 13           # H12 hand size
R_JOKERS = RULES + 14         # H13 0 six_players, 1 never, 2 always
R_STARTER = RULES + 15        # H14 0 dealt, 1 hand
R_FORCED = RULES + 16         # H16 forced opening
R_REMOVE = RULES + 17         # H17 0 none, 1 masters
R_V1 = RULES + 18             # V1 choose the face-ups
R_V2 = RULES + 19             # V2 play to the last
R_DECKS = RULES + 20          # H18 0: 1 deck, 1: 2 decks, 2: masters, 3: boothj5
R_PLAYON = RULES + 21         # H19 play on
R_OUTBURN = RULES + 22        # H20 out before the four
R_NORDER = RULES + 23         # H15 how many ranks decide who starts ...
R_ORDER = RULES + 24          # ... and they, in order (13 slots)
R_FOLLOW = R_ORDER + 13       # H0: ranks that may follow each effective top E, at E + 1
R_EFFECT = R_FOLLOW + 13      # H0a: per rank, the turn effect of a play (EFF_*)
R_EFFECTS = R_EFFECT + 14     # the 14-bit set of the ranks with an effect (R23, H6-H8)
R_PICKS = R_EFFECTS + 1       # R10, R12, R16, H10, H11: the pick-up bits (below), packed
NRULES = R_PICKS + 1 - RULES
# Turn effects of a play (R23, H6, H7, H8), per rank at R_EFFECT + r: tables, so that the
# common play without an effect costs one load.
EFF_NONE, EFF_REVERSE, EFF_REVERSE_PER_CARD, EFF_COVER, EFF_SKIP, EFF_SKIP_PER_CARD = range(6)
# H19: under play_on every rank's code has EFF_CHAIN added (and every rank is in R_EFFECTS), so
# that every play reaches the out-of-line end of a move, where a chain goes on or its run's
# effect applies; rulesets without play_on never see it.
EFF_CHAIN = 8
# R_PICKS: five 3-bit codes, code i at bits 3i: i = 2 * source + (no play is legal) for source
# 0 (hand) and 1 (face-ups), i = 4 for a blind turn on a pile. A code shifted to bit ADD of the
# legal word gives its pick-up bits: 1 L_PICKUP, 2 L_BLIND, 4 L_ADD.
V1, V2 = R_V1, R_V2
PUB = RULES + NRULES
# -- hidden ---------------------------------------------------------------------------------
HANDS = PUB                   # hand cards per seat and rank
FD = HANDS + MAXP * NR        # face-down stacks, seat * FDS + i, i = 0 bottom (R17)
STOCK = FD + MAXP * FDS       # stock, last = next drawn
REMOVED = STOCK + DECK        # cards set aside before the deal, per rank (H17)
# -- derived, hidden: what each seat can play, kept with every change of a hand or face-ups --
# Per seat 4 words (seat * 4 + k): k = 0, 1 its hand, k = 2, 3 its face-ups. Word 0 (2) has
# bit r when the seat holds at least 1 card of rank r, bit NR + r for at least 2; word 1 (3)
# the same for at least 3 and 4 (saturating: 5 to 8 cards of two decks, H18, set all four). Together they are the legal word of a lead (R7), and one
# 14-bit group of them, masked by the pile's top, is the legal plays of a follow (R9):
# the legal word costs O(1) instead of a loop over the ranks (derived.derive_have). The pile's
# two words, in the same code, make a pick-up's update O(1) too.
HAVE = REMOVED + NR
PILEHAVE = HAVE + 4 * MAXP
SIZE = PILEHAVE + 2
# -- statistics (not part of the position) ---------------------------------------------------
BURNS = SIZE                  # burns this game
TRIPLES = SIZE + 1            # per seat: its face-up triple after the swap, r1*196 + r2*14 + r3
HTRIPLES = TRIPLES + MAXP     # per seat: its hand triple after the swap, same code
STATE_SIZE = HTRIPLES + MAXP

# -- moves: one integer id each (R7-R16, H11, H18, H19) ---------------------------------------
# play n cards (1..4) of rank r: (n - 1) * NR + r; pick up after adding face-up rank r: ADD + r;
# pick up; blind turn. Plays are grouped by card count so that the legal plays of a pile with
# count c are one 14-bit group of the legal word (below), one bit per rank. New families after
# those: END (H19), BIG + (n - 5) * NR + r plays n = 5..8 cards of r (two decks, H18), and
# ADDN + (k - 1) * NR + r adds k = 1..3 face-up r before a pick-up (H11 one_then_rank, where
# ADD + r adds all of them).
ADD = NR * 4
PICKUP = ADD + NR
BLIND = PICKUP + 1
END = BLIND + 1
BIG = END + 1
ADDN = BIG + 4 * NR
NMOVES = ADDN + 3 * NR

# -- the legal word: an int64 bit set handed to strategies ------------------------------------
# bits 0..55: the play with that id is legal; L_PICKUP: a plain pick-up is legal (R10, H10);
# L_BLIND: the blind turn (R14, R16; with H10 "always" a pick-up may be legal beside it);
# L_ADD: a pick-up naming a face-up rank is legal, for every rank the mover holds face up:
# one card of it goes along (R12), or all of them (H11 "must_add_rank"; "one_then_rank": ADD + r
# all of them, ADDN ids fewer); L_END: {"end": true} is legal (H19, only in a chain, where no
# pick-up or blind bit is set); L_BIG: some play of 5 to 8 cards is legal (two decks, H18), which
# sim.kernel.moves.big_word lists from the hand.
L_PICKUP = ADD
L_BLIND = ADD + 1
L_ADD = ADD + 2
L_END = ADD + 3
L_BIG = ADD + 4
RANKS_MASK = (1 << NR) - 1

# -- events of a move (docs/position.md names them) ------------------------------------------------
EV_BURN, EV_REVERSE, EV_BLIND_FAIL, EV_PICKUP, EV_OUT, EV_GAME_OVER = 1, 2, 4, 8, 16, 32
EV_SKIP = 64
EVENT_NAMES = (
    (EV_BURN, "burn"), (EV_REVERSE, "reverse"), (EV_SKIP, "skip"), (EV_BLIND_FAIL, "blind_fail"),
    (EV_PICKUP, "pickup"), (EV_OUT, "out"), (EV_GAME_OVER, "game_over"),
)
