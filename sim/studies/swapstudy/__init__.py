"""The swap study (``sim study swap``): which cards should a player put face up?

A swap (R5) divides six cards into three face up and three in hand, so the study values that
*division*, not the cards (a seat holding a 2 wins more often wherever the 2 lies). Its
stages, one module each: random swaps played and counted (:mod:`.values`), the split model
fitted on them (:mod:`.model`), the split policy's choices (:mod:`.policy`), the descriptive
triple table (:mod:`.table`) and the head-to-head of the policies (:mod:`.h2h`); the whole
study and its saved folder (:mod:`.study`); ``sim swap``'s advice for one seat's six cards
(:mod:`.advice`). Unfinished games (R25) count as games won by nobody, in every table. The
method, step by step: docs/swap.md.
"""
from __future__ import annotations

from sim.studies.swapstudy.study import planned_games, swap_study  # noqa: F401  (entry point)
