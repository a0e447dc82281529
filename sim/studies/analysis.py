"""Every legal move of a position with its estimated value, from playouts (``sim analyze``).

The seat to move is the analyst. Its point of view (R26) is what it may know: everything
public (face-ups, the pile, burned cards, every count, the cards known to be in other hands)
and its own hand. Each *world* re-deals everything else, consistently with that view
(:func:`strategies.montecarlo.sample_world`): the unknown cards of the other hands, every
face-down stack (its own too), the stock and H17's removed cards. In each world every legal
move is played out once, with the same random stream for every move (common random
numbers), so that the moves are compared on the same deals; after the move every seat plays
a named strategy (``counting`` by default) until the game is decided.

A POSITION.md position always names every card, hidden ones included, so the hidden cards a
file gives are never refused: they are checked (the position must be valid) and then not
used, unless ``omniscient`` asks to start every playout from exactly that deal. A position
may also leave the hidden cards out as ``"?"`` (a *view*, :func:`read_view`).

The score of a playout is, under seed rules, 1 when the analyst goes out first (R18, R25) and
0 otherwise; under V2 (``last_player_loses``), its finishing place, 1 = first out, P = the
Shithead. A playout still going after ``max_turns`` turns is *unfinished*: it counts as not
won (seed rules) or as the mean of the places still open (V2), and is reported.

The playouts run inside one jitted, parallel loop (:func:`_playouts`); a world's result
depends only on the seed and the world's index, never on the number of threads.
"""
from __future__ import annotations

import math
import time
from collections import Counter
from dataclasses import dataclass, field

import numpy as np
from numba import prange

from sim.kernel import engine
from sim.kernel.compiler import FnTuple, borrow, install, jit
from sim.kernel.cards import NAMES, rank_code
from sim.kernel.layout import (
    ADD, BLIND, COUNT, CURRENT, DECK, EV_GAME_OVER, FDN, HANDN, HANDS, KNOWN, MAXP, NOUT, NR,
    OUTORDER, OVER, PICKUP, PLAYERS, PUB, REMOVEDN, STATE_SIZE, STOCKLEN, V2,
)
from sim.kernel.moves import is_legal, move_cards, move_rank
from sim.kernel.rng import next_u64, seed_game, splitmix64
from sim.kernel.position import _legal
from sim.kernel.ruleset import Ruleset
from strategies.montecarlo import sample_world

DEFAULT_OPPONENTS = "counting"
DEFAULT_ROLLOUTS = 1000
DEFAULT_MAX_TURNS = 2000
WILSON = "95% Wilson score interval"
NORMAL = "95% normal interval (mean ± 1.96 s/√n)"
UNKNOWN = "?"
Z95 = 1.959963984540054        # the normal quantile of a two-sided 95% interval

# -- the jitted playouts --------------------------------------------------------------------
OK, UNFINISHED, BAD_MOVE = 0, 1, 2


@jit
def _score(st, me, players):
    """Seed rules: 1 for a win, else 0. V2: ``me``'s place (1 = first out), 0 while open."""
    if st[V2] == 0:
        return 1.0 if st[NOUT] > 0 and st[OUTORDER] == me else 0.0
    for i in range(st[NOUT]):
        if st[OUTORDER + i] == me:
            return i + 1.0
    if st[OVER]:
        return players * 1.0                  # the one seat never out: the Shithead (V2)
    return 0.0


@jit
def _play_on(st, m, me, rng, max_turns, fns, params, bad):
    """Apply ``m`` to the world ``st`` and let every seat play its strategy until the
    analyst's result is decided. Returns (score, status); a strategy's illegal move (R24)
    writes (seat, move) into ``bad``."""
    players = st[PLAYERS]
    ev = engine.apply_move(st, m)
    turns = 0
    while not ev & EV_GAME_OVER:
        score = _score(st, me, players)
        if score > 0:
            return score, OK                  # V2: the analyst is out, its place is known
        if turns >= max_turns:
            if st[V2]:                        # the mean of the places still open
                return (st[NOUT] + 1 + players) / 2.0, UNFINISHED
            return 0.0, UNFINISHED
        legal = engine.legal_word(st)
        p = st[CURRENT]
        m2 = fns[p](st[:PUB], st[HANDS + p * NR:HANDS + p * NR + NR], legal, rng, params[p])
        if not is_legal(legal, m2, st[:PUB]):
            bad[0], bad[1] = p, m2
            return 0.0, BAD_MOVE
        ev = engine.apply_move(st, m2)
        turns += 1
    return _score(st, me, players), OK


