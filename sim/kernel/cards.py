"""Ranks and their names (R1, R2). Suits never matter, so a card is its rank code.

Rank codes are ordered by strength for R9 comparisons: 3 is 0 ... A is 11; then the two
special ranks, 2 (R20) and the joker (R23), which are playable on anything.
"""
from __future__ import annotations

NAMES = ("3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "2", "JK")
NRANK = 14
THREE, TEN, ACE, TWO, JOKER = 0, 7, 11, 12, 13
CODE = {name: code for code, name in enumerate(NAMES)}


def joker_count(jokers: int, players: int) -> int:
    """Jokers in the deck (R1, H13), ``jokers`` being H13's code in the rules vector (0
    ``six_players``: at 6 or more players, 1 ``never``, 2 ``always``; never more than 2, H18).
    The one formula: the engine compiles it (:func:`sim.kernel.dealing.deck_jokers`), the
    ruleset calls it (``Ruleset.deck_counts``)."""
    return 2 if jokers == 2 or (jokers == 0 and players >= 6) else 0


def deck_number(decks: int, players: int, hand_size: int) -> int:
    """H18: how many 52-card decks are shuffled together, ``decks`` being its code in the
    rules vector (0: 1, 1: 2, 2 ``masters``: ceil(17 n / 52), 3 ``boothj5``: ceil(3 n
    hand_size / 52)). A result above 2 is refused by the ruleset (§11.3). The one formula:
    the engine's deal compiles it, the ruleset calls it (``Ruleset.decks_for``)."""
    if decks <= 1:
        return decks + 1
    need = 17 * players if decks == 2 else 3 * players * hand_size
    return (need + 51) // 52


def deck_counts(jokers: int, players: int, decks: int = 1) -> list[int]:
    """How many cards of each rank the deck holds (R1, H13, H18: ``decks`` decks; ``jokers``
    as in :func:`joker_count`). Under a ruleset: ``Ruleset.deck_counts(players)``."""
    return [4 * decks] * 13 + [joker_count(jokers, players)]


def rank_code(name: str) -> int:
    """The code of a card name; ``ValueError`` for an unknown name."""
    if not isinstance(name, str) or name not in CODE:
        raise ValueError(f"unknown card {name!r}: cards are {', '.join(NAMES)} (R1, R2)")
    return CODE[name]
