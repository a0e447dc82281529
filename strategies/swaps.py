"""More swap policies (R5, V1): ``specials-up``, ``lowest-hand``, ``table`` and ``split``.

Every policy gets the ``cards`` to choose from (rank codes, :mod:`sim.cards`: 3..A =
0..11, 2 = 12, joker = 13; under R5 the dealt face-ups first, then the hand, each in rank
order; under V1 the cards dealt to the hand) and returns the bit mask of the half of them to
put face up: 3 of 6 under the rules today; ``specials-up`` and ``lowest-hand`` choose half of
``len(cards)`` whatever it is (4 of 8 for a hand size of 4). ``table`` and ``split`` value
what they were made for (triples; 3 + 3 cards) and refuse any other number of cards: they
return -1, which the core reports as an invalid swap of that policy (R5), never a guess.
Ties between equal cards are broken by position in ``cards``, so every choice is
deterministic.

``specials-up``
    2s, 10s and jokers face up first (in that order), then aces, then the highest remaining
    rank (K, Q, J, 9, ... 3). Without jokers (2 to 5 players) this is the same choice as
    ``highest-up``; the two differ only when a joker competes with three other specials.

``lowest-hand``
    Keeps the three lowest cards in hand, in plain code order (3 lowest ... A, then 2, then
    joker highest), to shed them early; the other three go face up. Unlike ``highest-up``
    a 10 counts as a plain rank between 9 and J.

``table``
    Chooses the face-up triple with the highest value in a table read from a CSV file:
    ``table(file='values.csv')`` (the path in quotes; ``~`` is expanded, a relative path is
    relative to the working folder). The file format::

        a,b,c,value
        10,2,A,3.5
        K,K,Q,1.25

    - the first line is exactly the header ``a,b,c,value``;
    - each further line is one triple of card names (``3`` .. ``10``, ``J``, ``Q``, ``K``,
      ``A``, ``2``, ``JK``) in any order, and its value, a number (a higher value is a
      better face-up triple); blank lines are skipped;
    - a triple may be listed once only (in whichever order); triples that are not listed
      are worth ``-inf``, so any listed triple beats every unlisted one.

    The compiled policy looks at the 20 ways to choose 3 of the 6 cards, in the order
    (0,1,2), (0,1,3), ... (3,4,5) (``itertools.combinations``), and returns the first one
    with the highest value. If none of the 20 is listed, that is (0,1,2): the dealt face-ups
    under R5, the three lowest cards under V1.

    The parameter row (built by :func:`table_row`) is a flat float64 array of
    14 * 14 * 14 = 2744 values; the value of the triple of codes ``r1 <= r2 <= r3`` is at
    ``r1 * 196 + r2 * 14 + r3``; every other entry (unlisted triples and unsorted indices)
    is ``-inf``. :func:`write_table` writes such a file from a dict.

``split``
    Chooses the split of its cards into face-up and hand of highest value under an additive
    model with rank x location terms, read from a CSV file: ``split(file='split.csv')``
    (written by ``sim study swap``: the fitted model of the study). The file format::

        card,up1,up2,up3,hand1,hand2,hand3
        2,0.31,0.55,0.70,0.12,0.20,0.25
        10,0.22,0.40,0.51,0.05,0.09,0.11

    - the header is ``card``, then ``up1`` .. ``upK`` and ``hand1`` .. ``handK``, where ``K``
      is the number of cards of each place the values are for (3: six cards, 3 face up);
    - each further line is one card name (at most once) and ``2K`` numbers: ``upC`` is the
      value of holding exactly ``C`` cards of that rank face up, ``handC`` of ``C`` in the
      hand (holding none is worth 0; cards not listed are worth 0 wherever they are).

    The value of a split is the sum over the ranks of the value of its face-up count and of
    its hand count; of the ``C(2K, K)`` ways to put ``K`` of the ``2K`` cards face up (20 for
    six cards) the policy returns the one of highest value, the smallest bit mask among
    equals (so equal cards keep the earlier position, the dealt face-ups under R5). With a
    number of cards other than ``2K`` it returns -1 (refused, above).

    The parameter row (built by :func:`split_row`) is ``[K]`` followed by 2 * 14 * 5 values:
    the value of ``c`` cards (0..4) of rank ``r`` in place ``l`` (0 face up, 1 hand) at
    ``1 + (l * 14 + r) * 5 + c``. :func:`write_split` writes such a file.
"""
from __future__ import annotations

import csv
import math
import os
from pathlib import Path

import numpy as np