@jit(parallel=True)
def _playouts(st0, sample, moves, seed, first, scores, status, bad, max_turns, fns, params):
    """Worlds ``first .. first + len(scores) - 1``: each re-dealt from what the seat to move
    knows (``sample``), or ``st0`` itself, and every move of ``moves`` played out in it from
    the same random stream. Fills ``scores`` and ``status`` (worlds x moves)."""
    obs = st0[:PUB]
    me = st0[CURRENT]
    hand = st0[HANDS + me * NR:HANDS + me * NR + NR]
    n = scores.shape[0]
    for w in prange(n):
        rng = np.empty(4, np.uint64)
        seed_game(rng, seed, first + w)
        world = np.empty(STATE_SIZE, np.int32)
        st = np.empty(STATE_SIZE, np.int32)
        if sample:
            pool = np.empty(DECK, np.int32)
            sample_world(obs, hand, rng, world, pool)
        else:
            world[:] = st0
        s0 = next_u64(rng)
        prng = np.empty(4, np.uint64)
        for i in range(moves.shape[0]):
            st[:] = world
            x = s0                            # the same playout stream for every move
            for j in range(4):
                x = splitmix64(x)
                prng[j] = x
            # views without reference counts (sim.kernel.compiler.borrow); st and prng live on
            scores[w, i], status[w, i] = _play_on(borrow(st), moves[i], me, borrow(prng),
                                                   max_turns, fns, params, bad[w])


# -- moves as words --------------------------------------------------------------------------
def move_words(m: int) -> str:
    """A move id as ``sim play`` reads it: ``7 7``, ``pickup``, ``add K``, ``blind``."""
    m = int(m)
    if m == BLIND:
        return "blind"
    if m == PICKUP:
        return "pickup"
    if m >= ADD:
        return f"add {NAMES[m - ADD]}"
    return " ".join([NAMES[move_rank(m)]] * move_cards(m))


# -- positions from the seat's point of view -------------------------------------------------
_HIDDEN_FLAT = ("stock", "removed")


def read_view(position: dict) -> tuple[dict, bool]:
    """Analyze's input as a POSITION.md position (``"known"`` left out, any ``"?"`` filled),
    and whether it was a *view*.

    Analyze's input is a POSITION.md position with two additions:

    - ``"?"`` may stand for any hidden card (R26): in another seat's hand, in a face-down
      stack, in the stock, in ``removed``. Such a position is a *view*; the ``"?"`` are filled
      with the cards the deck still lacks (only to check the position: they are re-dealt);
    - ``"known"`` (optional): per seat, cards known to be in that seat's hand (R26: picked up,
      or swapped from the dealt face-ups). In a view the cards named in another seat's hand
      are known; in a full position no card of another hand is known unless listed here.
    """
    if not isinstance(position, dict):
        raise ValueError(f"a position must be a JSON object, got {type(position).__name__}")
    pos = {k: v for k, v in position.items() if k != "known"}
    players, current = pos.get("players"), pos.get("current")
    rules = Ruleset.parse(pos.get("ruleset"))
    if isinstance(players, bool) or not isinstance(players, int) or not 2 <= players <= 6:
        raise ValueError(f"players: Shithead is for 2 to 6 players (R1), got {players!r}")

    def marks(value, where, allowed):
        if not isinstance(value, list):
            return 0
        n = sum(1 for c in value if c == UNKNOWN)
        if n and not allowed:
            raise ValueError(f"{where}: '?' stands only for a hidden card (R26: other seats' "
                             f"hands, face-down cards, the stock, removed), not here")
        return n

    unknown = 0
    for key in ("hands", "face_up", "face_down"):
        seats = pos.get(key)
        if isinstance(seats, list):
            for s, cards in enumerate(seats):
                allowed = key == "face_down" or (key == "hands" and s != current)
                unknown += marks(cards, f"{key}[{s}]", allowed)
    for key in ("stock", "removed", "pile", "burned"):
        unknown += marks(pos.get(key), key, key in _HIDDEN_FLAT)
    view = unknown > 0
    if view:
        pos = _fill_unknown(pos, rules, players)
    return pos, view


