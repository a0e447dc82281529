"""A game review (``sim review``): each decision of one seat in a saved game (its swap, R5/V1,
turn 0, and each turn with more than one legal move, R24), the move made against the best
move by ``sim analyze``'s playouts, and the win chance (V2: expected place) it lost.

Each decision is ranked on ``rollouts`` worlds re-dealt from the seat's view (R26; a turn by
:func:`sim.studies.analysis.analyze_decision`, the analysis ``hint`` prints), and the loss is
measured on as many fresh worlds, so that it has no winner's curse (it may be below 0, and
is kept so); a mistake is a loss whose 95% interval lies above 0 (a move as good as the
named best is called one in at most 2.5% of decisions). The total adds the losses, with a
normal interval from their standard errors. Why and how: docs/analyze-and-play.md. The
saved game is the dict ``sim play`` writes; :func:`game_states` replays it.
"""
from __future__ import annotations

import math
import time
from dataclasses import asdict, dataclass, field

import numpy as np

from sim.kernel import engine, dealing
from sim.kernel.cards import rank_code
from sim.kernel.layout import (
    CHAIN, CURRENT, FIRST, HTRIPLES, KNOWN, MAXP, NR, OVER, PLAYERS, STARTRANK, TRIPLES, V2,
)
from sim.kernel.position import legal_ids, move_to_id, to_state
from sim.runs.config import check_seed
from sim.runs.workers import Group, stream
from sim.studies.analysis import (
    DEFAULT_MAX_TURNS, DEFAULT_OPPONENTS, decision_seed, move_words, splits_of, start_decision,
    start_worlds,
)
from sim.studies.race import paired_difference
from sim.studies.stats import Z95

DEFAULT_ROLLOUTS = 300
LEVEL = 0.05


# -- the game's positions ----------------------------------------------------------------------
def start_state(game: dict) -> np.ndarray:
    """The kernel state after the swaps (R5, V1) of a saved game: its saved position, with
    what the docs/position.md form leaves out taken from the kernel's own swap phase replayed
    (:func:`swap_again`): the dealt face-ups taken into each hand, known to all (R26), and
    the starter and its rank (R6, H14, H15; H16 reads the rank)."""
    st = to_state(game["start"])
    if game.get("dealt") is None:           # no deal saved: nothing known, the hands decide
        first, rank = dealing.starter(st)
    else:
        k = swap_again(game)
        st[KNOWN:KNOWN + MAXP * NR] = k[KNOWN:KNOWN + MAXP * NR]
        st[TRIPLES:HTRIPLES + MAXP] = k[TRIPLES:HTRIPLES + MAXP]
        first, rank = k[CURRENT], k[STARTRANK]
    if int(first) != int(st[CURRENT]):
        rank = -1                           # the file's starter decides; its rank is unknown
    st[FIRST], st[STARTRANK] = int(st[CURRENT]), int(rank)
    return st


def game_states(game: dict):
    """Every turn of a saved game: ``(turn, state before it, seat, move id)``, turns from 1
    as ``sim replay`` numbers them; each move checked legal (R24). ``ValueError`` naming the
    first move that does not fit."""
    if game.get("start") is None:
        raise ValueError("the game ended before the swap: it has no move")
    st = start_state(game)
    for turn, entry in enumerate(game["moves"], 1):
        p = int(st[CURRENT])
        if st[OVER] or entry.get("seat") != p:
            raise ValueError(f"move {turn} is seat {entry.get('seat')}'s, but seat {p} is to "
                             f"move" + (" (the game is over)" if st[OVER] else ""))
        try:
            m = move_to_id(entry["move"], st)         # H11 one_then_rank: n of those held
        except ValueError as e:
            raise ValueError(f"move {turn}: {e}") from None
        if m not in legal_ids(st):
            raise ValueError(f"move {turn} {entry['move']} is not legal (R24)")
        yield turn, st.copy(), p, m
        engine.apply_move(st, m)