from sim.cards import NAMES, NRANK, rank_code
from sim.strategy import swap_policy

TABLE_SIZE = NRANK * NRANK * NRANK
HEADER = ("a", "b", "c", "value")

# -- specials-up ---------------------------------------------------------------------------
# Face-up priority: 2 > 10 > joker > A > K > Q > J > 9 > ... > 3.
_SPECIAL_UP = np.array([0, 1, 2, 3, 4, 5, 6, 14, 8, 9, 10, 11, 15, 13], np.int64)


@swap_policy("specials-up", "2s, 10s and jokers face up first, then aces, then the highest "
             "remaining ranks")
def specials_up(cards, obs, rng, params):
    n = cards.shape[0]
    chosen = 0
    for _ in range(n // 2):
        best = -1
        for i in range(n):
            if not (chosen >> i) & 1 and (best < 0 or
                                          _SPECIAL_UP[cards[i]] > _SPECIAL_UP[cards[best]]):
                best = i
        chosen |= 1 << best
    return chosen


# -- lowest-hand ---------------------------------------------------------------------------
@swap_policy("lowest-hand", "keeps the 3 lowest cards in hand (plain rank order, 2 and joker "
             "highest, 10 between 9 and J) and puts the other 3 face up")
def lowest_hand(cards, obs, rng, params):
    n = cards.shape[0]
    kept = 0
    for _ in range(n // 2):
        low = -1
        for i in range(n):
            if not (kept >> i) & 1 and (low < 0 or cards[i] < cards[low]):
                low = i
        kept |= 1 << low
    return ((1 << n) - 1) ^ kept


# -- table ---------------------------------------------------------------------------------
def table_index(a: int, b: int, c: int) -> int:
    """The row index of the triple of rank codes ``a, b, c`` (in any order)."""
    r1, r2, r3 = sorted((a, b, c))
    return r1 * NRANK * NRANK + r2 * NRANK + r3


def _card(name, where: str) -> int:
    text = str(name).strip()
    try:
        return rank_code(text.upper() if text.upper() in ("J", "Q", "K", "A", "JK") else text)
    except ValueError:
        raise ValueError(f"{where}: unknown card {text!r} (cards are "
                         f"{', '.join(NAMES)})") from None


def table_row(values: dict, where: str = "table") -> np.ndarray:
    """The parameter row of ``table`` from ``{(name, name, name): value}``: see the module
    docstring. ``ValueError`` for an unknown card, a value that is not a number (or is
    NaN), or a triple given twice (in any order)."""
    row = np.full(TABLE_SIZE, -np.inf)
    seen: dict[int, object] = {}
    for triple, value in values.items():
        if isinstance(triple, str) or len(triple) != 3:
            raise ValueError(f"{where}: a triple is three card names, got {triple!r}")
        idx = table_index(*(_card(n, where) for n in triple))
        if idx in seen:
            raise ValueError(f"{where}: the triple {'/'.join(map(str, triple))} is given twice "
                             f"(also as {'/'.join(map(str, seen[idx]))})")
        seen[idx] = triple
        if isinstance(value, bool) or not isinstance(value, (int, float, np.number)) \
                or math.isnan(value):
            raise ValueError(f"{where}: the value of {'/'.join(map(str, triple))} must be a "
                             f"number, got {value!r}")
        row[idx] = float(value)
    return row


def read_table(path) -> np.ndarray:
    """Read a ``table`` CSV file (module docstring) into its parameter row."""
    if not isinstance(path, (str, os.PathLike)) or not str(path).strip():
        raise ValueError("swap policy table: no file given; use table(file='values.csv') "
                         "(a CSV with header a,b,c,value)")
    p = Path(str(path).strip()).expanduser()
    if not p.is_file():
        raise ValueError(f"swap policy table: no such file {str(p.resolve())!r}")
    try:
        text = p.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as e:
        raise ValueError(f"swap policy table: cannot read {str(p)!r}: {e}") from None
    lines = list(csv.reader(text.splitlines()))
    if not lines or tuple(f.strip().lower() for f in lines[0]) != HEADER:
        got = ",".join(lines[0]) if lines else "an empty file"
        raise ValueError(f"swap policy table: {str(p)!r} must start with the header "
                         f"a,b,c,value, got {got!r}")
    values = {}
    for n, fields in enumerate(lines[1:], start=2):
        if not fields or all(not f.strip() for f in fields):
            continue
        where = f"swap policy table: {str(p)!r} line {n}"
        if len(fields) != 4:
            raise ValueError(f"{where}: expected 4 fields a,b,c,value, got {len(fields)}")
        triple = tuple(f.strip() for f in fields[:3])
        try:
            value = float(fields[3])
        except ValueError:
            raise ValueError(f"{where}: the value must be a number, got "
                             f"{fields[3].strip()!r}") from None
        if math.isnan(value):
            raise ValueError(f"{where}: the value must be a number, got "
                             f"{fields[3].strip()!r}")
        for name in triple:
            _card(name, where)
        key = tuple(sorted(triple, key=lambda t: _card(t, where)))
        if key in values:
            raise ValueError(f"{where}: the triple {'/'.join(triple)} is listed twice")
        values[key] = value
    if not values:
        raise ValueError(f"swap policy table: {str(p)!r} lists no triples")
    return table_row(values, f"swap policy table: {str(p)!r}")


def write_table(path, values: dict) -> Path:
    """Write ``{(name, name, name): value}`` as a ``table`` CSV file (module docstring);
    each triple is written in rank order, values exactly (``repr``). Returns the path.
    ``ValueError`` (and nothing written) for an unknown card, a non-number or a duplicate."""
    table_row(values, "write_table")                  # validate everything first
    rows = []
    for triple, value in values.items():
        names = sorted((str(n).strip() for n in triple), key=lambda t: _card(t, "write_table"))
        rows.append((table_index(*(_card(n, "write_table") for n in names)),
                     [NAMES[_card(n, "write_table")] for n in names] + [repr(float(value))]))
    rows.sort(key=lambda r: r[0])
    p = Path(path).expanduser()
    with open(p, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(HEADER)
        w.writerows(r[1] for r in rows)
    return p


def _prepare_table(values: dict) -> np.ndarray:
    return read_table(values["file"])


@swap_policy("table", "the face-up triple of highest value in a CSV table: "
             "table(file='values.csv'), header a,b,c,value",
             params={"file": ""}, prepare=_prepare_table)
def table(cards, obs, rng, params):
    if cards.shape[0] != 6:
        return -1                       # a table of triples values 3 of 6 cards only
    best = 0
    best_value = -np.inf
    first = True
    for i in range(4):
        for j in range(i + 1, 5):
            for k in range(j + 1, 6):
                a, b, c = cards[i], cards[j], cards[k]
                if a > b:
                    a, b = b, a
                if b > c:
                    b, c = c, b
                if a > b:
                    a, b = b, a
                v = params[a * 196 + b * 14 + c]
                if first or v > best_value:
                    best = (1 << i) | (1 << j) | (1 << k)
                    best_value = v
                    first = False
    return best


# -- split ---------------------------------------------------------------------------------
SPLIT_COUNTS = 5                      # 0..4 cards of a rank in one place
SPLIT_SIZE = 1 + 2 * NRANK * SPLIT_COUNTS


def split_index(place: int, rank: int, count: int) -> int:
    """Where the value of ``count`` cards of ``rank`` in ``place`` (0 up, 1 hand) is."""
    return 1 + (place * NRANK + rank) * SPLIT_COUNTS + count


def split_header(k: int) -> tuple:
    return ("card",) + tuple(f"up{c}" for c in range(1, k + 1)) + tuple(
        f"hand{c}" for c in range(1, k + 1))


def split_row(values: dict, k: int = 3, where: str = "split") -> np.ndarray:
    """The parameter row of ``split`` from ``{card name: (up1..upK, hand1..handK)}`` for
    ``k`` cards per place (module docstring). ``ValueError`` for an unknown card, a card
    given twice, a wrong number of values or a value that is not a finite number."""
    if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= SPLIT_COUNTS - 1:
        raise ValueError(f"{where}: cards per place must be 1 to {SPLIT_COUNTS - 1}, got {k!r}")
    row = np.zeros(SPLIT_SIZE)
    row[0] = k
    seen = set()
    for name, vals in values.items():
        r = _card(name, where)
        if r in seen:
            raise ValueError(f"{where}: the card {NAMES[r]} is given twice")
        seen.add(r)
        vals = list(vals)
        if len(vals) != 2 * k:
            raise ValueError(f"{where}: the card {NAMES[r]} needs {2 * k} values "
                             f"(up1..up{k}, hand1..hand{k}), got {len(vals)}")
        for i, v in enumerate(vals):
            if isinstance(v, bool) or not isinstance(v, (int, float, np.number)) \
                    or not math.isfinite(v):
                raise ValueError(f"{where}: the values of {NAMES[r]} must be finite numbers, "
                                 f"got {v!r}")
            row[split_index(i // k, r, i % k + 1)] = float(v)
    return row


def read_split(path) -> np.ndarray:
    """Read a ``split`` CSV file (module docstring) into its parameter row."""
    if not isinstance(path, (str, os.PathLike)) or not str(path).strip():
        raise ValueError("swap policy split: no file given; use split(file='split.csv') "
                         "(as written by sim study swap)")
    p = Path(str(path).strip()).expanduser()
    if not p.is_file():
        raise ValueError(f"swap policy split: no such file {str(p.resolve())!r}")
    try:
        text = p.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as e:
        raise ValueError(f"swap policy split: cannot read {str(p)!r}: {e}") from None
    lines = [f for f in csv.reader(text.splitlines()) if f and any(x.strip() for x in f)]
    head = tuple(f.strip().lower() for f in lines[0]) if lines else ()
    k = (len(head) - 1) // 2
    if not head or len(head) % 2 == 0 or not 1 <= k < SPLIT_COUNTS or head != split_header(k):
        got = ",".join(lines[0]) if lines else "an empty file"
        raise ValueError(f"swap policy split: {str(p)!r} must start with the header "
                         f"card,up1,..,upK,hand1,..,handK (K = 1 to {SPLIT_COUNTS - 1}), "
                         f"got {got!r}")
    values = {}
    for n, fields in enumerate(lines[1:], start=2):
        where = f"swap policy split: {str(p)!r} line {n}"
        if len(fields) != len(head):
            raise ValueError(f"{where}: expected {len(head)} fields, got {len(fields)}")
        name = fields[0].strip()
        r = _card(name, where)
        if NAMES[r] in values:
            raise ValueError(f"{where}: the card {NAMES[r]} is listed twice")
        try:
            values[NAMES[r]] = [float(x) for x in fields[1:]]
        except ValueError:
            raise ValueError(f"{where}: the values must be numbers, got "
                             f"{','.join(fields[1:])!r}") from None
    if not values:
        raise ValueError(f"swap policy split: {str(p)!r} lists no cards")
    return split_row(values, k, f"swap policy split: {str(p)!r}")


def write_split(path, values: dict, k: int = 3) -> Path:
    """Write ``{card name: (up1..upK, hand1..handK)}`` as a ``split`` CSV file, cards in rank
    order, values exactly (``repr``). Returns the path; ``ValueError`` (nothing written) for
    what :func:`split_row` refuses."""
    split_row(values, k, "write_split")
    rows = sorted(((_card(n, "write_split"), [NAMES[_card(n, "write_split")]]
                    + [repr(float(v)) for v in vals]) for n, vals in values.items()))
    p = Path(path).expanduser()
    with open(p, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(split_header(k))
        w.writerows(r[1] for r in rows)
    return p


def split_value(row: np.ndarray, up: np.ndarray, hand: np.ndarray) -> np.ndarray:
    """The model value of splits given as per-rank counts ``up`` and ``hand`` (arrays of
    shape (..., 14)): what the ``split`` policy maximises, in NumPy."""
    table = np.asarray(row[1:]).reshape(2, NRANK, SPLIT_COUNTS)
    ranks = np.arange(NRANK)
    up, hand = np.asarray(up, np.int64), np.asarray(hand, np.int64)
    return table[0, ranks, up].sum(axis=-1) + table[1, ranks, hand].sum(axis=-1)


def _prepare_split(values: dict) -> np.ndarray:
    return read_split(values["file"])


@swap_policy("split", "the face-up/hand split of highest value under a fitted rank x place "
             "model (sim study swap): split(file='split.csv'), header card,up1..,hand1..",
             params={"file": ""}, prepare=_prepare_split)
def split(cards, obs, rng, params):
    n = cards.shape[0]
    k = np.int64(params[0])
    if n != 2 * k or k < 1 or k >= 5:
        return -1                       # values for 2K cards only: refuse, never guess
    total = np.zeros(14, np.int64)
    for i in range(n):
        total[cards[i]] += 1
    up = np.zeros(14, np.int64)
    best = -1
    best_value = -np.inf
    for mask in range(1 << n):
        bits = 0
        for i in range(n):
            bits += (mask >> i) & 1
        if bits != k:
            continue
        up[:] = 0
        for i in range(n):
            if (mask >> i) & 1:
                up[cards[i]] += 1
        v = 0.0
        for r in range(14):
            if total[r]:
                v += params[1 + r * 5 + up[r]] + params[1 + (14 + r) * 5 + total[r] - up[r]]
        if best < 0 or v > best_value:
            best = mask
            best_value = v
    return best
