"""Every legal move of a position with its estimated value, from playouts (``sim analyze``).

The seat to move is the analyst: each *world* re-deals what it cannot see (R26,
:func:`sim.kernel.sampling.sample_world`), every legal move is played out once in each world
with the same random stream (common random numbers), and after it every seat plays a named
strategy (``counting`` by default, :func:`sim.kernel.sampling.playouts`). A playout scores 1
for a win (R18, R25), else 0; under V2 the analyst's finishing place; one still going after
``max_turns`` is unfinished (not won; under V2 the mean of the places still open). The input
is read by :mod:`sim.studies.view`, the text is :mod:`reports.analysis`'s; the method, and
``--until-clear``'s race: docs/analyze-and-play.md.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np

from sim.kernel.cards import NAMES
from sim.kernel.compiler import install
from sim.kernel.layout import (
    ADD, ADDN, BLIND, CURRENT, END, FU, NR, OVER, PICKUP, PLAYERS, R_FUPICK, TURN, V2,
)
from sim.kernel.moves import move_cards, move_rank
from sim.kernel.position import legal_ids
from sim.kernel.sampling import BAD_MOVE, UNFINISHED, playouts
from sim.runs.config import MAX_TURNS, RunConfig, check_seed
from sim.runs.workers import Group, stream
from sim.studies.race import best_first, paired_difference, race, tie_of
from sim.studies.stats import Z95
from sim.studies.view import check_rules, hidden_counts, state_of

DEFAULT_OPPONENTS = "counting"
DEFAULT_ROLLOUTS = 1000
DEFAULT_MAX_TURNS = 2000
DEFAULT_TOLERANCE = 1.0        # --until-clear's indifference zone, in points (hundredths)
WILSON = "95% Wilson score interval"
NORMAL = "95% normal interval (mean ± 1.96 s/√n)"


# -- moves as words --------------------------------------------------------------------------
def move_words(m: int, st=None) -> str:
    """A move id as ``sim play`` reads it: ``7 7``, ``pickup``, ``add K``, ``blind``, ``end``
    (H19). ``st``, the state it is made in, writes an H11 ``one_then_rank`` add of all of a
    face-up rank with every card (``add K K K``), as its fewer are written (``add K``, ``add K
    K``), so that no two moves read alike."""
    m = int(m)
    if st is not None and ADD <= m < PICKUP and st[R_FUPICK] == 3:
        return "add " + " ".join([NAMES[m - ADD]] * int(st[FU + int(st[CURRENT]) * NR + m - ADD]))
    if m == BLIND:
        return "blind"
    if m == PICKUP:
        return "pickup"
    if m == END:                                     # H19
        return "end"
    if ADD <= m < PICKUP:
        return f"add {NAMES[m - ADD]}"
    if m >= ADDN:                                    # H11 one_then_rank: fewer than all
        return f"add {' '.join([NAMES[move_rank(m)]] * move_cards(m))}"
    return " ".join([NAMES[move_rank(m)]] * move_cards(m))


def splits_of(cards) -> list[tuple[tuple, tuple, int]]:
    """A swap's different choices (R5): ``cards`` (rank codes) split half face up, half in
    hand, as ``(face-up codes, hand codes, mask)``, codes sorted, ``mask`` the face-up places
    in ``cards``; equal cards make equal splits, each given once, by its first mask in
    ``itertools.combinations``' order (the swap policies'). For sim swap and sim review."""
    from itertools import combinations

    cards = [int(c) for c in cards]
    out = {}
    for up in combinations(range(len(cards)), len(cards) // 2):
        u = tuple(sorted(cards[i] for i in up))
        if u not in out:
            out[u] = (u, tuple(sorted(cards[i] for i in range(len(cards)) if i not in up)),
                      sum(1 << i for i in up))
    return list(out.values())


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
    state: object = None        # the state analysed (an H11 one_then_rank add's ``n``)

    def word(self, i: int) -> str:
        """Move ``i`` in words (:func:`move_words`, in the state analysed)."""
        return move_words(self.moves[i], self.state)

    @property
    def n(self) -> int:
        """Worlds played (a move dropped by ``--until-clear``'s race was played in fewer)."""
        return int(self.scores.shape[0])

    def order(self) -> list[int]:
        """Move indices, best first (stable: ties keep the legal order); a move's mean is over
        the worlds it was played in (NaN marks the others)."""
        return best_first(self.scores, self.v2)

    def paired(self, z: float = Z95) -> dict | None:
        """Best minus second, world by world (common random numbers): the mean and its interval
        at the two-sided level of ``z``, from :func:`sim.studies.stats.mean_interval`, which
        keeps its coverage when the two moves differ in few worlds (a normal
        interval would call 4 worlds at +1 in 1,000 clear)."""
        from scipy.stats import norm

        if len(self.moves) < 2:
            return None
        a, b = self.order()[:2]
        span = float(self.players - 1) if self.v2 else 1.0     # V2: places 1..players
        ci = paired_difference(self.scores, a, b, span, float(2 * norm.sf(z)))
        return {"best": self.word(a), "second": self.word(b),
                "difference": ci["estimate"], "low": ci["ci_low"], "high": ci["ci_high"],
                "z": z, "n": ci["deals"]}

    def tie(self, z: float | None = None) -> dict | None:
        """The best move and the moves not clearly different from it (:func:`tie_of`, at
        the level of ``z``: default the paired comparison's), as move words; None with one
        legal move."""
        if len(self.moves) < 2:
            return None
        span = float(self.players - 1) if self.v2 else 1.0
        z = self.clear.get("z", Z95) if z is None else z
        return tie_of(self.scores, self.v2, span, z, [self.word(i) for i in range(len(self.moves))])

    def rows(self) -> list[dict]:
        from sim.runs.tally import wilson
        from sim.kernel.position import move_to_dict

        out = []
        for rank, i in enumerate(self.order(), 1):
            played = ~np.isnan(self.scores[:, i])
            col = self.scores[played, i]
            n = int(played.sum())
            row = {"rank": rank, "move": self.word(i),
                   "json": move_to_dict(self.moves[i], self.state)}
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
            row.update(n=n, unfinished=int((self.status[played, i] == UNFINISHED).sum()))
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
        playouts = int((~np.isnan(self.scores)).sum())
        return {"measure": self.measure, "interval": self.interval, "n": self.n,
                "seat": self.seat, "players": self.players, "v2": self.v2, "seed": self.seed,
                "opponents": self.opponents, "me": self.me, "omniscient": self.omniscient,
                "hidden": self.hidden, "max_turns": self.max_turns, "playouts": playouts,
                "seconds": self.seconds,
                "playouts_per_second": playouts / self.seconds if self.seconds else None,
                "paired": self.paired(self.clear.get("z", Z95)), "tie": self.tie(),
                "until_clear": self.clear or None, "view": self.view}


def _seat_strategies(opponents: str, me: str | None, seat: int, players: int):
    """The playout strategies as the batch core takes them (:attr:`RunConfig.pool`):
    ``me`` at ``seat`` (default: ``opponents``), ``opponents`` elsewhere; and their names.
    Only the seats are taken from the config: the rules are the state's own."""
    cfg = RunConfig(players=players,      # a ruleset that seats them: 7-8 need two decks (H18)
                    rules="seed" if players <= 6 else {"base": "seed", "decks": 2},
                    strategies=[me or opponents if s == seat else opponents
                                for s in range(players)])
    moves, params = cfg.pool.moves, cfg.pool.params
    return moves, params, cfg.move_objs[(seat + 1) % players].name, cfg.move_objs[seat].name


class Worlds:
    """Worlds of an analysis under way on the pool (:func:`start_worlds`): ``jobs`` and
    :meth:`result` once they are over."""

    def __init__(self, group, st, moves, seed, first, n, omniscient, max_turns, seats, index):
        seat = int(st[CURRENT])
        self.fns, self.params, self.opp_name, self.me_name = seats
        self.seat, self.index = seat, index
        moves = np.asarray(moves, np.int64)
        st0 = np.ascontiguousarray(st, dtype=np.int32)
        self.got = got = np.zeros((n, moves.size))
        self.got_status = got_status = np.zeros((n, moves.size), np.int8)
        self.bad = bad = np.full((n, 2), -1, np.int64)
        fns, params = self.fns, self.params

        def block(lo, hi):
            playouts(st0, not omniscient, moves, np.uint64(seed), first + lo, got[lo:hi],
                     got_status[lo:hi], bad[lo:hi], max_turns, fns, params)
        self.job = group.submit(n, block, kind=("worlds", id(fns)))
        self.jobs = [self.job]

    def result(self):
        """``(scores, status)``, worlds x moves; ``ValueError`` for a strategy's illegal move
        (R24); KeyboardInterrupt if the worlds were cut short (a stop)."""
        if self.job.error is not None:
            raise self.job.error
        if self.job.done < self.job.n:
            raise KeyboardInterrupt("the worlds were cut short")
        got, got_status, bad = self.got, self.got_status, self.bad
        if (got_status == BAD_MOVE).any():
            s, m = (int(x) for x in bad[np.argmax((got_status == BAD_MOVE).any(axis=1))])
            raise ValueError(f"strategy {self.me_name if s == self.seat else self.opp_name!r} "
                             f"(seat {s}) returned move id {m} in a playout, which is not a "
                             f"legal move (R24)")
        return got, got_status


def start_worlds(group, st, moves, *, seed: int, first: int, n: int, omniscient: bool = False,
                 max_turns: int = DEFAULT_MAX_TURNS, opponents: str = DEFAULT_OPPONENTS,
                 me: str | None = None, seats=None, index=None) -> Worlds:
    """:func:`play_worlds`'s worlds submitted to ``group`` (a
    :class:`~sim.runs.workers.Group`), returned at once (:class:`Worlds`)."""
    seats = seats or _seat_strategies(opponents, me, int(st[CURRENT]), int(st[PLAYERS]))
    return Worlds(group, st, moves, seed, first, n, omniscient, max_turns, seats, index)


def play_worlds(st, moves, *, seed: int, first: int, n: int, omniscient: bool = False,
                max_turns: int = DEFAULT_MAX_TURNS, opponents: str = DEFAULT_OPPONENTS,
                me: str | None = None, seats=None, group=None, threads=None):
    """Worlds ``first .. first + n - 1`` of the analysis of ``st`` with ``seed`` (each
    re-dealt from the seat to move's view, R26, unless ``omniscient``), every move of
    ``moves`` played out once in each (:func:`sim.kernel.sampling.playouts`, in chunks on
    the process's threads: ``group``'s, else ``threads`` of them, default all): ``(scores,
    status)``, worlds x moves. A world depends only on ``seed`` and its index, so worlds
    past those an analysis ranked its moves on are fresh, independent of them.
    ``ValueError`` for a strategy's illegal move (R24). ``seats``: the seated strategies
    as :func:`_seat_strategies` gives them (else seated from ``opponents`` and ``me``)."""
    if group is None:
        with Group(threads) as g:
            return play_worlds(st, moves, seed=seed, first=first, n=n, omniscient=omniscient,
                               max_turns=max_turns, opponents=opponents, me=me, seats=seats,
                               group=g)
    w = start_worlds(group, st, moves, seed=seed, first=first, n=n, omniscient=omniscient,
                     max_turns=max_turns, opponents=opponents, me=me, seats=seats)
    try:
        group.wait(w.jobs)
    finally:
        group.forget(w.jobs)
    return w.result()


def decision_seed(seed: int, st) -> int:
    """The seed a game's decision at state ``st`` is analysed with: ``seed`` plus the turns
    played (``TURN``), so that ``sim play``'s ``hint`` (the game's seed) and ``sim review``
    (its ``--seed``, by default the game's) rank a decision on the same worlds."""
    return (int(seed) + int(st[TURN])) % 2**63


def analyze_decision(st, *, rollouts: int, seed: int, opponents: str = DEFAULT_OPPONENTS,
                     max_turns: int = DEFAULT_MAX_TURNS, threads=None) -> Analysis:
    """The analysis of a game's decision, the one ``hint`` prints and ``sim review`` ranks
    by: :func:`analyze_state` of ``st`` with :func:`decision_seed`. The same ``rollouts``
    and ``seed`` give the same worlds and so the same ranking; two seeds may order moves
    that are not clearly different (:meth:`Analysis.tie`) either way."""
    return analyze_state(st, rollouts=rollouts, seed=decision_seed(seed, st),
                         opponents=opponents, max_turns=max_turns, threads=threads)


def _analysis(st, *, rollouts, seed, opponents, me, omniscient, until_clear, max_rollouts,
              max_turns, tolerance):
    """The options checked and the analysis of ``st`` set up, before any world is played
    (:func:`analyze_state`): ``(Analysis with no worlds, seats, moves, state, z, span,
    cap)``."""
    from scipy.stats import norm

    install()                 # Numba's process-wide patches (sim.kernel.patches), once
    if st[OVER]:
        raise ValueError("the game is over (R25): there is no move to analyse")
    if not isinstance(rollouts, int) or isinstance(rollouts, bool) or rollouts < 1:
        raise ValueError(f"--rollouts: expected a positive number of worlds, got {rollouts!r}")
    check_seed(seed)
    if not 1 <= max_turns <= MAX_TURNS:
        raise ValueError(f"--max-turns: expected 1 to {MAX_TURNS:,} (R25's turn limit), got "
                         f"{max_turns}")
    if not 0 <= tolerance <= 100:
        raise ValueError(f"--tolerance: expected points from 0 to 100, got {tolerance!r}")
    cap = max_rollouts if max_rollouts is not None else 20 * rollouts
    if until_clear and cap < rollouts:
        raise ValueError(f"--max-rollouts: at least --rollouts ({rollouts}), got {cap}")
    seat, players = int(st[CURRENT]), int(st[PLAYERS])
    seats = _seat_strategies(opponents, me, seat, players)
    moves = np.array(legal_ids(st), np.int64)
    st0 = np.ascontiguousarray(st, dtype=np.int32)
    looks = math.ceil(cap / rollouts) if until_clear else 1
    # every wrong answer of the race is a miss of the lower end of "move - the best" for one
    # of the k - 1 other moves at one look: one-sided Bonferroni over looks x (k - 1)
    z = float(norm.ppf(1 - 0.05 / (looks * max(1, moves.size - 1))))
    span = float(players - 1) if st[V2] else 1.0     # V2: places 1..players
    a = Analysis([int(m) for m in moves], np.zeros((0, moves.size)),
                 np.zeros((0, moves.size), np.int8), bool(st[V2]), players, seat, seed,
                 seats[2], seats[3], omniscient,
                 {"total": 0} if omniscient else hidden_counts(st), max_turns, state=st0)
    return a, seats, moves, st0, z, span, cap


class DecisionWorlds:
    """A game's decision under analysis on the pool (:func:`start_decision`): ``jobs`` and
    :meth:`result`, the :class:`Analysis` (that of :func:`analyze_decision`)."""

    def __init__(self, group, st, rollouts, seed, opponents, max_turns, index):
        self.index = index
        self.a, seats, moves, st0, *_ = _analysis(
            st, rollouts=rollouts, seed=decision_seed(seed, st), opponents=opponents,
            me=None, omniscient=False, until_clear=False, max_rollouts=None,
            max_turns=max_turns, tolerance=DEFAULT_TOLERANCE)
        self.t0 = time.perf_counter()
        self.worlds = start_worlds(group, st0, moves, seed=self.a.seed, first=0, n=rollouts,
                                   max_turns=max_turns, seats=seats)
        self.jobs = self.worlds.jobs

    def result(self) -> Analysis:
        a = self.a
        a.scores, a.status = self.worlds.result()
        a.seconds = time.perf_counter() - self.t0
        return a


def start_decision(group, st, *, rollouts: int, seed: int, opponents: str = DEFAULT_OPPONENTS,
                   max_turns: int = DEFAULT_MAX_TURNS, index=None) -> DecisionWorlds:
    """:func:`analyze_decision`'s worlds submitted to ``group`` (a
    :class:`~sim.runs.workers.Group`), returned at once (:class:`DecisionWorlds`):
    ``sim review`` starts its decisions side by side."""
    return DecisionWorlds(group, st, rollouts, seed, opponents, max_turns, index)


def _warm(st0, moves, max_turns, fns, params) -> None:
    """Load (or compile) the playout kernel: a call that plays no world."""
    playouts(st0, True, moves, np.uint64(0), 0, np.zeros((0, moves.size)),
             np.zeros((0, moves.size), np.int8), np.zeros((0, 2), np.int64), max_turns, fns,
             params)


def analyze_state(st, *, rollouts=DEFAULT_ROLLOUTS, seed=0, opponents=DEFAULT_OPPONENTS,
                  me=None, omniscient=False, until_clear=False, max_rollouts=None,
                  max_turns=DEFAULT_MAX_TURNS, tolerance=DEFAULT_TOLERANCE,
                  threads=None) -> Analysis:
    """Analyse the kernel state ``st`` from its seat to move's point of view (R26), or from
    the state as it is (``omniscient``). ``rollouts`` worlds, each move played out once in
    each; with ``until_clear``, blocks of ``rollouts`` worlds, each played by the moves
    still in the race (:func:`race`: Bonferroni over the largest number of looks and the
    comparisons), until one move is left ("clear"), the leader is within ``tolerance``
    points (hundredths of the measure: of a win chance, of a place under V2) of every move
    left ("tolerance"; 0: never), or ``max_rollouts`` worlds (default 20 blocks) are
    played ("cap"). The worlds are played in chunks on ``threads`` of the process's threads
    (default: all cores; :mod:`sim.runs.workers`), the same whatever their number."""
    a, seats, moves, st0, z, span, cap = _analysis(
        st, rollouts=rollouts, seed=seed, opponents=opponents, me=me, omniscient=omniscient,
        until_clear=until_clear, max_rollouts=max_rollouts, max_turns=max_turns,
        tolerance=tolerance)
    looks = math.ceil(cap / rollouts) if until_clear else 1
    active = np.ones(moves.size, bool)
    _warm(st0, moves, max_turns, seats[0], seats[1])   # compile (or load) before the clock
    t0 = time.perf_counter()
    stopped = "rollouts"
    blocks = ([(first, min(rollouts, cap - first)) for first in range(0, cap, rollouts)]
              if until_clear else [(0, rollouts)])

    def begin(item):
        # the moves still racing play world w from the same stream as every move would
        # (sampling.playouts seeds a world by its index): a block started before the last
        # race dropped a move played it too, and it is blanked below
        first, n = item
        live = np.flatnonzero(active)
        return start_worlds(group, st0, moves[live], seed=seed, first=first, n=n,
                            omniscient=omniscient, max_turns=max_turns, seats=seats,
                            index=(first, n, live))

    with Group(threads) as group:
        for h, (got, got_status) in stream(group, blocks, begin, lambda h: (h, h.result())):
            first, n, live = h.index
            live = live[active[live]]               # dropped since it was started: NaN
            keep = np.isin(h.index[2], live)
            scores = np.full((n, moves.size), np.nan)
            status = np.full((n, moves.size), -1, np.int8)
            scores[:, live], status[:, live] = got[:, keep], got_status[:, keep]
            a.scores = np.concatenate([a.scores, scores])
            a.status = np.concatenate([a.status, status])
            if not until_clear:
                break
            if moves.size < 2:
                stopped = "one move"
                break
            active, _, stopped = race(a.scores, active, a.v2, span, z, tolerance / 100)
            if stopped or a.n >= cap:
                stopped = stopped or "cap"
                break
    a.seconds = time.perf_counter() - t0
    if until_clear:
        a.clear = {"z": z, "looks": looks, "comparisons": max(1, moves.size - 1),
                   "block": rollouts, "cap": cap, "stopped": stopped, "worlds": a.n,
                   "tolerance": tolerance,
                   "dropped": [a.word(i) for i, on in enumerate(active) if not on]}
    return a


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
            max_turns: int = DEFAULT_MAX_TURNS, rules=None,
            tolerance: float = DEFAULT_TOLERANCE):
    """Every legal move of ``position`` (docs/position.md, or a view with ``"?"`` for hidden
    cards and an optional ``"known"``: :func:`read_view`) with its estimated value, best
    first, as a pandas DataFrame.

    Columns: ``move`` (as ``sim play`` reads it), ``json`` (the docs/position.md move),
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
    docs/position.md ruleset or a :class:`~sim.kernel.ruleset.Ruleset`), when given, must agree with the
    position's own ``ruleset``. ``until_clear``, ``max_rollouts`` and ``tolerance``: see
    :func:`analyze_state`. ``ValueError`` for an invalid position or option.
    """
    return run_analysis(position, rules=rules, omniscient=omniscient, rollouts=rollouts,
                        seed=seed, opponents=opponents, me=me, until_clear=until_clear,
                        max_rollouts=max_rollouts, max_turns=max_turns,
                        tolerance=tolerance).frame()


__all__ = ["analyze", "analyze_state", "analyze_decision", "decision_seed", "play_worlds",
           "run_analysis", "Analysis", "move_words", "tie_of"]
