"""A game review (``sim review``): each decision of one seat in a saved game, the move made
against the best move by ``sim analyze``'s playouts, and the win chance (V2: expected place)
the move made lost.

A decision is the seat's swap (R5, V1: :func:`swap_decision`, turn 0) or a turn of the seat
with more than one legal move (R24). Each turn is analysed by
:func:`sim.studies.analysis.analyze_state` from the seat's point of view (R26): the same
sampled worlds and random streams for every legal move, so the loss (best minus made) is a
paired difference, world by world. The best move is chosen on those same worlds, so the
loss's interval (:func:`sim.studies.stats.mean_interval`) is taken at the level 5% / (moves
- 1), Bonferroni over the moves the best could have been: when the move made is as good as
any other, the review marks it a mistake in at most 5% of decisions. A mistake is a decision
whose interval excludes 0.

The saved game is the dict :mod:`sim.cli.savedgame` writes (``sim play``, ``sim replay
--save``); :func:`game_states` replays it through the kernel.
"""
from __future__ import annotations

import math
import time
from dataclasses import asdict, dataclass, field

import numpy as np

from sim.kernel import engine
from sim.kernel.cards import rank_code
from sim.kernel.layout import (
    CURRENT, FIRST, HTRIPLES, KNOWN, MAXP, NOUT, NR, OVER, PLAYERS, STARTRANK, TRIPLES, V2,
)
from sim.kernel.position import legal_ids, move_to_id, to_state
from sim.runs.config import check_seed
from sim.studies.analysis import (
    DEFAULT_OPPONENTS, Z95, analyze_state, move_words, paired_difference,
)

DEFAULT_ROLLOUTS = 300
LEVEL = 0.05


# -- the game's positions ----------------------------------------------------------------------
def start_state(game: dict) -> np.ndarray:
    """The kernel state after the swaps (R5, V1) of a saved game: its saved position, with
    what the POSITION.md form leaves out taken from the kernel's own swap phase replayed
    (:func:`swap_again`): the dealt face-ups taken into each hand, known to all (R26), and
    the starter and its rank (R6, H14, H15; H16 reads the rank)."""
    st = to_state(game["start"])
    if game.get("dealt") is None:           # no deal saved: nothing known, the hands decide
        first, rank = engine.starter(st)
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
        m = move_to_id(entry["move"])
        if m not in legal_ids(st):
            raise ValueError(f"move {turn} {entry['move']} is not legal (R24)")
        yield turn, st.copy(), p, m
        engine.apply_move(st, m)


def state_at(game: dict, turn: int) -> np.ndarray:
    """The state before turn ``turn`` (from 1; one past the last move when the game goes on
    after it). ``ValueError`` for a turn the game does not have."""
    moves = len(game["moves"])
    last = moves
    if isinstance(turn, int) and turn == moves + 1:
        st = start_state(game)
        for _, _, _, m in game_states(game):
            engine.apply_move(st, m)
        if not st[OVER]:
            return st
    if isinstance(turn, bool) or not isinstance(turn, int) or not 1 <= turn <= last:
        raise ValueError(f"--at: expected a turn from 1 to {last} (the game has {moves} "
                         f"moves), got {turn}")
    for t, st, _, _ in game_states(game):
        if t == turn:
            return st
    raise AssertionError("unreachable")


def default_seat(game: dict) -> int:
    seat = game.get("seat")
    if seat is None:
        raise ValueError("--seat: this game has no human seat (a game of a run): give the "
                         "seat to review")
    return int(seat)