def state_at(game: dict, turn: int) -> np.ndarray:
    """The state before turn ``turn`` (from 1; one past the last move when the game goes on
    after it), the game replayed once. ``ValueError`` for a turn the game does not have."""
    moves = len(game["moves"])
    wrong = f"--at: expected a turn from 1 to {moves} (the game has {moves} moves), got {turn}"
    if isinstance(turn, bool) or not isinstance(turn, int) or not 1 <= turn <= moves + 1:
        raise ValueError(wrong)
    st = None
    for t, st, _, m in game_states(game):
        if t == turn:
            return st
    if st is None:                          # no move: the position after the swap
        st = start_state(game)
    else:                                   # the last move played: the turn after it
        engine.apply_move(st, m)
    if st[OVER]:
        raise ValueError(wrong)
    return st


def move_phrase(st, m: int) -> str:
    """Move ``m`` made at state ``st`` as ``sim play`` reads it (:func:`sim.cli.words.parse`
    reads it back to this move): :func:`sim.studies.analysis.move_words` in ``st`` (an H11
    ``one_then_rank`` add of all of a face-up rank writes every card, ``add K K K``)."""
    return move_words(m, st)


def saved_choice(game: dict, options: list, seat: int) -> int:
    """The index in ``options`` (:func:`sim.studies.analysis.splits_of` of its dealt cards)
    of the seat's saved face-ups;
    ``ValueError`` when they are not half of its dealt cards (R5)."""
    up = tuple(sorted(rank_code(c) for c in game["start"]["face_up"][seat]))
    for i, (ranks, _, _) in enumerate(options):
        if ranks == up:
            return i
    raise ValueError(f"seat {seat}'s face-up cards after the swap are not half of its "
                     f"dealt cards (R5)")


def seated_swaps(game: dict, given: dict, opponents: str = DEFAULT_OPPONENTS):
    """The saved game's swap policies seated for :func:`sim.kernel.referee.swap_phase`, each
    seat in ``given`` playing the choice given it (:func:`strategies.swaps.given_swaps`): ``(config,
    swap functions, seat table, parameter rows)``; the config's strategies are
    ``opponents``."""
    from sim.runs.config import RunConfig
    from strategies.swaps import given_swaps

    players = int(game["players"])
    swaps = [sw or None for sw in (game.get("swaps") or [None] * players)]
    cfg = RunConfig(players=players, strategies=[opponents] * players, swaps=swaps,
                    rules=game["rules"])
    return (cfg, *given_swaps(cfg.pool, given))


def swap_again(game: dict) -> np.ndarray:
    """The kernel's state after the saved game's swap phase: :func:`sim.kernel.referee.
    swap_phase` (R5, V1: every seat's swap by :func:`sim.kernel.dealing.apply_swap`; then
    R6, H14, H15: the starter) on the saved deal, each seat choosing as it did. Which cards
    it swapped matters, not only which ranks ended face up: a dealt face-up taken into the
    hand is known there (R26) even when a card of its rank went up in its place. The choice
    is the game's own where it can be found again: the human's saved mask, the others'
    policies replayed from the game's random stream when that deals the saved cards (a
    game of ``sim play`` or of a run); else the first choice that gives the saved face-ups,
    dealt face-ups first (as ``sim play`` reads a typed choice)."""
    from sim.kernel import referee
    from sim.kernel.position import to_position
    from sim.kernel.rng import seed_game
    from strategies.swaps import given_swaps

    dealt = to_state(game["dealt"])
    players = int(dealt[PLAYERS])
    seat, mask = game.get("seat"), game.get("swap_mask")
    given = {} if seat is None or mask is None else {int(seat): int(mask)}
    cfg, fns, table, params = seated_swaps(game, given)
    st, rng = np.zeros_like(dealt), np.zeros(4, np.uint64)
    choice, err = np.full(MAXP, -1, np.int64), np.zeros(3, np.int64)
    cards = np.zeros(referee.SWAP_CARDS, np.int32)
    if game.get("seed") is not None:        # the game's policies, from its random stream
        seed_game(rng, np.uint64(game["seed"]), int(game.get("game") or 0))
        referee.deal_game(st, rng, players, cfg.rules_vector)
        if (to_position(st, cfg.ruleset) != game["dealt"]
                or not referee.swap_phase(st, rng, fns, table, params, choice, cards, err)):
            choice[:] = -1
    for s, m in given.items():
        choice[s] = m
    for s in range(players):
        dealt_cards = dealing.swap_choices(dealt, s)
        options = splits_of(dealt_cards)
        up, _, first = options[saved_choice(game, options, s)]
        ranks = sorted(int(c) for b, c in enumerate(dealt_cards) if (int(choice[s]) >> b) & 1)
        if choice[s] < 0 or tuple(ranks) != up:
            choice[s] = first                   # not found again: the saved face-ups
    fns, table, params = given_swaps(cfg.pool, {s: int(choice[s]) for s in range(players)})
    st[:] = dealt
    if not referee.swap_phase(st, rng, fns, table, params, choice, cards, err):
        raise AssertionError("a saved choice of half the cards was refused (R5)")
    return st



