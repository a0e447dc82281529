"""The swap study: which cards should a player put face up?

A swap (R5) divides a fixed set of six cards into three face up and three in hand (the
study supports hand size 3 only and refuses others, H12; its deck follows H13). The
study values that *division*, not the cards: a seat holding a 2 wins more often whether the 2
lies face up or in its hand, so the win rate of the seats that held a face-up triple mostly
measures owning its cards (and, under the seed rules, R6's start, which the dealt face-ups
decide and no swap changes).

1. **Values stage.** Every seat plays ``strategy`` with *random* swaps: given its six cards,
   every one of the 20 splits is equally likely, whatever was dealt where. Each seat-game
   is recorded with its face-up triple and its hand triple after the swap
   (``Batch.triples``, ``Batch.hand_triples``), aggregated into cells (face-up triple, hand
   triple, position after the starting player).
2. **Split model.** A logistic regression of "this seat won", fitted by scikit-learn with
   an L2 (ridge) penalty, whose terms are all rank x place: for each rank and place (face
   up, hand) the number of cards held there, "at least 2" and "at least 3" (a pair or a
   triple may be worth more or less than its cards), then one term for each face-up triple
   and one for each hand triple (what the cards of one place are worth together, beyond
   their ranks), and the seat's position after the starting player (a covariate fixed
   before the swap under R6 as dealt; left out under V1 and under H14 ``starter=hand``,
   where the swap decides who starts, so the start is part of what a split is worth). Because
   the split is random given the six cards, face-up and hand terms are told apart by the
   data; what the cards are worth to their owner wherever they lie cancels between two
   splits of the same six. The penalty is a Gaussian prior: sd ``PRIOR_SD`` on the counts,
   ``PRIOR_SD_EXTRA`` on the pair/triple counts, and for the triple terms the sd of
   ``PRIOR_SD_TRIPLES`` that predicts the odd games best when fitted on the even ones. So a
   rarely seen triple or combination is shrunk towards what its ranks are worth, instead of
   being trusted raw. Under V2 the outcome is the share of the other seats finished behind
   (a quasi-binomial fit). Standard errors treat the seats of one game as independent:
   indicative.
3. **Split policy.** A split's value is the model's value of its face-up triple face up plus
   that of its hand triple in the hand; these 2 x 455 numbers (560 with jokers) are
   ``split.csv`` (:mod:`strategies.swaps` ``split`` format), and ``split(file=DIR/split.csv)``
   puts face up, of the 20 splits of its six cards, the one of highest value. ``policy.csv``
   lists that choice for every six-card set the deck allows.
4. **Descriptive table.** The old table, kept and labelled as what it is: the win rate of the
   seats that held each face-up triple (owning included), with its 95% Wilson interval and
   an empirical-Bayes shrunk rate (rare triples pulled towards the mean). It is also saved
   as a ``table`` policy file (``swap_values.csv``, raw rates: the old derived policy), to
   be tested.
5. **Head-to-head.** The split policy against the old table policy and every built-in swap
   policy, same move strategy for everyone, seats alternating (S O S O ... then O S O S ...
   on the same deals: duplicate deals). Per deal, the difference between the split seats'
   and the other seats' mean result; its mean, 95% interval and a two-sided p-value over
   deals (:func:`sim.studies.stats.mean_interval`, as every paired difference of the
   project), adjusted for the several comparisons (Benjamini-Hochberg). The verdict names the best of the
   policies tested, with its margin and interval.

**Unfinished games** (R25) count as games not won by any seat, in every denominator: in the
triple table, in the model (a loss for every seat) and in the head-to-head (a result of 0 for
both sides); their number is reported next to every table.

With ``out`` every game played is saved as per-game records (:func:`sim.runs.store.records`, with
strategy and swap per seat), in ``games/``: the values stage as ``part-NNNNN.parquet``, the
head-to-heads as ``part-h2h-PP-R-NNNNN.parquet``, with the extra columns ``stage``
(``values`` or ``head-to-head``), ``seed`` and ``opponent``.
"""
from __future__ import annotations

from sim.studies.swapstudy.study import planned_games, swap_study  # noqa: F401  (entry point)
