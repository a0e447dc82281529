"""Ranks and their names (R1, R2). Suits never matter, so a card is its rank code.

Rank codes are ordered by strength for R9 comparisons: 3 is 0 ... A is 11; then the two
special ranks, 2 (R20) and the joker (R23), which are playable on anything.
"""
from __future__ import annotations

NAMES = ("3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "2", "JK")
NRANK = 14
THREE, TEN, ACE, TWO, JOKER = 0, 7, 11, 12, 13
CODE = {name: code for code, name in enumerate(NAMES)}


def deck_counts(players: int) -> list[int]:
    """How many cards of each rank the deck holds (R1: jokers only with 6 players)."""
    return [4] * 13 + [2 if players == 6 else 0]


def rank_code(name: str) -> int:
    """The code of a card name; ``ValueError`` for an unknown name."""
    if not isinstance(name, str) or name not in CODE:
        raise ValueError(f"unknown card {name!r}: cards are {', '.join(NAMES)} (R1, R2)")
    return CODE[name]