def _fill_unknown(pos, rules, players) -> dict:
    named = Counter()

    def count(cards):
        if isinstance(cards, list):
            named.update(rank_code(c) for c in cards if c != UNKNOWN)
    for key in ("hands", "face_up", "face_down"):
        for cards in pos.get(key) or []:
            count(cards)
    for key in ("stock", "pile", "burned", "removed"):
        count(pos.get(key))
    want = rules.deck_counts(players)
    over = [f"{NAMES[r]} ({named[r]} of {want[r]})" for r in range(NR) if named[r] > want[r]]
    if over:
        raise ValueError("cards are not conserved (R1): too many " + ", ".join(over))
    missing = [r for r in range(NR) for _ in range(want[r] - named[r])]

    def lists():                              # every card list that may hold a '?'
        for key in ("hands", "face_down"):
            for cards in pos.get(key) or []:
                if isinstance(cards, list):
                    yield cards
        for key in _HIDDEN_FLAT:
            if isinstance(pos.get(key), list):
                yield pos[key]
    slots = sum(c == UNKNOWN for cards in lists() for c in cards)
    if slots != len(missing):
        raise ValueError(f"cards are not conserved (R1): the position has {slots} '?' but "
                         f"{len(missing)} card(s) of the deck are not named")
    fill = iter(NAMES[r] for r in missing)

    def filled(cards):
        if not isinstance(cards, list):
            return cards
        return [next(fill) if c == UNKNOWN else c for c in cards]
    out = dict(pos)
    for key in ("hands", "face_down"):
        if isinstance(pos.get(key), list):
            out[key] = [filled(cards) for cards in pos[key]]
    for key in _HIDDEN_FLAT:
        if key in pos:
            out[key] = filled(pos[key])
    return out


def _known(original, pos, players, current, view) -> list:
    given = original.get("known")
    if given is None:
        if not view:
            return [[] for _ in range(players)]
        return [[] if s == current else [c for c in original["hands"][s] if c != UNKNOWN]
                for s in range(players)]
    if not isinstance(given, list) or len(given) != players or not all(
            isinstance(k, list) for k in given):
        raise ValueError(f"known: expected one list of cards per seat ({players} lists)")
    for s, cards in enumerate(given):
        codes = Counter()
        for c in cards:
            try:
                codes[rank_code(c)] += 1
            except ValueError as e:
                raise ValueError(f"known[{s}]: {e}") from None
        hand = Counter(rank_code(c) for c in original["hands"][s] if c != UNKNOWN)
        if codes - hand:
            raise ValueError(f"known[{s}]: {sorted(NAMES[r] for r in (codes - hand).elements())} "
                             f"not in seat {s}'s hand (a known card is in the hand, R26)")
    return [list(k) for k in given]


def state_of(position: dict) -> tuple[np.ndarray, bool]:
    """The kernel state of analyze's input (:func:`read_view`), with the known cards of each
    hand written into the public state (R26); and whether the input was a view."""
    from sim.kernel.position import _to_state

    pos, view = read_view(position)
    st = _to_state(pos)
    known = _known(position, pos, int(st[PLAYERS]), int(st[CURRENT]), view)
    for s, cards in enumerate(known):
        for c in cards:
            st[KNOWN + s * NR + rank_code(c)] += 1
    return st, view


