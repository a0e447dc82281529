"""Stage 1 of the swap study: every seat plays with random swaps, each seat-game recorded
with its face-up and hand triples after the swap, aggregated into cells; and the batches of
every stage, kept for ``--resume``."""
from __future__ import annotations

import numpy as np

from sim.runs.partial import Interrupted, Partial
from sim.runs.runner import RunConfig, RunError, batches
from sim.runs.workers import Group, Played, stream
from sim.studies.match import batch_results
from sim.studies.saved import Games
from sim.studies.swapstudy.triples import INDEX, NTRIPLE, SIZE


class _Read:
    """A batch read back from the study's folder (``--resume``), as a started one reads."""

    jobs = ()

    def __init__(self, batch, tick, index):
        self.batch, self.tick, self.index, self.save = batch, tick, index, None

    def result(self):
        if self.tick is not None:
            self.tick(self.batch.status.size)
        return self.batch


def start_kept(group, games, name, cfg, first, n, tick=None, index=None, **columns):
    """Games ``first .. first + n - 1`` of ``cfg``, started in ``group`` (sim.runs.workers):
    read back from ``games`` (the study's :class:`~sim.studies.saved.Games`) when saved
    whole, else submitted, to be saved as ``name`` with ``columns`` added to their records
    by :func:`finish_kept`. ``index``: the caller's name for it."""
    from sim.runs.batch import Batch, start
    from sim.runs.store import read_records

    df = games.read(name)
    if df is not None and len(df) == n:
        return _Read(Batch(first, read_records(df)), tick, index)
    playing = start(group, cfg, first, n, tick=tick, index=index)
    playing.save = (games, name, columns)
    return playing


def finish_kept(started):
    """The Batch of :func:`start_kept`, saved if it was played (Interrupted, with its first
    games, if it was cut short)."""
    from sim.runs.store import records

    b = started.result()
    if started.save is not None:
        games, name, columns = started.save
        if games.dir is not None:
            df = records(started.cfg, b)
            for key, value in columns.items():
                df[key] = value
            games.write(name, df)
    return b


# -- 1. the values stage -------------------------------------------------------------------
def refuse_hand_size(ruleset) -> None:
    """The study values triples, 3 + 3 cards (R5 at H12's hand size 3): any other hand size
    is refused with :class:`RunError` before a game is played, never modelled wrongly."""
    if ruleset.hand_size != 3:
        raise RunError(f"swap study: hand_size={ruleset.hand_size} (H12) is not supported; the "
                       f"study values face-up and hand triples, a swap of 3 of 6 cards (R5 "
                       f"at hand_size=3)")


def values_stage(players, games, seed, rules, strategy, threads, progress=None, kept=None,
                 batch=100_000, max_turns=10_000, cycle_stop=True):
    """Play the values stage; return the cells and counts the model and tables need. The
    cells are kept apart for even and odd games (``cell_n[g % 2]``): one half chooses the
    model's penalty on the other. Ctrl-C raises :class:`~sim.runs.partial.Interrupted`, its
    ``partial`` the swap study's (:func:`~sim.studies.swapstudy.study.swap_study`): the
    tally of the games played so far, stage ``values``."""
    from sim.runs.tally import Tally

    cfg = RunConfig(games=games, players=players, seed=seed, strategies=[strategy],
                    swaps=["random"], rules=rules, threads=threads, batch=batch,
                    max_turns=max_turns, cycle_stop=cycle_stop)
    refuse_hand_size(cfg.ruleset)
    v2 = bool(cfg.options["last_player_loses"])
    v1 = bool(cfg.options["choose_face_ups"])
    # Who starts is fixed by the deal only under R6 as dealt: under V1 the face-ups are chosen,
    # under H14 starter=hand the hands after the swap decide, so there the seat's
    # position after the starter is an outcome of the split, not a covariate, and is left out.
    position = not v1 and cfg.options["starter"] == "dealt"
    tally = Tally(cfg)
    ncell = NTRIPLE * NTRIPLE * players
    cell_n = np.zeros((2, ncell), np.int64)
    cell_w = np.zeros((2, ncell))
    count = np.zeros(SIZE, np.int64)           # per face-up triple: seat-games
    score = np.zeros(SIZE)                     # summed result
    unf = np.zeros(SIZE, np.int64)             # seat-games of unfinished games
    unfinished = 0
    kept = kept or Games()
    played = Played(progress)
    group = Group(threads)

    def begin(item):
        index, first, n = item
        return start_kept(group, kept, f"part-{index:05d}", cfg, first, n, tick=played.tick,
                          index=item, stage="values", seed=seed, opponent="")

    try:
        # the batches are one stream on the pool (sim.runs.workers): the next ones are
        # played while one is added up and saved
        with group:
            for h, b in stream(group, batches(cfg), begin, lambda h: (h, finish_kept(h))):
                _, first, n = h.index
                tally.add(b)
                unfinished += _add(b, players, v2, position, first, n, ncell, cell_n, cell_w,
                                   count, score, unf)
    except KeyboardInterrupt as e:
        if isinstance(e, Interrupted) and e.partial.result.status.size:
            tally.add(e.partial.result)          # the batch's first games (not saved)
        raise Interrupted(Partial({"tally": tally, "head_to_head": []}, tally.games, games,
                                  stage="values")) from None
    return {"cfg": cfg, "tally": tally, "cell_n": cell_n, "cell_w": cell_w, "count": count,
            "score": score, "unf": unf, "unfinished": unfinished, "v1": v1, "v2": v2,
            "position": position, "deck": cfg.ruleset.deck_counts(players)}


def _add(b, players, v2, position, first, n, ncell, cell_n, cell_w, count, score, unf):
    """Add batch ``b`` (games ``first .. first + n - 1``) to the values stage's cells and
    counts (in place); its unfinished games."""
    w, done = batch_results(b, players, v2)
    codes = b.triples[:, :players].astype(np.int64)
    hand = b.hand_triples[:, :players].astype(np.int64)
    if (codes < 0).any() or (hand < 0).any():
        raise RunError("swap study: a seat without 3 face-up and 3 hand cards after the "
                       "swap; the study needs the rules' 3 + 3 (R5)")
    count += np.bincount(codes.ravel(), minlength=SIZE)
    score += np.bincount(codes.ravel(), weights=w.ravel(), minlength=SIZE)
    unf += np.bincount(codes[~done].ravel(), minlength=SIZE)
    # the position after the starting player, where the deal fixes the start
    pos = ((np.arange(players)[None, :] - b.starter[:, None].astype(np.int64)) % players
           if position else np.zeros((n, players), np.int64))
    cell = (INDEX[codes] * NTRIPLE + INDEX[hand]) * players + pos
    half = (np.arange(first, first + n) % 2)[:, None] + np.zeros(players, np.int64)
    flat = (half * ncell + cell).ravel()
    cell_n += np.bincount(flat, minlength=2 * ncell).reshape(2, ncell)
    cell_w += np.bincount(flat, weights=w.ravel(), minlength=2 * ncell).reshape(2, ncell)
    return int((~done).sum())