# -- the review ------------------------------------------------------------------------------
@dataclass
class Decision:
    """One decision: the move made, the move named best (on the ranking worlds) and the loss,
    measured on fresh worlds (module docstring), with its interval and standard error
    (``se``: 0 when the best is the move made; None in a review saved before it was kept).
    ``ranking``: every choice best first on the ranking worlds; ``tied``: the best and the
    choices not clearly different from it there (the best alone when it is clear); ``more``:
    the ranking worlds more that would likely separate the tied ones (None: far more, or a
    review saved before); ``fresh``: the worlds the values and the loss were measured on (0
    in a review saved before, whose values and loss are from the ranking worlds); ``chain``:
    under H19, the first and last move of the decision's turn when that turn is a chain of
    several moves (empty otherwise: a turn of one move)."""

    turn: int
    moves: int                  # legal moves
    made: str
    best: str
    value_made: float           # win chance (V2: expected place) after the move made
    value_best: float
    loss: float                 # value_best - value_made (V2: made - best): > 0 is worse
    low: float
    high: float
    mistake: bool
    worlds: int                 # the ranking worlds
    seconds: float
    made_json: dict = field(default_factory=dict)
    best_json: dict = field(default_factory=dict)
    se: float | None = None
    ranking: list = field(default_factory=list)
    tied: list = field(default_factory=list)
    more: int | None = None
    fresh: int = 0
    chain: list = field(default_factory=list)   # H19: [first, last] move of a turn of several