def hidden_counts(st) -> dict:
    """The cards the seat to move cannot see, which every world re-deals (R26)."""
    me = int(st[CURRENT])
    hands = sum(int(st[HANDN + s]) - int(st[KNOWN + s * NR:KNOWN + s * NR + NR].sum())
                for s in range(int(st[PLAYERS])) if s != me)
    face_down = int(st[FDN:FDN + int(st[PLAYERS])].sum())
    out = {"other_hands": hands, "face_down": face_down, "stock": int(st[STOCKLEN])}
    if st[REMOVEDN]:
        out["removed"] = int(st[REMOVEDN])
    out["total"] = sum(out.values())
    return out


# -- the analysis ----------------------------------------------------------------------------
@dataclass
class Analysis:
    """Playout scores of every legal move (worlds x moves) and what produced them."""

    moves: list
    scores: np.ndarray
    status: np.ndarray
    v2: bool
    players: int
    seat: int
    seed: int
    opponents: str
    me: str
    omniscient: bool
    hidden: dict
    max_turns: int
    seconds: float = 0.0
    clear: dict = field(default_factory=dict)
    view: bool = False          # the position wrote its hidden cards "?"

    @property
    def n(self) -> int:
        return int(self.scores.shape[0])

    def order(self) -> list[int]:
        """Move indices, best first (stable: ties keep the legal order)."""
        means = self.scores.mean(axis=0)
        key = means if self.v2 else -means
        return [int(i) for i in np.argsort(key, kind="stable")]

    def paired(self, z: float = Z95) -> dict | None:
        """Best minus second, world by world (common random numbers): mean and interval."""
        if len(self.moves) < 2:
            return None
        a, b = self.order()[:2]
        d = self.scores[:, a] - self.scores[:, b]
        mean = float(d.mean())
        se = float(d.std(ddof=1) / math.sqrt(self.n)) if self.n > 1 else math.inf
        return {"best": move_words(self.moves[a]), "second": move_words(self.moves[b]),
                "difference": mean, "low": mean - z * se, "high": mean + z * se, "z": z,
                "n": self.n}

    def rows(self) -> list[dict]:
        from sim.runs.tally import wilson
        from sim.kernel.position import move_to_dict

        out = []
        n = self.n
        for rank, i in enumerate(self.order(), 1):
            col = self.scores[:, i]
            row = {"rank": rank, "move": move_words(self.moves[i]),
                   "json": move_to_dict(self.moves[i])}
            mean = float(col.mean())
            if self.v2:
                se = float(col.std(ddof=1) / math.sqrt(n)) if n > 1 else math.inf
                row.update(estimate=mean, low=mean - Z95 * se,
                           high=mean + Z95 * se,
                           first=float((col == 1).mean()),
                           shithead=float((col == self.players).mean()))
            else:
                wins = int(col.sum())
                lo, hi = wilson(wins, n)
                row.update(estimate=mean, low=lo, high=hi, wins=wins)
            row.update(n=n, unfinished=int((self.status[:, i] == UNFINISHED).sum()))
            out.append(row)
        return out

    @property
    def measure(self) -> str:
        return ("expected finishing place (V2: 1 = first out, %d = the Shithead)" % self.players
                if self.v2 else "win chance (the first seat out wins, R18)")

    @property
    def interval(self) -> str:
        return NORMAL if self.v2 else WILSON

    def frame(self):
        """The moves as a pandas DataFrame, best first; what produced them in ``.attrs``."""
        import pandas as pd

        df = pd.DataFrame(self.rows()).set_index("rank")
        df.attrs.update(self.info())
        return df

    def info(self) -> dict:
        playouts = self.n * len(self.moves)
        return {"measure": self.measure, "interval": self.interval, "n": self.n,
                "seat": self.seat, "players": self.players, "v2": self.v2, "seed": self.seed,
                "opponents": self.opponents, "me": self.me, "omniscient": self.omniscient,
                "hidden": self.hidden, "max_turns": self.max_turns, "playouts": playouts,
                "seconds": self.seconds,
                "playouts_per_second": playouts / self.seconds if self.seconds else None,
                "paired": self.paired(self.clear.get("z", Z95)),
                "until_clear": self.clear or None, "view": self.view}


