"""One game step by step (:func:`record_game`), through the same kernel as the batches; the
errors of a strategy (R24) as :class:`~sim.runs.config.RunError` with the position to
reproduce them (:func:`strategy_error`)."""
from __future__ import annotations

import json
from dataclasses import dataclass

import numpy as np

from sim.kernel import cycle
from sim.kernel import referee as core
from sim.runs.config import RunConfig, RunError


@dataclass
class GameRecord:
    """Everything needed to show one game: the deal, the swaps and the moves."""

    dealt: np.ndarray   # the state right after the deal (R4)
    swaps: np.ndarray   # each seat's swap choice (bit mask over its 2 x hand size cards, H12)
    start: np.ndarray   # the state after the swaps, the first player set (R5, R6)
    moves: np.ndarray   # move ids in order
    status: int
    error: np.ndarray
    end: int = cycle.END_FINISHED   # why it ended (sim.kernel.cycle.END_*)
    cycle_turns: int = 0            # the length in turns of the cycle that stopped it, or 0


def record_game(cfg: RunConfig, game: int) -> GameRecord:
    """Replay game number ``game`` of ``cfg`` through the same kernel, keeping every move."""
    if not 0 <= game < cfg.games:
        raise RunError(f"--game: expected 0 to {cfg.games - 1} (the run has {cfg.games} games)")
    return _record(cfg, game)


def _record(cfg: RunConfig, game: int) -> GameRecord:
    """:func:`record_game` of any game number: a tournament's deal is a game of a config
    made for one game (sim.studies.compare), which its errors replay."""
    from sim.kernel.layout import MAXP, STATE_SIZE, TURN
    from sim.kernel.rng import seed_game

    pool, kinds = cfg.pool, cfg.seat_table
    st = np.zeros(STATE_SIZE, np.int32)
    rng = np.zeros(4, np.uint64)
    seed_game(rng, np.uint64(cfg.seed), game)
    core.deal_game(st, rng, cfg.players, cfg.rules_vector)
    dealt = st.copy()
    choice = np.zeros(MAXP, np.int64)
    err = np.zeros(3, np.int64)
    cards = np.zeros(core.SWAP_CARDS, np.int32)
    if not core.swap_phase(st, rng, pool.swaps, kinds, pool.params, choice, cards, err):
        return GameRecord(dealt, choice, st.copy(), np.zeros(0, np.int32), core.BAD_SWAP, err)
    start = st.copy()
    log = np.zeros(cfg.max_turns, np.int32)
    seen = np.zeros(cycle.SIZE if cfg.cycle_stop else 0, np.int32)
    if cfg.cycle_stop:
        seen[cycle.IMPURE] = cfg.impure_seats()       # as the batch core does (sim.kernel.referee)
    status = core.play_out(st, rng, cfg.max_turns, pool.moves, kinds, pool.params, log, err,
                           seen)  # H16 too
    end, period = cycle.end_of(status == core.UNFINISHED, seen)
    return GameRecord(dealt, choice, start, log[:st[TURN]], int(status), err, int(end),
                      int(period))


def strategy_error(cfg: RunConfig, game: int, status: int, err) -> RunError:
    """R24: say which strategy failed where, with the position as JSON to reproduce it."""
    seat, value, turn = (int(x) for x in err)
    if status == core.BAD_SWAP:
        name = cfg.swaps[seat]
        k = cfg.ruleset.hand_size
        what = (f"swap policy {name!r} (seat {seat}) returned {value}, which is not a choice "
                f"of {k} of its {2 * k} cards (R5, H12)"
                + ("; the policy refuses this number of cards (table and split value 3 of 6 "
                   "only)" if value == -1 else ""))
        position = None
    else:
        name = cfg.strategies[seat]
        what = (f"strategy {name!r} (seat {seat}) returned move id {value}, which is not a "
                f"legal move (R24)")
        rec = _record(cfg, game)
        position = _position_before(cfg, rec, turn)
    msg = f"{what} in game {game} of seed {cfg.seed}, turn {turn}."
    if position is not None:
        msg += "\nThe position (docs/position.md), for sim.kernel.position:\n" + json.dumps(position)
    return RunError(msg)


def _position_before(cfg, rec: GameRecord, turn: int) -> dict:
    from sim.kernel.engine import apply_move

    st = rec.start.copy()
    for m in rec.moves[:turn]:
        apply_move(st, m)
    from sim.kernel.position import to_position   # only for an error: not at start-up

    return to_position(st, ruleset=cfg.rules)
