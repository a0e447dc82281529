"""More swap policies (R5, V1): ``specials-up``, ``lowest-hand``, ``table`` and ``split``.

Every policy gets the ``cards`` to choose from (rank codes, :mod:`sim.kernel.cards`: 3..A =
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
    Keeps the lowest half of the cards in hand (3 of 6; 4 of 8 under H12's hand size 4), in
    plain code order (3 lowest ... A, then 2, then joker highest), to shed them early; the
    others go face up. Unlike ``highest-up``
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
    Chooses the split of its six cards into three face up and three in hand of highest value,
    the value of the face-up triple *face up* plus the value of the hand triple *in hand*,
    read from a CSV file: ``split(file='split.csv')`` (``sim study swap`` writes it from its
    fitted model: a triple's two values are the model's terms for those cards in that
    place). The file format::

        a,b,c,up,hand
        10,2,A,0.41,0.12
        3,4,5,-0.62,0.05

    - the first line is exactly the header ``a,b,c,up,hand``;
    - each further line is one triple of card names in any order (listed once), its value
      face up and its value in the hand (finite numbers; higher is better);
    - triples that are not listed are worth ``-inf`` in either place.

    Of the 20 ways to put 3 of the 6 cards face up, in the order of ``table``, it returns the
    first one of highest value. The parameter row (:func:`split_row`) is ``[3]``, then the
    face-up values at ``1 + table_index``, then the hand values at ``1 + 2744 +
    table_index`` (``-inf`` elsewhere). :func:`write_split` writes such a file.
"""
from __future__ import annotations

import csv
import math
import os
from pathlib import Path

import numpy as np

from sim.kernel.compiler import jit
from sim.kernel.cards import NAMES, NRANK, rank_code
from sim.kernel.strategy import swap_policy

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
@swap_policy("lowest-hand", "keeps the lowest half of the cards in hand (plain rank order, 2 "
             "and joker highest, 10 between 9 and J) and puts the others face up")
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


def _indexed(values: dict, where: str):
    """``(table index, triple, value)`` of each entry of ``values``; ``ValueError`` for what
    is not three known cards, or a triple given twice (in any order)."""
    seen: dict[int, object] = {}
    for triple, value in values.items():
        if isinstance(triple, str) or len(triple) != 3:
            raise ValueError(f"{where}: a triple is three card names, got {triple!r}")
        idx = table_index(*(_card(n, where) for n in triple))
        if idx in seen:
            raise ValueError(f"{where}: the triple {'/'.join(map(str, triple))} is given twice "
                             f"(also as {'/'.join(map(str, seen[idx]))})")
        seen[idx] = triple
        yield idx, triple, value


def table_row(values: dict, where: str = "table") -> np.ndarray:
    """The parameter row of ``table`` from ``{(name, name, name): value}``: see the module
    docstring. ``ValueError`` for an unknown card, a value that is not a number (or is
    NaN), or a triple given twice (in any order)."""
    row = np.full(TABLE_SIZE, -np.inf)
    for idx, triple, value in _indexed(values, where):
        if isinstance(value, bool) or not isinstance(value, (int, float, np.number)) \
                or math.isnan(value):
            raise ValueError(f"{where}: the value of {'/'.join(map(str, triple))} must be a "
                             f"number, got {value!r}")
        row[idx] = float(value)
    return row


def _read_triples(path, policy, use, header):
    """The file's ``{sorted triple: value}`` (one number, or a pair for two value columns):
    every line checked (cards, numbers, duplicates), with clear errors. Read once for each
    version of the file (its size and time): a study seats it in many tables."""
    if isinstance(path, (str, os.PathLike)) and str(path).strip():
        f = Path(str(path).strip()).expanduser()
        try:
            st = f.stat()
            key = (str(f.resolve()), st.st_mtime_ns, st.st_size, policy, use, header)
        except OSError:
            key = None
        if key is not None:
            if key not in _READ:
                if len(_READ) > 64:
                    _READ.clear()
                _READ[key] = _parse_triples(path, policy, use, header)
            p, values = _READ[key]
            return p, dict(values)
    return _parse_triples(path, policy, use, header)


_READ: dict = {}            # the files read: (path, time, size, ...) -> (path, values)