def _strategies(opponents: str, me: str | None, seat: int, players: int):
    """The playout strategies: ``me`` at ``seat`` (default: ``opponents``), ``opponents``
    elsewhere; padded to 6 seats so one compiled loop serves every table."""
    from sim.runs.registry import get_move

    opp = get_move(opponents)
    mine = get_move(me) if me else opp
    objs = [mine if s == seat else opp for s in range(players)]
    objs += [opp] * (MAXP - players)
    rows = [o.row() for o in objs]
    params = np.zeros((MAXP, max([1] + [r.size for r in rows])))
    for s, r in enumerate(rows):
        params[s, :r.size] = r
    return FnTuple(o.fn for o in objs), params, opp.name, mine.name


def analyze_state(st, *, rollouts=DEFAULT_ROLLOUTS, seed=0, opponents=DEFAULT_OPPONENTS,
                  me=None, omniscient=False, until_clear=False, max_rollouts=None,
                  max_turns=DEFAULT_MAX_TURNS) -> Analysis:
    """Analyse the kernel state ``st`` from its seat to move's point of view (R26), or from
    the state as it is (``omniscient``). ``rollouts`` worlds, each move played out once in
    each; with ``until_clear``, blocks of ``rollouts`` worlds until the best move's paired
    difference with the second is clear (Bonferroni over the largest number of looks) or
    ``max_rollouts`` worlds (default 20 blocks) are played."""
    from scipy.stats import norm

    install()                 # Numba's process-wide patches (sim.kernel.compiler), once
    if st[OVER]:
        raise ValueError("the game is over (R25): there is no move to analyse")
    if not isinstance(rollouts, int) or isinstance(rollouts, bool) or rollouts < 1:
        raise ValueError(f"--rollouts: expected a positive number of worlds, got {rollouts!r}")
    if not isinstance(seed, int) or not 0 <= seed < 2**63:
        raise ValueError(f"--seed: expected an integer from 0 to 2**63-1, got {seed!r}")
    if max_turns < 1:
        raise ValueError(f"--max-turns: expected a positive number, got {max_turns}")
    cap = max_rollouts if max_rollouts is not None else 20 * rollouts
    if until_clear and cap < rollouts:
        raise ValueError(f"--max-rollouts: at least --rollouts ({rollouts}), got {cap}")
    seat, players = int(st[CURRENT]), int(st[PLAYERS])
    fns, params, opp_name, me_name = _strategies(opponents, me, seat, players)
    moves = np.array(_legal(st), np.int64)
    st0 = np.ascontiguousarray(st, dtype=np.int32)
    looks = math.ceil(cap / rollouts) if until_clear else 1
    z = float(norm.ppf(1 - 0.05 / (2 * looks)))
    a = Analysis([int(m) for m in moves], np.zeros((0, moves.size)),
                 np.zeros((0, moves.size), np.int8), bool(st[V2]), players, seat, seed,
                 opp_name, me_name, omniscient, {"total": 0} if omniscient else hidden_counts(st),
                 max_turns)

    def block(first, n):
        scores = np.zeros((n, moves.size))
        status = np.zeros((n, moves.size), np.int8)
        bad = np.full((n, 2), -1, np.int64)
        _playouts(st0, not omniscient, moves, np.uint64(seed), first, scores, status, bad,
                  max_turns, fns, params)
        if (status == BAD_MOVE).any():
            s, m = (int(x) for x in bad[np.argmax((status == BAD_MOVE).any(axis=1))])
            raise ValueError(f"strategy {me_name if s == seat else opp_name!r} (seat {s}) "
                             f"returned move id {m} in a playout, which is not a legal move "
                             f"(R24)")
        a.scores = np.concatenate([a.scores, scores])
        a.status = np.concatenate([a.status, status])

    block(0, 0)                  # compile (or load from the cache) before the clock starts
    t0 = time.perf_counter()
    stopped = "rollouts"
    while True:
        block(a.n, min(rollouts, cap - a.n) if until_clear else rollouts)
        if not until_clear:
            break
        p = a.paired(z)
        if p is None:
            stopped = "one move"
        elif p["low"] > 0 or p["high"] < 0:
            stopped = "clear"
        elif a.n >= cap:
            stopped = "cap"
        else:
            continue
        break
    a.seconds = time.perf_counter() - t0
    if until_clear:
        a.clear = {"z": z, "looks": looks, "block": rollouts, "cap": cap, "stopped": stopped,
                   "worlds": a.n}
    return a


