"""Independent pure-Python reference of the single-position rules API.

Used only by the tests, for differential checking against ``sim.kernel.position``. It is written
straight from the rules spec (rule numbers R1-R26, V1, V2, house rules H0-H20 of §11; the
project renders it as docs/rules.md) and the position spec (the JSON shape of positions,
moves and rulesets; docs/position.md), without looking at the implementation under test.
Readability wins over speed here.

Public functions:
- ``ref_legal_moves(pos) -> list[move]``
- ``ref_apply(pos, move) -> pos`` (adds ``"events"`` and ``"winner"``, and ``"run"`` under
  H19; never mutates ``pos``)
- ``ref_first_player(pos) -> seat`` (R6, H14, H15)
- ``ref_ruleset(ruleset, players=None) -> dict``: every option of §11.2 plus
  ``choose_face_ups`` (V1) and ``last_player_loses`` (V2), resolved; ValueError for a refused
  ruleset (§11.3); with ``players`` also the player-count, deck-count and deck-size checks.
- ``ref_decks(opts, players) -> int``: H18's number of decks d (may exceed 2: refused).
- ``ref_deck(ruleset_or_options, players) -> list[str]``: d decks of 52 plus H13's jokers.
- ``ref_removed_range(ruleset_or_options, players) -> (fewest, most)``: H17's removed cards.
- ``ref_forced_opening(pos) -> move | None``: the H16 opening of a position right after the
  swap (the game driver plays it with ``ref_apply``).
- ``PRESETS``: the named rulesets of §11.4, fully resolved; ``PRESET_PLAYERS`` their ranges.

Positions are trusted to be valid (the real code validates them), except that the ruleset,
the ``removed`` key (H17) and the ``run`` key (H19) are checked; moves are checked.
"""

import copy
from collections import Counter