# -- the review ------------------------------------------------------------------------------
@dataclass
class Decision:
    """One decision: the move made, the best move and the loss, with its interval and its
    standard error over the worlds (``se``: 0 when the best is the move made; None in a
    review saved before it was kept)."""

    turn: int
    moves: int                  # legal moves
    made: str
    best: str
    value_made: float           # win chance (V2: expected place) after the move made
    value_best: float
    loss: float                 # value_best - value_made (V2: made - best): >= 0 is worse
    low: float
    high: float
    mistake: bool
    worlds: int
    seconds: float
    made_json: dict = field(default_factory=dict)
    best_json: dict = field(default_factory=dict)
    se: float | None = None


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
        sqrt(sum of se**2)``: the decisions are analysed on independent worlds, so their
        variances add. (Not from the decisions' intervals: those are Bonferroni, wider, and
        clipped to the bounds.) None when a decision has no ``se`` (saved before it was
        kept)."""
        d = self.decisions
        loss = sum(x.loss for x in d)
        se = None if any(x.se is None for x in d) else math.sqrt(sum(x.se ** 2 for x in d))
        seconds = sum(x.seconds for x in d)
        return {"decisions": len(d), "of": self.total, "mistakes": sum(x.mistake for x in d),
                "total_loss": loss, "total_se": se,
                "total_low": None if se is None else loss - Z95 * se,
                "total_high": None if se is None else loss + Z95 * se, "seconds": seconds,
                "seconds_per_decision": seconds / len(d) if d else None,
                "complete": len(d) == self.total and not self.interrupted}

    def budget(self) -> str:
        return (f"{self.rollouts:,} worlds per decision re-dealt from the seat's view (R26), "
                f"every legal move (the swap: every distinct choice, the other seats swapping "
                f"by their policies) played out once in each by {self.opponents} (seed "
                f"{self.seed}); a mistake where the loss's interval (95%, Bonferroni over "
                f"the choices) excludes 0")

    def to_dict(self) -> dict:
        return {"seat": self.seat, "players": self.players, "v2": self.v2,
                "measure": self.measure, "rollouts": self.rollouts, "seed": self.seed,
                "opponents": self.opponents, "budget": self.budget(), "turns": self.turns,
                "forced": self.forced, "interrupted": self.interrupted,
                "summary": self.summary(), "decisions": [asdict(x) for x in self.decisions]}


def loss_interval(scores, best: int, made: int, v2: bool, span: float) -> dict:
    """The loss of column ``made`` of ``scores`` (worlds x choices) against column ``best``,
    world by world: ``loss`` (the mean of best minus made; V2: made minus best), ``low``,
    ``high`` (its interval at 5% / (choices - 1), Bonferroni: the best was chosen on the
    same worlds), ``se`` (the mean's standard error) and ``mistake`` (``low`` > 0); all 0
    when the best is the move made."""
    if best == made:
        return {"loss": 0.0, "low": 0.0, "high": 0.0, "se": 0.0, "mistake": False}
    ci = paired_difference(scores, best, made, span, LEVEL / (scores.shape[1] - 1),
                           -1.0 if v2 else 1.0)     # V2: a lower place is better
    return {"loss": float(ci["estimate"]), "low": float(ci["ci_low"]),
            "high": float(ci["ci_high"]), "se": float(ci["se"]),
            "mistake": bool(ci["ci_low"] > 0)}


def decide(st, made: int, *, rollouts: int, seed: int, opponents: str = DEFAULT_OPPONENTS,
           max_turns: int | None = None, turn: int = 0) -> Decision:
    """Review one decision: the seat to move at ``st`` made move ``made``."""
    from sim.kernel.position import move_to_dict

    extra = {} if max_turns is None else {"max_turns": max_turns}
    a = analyze_state(st, rollouts=rollouts, seed=seed, opponents=opponents, **extra)
    i = a.moves.index(int(made))
    b = a.order()[0]
    span = float(a.players - 1) if a.v2 else 1.0
    means = a.scores.mean(axis=0)
    return Decision(turn=turn, moves=len(a.moves), made=move_words(made),
                    best=move_words(a.moves[b]), value_made=float(means[i]),
                    value_best=float(means[b]), worlds=a.n, seconds=a.seconds,
                    made_json=move_to_dict(made), best_json=move_to_dict(a.moves[b]),
                    **loss_interval(a.scores, b, i, a.v2, span))


# -- the swap (R5, V1) --------------------------------------------------------------------------
def has_swap(game: dict) -> bool:
    """Was the game saved after its swap (R5, V1), so that the swap can be reviewed?"""
    return game.get("dealt") is not None and game.get("start") is not None


def swap_options(dealt, seat: int) -> list[tuple[int, tuple]]:
    """The seat's distinct swap choices (R5, H12; V1: its dealt hand): ``(mask, face-up
    ranks)`` each, the first mask of each set of face-up ranks."""
    from itertools import combinations

    cards = [int(c) for c in engine.swap_choices(dealt, seat)]
    hs = len(cards) // 2
    out = {}
    for up in combinations(range(len(cards)), hs):
        ranks = tuple(sorted(cards[i] for i in up))
        out.setdefault(ranks, sum(1 << i for i in up))
    return [(m, r) for r, m in out.items()]


def saved_choice(game: dict, options: list, seat: int) -> int:
    """The index in ``options`` (:func:`swap_options`) of the seat's saved face-ups;
    ``ValueError`` when they are not half of its dealt cards (R5)."""
    up = tuple(sorted(rank_code(c) for c in game["start"]["face_up"][seat]))
    for i, (_, ranks) in enumerate(options):
        if ranks == up:
            return i
    raise ValueError(f"seat {seat}'s face-up cards after the swap are not half of its "
                     f"dealt cards (R5)")


def seated_swaps(game: dict, given: dict, opponents: str = DEFAULT_OPPONENTS):
    """The saved game's swap policies seated for :func:`sim.kernel.referee.swap_phase`, each
    seat in ``given`` playing the choice given it (:meth:`RunConfig.swaps_given`): ``(config,
    swap functions, seat table, parameter rows)``; the config's strategies are
    ``opponents``."""
    from sim.runs.config import RunConfig

    players = int(game["players"])
    swaps = [sw or None for sw in (game.get("swaps") or [None] * players)]
    cfg = RunConfig(players=players, strategies=[opponents] * players, swaps=swaps,
                    rules=game["rules"])
    return (cfg, *cfg.swaps_given(given))


def swap_again(game: dict) -> np.ndarray:
    """The kernel's state after the saved game's swap phase: :func:`sim.kernel.referee.
    swap_phase` (R5, V1: every seat's swap by :func:`sim.kernel.engine.apply_swap`; then
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
        options = swap_options(dealt, s)
        i = saved_choice(game, options, s)
        ranks = sorted(int(c) for b, c in enumerate(engine.swap_choices(dealt, s))
                       if (int(choice[s]) >> b) & 1)
        if choice[s] < 0 or tuple(ranks) != options[i][1]:
            choice[s] = options[i][0]           # not found again: the saved face-ups
    fns, table, params = cfg.swaps_given({s: int(choice[s]) for s in range(players)})
    st[:] = dealt
    if not referee.swap_phase(st, rng, fns, table, params, choice, cards, err):
        raise AssertionError("a saved choice of half the cards was refused (R5)")
    return st


def swap_decision(game: dict, seat: int, *, rollouts: int, seed: int,
                  opponents: str = DEFAULT_OPPONENTS, max_turns: int = 2000) -> Decision | None:
    """Review the seat's swap (R5; V1: its choice of face-ups), turn 0: every distinct choice
    played out in the same ``rollouts`` worlds, each re-dealt from what the seat saw at the
    deal (its own cards, the dealt face-ups: R26) with the same random stream; the other
    seats swap by their game's swap policies and every seat then plays ``opponents`` to the
    end of the game. None for a game saved before its swap."""
    from sim.kernel import referee
    from sim.kernel.cards import NAMES
    from sim.kernel.layout import DECK, HANDS, PUB, STATE_SIZE
    from sim.kernel.rng import seed_game
    from sim.kernel.sampling import sample_world, score

    if not has_swap(game):
        return None
    t0 = time.perf_counter()
    dealt = to_state(game["dealt"])
    players = int(dealt[PLAYERS])
    options = swap_options(dealt, seat)
    made = saved_choice(game, options, seat)
    cfg, swap_fns, table, params = seated_swaps(game, {seat: 0}, opponents)
    pool = cfg.pool
    obs = dealt.copy()
    obs[CURRENT] = seat
    hand = dealt[HANDS + seat * NR:HANDS + seat * NR + NR].copy()
    scores = np.zeros((rollouts, len(options)))
    world, st = np.zeros(STATE_SIZE, np.int32), np.zeros(STATE_SIZE, np.int32)
    pool_cards = np.zeros(DECK, np.int32)
    rng, prng = np.zeros(4, np.uint64), np.zeros(4, np.uint64)
    choice, err = np.zeros(MAXP, np.int64), np.zeros(3, np.int64)
    cards = np.zeros(referee.SWAP_CARDS, np.int32)
    log, seen = np.zeros(0, np.int32), np.zeros(0, np.int32)
    for w in range(rollouts):
        seed_game(rng, np.uint64(seed), w)
        sample_world(obs[:PUB], hand, rng, world, pool_cards)
        for i, (mask, _) in enumerate(options):
            st[:] = world
            prng[:] = rng                       # the same stream for every choice
            params[MAXP + seat, 0] = mask
            if not referee.swap_phase(st, prng, swap_fns, table, params, choice, cards, err):
                raise ValueError(f"swap policy of seat {int(err[0])} returned {int(err[1])}, "
                                 f"not a choice of half its cards (R5)")
            status = referee.play_out(st, prng, max_turns, pool.moves, table, params, log,
                                      err, seen)
            if status == referee.BAD_MOVE:          # R24: never scored as a loss
                raise ValueError(f"--opponents: {opponents} answered {int(err[1])}, not a "
                                 f"legal move, at turn {int(err[2])} of a playout (R24)")
            v = score(st, seat, players)
            if status == referee.UNFINISHED or (st[V2] and v == 0):
                v = (int(st[NOUT]) + 1 + players) / 2.0 if st[V2] else 0.0
            scores[w, i] = v
    v2 = bool(dealt[V2])
    means = scores.mean(axis=0)
    b = int(np.argmin(means) if v2 else np.argmax(means))
    span = float(players - 1) if v2 else 1.0

    def words(i):
        return "up " + " ".join(NAMES[r] for r in options[i][1])
    return Decision(turn=0, moves=len(options), made=words(made), best=words(b),
                    value_made=float(means[made]), value_best=float(means[b]),
                    worlds=rollouts, seconds=time.perf_counter() - t0,
                    made_json={"face_up": [NAMES[r] for r in options[made][1]]},
                    best_json={"face_up": [NAMES[r] for r in options[b][1]]},
                    **loss_interval(scores, b, made, v2, span))


def plan(game: dict, seat: int) -> tuple[list, int]:
    """The seat's decisions to review, ``(turn, state, move)`` each, and its forced turns."""
    players = int(game["players"])
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < players:
        raise ValueError(f"--seat: expected a seat from 0 to {players - 1}, got {seat}")
    todo, forced = [], 0
    for turn, st, p, m in game_states(game):
        if p != seat:
            continue
        if len(legal_ids(st)) > 1:
            todo.append((turn, st, m))
        else:
            forced += 1
    return todo, forced


def review(game: dict, seat: int | None = None, *, rollouts: int = DEFAULT_ROLLOUTS,
           seed: int = 0, opponents: str = DEFAULT_OPPONENTS, on_decision=None,
           into: Review | None = None) -> Review:
    """Review ``seat``'s decisions in the saved ``game`` (default: the human's seat): its
    swap first (turn 0, :func:`swap_decision`), then its turns with a choice.
    ``on_decision(review, decision)`` is called after each (progress); decision ``j`` is
    analysed with seed ``seed + turn``, so a review is reproducible and its decisions
    independent of each other. ``into``: a :class:`Review` to fill (the caller keeps the
    decisions made when interrupted)."""
    if not isinstance(rollouts, int) or isinstance(rollouts, bool) or rollouts < 2:
        raise ValueError(f"--rollouts: expected at least 2 worlds, got {rollouts!r}")
    check_seed(seed)
    seat = default_seat(game) if seat is None else seat
    todo, forced = plan(game, seat)
    st0 = start_state(game)
    r = into if into is not None else Review(0, 0, False, 0, 0, "", 0, 0, 0)
    r.seat, r.players, r.v2 = seat, int(game["players"]), bool(st0[V2])
    r.rollouts, r.seed, r.opponents = rollouts, seed, opponents
    swap = has_swap(game)
    r.total, r.turns, r.forced = len(todo) + swap, len(game["moves"]), forced
    if swap:
        d = swap_decision(game, seat, rollouts=rollouts, seed=seed, opponents=opponents)
        r.decisions.append(d)
        if on_decision is not None:
            on_decision(r, d)
    for turn, st, m in todo:
        t0 = time.perf_counter()
        d = decide(st, m, rollouts=rollouts, seed=(seed + turn) % 2**63, opponents=opponents,
                   turn=turn)
        d.seconds = time.perf_counter() - t0
        r.decisions.append(d)
        if on_decision is not None:
            on_decision(r, d)
    return r


def save(r: Review, game: dict, out) -> None:
    """``sim review --out DIR``: the folder ``sim report`` draws (kind ``review``, not
    resumable, :mod:`sim.runs.folder`): the manifest, ``review.json`` (the review) and
    ``game.json`` (the game reviewed); marked partial for an interrupted review."""
    from sim.kernel.ruleset import Ruleset
    from sim.runs import folder

    options = {"players": int(game["players"]), "games": 1, "rules": game["rules"],
               "options": Ruleset.parse(game["rules"]).to_dict(), "seed": game.get("seed"),
               "game": game.get("game"), "seat": r.seat, "seats": game.get("seats"),
               "rollouts": r.rollouts, "review_seed": r.seed, "opponents": r.opponents}
    saved = folder.open_for_write(out, "review", format=1, options=options, match={})
    files = {"game.json": game, "review.json": r.to_dict()}
    if r.interrupted:
        saved.mark_partial("interrupted: the decisions reviewed so far", files, default=float)
    else:
        saved.finish(files, default=float)


def read(root, manifest):
    """The review saved in ``root`` (kind ``review``; sim.studies.saved): its options as
    ``config``; ``sim report`` reads review.json itself."""
    import pandas as pd

    from sim.runs.saved import Loaded, unfinished

    if not (root / "review.json").exists():
        raise ValueError(unfinished(root, manifest, "review.json"))
    summary = {"config": manifest.get("options", {}), "overall": {}}
    if manifest.get("partial"):
        summary["partial"] = manifest["partial"]
    return Loaded(path=root, manifest=manifest, summary=summary, by_seat=pd.DataFrame(),
                  by_strategy=pd.DataFrame())


__all__ = ["save", "review", "Review", "Decision", "decide", "game_states", "state_at", "start_state",
           "plan", "DEFAULT_ROLLOUTS"]