@dataclass
class Review:
    """A seat's decisions in a game and what produced them."""

    seat: int
    players: int
    v2: bool
    rollouts: int
    seed: int
    opponents: str
    total: int                  # decisions to review (the ones with a choice)
    turns: int                  # moves in the game
    forced: int                 # the seat's turns with one legal move: nothing to review
    decisions: list = field(default_factory=list)
    interrupted: bool = False

    @property
    def measure(self) -> str:
        return "expected place (1 = first out)" if self.v2 else "win chance"

    def summary(self) -> dict:
        """Decisions, mistakes, the total loss with its interval, and time. The total's
        interval is two-sided 95% normal, ``total_loss +- 1.96 total_se`` with ``total_se =
        sqrt(sum of se**2)``: the decisions are measured on independent worlds, so their
        variances add. (Not from the decisions' intervals: those are clipped to the bounds
        and floored for rare differences.) None when a decision has no ``se`` (saved before
        it was kept). ``tied``: the decisions whose best was not clear on the ranking
        worlds; ``negative``: those measured below 0 (the move made did better on the fresh
        worlds than the move named best)."""
        d = self.decisions
        loss = sum(x.loss for x in d)
        se = None if any(x.se is None for x in d) else math.sqrt(sum(x.se ** 2 for x in d))
        seconds = sum(x.seconds for x in d)
        return {"decisions": len(d), "of": self.total, "mistakes": sum(x.mistake for x in d),
                "total_loss": loss, "total_se": se,
                "total_low": None if se is None else loss - Z95 * se,
                "total_high": None if se is None else loss + Z95 * se, "seconds": seconds,
                "seconds_per_decision": seconds / len(d) if d else None,
                "complete": len(d) == self.total and not self.interrupted,
                "tied": sum(len(x.tied) > 1 for x in d),
                "negative": sum(x.loss < 0 for x in d)}

    def budget(self) -> str:
        return (f"{self.rollouts:,} worlds per decision re-dealt from the seat's view (R26) "
                f"rank every legal move (the swap: every distinct choice, the other seats "
                f"swapping by their policies), each played out once in each by "
                f"{self.opponents} (seed {self.seed}; a turn ranked as hint ranks it); "
                f"{self.rollouts:,} fresh worlds measure the best against the move made, "
                f"so the loss has no winner's curse; a mistake where the loss's 95% interval "
                f"excludes 0")

    def to_dict(self) -> dict:
        return {"seat": self.seat, "players": self.players, "v2": self.v2,
                "measure": self.measure, "rollouts": self.rollouts, "seed": self.seed,
                "opponents": self.opponents, "budget": self.budget(), "turns": self.turns,
                "forced": self.forced, "interrupted": self.interrupted,
                "summary": self.summary(), "decisions": [asdict(x) for x in self.decisions]}


def measured_loss(fresh, v2: bool, span: float, tied: bool = False) -> dict:
    """The values and the loss of a decision from its fresh worlds: ``fresh`` is worlds x
    (the best, the move made), or worlds x 1 when the best is the move made (loss 0
    exactly). ``value_best``, ``value_made`` (the means), ``loss`` (best minus made; V2:
    made minus best), ``low``, ``high`` (its 95% interval, :func:`sim.studies.stats.
    mean_interval`), ``se`` and ``mistake`` (``low`` > 0, unless the move made is ``tied``
    with the best on the ranking worlds: never a mistake then, in every report alike,
    :func:`reports.ties.move_verdict`), ``fresh`` (the worlds)."""
    fresh = np.asarray(fresh, float)
    means = fresh.mean(axis=0)
    out = {"value_best": float(means[0]), "value_made": float(means[-1]),
           "fresh": int(fresh.shape[0])}
    if fresh.shape[1] == 1:
        return {**out, "loss": 0.0, "low": 0.0, "high": 0.0, "se": 0.0, "mistake": False}
    ci = paired_difference(fresh, 0, 1, span, LEVEL, -1.0 if v2 else 1.0)  # V2: lower is better
    return {**out, "loss": float(ci["estimate"]), "low": float(ci["ci_low"]),
            "high": float(ci["ci_high"]), "se": float(ci["se"]),
            "mistake": bool(ci["ci_low"] > 0) and not tied}


def decide(st, made: int, *, rollouts: int, seed: int, opponents: str = DEFAULT_OPPONENTS,
           max_turns: int | None = None, turn: int = 0, threads=None) -> Decision:
    """Review one decision: the seat to move at ``st`` made move ``made``. The moves are
    ranked by :func:`sim.studies.analysis.analyze_decision` (``hint``'s analysis) on
    ``rollouts`` worlds, and the best and the move made are measured on the next
    ``rollouts`` worlds (fresh: module docstring)."""
    with Group(threads) as group:
        return _start_decide(group, st, made, rollouts, seed, opponents, max_turns,
                             turn).result()