def _parse_triples(path, policy, use, header):
    p, lines = _csv_lines(path, policy, use, header)
    one = len(header) == 4
    values = {}
    for n, fields in enumerate(lines[1:], start=2):
        if not fields or all(not f.strip() for f in fields):
            continue
        where = f"swap policy {policy}: {str(p)!r} line {n}"
        if len(fields) != len(header):
            raise ValueError(f"{where}: expected {len(header)} fields {','.join(header)}, got "
                             f"{len(fields)}")
        triple = tuple(f.strip() for f in fields[:3])
        raw = ", ".join(repr(f.strip()) for f in fields[3:])
        what = "the value must be a number" if one else "the values must be numbers"
        try:
            numbers = tuple(float(f) for f in fields[3:])
        except ValueError:
            raise ValueError(f"{where}: {what}, got {raw}") from None
        if (math.isnan(numbers[0]) if one else not all(math.isfinite(v) for v in numbers)):
            raise ValueError(f"{where}: {what if one else 'the values must be finite numbers'}"
                             f", got {raw}")
        for name in triple:
            _card(name, where)
        key = tuple(sorted(triple, key=lambda t: _card(t, where)))
        if key in values:
            raise ValueError(f"{where}: the triple {'/'.join(triple)} is listed twice")
        values[key] = numbers[0] if one else numbers
    if not values:
        raise ValueError(f"swap policy {policy}: {str(p)!r} lists no triples")
    return p, values


def _csv_lines(path, policy, use, header):
    """The rows of a swap policy's CSV file, its header checked; clear errors otherwise."""
    if not isinstance(path, (str, os.PathLike)) or not str(path).strip():
        raise ValueError(f"swap policy {policy}: no file given; use {use}")
    p = Path(str(path).strip()).expanduser()
    if not p.is_file():
        raise ValueError(f"swap policy {policy}: no such file {str(p.resolve())!r}")
    try:
        text = p.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as e:
        raise ValueError(f"swap policy {policy}: cannot read {str(p)!r}: {e}") from None
    lines = list(csv.reader(text.splitlines()))
    if not lines or tuple(f.strip().lower() for f in lines[0]) != header:
        got = ",".join(lines[0]) if lines else "an empty file"
        raise ValueError(f"swap policy {policy}: {str(p)!r} must start with the header "
                         f"{','.join(header)}, got {got!r}")
    return p, lines


def read_table(path) -> np.ndarray:
    """Read a ``table`` CSV file (module docstring) into its parameter row."""
    p, values = _read_triples(path, "table", "table(file='values.csv') (a CSV with header "
                              "a,b,c,value)", HEADER)
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


@jit(inline="always")
def _code3(a, b, c):
    """The table index of three rank codes in any order: sorted r1 <= r2 <= r3 gives
    r1 * 196 + r2 * 14 + r3 (the swap study's triple code)."""
    if a > b:
        a, b = b, a
    if b > c:
        b, c = c, b
    if a > b:
        a, b = b, a
    return a * 196 + b * 14 + c


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
                v = params[_code3(cards[i], cards[j], cards[k])]
                if first or v > best_value:
                    best = (1 << i) | (1 << j) | (1 << k)
                    best_value = v
                    first = False
    return best


# -- split ---------------------------------------------------------------------------------
SPLIT_HEADER = ("a", "b", "c", "up", "hand")
SPLIT_SIZE = 1 + 2 * TABLE_SIZE


def split_row(values: dict, where: str = "split") -> np.ndarray:
    """The parameter row of ``split`` from ``{(name, name, name): (up, hand)}`` (module
    docstring). ``ValueError`` for an unknown card, a triple given twice (in any order) or
    a value that is not a finite number."""
    row = np.full(SPLIT_SIZE, -np.inf)
    row[0] = 3
    for idx, triple, pair in _indexed(values, where):
        pair = tuple(pair) if isinstance(pair, (tuple, list, np.ndarray)) else (pair,)
        if len(pair) != 2:
            raise ValueError(f"{where}: {'/'.join(map(str, triple))} needs two values (up, "
                             f"hand), got {len(pair)}")
        for v in pair:
            if isinstance(v, bool) or not isinstance(v, (int, float, np.number)) \
                    or not math.isfinite(v):
                raise ValueError(f"{where}: the values of {'/'.join(map(str, triple))} must "
                                 f"be finite numbers, got {v!r}")
        row[1 + idx] = float(pair[0])
        row[1 + TABLE_SIZE + idx] = float(pair[1])
    return row