def check_rules(position: dict, rules) -> None:
    """The position's own ``ruleset`` is authoritative: refuse other rules given beside it."""
    if rules is None:
        return
    own = Ruleset.parse(position.get("ruleset") if isinstance(position, dict) else None)
    given = Ruleset.parse(rules)
    if own != given:
        raise ValueError(f"--rules/--rule: the position's own ruleset is {own}, but the "
                         f"options give {given}; the position's ruleset decides: drop "
                         f"--rules/--rule or make them agree")


def run_analysis(position: dict, *, rules=None, omniscient=False, **options) -> Analysis:
    """:func:`analyze`'s work, returning the :class:`Analysis` (for the command line)."""
    if not isinstance(position, dict):
        raise ValueError(f"a position must be a JSON object, got {type(position).__name__}")
    check_rules(position, rules)
    st, view = state_of(position)
    if view and omniscient:
        raise ValueError("--omniscient uses the position's hidden cards, but this position "
                         "leaves them out as '?': name every card, or drop --omniscient")
    a = analyze_state(st, omniscient=omniscient, **options)
    a.view = view
    return a


def analyze(position: dict, *, rollouts: int = DEFAULT_ROLLOUTS, seed: int = 0,
            opponents: str = DEFAULT_OPPONENTS, me: str | None = None, omniscient=False,
            until_clear=False, max_rollouts: int | None = None,
            max_turns: int = DEFAULT_MAX_TURNS, rules=None):
    """Every legal move of ``position`` (POSITION.md, or a view with ``"?"`` for hidden
    cards and an optional ``"known"``: :func:`read_view`) with its estimated value, best
    first, as a pandas DataFrame.

    Columns: ``move`` (as ``sim play`` reads it), ``json`` (the POSITION.md move),
    ``estimate`` (win chance; under V2 the expected finishing place, lower is better), ``low``
    and ``high`` (a 95% Wilson score interval; under V2 a 95% normal interval), ``n``
    (playouts per move, one per world), ``unfinished``; seed rules add ``wins``, V2 adds
    ``first`` and ``shithead`` (shares of playouts). ``df.attrs`` holds what produced them:
    the interval's name, the strategies, the hidden cards re-dealt, the paired comparison of
    the best move with the second, the time taken.

    ``rollouts`` worlds are sampled from what the seat to move may know (R26) and every move
    is played out once in each (common random numbers); ``opponents`` plays the other seats,
    ``me`` the seat to move after this move (default: ``opponents``). ``omniscient`` starts
    every playout from the position's own hidden cards instead. ``rules`` (a preset name, a
    POSITION.md ruleset or a :class:`~sim.kernel.ruleset.Ruleset`), when given, must agree with the
    position's own ``ruleset``. ``ValueError`` for an invalid position or option.
    """
    return run_analysis(position, rules=rules, omniscient=omniscient, rollouts=rollouts,
                        seed=seed, opponents=opponents, me=me, until_clear=until_clear,
                        max_rollouts=max_rollouts, max_turns=max_turns).frame()