class Started:
    """A decision under review on the pool, in two steps: ``jobs`` (its ranking's worlds),
    ``advance()`` (once they are over, start the fresh worlds; the review's stream calls
    it as chunks finish) and ``result()``, which waits for both and returns the
    :class:`Decision`."""

    def __init__(self, group, jobs, second, finish):
        self.group, self.jobs, self._second, self._finish = group, jobs, second, finish
        self.fresh = None

    def advance(self):
        if self.fresh is None and all(j.over for j in self.jobs):
            self.group.wait(self.jobs)           # over: raises a chunk's error, if any
            if any(j.done < j.n for j in self.jobs):
                raise KeyboardInterrupt("the worlds were cut short")
            self.fresh = self._second()

    def result(self):
        self.group.wait(self.jobs)
        self.advance()
        self.group.wait(self.fresh[0].jobs)
        return self._finish(*self.fresh)


def _start_decide(group, st, made, rollouts, seed, opponents, max_turns, turn) -> Started:
    """:func:`decide` in ``group``: the ranking's worlds started (:class:`Started`)."""
    from sim.kernel.position import move_to_dict

    max_turns = DEFAULT_MAX_TURNS if max_turns is None else max_turns
    ranking = start_decision(group, st, rollouts=rollouts, seed=seed, opponents=opponents,
                             max_turns=max_turns)

    def second():
        a = ranking.result()
        i = a.moves.index(int(made))
        cols = [a.moves[a.order()[0]]] + ([] if a.order()[0] == i else [int(made)])
        return start_worlds(group, st, cols, seed=decision_seed(seed, st), first=a.n,
                            n=rollouts, opponents=opponents, max_turns=max_turns), a

    def finish(fresh, a):
        scores, _ = fresh.result()
        order = a.order()
        b = order[0]
        span = float(a.players - 1) if a.v2 else 1.0
        tie = a.tie()
        return Decision(turn=turn, moves=len(a.moves), made=move_phrase(st, made),
                        best=move_phrase(st, a.moves[b]), worlds=a.n, seconds=a.seconds,
                        made_json=move_to_dict(made, st),
                        best_json=move_to_dict(a.moves[b], st),
                        ranking=[move_phrase(st, a.moves[j]) for j in order],
                        tied=tie["tied"], more=tie["more"],
                        **measured_loss(scores, a.v2, span,
                                        move_phrase(st, made) in tie["tied"]))
    return Started(group, ranking.jobs, second, finish)


def plan(game: dict, seat: int) -> tuple[list, int]:
    """The seat's decisions to review, ``(turn, state, move, chain)`` each (``chain``: the
    first and last move of its turn when that turn is an H19 chain of several moves, else
    ``[]``), and its forced turns."""
    players = int(game["players"])
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < players:
        raise ValueError(f"--seat: expected a seat from 0 to {players - 1}, got {seat}")
    todo, forced = [], 0
    first, last = 0, {}                  # each move's turn: its first move; a turn's last
    for turn, st, p, m in game_states(game):
        first = first if st[CHAIN] else turn      # in a chain (H19): the same turn goes on
        last[first] = turn
        if p != seat:
            continue
        if len(legal_ids(st)) > 1:
            todo.append((turn, st, m, first))
        else:
            forced += 1
    return [(turn, st, m, [first, last[first]] if last[first] > first else [])
            for turn, st, m, first in todo], forced