# R2: rank order low to high; 2 (R20) and the joker (R23) are special and sit outside it.
ORDER = ["3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]
RANK_VALUE = {rank: i for i, rank in enumerate(ORDER)}
CARDS = ["2"] + ORDER + ["JK"]
RANKS_13 = ["2"] + ORDER  # the ranks H15's starter_order may list (never the joker)
TWO = "2"
SEVEN = "7"
TEN = "10"
JOKER = "JK"

# Event names, in the order docs/position.md fixes for one move ("skip" added by §11).
EVENT_ORDER = ["burn", "reverse", "skip", "blind_fail", "pickup", "out", "game_over"]


# --------------------------------------------------------------------------- rulesets (§11)

# §11.2: every option at its default is `seed` (R1-R26); V1 and V2 (§10) are off.
SEED_OPTIONS = {
    "count_rule": True,                 # H1
    "ten_anywhere": False,              # H2
    "four_burns": True,                 # H3
    "seven_lower": False,               # H4
    "transparent_rank": None,           # H5
    "skip_rank": None,                  # H6
    "skip_per_card": False,             # H6
    "reverse_rank": None,               # H7
    "reverse_per_card": False,          # H7
    "cover_rank": None,                 # H8
    "burn_plays_again": True,           # H9
    "voluntary_pickup": "except_blind",  # H10
    "faceup_pickup": "may_add_one",     # H11
    "hand_size": 3,                     # H12
    "jokers": "six_players",            # H13
    "starter": "dealt",                 # H14
    "starter_order": list(ORDER),       # H15: "3".."A" (R6)
    "forced_opening": False,            # H16
    "removed_before_deal": "none",      # H17
    "decks": 1,                         # H18
    "play_on": False,                   # H19
    "out_before_burn": False,           # H20
    "choose_face_ups": False,           # V1
    "last_player_loses": False,         # V2
}
OPTION_KEYS = list(SEED_OPTIONS)
NEW_OPTION_KEYS = ["decks", "play_on", "out_before_burn"]  # H18-H20 (H11 gained a value)

# §11.4: the presets, as the options that differ from `seed`.
_PRESET_CHANGES = {
    "seed": {},
    "classic": {
        "count_rule": False, "ten_anywhere": True, "jokers": "never",
        "last_player_loses": True,
    },
    "masters-of-shithead": {
        "count_rule": False, "ten_anywhere": True, "seven_lower": True,
        "transparent_rank": "3", "skip_rank": "8", "skip_per_card": True,
        "reverse_rank": "K", "reverse_per_card": True, "cover_rank": "Q",
        "voluntary_pickup": "always", "faceup_pickup": "one_then_rank", "jokers": "never",
        "starter": "hand",
        "starter_order": ["4", "5", "6", "7", "8", "9", "J", "Q", "K", "A", "10", "2", "3"],
        "removed_before_deal": "masters", "decks": "masters", "play_on": True,
        "out_before_burn": True, "last_player_loses": True,
    },
    "boothj5": {
        "count_rule": False, "ten_anywhere": True, "transparent_rank": "7",
        "skip_rank": "8", "skip_per_card": False,
        "voluntary_pickup": "never", "faceup_pickup": "pile_only", "jokers": "never",
        "starter": "hand",
        "starter_order": ["3", "4", "5", "6", "8", "9", "J", "Q", "K", "A", "2", "7", "10"],
        "forced_opening": True, "decks": "boothj5", "last_player_loses": True,
    },
}
PRESETS = {name: {**copy.deepcopy(SEED_OPTIONS), **copy.deepcopy(changes)}
           for name, changes in _PRESET_CHANGES.items()}

# §11.4 "players" row: the player counts each preset is meant for (seed: R1). Outside this,
# the checks of §11.3 refuse most of them anyway (classic at 6: 54 cards dealt of 52;
# masters at 7: three decks).
# Decided: the row is not a refusal of its own (§11.3 does not list it): a changed preset
# such as {"base": "classic", "jokers": "always"} may seat 6, as its deck allows.
PRESET_PLAYERS = {
    "seed": (2, 6), "classic": (2, 5), "masters-of-shithead": (2, 6), "boothj5": (2, 8),
}

_BOOL_KEYS = {
    "count_rule", "ten_anywhere", "four_burns", "seven_lower", "skip_per_card",
    "reverse_per_card", "burn_plays_again", "forced_opening", "play_on", "out_before_burn",
    "choose_face_ups", "last_player_loses",
}
_ROLE_KEYS = ["transparent_rank", "skip_rank", "reverse_rank", "cover_rank"]  # H5-H8
_CHOICE_KEYS = {
    "voluntary_pickup": ("except_blind", "always", "never"),          # H10
    "faceup_pickup": ("may_add_one", "pile_only", "must_add_rank",    # H11
                      "one_then_rank"),
    "jokers": ("six_players", "never", "always"),                     # H13
    "starter": ("dealt", "hand"),                                      # H14
    "removed_before_deal": ("none", "masters"),                        # H17
}


def _check_value(key, value):
    """§11.2 / §11.3: refuse an unknown value of a known key.

    Decided: values are JSON values of the exact type §11.2 names: a boolean is true or
    false (not 0 or 1), hand_size the integer 3 or 4 (not 3.0, "3" or true), decks the
    integer 1 or 2 or one of its two strings (docs/position.md), starter_order a list (not a
    string or a tuple).
    """
    if key in _BOOL_KEYS:
        ok = isinstance(value, bool)  # JSON booleans only (1 and 0 are not booleans)
    elif key in _ROLE_KEYS:
        # §11.2: a rank value is "3".."A"; §11.3 then refuses "10" (and "2", "JK", below)
        ok = value is None or (isinstance(value, str) and value in CARDS)
    elif key in _CHOICE_KEYS:
        ok = isinstance(value, str) and value in _CHOICE_KEYS[key]
    elif key == "hand_size":  # H12
        ok = type(value) is int and value in (3, 4)
    elif key == "decks":  # H18
        ok = (type(value) is int and value in (1, 2)) or value in ("masters", "boothj5")
    elif key == "starter_order":  # H15: distinct ranks "2".."A", partial or empty allowed
        ok = (isinstance(value, list)
              and all(isinstance(r, str) and r in RANKS_13 for r in value)
              and len(set(value)) == len(value))
    else:
        raise ValueError(f"unknown ruleset option {key!r}")
    if not ok:
        raise ValueError(f"ruleset option {key!r} cannot be {value!r}")


def _check_options(opts):
    """§11.3: the refusals that look at several options together (players aside)."""
    roles = [opts[k] for k in _ROLE_KEYS if opts[k] is not None]
    if len(set(roles)) != len(roles):
        raise ValueError(f"transparent/skip/reverse/cover ranks must differ (§11.3): {roles}")
    for key in _ROLE_KEYS:
        rank = opts[key]
        if rank in (TWO, TEN, JOKER):
            raise ValueError(f"{key} cannot be {rank!r} (§11.3)")
        if rank == SEVEN and opts["seven_lower"]:
            raise ValueError(f"{key} cannot be '7' under seven_lower (H4, §11.3)")
    # H16 needs H14 "hand" and all 13 ranks in H15's order
    full_order = sorted(opts["starter_order"]) == sorted(RANKS_13)
    if opts["forced_opening"] and (opts["starter"] != "hand" or not full_order):
        raise ValueError("forced_opening needs starter 'hand' and all 13 ranks in "
                         "starter_order (H16, §11.3)")
    # H19: a continuation would break the count (R9)
    if opts["play_on"] and opts["count_rule"]:
        raise ValueError("play_on needs count_rule false (H19, H1, §11.3)")


def ref_decks(opts, players):
    """H18: the number of 52-card decks d for ``players`` (a computed d above 2 is refused
    by ``ref_ruleset``, not here)."""
    decks = opts["decks"]
    if decks == "masters":
        return -(-17 * players // 52)  # ceil(17n / 52): trachwo
    if decks == "boothj5":
        return -(-3 * players * opts["hand_size"] // 52)  # ceil(3 n hand_size / 52)
    return decks


def _has_jokers(opts, players):
    """H13: "six_players" gives jokers at 6 or more players (R1), "always", "never"."""
    return opts["jokers"] == "always" or (opts["jokers"] == "six_players" and players >= 6)


def deck_size(opts, players):
    """H17's D: 52 cards per deck (H18), plus 2 jokers when H13 gives them (never more)."""
    return 52 * ref_decks(opts, players) + (2 if _has_jokers(opts, players) else 0)


def ref_ruleset(ruleset, players=None):
    """The resolved options of a ruleset: a preset name or {"base": preset, key: value, ...}.

    Keys override the base (docs/position.md). Refused (§11.3), with ValueError: an unknown preset,
    key or value; role ranks (H5-H8) not pairwise different or "2", "10", "JK", or "7" under
    H4; H16 without H14 "hand" and a full H15 order; H19 with the count rule (H1); and, when
    ``players`` is given: a computed H18 deck count above 2, players outside 2-6 with one
    deck or 2-8 with two (R1, H18), and players x 3 x hand_size above the deck (H12, H13,
    H18).
    """
    # Decided: an object must name one of the four presets as "base" (docs/position.md: "which it
    # must name"); a nested ruleset object as base is refused.
    if isinstance(ruleset, str):
        if ruleset not in PRESETS:
            raise ValueError(f"unknown ruleset {ruleset!r}")
        opts = copy.deepcopy(PRESETS[ruleset])
    elif isinstance(ruleset, dict):
        base = ruleset.get("base")
        if not isinstance(base, str) or base not in PRESETS:
            raise ValueError(f"a ruleset object must name a preset as 'base', got {base!r}")
        opts = copy.deepcopy(PRESETS[base])
        for key, value in ruleset.items():
            if key == "base":
                continue
            if key not in SEED_OPTIONS:
                raise ValueError(f"unknown ruleset option {key!r}")
            _check_value(key, value)
            opts[key] = copy.deepcopy(value)
    else:
        raise ValueError(f"a ruleset is a preset name or an object, got {ruleset!r}")
    _check_options(opts)
    if players is not None:
        _check_players(opts, players)
    return opts


def _check_players(opts, players):
    """§11.3 with a player count: H18's d at most 2, R1 / H18's 2-6 or 2-8, and the deal
    fits the deck (H12, H13, H18)."""
    if type(players) is not int:
        raise ValueError(f"players must be an integer, got {players!r}")
    decks = ref_decks(opts, players)
    if decks > 2:
        raise ValueError(f"decks {opts['decks']!r} gives {decks} decks for {players} "
                         f"players; at most 2 (H18, §11.3)")
    high = 6 if decks == 1 else 8
    if not 2 <= players <= high:
        # Decided: R1's 2-6 stands under every one-deck ruleset (H13 "always" gives 54
        # cards, so §11.3's deck check would stop at 6 anyway); two decks allow 2-8 (H18)
        raise ValueError(f"players must be 2-{high} with {decks} deck(s) (R1, H18), "
                         f"got {players}")
    if players * 3 * opts["hand_size"] > deck_size(opts, players):
        raise ValueError(f"{players} players x 3 x hand size {opts['hand_size']} is more "
                         f"than the {deck_size(opts, players)}-card deck (§11.3)")


def ref_deck(ruleset, players):
    """R1, H13, H18: the deck as a list, 4·d of each rank 2..A, plus 2 jokers when H13
    gives them (never more than 2, whatever d).

    ``ruleset`` is a ruleset (name or object) or an options dict from ``ref_ruleset``.
    """
    if _is_resolved(ruleset):
        opts = ruleset
        _check_players(opts, players)
    else:
        opts = ref_ruleset(ruleset, players)
    copies = 4 * ref_decks(opts, players)
    deck = [c for c in RANKS_13 for _ in range(copies)]
    if _has_jokers(opts, players):
        deck += [JOKER, JOKER]
    return deck


def ref_removed_range(ruleset, players):
    """H17: (fewest, most) cards removed before the deal. With D cards (H13, H18) and n
    players, spare = D - 17n; k = spare - u, u uniform in 1..2n, if spare >= 2n; else 0.

    Decided: the formula is used as written whatever the hand size (H12 does not mention
    H17)."""
    opts = ref_ruleset(ruleset, players) if not _is_resolved(ruleset) else ruleset
    if opts["removed_before_deal"] != "masters":
        return 0, 0
    spare = deck_size(opts, players) - 17 * players
    if spare >= 2 * players:
        return spare - 2 * players, spare - 1
    return 0, 0


def _is_resolved(ruleset):
    """An options dict from ``ref_ruleset`` rather than a ruleset name or object."""
    return isinstance(ruleset, dict) and "base" not in ruleset and "count_rule" in ruleset


def _options(pos):
    """The resolved options of a position's ruleset, also checking ``removed`` (H17) and
    ``run`` (H19)."""
    opts = ref_ruleset(pos["ruleset"], pos["players"])
    removed = pos.get("removed", [])
    if removed and opts["removed_before_deal"] != "masters":
        raise ValueError("'removed' must be [] unless removed_before_deal is 'masters' (H17)")
    _check_run(pos, opts)
    return opts


def _run(pos):
    """H19: the cards the current run has put on the pile; absent means 0."""
    return pos.get("run", 0)


def _top_equal_cards(pile):
    """How many equal cards lie on top of the pile (physically, R22's way)."""
    n = 0
    for card in reversed(pile):
        if card != pile[-1]:
            break
        n += 1
    return n


def _check_run(pos, opts):
    """docs/position.md "H19, play on": ``run`` is a non-negative integer; above 0 only under
    ``play_on``, for a seat in a chain: game not over, the pile's top card not of the cover
    rank, ``run`` at most the equal cards on top, and the mover's source in force holding a
    card of the top's rank."""
    run = _run(pos)
    if type(run) is not int or run < 0:
        raise ValueError(f"'run' must be an integer >= 0, got {run!r} (H19)")
    if run == 0:
        return
    if not opts["play_on"]:
        raise ValueError("'run' above 0 needs play_on (H19)")
    pile = pos["pile"]
    if _game_over(pos, opts):
        raise ValueError("'run' above 0 in a game that is over (H19)")
    if not pile or run > _top_equal_cards(pile):
        raise ValueError(f"'run' {run} is more than the equal cards on top of the pile (H19)")
    if pile[-1] == opts["cover_rank"]:
        raise ValueError("'run' above 0 on a card of the cover rank (H8, H19)")
    if pile[-1] not in _source_in_force(pos, pos["current"]):
        raise ValueError(f"'run' above 0 but the mover holds no {pile[-1]!r} in the source "
                         f"in force (H19)")


def _game_over(pos, opts):
    """R25: under seed the first seat out ends the game; V2: one seat left holding cards."""
    if opts["last_player_loses"]:
        return len(pos["out"]) >= pos["players"] - 1
    return len(pos["out"]) >= 1


# --------------------------------------------------------------------------- helpers

def _next_seat(seat, direction, players, out):
    """R9 / V2: the next seat from ``seat`` in ``direction``, skipping seats that are out."""
    s = seat
    for _ in range(players):
        s = (s + direction) % players
        if s not in out:
            return s
    return seat  # nobody else left; cannot happen in a valid position


def _counted_seat(mover, skips, direction, players, out):
    """H6 (H0a): the (skips+1)-th counted seat.

    Counted seats: the seats holding cards (not in ``out``), taken cyclically in the
    direction of play starting after the mover, the mover included (last) if still holding
    cards. With skips = 0 this is simply the next seat holding cards (R9, V2).
    """
    counted = [(mover + i * direction) % players for i in range(1, players + 1)]
    counted = [seat for seat in counted if seat not in out]
    return counted[skips % len(counted)]


def _holds_card(pos, seat):
    """R18: does the seat hold any card (hand, face-up or face-down)?"""
    return bool(pos["hands"][seat] or pos["face_up"][seat] or pos["face_down"][seat])


def _source_in_force(pos, seat):
    """R11, R13: the hand while it holds a card, else the face-up cards (maybe empty)."""
    return pos["hands"][seat] if pos["hands"][seat] else pos["face_up"][seat]


def _effective_top(pile, opts):
    """H0: the topmost pile card that is neither a joker (R23) nor of the transparent rank
    (H5); None when there is none (E is *open*)."""
    for card in reversed(pile):
        if card == JOKER or card == opts["transparent_rank"]:
            continue
        return card
    return None


def _rank_may_follow(rank, pile, opts):
    """H0 (R9, R20, R23, H2, H4, H5): may ``rank`` follow on ``pile`` (ignoring the count)?"""
    top = _effective_top(pile, opts)
    if opts["seven_lower"] and top == SEVEN:
        # H0 case 1 (H4): only 3, 4, 5, 6, 7, 2, the transparent rank or a joker
        return rank in ("3", "4", "5", "6", SEVEN, TWO, JOKER) or rank == opts["transparent_rank"]
    # H0 case 2
    if rank in (TWO, JOKER) or rank == opts["transparent_rank"]:
        return True  # R20, R23, H5: always legal
    if rank == TEN and opts["ten_anywhere"]:
        return True  # H2
    if top is None or top == TWO:
        return True  # open E (empty, or only jokers / transparent cards), or a 2 (R20)
    return RANK_VALUE[rank] >= RANK_VALUE[top]  # R9: equal or higher


def _play_sizes(available, count, opts):
    """R7, R9, H1, H18: the numbers of cards a play from ``available`` copies of a rank may
    have (a lead is 1 to 4·d cards: the source holds at most 4·d of a rank)."""
    if count == 0 or not opts["count_rule"]:
        return range(1, available + 1)  # R7 lead; H1: any number, lead or follow
    return [count] if available >= count else []  # R9: exactly the count


def _is_legal_play(cards, count, pile, opts):
    """R7, R9, H0, H1: is this group of cards a legal play on the pile?"""
    if not cards or len(set(cards)) != 1:
        return False  # one rank only (R7, R9)
    if count == 0:
        return True  # R7 / H0: a leader plays any rank
    if opts["count_rule"] and len(cards) != count:
        return False  # R9: exactly as many cards as the lead (not under H1)
    return _rank_may_follow(cards[0], pile, opts)


def _burns(pile_after_play, played_rank, mover_out, opts):
    """R21: 10s burn. R22 (unless H3 is off): the physical top four cards all of one rank
    burn; a joker (R23) or a transparent card (H5) between them breaks the set, four
    transparent cards or four 2s do burn (with two decks, H18, five or more equal cards
    too: their top four are equal). H20: not the four of a play after which the mover holds
    no card at all (a 10 still burns)."""
    if played_rank == TEN:
        return True
    if not opts["four_burns"]:
        return False  # H3
    if opts["out_before_burn"] and mover_out:
        return False  # H20: the cards stay on the pile
    top4 = pile_after_play[-4:]
    return len(top4) == 4 and len(set(top4)) == 1 and top4[0] != JOKER


def copy_position(pos):
    """A deep copy of a JSON position (faster than copy.deepcopy, same result)."""
    new = {}
    for key, value in pos.items():
        if isinstance(value, list):
            new[key] = [list(v) if isinstance(v, list) else v for v in value]
        elif isinstance(value, dict):
            new[key] = copy.deepcopy(value)
        else:
            new[key] = value
    return new


def _card_ok(card):
    return isinstance(card, str) and card in CARDS


def _canonical(move):
    """Check a move's shape (R24 / docs/position.md) and return a hashable canonical key.

    ("play", sorted cards) | ("blind",) | ("end",) | ("pickup", add, n), where add is a
    rank or None and n (H11 "one_then_rank") an integer or None. Whether ``n`` fits the
    ruleset is a question of legality (it is then never among the legal moves).
    """
    if not isinstance(move, dict):
        raise ValueError(f"a move must be a dict, got {type(move).__name__}")
    keys = set(move)
    if keys == {"play"}:
        cards = move["play"]
        if not isinstance(cards, list) or not cards:
            raise ValueError("'play' must be a non-empty list of cards")
        for c in cards:
            if not _card_ok(c):
                raise ValueError(f"unknown card name {c!r}")
        return ("play", tuple(sorted(cards, key=CARDS.index)))
    if keys == {"blind"}:
        if move["blind"] is not True:
            raise ValueError("'blind' must be true")
        return ("blind",)
    if keys == {"end"}:  # H19
        if move["end"] is not True:
            raise ValueError("'end' must be true")
        return ("end",)
    if keys in ({"pickup"}, {"pickup", "add"}, {"pickup", "add", "n"}):
        if move["pickup"] is not True:
            raise ValueError("'pickup' must be true")
        if "add" not in move:
            return ("pickup", None, None)
        if not _card_ok(move["add"]):
            raise ValueError(f"'add' must be a card name, got {move['add']!r}")
        if "n" not in move:
            return ("pickup", move["add"], None)
        n = move["n"]
        if type(n) is not int or n < 1:  # H11: a JSON integer >= 1, not a bool or a float
            raise ValueError(f"'n' must be an integer >= 1, got {n!r}")
        return ("pickup", move["add"], n)
    raise ValueError(f"malformed move: {move!r}")


def move_key(move):
    """Canonical hashable form of a (well-formed) move, for comparing sets of moves."""
    return _canonical(move)


# --------------------------------------------------------------------------- legal moves

def ref_legal_moves(pos):
    """Every legal move of the seat to move, each once. [] once the game is over."""
    opts = _options(pos)
    if _game_over(pos, opts):
        return []
    p = pos["current"]
    if _run(pos) > 0:
        # H19: in a chain, continuations of the run's rank from the source in force,
        # whatever E, H4, H5 or the count say, and "end"; no pick-up, no blind turn
        rank = pos["pile"][-1]
        held = _source_in_force(pos, p).count(rank)
        return [{"play": [rank] * k} for k in range(1, held + 1)] + [{"end": True}]

    hand = pos["hands"][p]
    face_up = pos["face_up"][p]
    face_down = pos["face_down"][p]
    pile = pos["pile"]
    count = pos["count"]
    # H0, H8: count 0 means the player leads (empty pile, or a cover to be covered).
    leading = count == 0
    plays = []
    pickups = []

    if hand or face_up:
        # R11, R13: play from the hand while it holds a card, else from the face-ups.
        source = hand if hand else face_up
        held = Counter(source)
        for rank in sorted(held, key=CARDS.index):
            if not leading and not _rank_may_follow(rank, pile, opts):
                continue  # H0: rank not allowed on this effective top
            for k in _play_sizes(held[rank], count, opts):  # R7, R9, H1, H18
                plays.append({"play": [rank] * k})
        if not leading:
            pickups = _pickup_moves(hand, face_up, opts)
            if opts["voluntary_pickup"] == "never" and plays:
                pickups = []  # H10 "never": pick up only when no play is legal (also adds)
    elif face_down:
        # R14, R16: only face-down cards: the blind turn (a blind lead is always legal, H8)
        plays.append({"blind": True})
        if not leading and opts["voluntary_pickup"] == "always":
            pickups.append({"pickup": True})  # H10 "always": may pick up instead of turning
    return plays + pickups


def _pickup_moves(hand, face_up, opts):
    """R10, R12, H11: the pick-ups of a follower who holds a hand or face-up cards."""
    if hand:
        return [{"pickup": True}]  # R10; the face-up rules (R12, H11) need an empty hand
    mode = opts["faceup_pickup"]
    ranks = sorted(set(face_up), key=CARDS.index)
    if mode == "pile_only":
        return [{"pickup": True}]  # H11: no add
    if mode == "may_add_one":
        # R12: plain, or add one face-up card (any one) first
        return [{"pickup": True}] + [{"pickup": True, "add": r} for r in ranks]
    if mode == "must_add_rank":
        # H11: name a face-up rank, all of it goes with the pile; no plain pick-up
        return [{"pickup": True, "add": r} for r in ranks]
    # H11 "one_then_rank": name a rank r and 1 <= n <= the face-up r; no plain pick-up
    return [{"pickup": True, "add": r, "n": n}
            for r in ranks for n in range(1, face_up.count(r) + 1)]


# --------------------------------------------------------------------------- apply

def _finish_play(new, p, cards, source, events, opts, run_before):
    """H0a and H19: put a legal play (``source`` "hand", "face_up" or "blind") on the pile
    and carry out, in order: the draw (R8, H12), the burn check (R21, R22, H3, H20), then
    either H19's chain goes on (the mover moves again: no turn effect yet) or the turn
    passes (``_pass_turn``). Returns ``run`` for the new position (H19)."""
    rank = cards[0]
    k = len(cards)
    if run_before == 0 and new["count"] == 0:
        new["count"] = k  # R9 / H1: the lead (or the cover, H8) sets the count
    # H19: a continuation (run_before > 0) does not change the count: it is not a lead
    new["pile"].extend(cards)

    if source == "hand":
        # R8, H12: after a play from hand, draw up to the hand size (last element first)
        hand = new["hands"][p]
        while len(hand) < opts["hand_size"] and new["stock"]:
            hand.append(new["stock"].pop())

    holds = _holds_card(new, p)
    burned = _burns(new["pile"], rank, not holds, opts)  # R21, R22, H3, H20
    if burned:
        new["burned"].extend(new["pile"])
        new["pile"] = []
        new["count"] = 0
        events.append("burn")

    run = run_before + k  # H19: the run's cards so far (outside H19: this play's)
    if (opts["play_on"] and source != "blind" and not burned and holds
            and rank != opts["cover_rank"] and rank in _source_in_force(new, p)):
        # H19: after a play from hand or face-up and its draw, a mover still holding a card
        # whose source in force holds the play's rank moves again; the run's turn effects
        # wait until the turn passes. Not after a blind play, a burn, a cover (H8: the
        # mover leads again, a new run) or going out.
        new["current"] = p
        return run
    _pass_turn(new, p, rank, run, burned, events, opts)
    return 0


def _pass_turn(new, p, rank, run, burned, events, opts):
    """H0a: the one turn effect of a play (H19: of the whole run of ``run`` cards of
    ``rank``, applied once now) unless a burn cancelled it: reverse (R23, H7), skip (H6) or
    cover (H8); then out and game end (R18, R19, R25, V2), then who moves next."""
    players = new["players"]
    skips = 0
    cover = False
    if burned:
        pass  # H0a: a burn cancels the play's (H19: the run's) turn effects
    elif rank == JOKER:
        new["direction"] = -new["direction"]  # R23: one play (H19: one run), one reversal
        events.append("reverse")
    elif rank == opts["reverse_rank"]:
        # H7. Decided: like H6's skip ("face-up and blind plays skip too"), a reverse or a
        # cover card works from every source: hand, face-up or a legal blind turn.
        flips = run if opts["reverse_per_card"] else 1
        for _ in range(flips):
            new["direction"] = -new["direction"]
        events.append("reverse")  # once, even when an even number of flips cancel
    elif rank == opts["skip_rank"]:
        skips = run if opts["skip_per_card"] else 1  # H6 (H19: the run's skip cards)
        events.append("skip")  # once, even if the mover goes out or the turn comes back
    elif rank == opts["cover_rank"]:
        cover = True  # H8, from any source (Decided above); only if the mover still holds
        # a card after the draw: see below

    is_out = not _holds_card(new, p)
    if is_out:
        new["out"].append(p)  # R18 / V2
        events.append("out")

    if _game_over(new, opts):
        # docs/position.md: once over, the next seat in the direction now in force, no skips
        new["current"] = _next_seat(p, new["direction"], players, new["out"])
    elif burned and not is_out and opts["burn_plays_again"]:
        new["current"] = p  # R21, R22: the burner leads again (pile empty, count 0)
    elif cover and not is_out:
        # H8: the mover leads again on the cover card (count 0); going out leaves it
        # uncovered and the next player follows on it with the count as it stands
        new["count"] = 0
        new["current"] = p
    else:
        # H0a, H6: the (s+1)-th counted seat in the direction now in force; s = 0 without a
        # skip, which is R9 / R19 / V2's next seat (also after a burn under H9 or when out)
        new["current"] = _counted_seat(p, skips, new["direction"], players, new["out"])


def _pickup(new, p, extra_cards):
    """R10, R15: the whole pile (plus any turned or added cards) goes to the hand; the next
    seat leads with a fresh count."""
    new["hands"][p].extend(new["pile"])
    new["hands"][p].extend(extra_cards)
    new["pile"] = []
    new["count"] = 0  # R10: the next player leads with a fresh count
    new["current"] = _next_seat(p, new["direction"], new["players"], new["out"])


def ref_apply(pos, move):
    """The position after ``move``; raises ValueError for an illegal or malformed move."""
    key = _canonical(move)
    opts = _options(pos)
    if _game_over(pos, opts):
        raise ValueError("the game is over: no move can be applied")
    legal = {_canonical(m) for m in ref_legal_moves(pos)}
    if key not in legal:
        if key == ("end",):
            raise ValueError("'end' is a move only in a chain (H19)")
        raise ValueError(f"illegal move in this position (R24): {move!r}")

    # Decided: the answer keeps the input's keys (``dealer``, ``removed``) as they are and
    # adds only "events" and "winner" (docs/position.md), and "run" under H19: an absent
    # ``removed`` stays absent.
    new = copy_position(pos)
    new.pop("events", None)
    new.pop("winner", None)
    new.pop("run", None)
    p = new["current"]
    run_before = _run(pos)
    run = 0
    events = []

    if key[0] == "play":
        cards = list(key[1])
        source = "hand" if new["hands"][p] else "face_up"  # R11, R13
        zone = new["hands"][p] if source == "hand" else new["face_up"][p]
        for c in cards:
            zone.remove(c)
        run = _finish_play(new, p, cards, source, events, opts, run_before)

    elif key[0] == "end":
        # H19: the turn passes; the run's effects apply now (its rank is the pile's top)
        _pass_turn(new, p, new["pile"][-1], run_before, False, events, opts)

    elif key[0] == "pickup":
        _, add, n = key
        if add is not None:
            # R12 / H11: the added face-up card(s) go to the pile, then into the hand with
            # it; an add is never a play: it never burns, reverses, skips or covers
            face_up = new["face_up"][p]
            if opts["faceup_pickup"] == "must_add_rank":
                n = face_up.count(add)  # H11: all of that rank
            elif n is None:
                n = 1  # R12: one card
            for _ in range(n):  # H11 "one_then_rank": the n named
                face_up.remove(add)
                new["pile"].append(add)
        _pickup(new, p, [])
        events.append("pickup")

    else:  # blind, R14-R17
        face_down = new["face_down"][p]
        if not opts["count_rule"]:
            need = 1  # H1: a blind turn turns exactly one card
        else:
            need = max(new["count"], 1)  # R14: as many as the count, 1 when leading
        turned = []
        while face_down and len(turned) < need:
            turned.append(face_down.pop())  # R17: last element is the top
        if len(turned) == need and _is_legal_play(turned, new["count"], new["pile"], opts):
            # R15: a legal blind play stays on the pile; plays from table never draw (R8)
            _finish_play(new, p, turned, "blind", events, opts, 0)
        else:
            # R15, R16: illegal (or too few cards): pick up the pile and the turned cards
            events.append("blind_fail")
            _pickup(new, p, turned)
            events.append("pickup")

    if opts["play_on"]:
        new["run"] = run  # docs/position.md: under H19 apply always writes it; else never
    over = _game_over(new, opts)
    if over:
        events.append("game_over")
    events.sort(key=EVENT_ORDER.index)  # already in order; keeps docs/position.md's order explicit
    new["events"] = events
    # docs/position.md: winner is null while the game goes on, then the first seat out (R25, V2)
    new["winner"] = new["out"][0] if over else None
    return new


# --------------------------------------------------------------------------- first player

def _deal_order(pos):
    """R4, R6: deal order starts at the dealer's left; without ``dealer``, seat 0 first."""
    n = pos["players"]
    dealer = pos.get("dealer")
    first = 0 if dealer is None else (dealer + 1) % n
    return [(first + i) % n for i in range(n)]


def _starter_and_rank(pos, opts):
    """R6, H14, H15: (seat, rank that made it starter), or (first seat in deal order, None).

    "dealt" (R6): for each listed rank, face-ups first, then hands, each in deal order.
    "hand" (H14): only the hands (given after the swap), rank by rank.
    Under the default order 2s and jokers never count (R6); a listed 2 counts (H15).
    Ties go to the earliest seat in deal order, also with two decks (H18).
    """
    order = _deal_order(pos)
    zones = ["hands"] if opts["starter"] == "hand" else ["face_up", "hands"]
    for rank in opts["starter_order"]:
        for zone in zones:
            for seat in order:
                if rank in pos[zone][seat]:
                    return seat, rank
    return order[0], None


def ref_first_player(pos):
    """R6 / H14 / H15: who starts. Needs a position before any play (empty pile, nothing
    burned, nobody out). Ties go to the earliest seat in deal order; should nobody hold a
    listed rank, the first seat in deal order starts."""
    opts = _options(pos)
    if pos["pile"] or pos["burned"] or pos["out"]:
        raise ValueError("first_player needs a position before any play")
    return _starter_and_rank(pos, opts)[0]


def ref_forced_opening(pos):
    """H16: the starter's forced first move, or None (H16 off, or no hand holds a listed rank).

    ``pos`` is the position right after the swap, with ``current`` the starter (H14
    "hand"): the move plays every hand card of the rank that made them starter (however
    many, H18); it is an ordinary lead, to be played with ``ref_apply`` (under H19 the
    first play of a run, which the player may then continue).
    """
    opts = _options(pos)
    if not opts["forced_opening"]:
        return None
    seat, rank = _starter_and_rank(pos, opts)
    if rank is None:
        return None  # H16: no hand holds a listed rank, no forced opening
    if seat != pos["current"]:
        # Decided: a driver that set another seat to move has a bug; say so rather than
        # return a move for a seat that is not to move
        raise ValueError(f"the starter is seat {seat}, not current {pos['current']} (H16)")
    return {"play": [rank] * pos["hands"][seat].count(rank)}