# -- text ------------------------------------------------------------------------------------
def describe(a: Analysis, position_line: str | None = None, from_file: bool = True) -> list[str]:
    """The lines ``sim analyze`` prints (``from_file``: the position was read from a file,
    whose hidden cards are then said to be unused)."""
    info = a.info()
    lines = []
    if position_line:
        lines.append(position_line)
    if a.omniscient:
        lines.append("Omniscient (--omniscient): every playout starts from the position's own "
                     "hidden cards; nothing is re-dealt.")
    else:
        h = a.hidden
        parts = [f"other hands' unknown cards {h['other_hands']}", f"face-down {h['face_down']}",
                 f"stock {h['stock']}"] + ([f"removed {h['removed']}"] if "removed" in h else [])
        lines.append(f"Hidden cards re-dealt in every world (R26): {h['total']} "
                     f"({', '.join(parts)})"
                     + ("; the position writes them \"?\"." if a.view else
                        "; hidden cards written in the position are not used (--omniscient "
                        "uses them)." if from_file else "."))
    me = "" if a.me == a.opponents else f"; seat {a.seat} (after this move) plays {a.me}"
    lines.append(f"{a.n:,} worlds x {len(a.moves)} moves = {info['playouts']:,} playouts, "
                 f"every move in the same worlds (common random numbers); the other seats "
                 f"play {a.opponents}{me}"
                 + ("" if me else f", seat {a.seat} too after this move")
                 + f"; seed {a.seed}; at most {a.max_turns} turns a playout.")
    rate = info["playouts_per_second"]
    lines.append(f"{a.seconds:.2f} s" + (f" ({rate:,.0f} playouts/s)" if rate else "") + ".")
    lines.append("")
    lines.append(f"{a.measure[0].upper()}{a.measure[1:]}, {a.interval}, "
                 f"n = {a.n:,} playouts per move:")
    rows = a.rows()
    width = max([4] + [len(r["move"]) for r in rows])
    head = "place" if a.v2 else "win"
    extra = "  first  Shithead" if a.v2 else ""
    lines.append(f"  {'#':>2}  {'move':<{width}}  {head:>6}  {'95% interval':<15}{extra}"
                 f"  unfinished")
    for r in rows:
        more = f"  {r['first']:5.3f}  {r['shithead']:8.3f}" if a.v2 else ""
        lines.append(f"  {r['rank']:>2}  {r['move']:<{width}}  {r['estimate']:6.3f}  "
                     f"{r['low']:6.3f} - {r['high']:<6.3f}{more}  {r['unfinished']:>10}")
    p = info["paired"]
    lines.append("")
    if p is None:
        lines.append("Only one legal move.")
    else:
        level = ("95%" if not a.clear else
                 f"95% corrected for {a.clear['looks']} looks (Bonferroni, z = {p['z']:.2f})")
        lines.append(f"Best minus second, paired over the same worlds ({p['best']} vs "
                     f"{p['second']}{', lower is better' if a.v2 else ''}): "
                     f"{p['difference']:+.3f}, {level} normal interval "
                     f"{p['low']:+.3f} to {p['high']:+.3f}, n = {p['n']:,}.")
    if a.clear:
        c = a.clear
        if c["stopped"] == "clear":
            lines.append(f"Until clear: the best move separated from the second after "
                         f"{c['worlds']:,} worlds (blocks of {c['block']:,}, cap {c['cap']:,}).")
        elif c["stopped"] == "cap":
            lines.append(f"Until clear: NOT clear at the cap of {c['cap']:,} worlds: the best "
                         f"two moves cannot be told apart with these playouts.")
    return lines


def position_line(st) -> str:
    """One line about the position analysed: who moves, with what, on what."""
    from sim.runs.replay import _cards, _pile

    me = int(st[CURRENT])
    return (f"Seat {me} to move of {int(st[PLAYERS])}: hand [{_cards(st, HANDS + me * NR)}]; "
            f"pile {_pile(st)}, count {int(st[COUNT])}.")


__all__ = ["analyze", "analyze_state", "run_analysis", "Analysis", "describe", "move_words",
           "read_view", "state_of"]