def read_split(path) -> np.ndarray:
    """Read a ``split`` CSV file (module docstring) into its parameter row."""
    p, values = _read_triples(path, "split", "split(file='split.csv') (as written by sim "
                              "study swap)", SPLIT_HEADER)
    return split_row(values, f"swap policy split: {str(p)!r}")


def write_split(path, values: dict) -> Path:
    """Write ``{(name, name, name): (up, hand)}`` as a ``split`` CSV file, each triple in rank
    order, values exactly (``repr``). Returns the path; ``ValueError`` (nothing written) for
    what :func:`split_row` refuses."""
    split_row(values, "write_split")
    rows = []
    for triple, pair in values.items():
        codes = sorted(_card(n, "write_split") for n in triple)
        rows.append((table_index(*codes), [NAMES[c] for c in codes]
                     + [repr(float(pair[0])), repr(float(pair[1]))]))
    rows.sort(key=lambda r: r[0])
    p = Path(path).expanduser()
    with open(p, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(SPLIT_HEADER)
        w.writerows(r[1] for r in rows)
    return p


def split_value(row: np.ndarray, up: np.ndarray, hand: np.ndarray) -> np.ndarray:
    """The value ``up[T] + hand[H]`` of splits given as triple codes (``table_index``) of the
    face-up triple ``up`` and the hand triple ``hand``: what ``split`` maximises, in NumPy."""
    row = np.asarray(row)
    return row[1 + np.asarray(up)] + row[1 + TABLE_SIZE + np.asarray(hand)]


def _prepare_split(values: dict) -> np.ndarray:
    return read_split(values["file"])


@swap_policy("split", "the face-up/hand split of highest value, face-up triple value plus "
             "hand triple value (the model of sim study swap): split(file='split.csv'), "
             "header a,b,c,up,hand", params={"file": ""}, prepare=_prepare_split)
def split(cards, obs, rng, params):
    if cards.shape[0] != 6:
        return -1                       # values of 3 + 3 cards only: refuse, never guess
    best = 0
    best_value = -np.inf
    first = True
    for i in range(4):
        for j in range(i + 1, 5):
            for k in range(j + 1, 6):
                # the other three (cards are in rank order within the face-ups and within
                # the hand, not across: _code3 sorts)
                h0 = h1 = h2 = 0
                m = 0
                for q in range(6):
                    if q != i and q != j and q != k:
                        if m == 0:
                            h0 = cards[q]
                        elif m == 1:
                            h1 = cards[q]
                        else:
                            h2 = cards[q]
                        m += 1
                v = (params[1 + _code3(cards[i], cards[j], cards[k])]
                     + params[1 + TABLE_SIZE + _code3(h0, h1, h2)])
                if first or v > best_value:
                    best = (1 << i) | (1 << j) | (1 << k)
                    best_value = v
                    first = False
    return best


def _given(cards, obs, rng, params):
    """A swap choice already made (R5, V1): its bit mask over the seat's cards in
    ``params[0]``, as the seat's row carries it."""
    return np.int64(params[0])


_given_fn = []


def given_swap():
    """The compiled swap policy that plays a choice already made (a human's in ``sim play``,
    the one under review in ``sim review``): compiled on first use, once per process."""
    if not _given_fn:
        from sim.kernel.compiler import jit_sig
        from sim.kernel.strategy import SWAP_SIG
        _given_fn.append(jit_sig(SWAP_SIG)(_given))
    return _given_fn[0]


def given_swaps(pool, given: dict):
    """The swap phase of a table seated from ``pool`` (:class:`sim.kernel.fastpath.Pool`, a
    plain table's: seat ``s`` plays entry ``s``) with some seats' choices fixed: ``given``
    maps a seat to its choice (a mask over :func:`sim.kernel.dealing.swap_choices`, R5/V1),
    played by :func:`given_swap`; the other seats swap by their policies. Returns ``(swap
    functions, seat table, parameter rows)`` for :func:`sim.kernel.referee.swap_phase`
    (``sim play``'s human, ``sim review``)."""
    from sim.kernel.compiler import FnTuple
    from sim.kernel.fastpath import kinds
    from sim.kernel.layout import MAXP

    fns = FnTuple(given_swap() if s in given else f for s, f in enumerate(pool.swaps))
    params = pool.params.copy()
    for s, mask in given.items():
        params[MAXP + s] = 0
        params[MAXP + s, 0] = mask
    return fns, kinds(pool.moves, fns), params
