"""The review of a seat's swap (R5; V1: its choice of face-ups), turn 0 of ``sim review``
(:mod:`sim.studies.review`): every distinct choice ranked on worlds re-dealt from the seat's
view (R26), the choice made and the best measured on fresh worlds, as a turn is."""
from __future__ import annotations

import time

import numpy as np

from sim.kernel import dealing
from sim.kernel.layout import MAXP, NR, PLAYERS, V2
from sim.kernel.position import to_state
from sim.runs.workers import Group
from sim.studies.analysis import DEFAULT_OPPONENTS, splits_of
from sim.studies.race import best_first, tie_of
from sim.studies.review import Decision, Started, measured_loss, saved_choice, seated_swaps
from sim.studies.stats import Z95


def has_swap(game: dict) -> bool:
    """Was the game saved after its swap (R5, V1), so that the swap can be reviewed?"""
    return game.get("dealt") is not None and game.get("start") is not None


def swap_decision(game: dict, seat: int, *, rollouts: int, seed: int,
                  opponents: str = DEFAULT_OPPONENTS, max_turns: int = 2000,
                  threads=None) -> Decision | None:
    """Review the seat's swap (R5; V1: its choice of face-ups), turn 0: every distinct choice
    played out in the same ``rollouts`` worlds (the ranking), then the best and the choice
    made in the next ``rollouts`` worlds (fresh: the loss), each world re-dealt from what
    the seat saw at the deal (its own cards, the dealt face-ups: R26) with one random stream
    for every choice (:func:`sim.kernel.sampling.swap_playouts`); the other seats swap by
    their game's swap policies and every seat then plays ``opponents`` to the end of the
    game. None for a game saved before its swap. ``sim swap`` splits the cards alike
    (:func:`sim.studies.analysis.splits_of`) but values six cards over every deal holding
    them, one strategy at every seat, scored as the swap study scores; here it is this
    seat's choice at this deal from what it saw, the others swapping as they did, scored as
    a turn is (V2: the expected place)."""
    if not has_swap(game):
        return None
    with Group(threads) as group:
        return start_swap(group, game, seat, rollouts, seed, opponents, max_turns).result()


def start_swap(group, game, seat, rollouts, seed, opponents, max_turns) -> Started:
    """:func:`swap_decision` in ``group``: the ranking's worlds started; ``result()`` waits
    for them, then plays the fresh ones."""
    from sim.kernel.cards import NAMES
    from sim.kernel.layout import HANDS
    from sim.kernel.sampling import SWAP_REFUSED, swap_playouts

    t0 = time.perf_counter()
    dealt = to_state(game["dealt"])
    players = int(dealt[PLAYERS])
    options = splits_of(dealing.swap_choices(dealt, seat))
    made = saved_choice(game, options, seat)
    cfg, swap_fns, table, params = seated_swaps(game, {seat: 0}, opponents)
    moves = cfg.pool.moves
    hand = dealt[HANDS + seat * NR:HANDS + seat * NR + NR].copy()

    def play(first, chosen):
        # worlds first .. first + rollouts - 1, the options `chosen` played out in each
        masks = np.array([options[o][2] for o in chosen], np.int64)
        scores = np.zeros((rollouts, len(chosen)))

        def block(lo, hi):
            bad = np.zeros(3, np.int64)
            code = swap_playouts(dealt, seat, hand, np.uint64(seed), first + lo, masks,
                                 MAXP + seat, swap_fns, table, params, moves, max_turns,
                                 scores[lo:hi], bad)
            if code == SWAP_REFUSED:
                raise ValueError(f"swap policy of seat {int(bad[0])} returned {int(bad[1])}, "
                                 f"not a choice of half its cards (R5)")
            if code:                                     # R24: never scored as a loss
                raise ValueError(f"--opponents: {opponents} answered {int(bad[1])}, not a "
                                 f"legal move, at turn {int(bad[2])} of a playout (R24)")
        job = group.submit(rollouts, block, kind=("swap review", id(swap_fns)))
        job.scores = scores
        return job

    v2 = bool(dealt[V2])
    span = float(players - 1) if v2 else 1.0
    names = ["up " + " ".join(NAMES[r] for r in up) for up, _, _ in options]
    ranked = play(0, range(len(options)))

    def second():
        order = best_first(ranked.scores, v2)
        b = order[0]
        fresh = play(rollouts, [b] + ([] if b == made else [made]))
        fresh.jobs = [fresh]
        return fresh, order

    def finish(fresh, order):
        if fresh.done < fresh.n:
            raise KeyboardInterrupt("the worlds were cut short")
        b = order[0]
        tie = tie_of(ranked.scores, v2, span, Z95, names)
        return Decision(turn=0, moves=len(options), made=names[made], best=names[b],
                        worlds=rollouts, seconds=time.perf_counter() - t0,
                        made_json={"face_up": [NAMES[r] for r in options[made][0]]},
                        best_json={"face_up": [NAMES[r] for r in options[b][0]]},
                        ranking=[names[j] for j in order], tied=tie["tied"], more=tie["more"],
                        **measured_loss(fresh.scores, v2, span, names[made] in tie["tied"]))
    return Started(group, [ranked], second, finish)