def review(game: dict, seat: int | None = None, *, rollouts: int = DEFAULT_ROLLOUTS,
           seed: int | None = None, opponents: str = DEFAULT_OPPONENTS, out=None,
           on_start=None, on_decision=None, threads=None) -> Review:
    """Review ``seat``'s decisions in the saved ``game`` (default: the human's seat): its
    swap first (turn 0, :func:`sim.studies.swapreview.swap_decision`), then its turns with a choice, each analysed
    with :func:`sim.studies.analysis.decision_seed` of ``seed`` (default: the game's own,
    else 0), as ``sim play``'s ``hint`` analyses it: the same ``rollouts`` as
    ``--hint-rollouts`` rank each turn as the hint did. The decisions are reproducible and
    independent of each other. ``on_start(review)`` once the options are checked,
    ``on_decision(review, decision)`` after each; with ``out``, saved there (:func:`save`).
    Ctrl-C raises :class:`~sim.runs.partial.Interrupted`, its ``partial.result`` the review
    so far (``interrupted``), saved as such. The decisions' worlds are played side by side
    on ``threads`` of the process's threads (default: all cores), the same whatever their
    number."""
    from sim.runs import folder
    from sim.runs.partial import Interrupted, Partial

    if not isinstance(rollouts, int) or isinstance(rollouts, bool) or rollouts < 2:
        raise ValueError(f"--rollouts: expected at least 2 worlds, got {rollouts!r}")
    seed = default_seed(game) if seed is None else seed
    check_seed(seed)
    if seat is None and game.get("seat") is None:
        raise ValueError("--seat: this game has no human seat (a game of a run): give the "
                         "seat to review")
    seat = int(game["seat"]) if seat is None else seat
    todo, forced = plan(game, seat)
    if out is not None:
        folder.new_dir(out)
    from sim.studies.swapreview import has_swap, start_swap

    swap = has_swap(game)
    r = Review(seat, int(game["players"]), bool(start_state(game)[V2]), rollouts, seed,
               opponents, len(todo) + swap, len(game["moves"]), forced)
    if on_start is not None:
        on_start(r)
    on_decision = on_decision or (lambda review, decision: None)
    items = ([None] if swap else []) + todo

    def begin(item):
        if item is None:
            return start_swap(group, game, seat, rollouts, seed, opponents, 2000)
        turn, st, m, chain = item
        h = _start_decide(group, st, m, rollouts, seed, opponents, None, turn)
        h.chain, h.t0 = chain, time.perf_counter()
        return h

    def finish(h):
        d = h.result()
        if hasattr(h, "chain"):
            d.seconds, d.chain = time.perf_counter() - h.t0, h.chain
        return d

    # The decisions are one stream on the pool (sim.runs.workers): the next ones' worlds
    # are played while one is finished and reported.
    group = Group(threads)
    try:
        with group:
            for d in stream(group, items, begin, finish):
                r.decisions.append(d)
                on_decision(r, d)
    except KeyboardInterrupt:
        r.interrupted = True
    if out is not None:
        save(r, game, out)
    if r.interrupted:
        raise Interrupted(Partial(r, len(r.decisions), r.total, "decisions"))
    return r


def default_seed(game: dict) -> int:
    """The seed a review analyses with when none is given: the game's own (``sim play``'s
    ``hint`` analysed with it), else 0."""
    seed = game.get("seed")
    return 0 if seed is None else int(seed)


def save(r: Review, game: dict, out) -> None:
    """``sim review --out DIR``: the folder ``sim report`` draws (kind ``review``, not
    resumable, :mod:`sim.runs.folder`): the manifest, ``review.json`` (the review) and
    ``game.json`` (the game reviewed); marked partial for an interrupted review."""
    from sim.kernel.ruleset import Ruleset
    from sim.runs import folder
    from sim.studies.saved import close

    options = {"players": int(game["players"]), "games": 1, "rules": game["rules"],
               "options": Ruleset.parse(game["rules"]).to_dict(), "seed": game.get("seed"),
               "game": game.get("game"), "seat": r.seat, "seats": game.get("seats"),
               "rollouts": r.rollouts, "review_seed": r.seed, "opponents": r.opponents}
    saved = folder.open_for_write(out, "review", options=options, default=float)
    close(saved, {"game.json": game, "review.json": r.to_dict()},
          "interrupted: the decisions reviewed so far" if r.interrupted else None)


def read(saved):
    """The review in ``saved`` (kind ``review``; sim.studies.saved): its options as
    ``config``, review.json as ``.result`` (what its page reads)."""
    from sim.studies.saved import opened, result_of

    return opened(saved, result_of(saved, "review.json", "review file"))


__all__ = ["save", "review", "Review", "Decision", "decide", "game_states", "state_at", "start_state",
           "plan", "DEFAULT_ROLLOUTS"]
