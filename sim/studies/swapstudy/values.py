"""Stage 1 of the swap study: every seat plays with random swaps, each seat-game recorded
with its face-up and hand triples after the swap, aggregated into cells; and the batches of
every stage, kept for ``--resume``."""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from sim.runs.partial import Interrupted, Partial
from sim.runs.runner import RunConfig, RunError, batches
from sim.runs.store import part_name
from sim.runs.workers import Group, Played, stream
from sim.studies.match import batch_results
from sim.studies.saved import Games
from sim.studies.swapstudy.triples import INDEX, NTRIPLE, SIZE


class _Read:
    """A batch read back from the study's folder (``--resume``), as a started one reads."""

    jobs = ()

    def __init__(self, batch, tick, index, also):
        self.batch, self.tick, self.index = batch, tick, index
        self.extra = None if also is None else also(batch)

    def result(self):
        if self.tick is not None:
            self.tick(self.batch.status.size)
        return self.batch


class SwapStudyPartial(NamedTuple):
    """An interrupted swap study's ``partial.result``: the values stage's
    :class:`~sim.runs.tally.Tally` (random swaps) of the games played so far, and the
    head-to-heads finished (their result dicts, :func:`~sim.studies.swapstudy.h2h.
    head_to_heads`)."""

    tally: object
    head_to_head: list


def start_kept(group, games, name, cfg, first, n, tick=None, index=None, also=None,
               **columns):
    """Games ``first .. first + n - 1`` of ``cfg``, started in ``group`` (sim.runs.workers):
    read back from ``games`` (the study's :class:`~sim.studies.saved.Games`) when saved
    whole, else submitted, and saved as ``name`` with ``columns`` added to their records
    once played (on the pool's threads). ``also(batch)``, if given, is computed there too,
    as the handle's ``extra`` (what the caller adds up of the batch). ``index``: the
    caller's name for it."""
    from sim.runs.batch import Batch, start
    from sim.runs.store import read_records

    df = games.read(name)
    if df is not None and len(df) == n:
        return _Read(Batch(first, read_records(df)), tick, index, also)

    def then(b):                       # on the pool's thread that finishes the batch
        if games.keeps:
            from sim.runs.store import records
            df = records(cfg, b)
            for key, value in columns.items():
                df[key] = value
            games.write(name, df)
        return None if also is None else also(b)     # the handle's extra
    return start(group, cfg, first, n, tick=tick, index=index,
                 then=then if games.keeps or also is not None else None)


def finish_kept(started):
    """The Batch of :func:`start_kept`, saved as it was played (Interrupted, with its first
    games, if it was cut short)."""
    return started.result()


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
        return start_kept(group, kept, part_name(index), cfg, first, n, tick=played.tick,
                          index=item, stage="values", seed=seed, opponent="",
                          also=lambda b: _cells(b, players, v2, position, first, n, ncell))

    try:
        # the batches are one stream on the pool (sim.runs.workers): the next ones are
        # played while one is added up and saved, each one's cells counted on the thread
        # that played its last games; here they are added up in the batches' order
        with group:
            for h, b in stream(group, batches(cfg), begin, lambda h: (h, finish_kept(h))):
                tally.add(b)
                unfinished += _add(h.extra, cell_n, cell_w, count, score, unf)
    except KeyboardInterrupt as e:
        if isinstance(e, Interrupted) and e.partial.result.status.size:
            tally.add(e.partial.result)          # the batch's first games (not saved)
        raise Interrupted(Partial(SwapStudyPartial(tally, []), tally.games, games,
                                  stage="values")) from None
    return {"cfg": cfg, "tally": tally, "cell_n": cell_n, "cell_w": cell_w, "count": count,
            "score": score, "unf": unf, "unfinished": unfinished, "v1": v1, "v2": v2,
            "position": position, "deck": cfg.ruleset.deck_counts(players)}


def _cells(b, players, v2, position, first, n, ncell):
    """Batch ``b``'s (games ``first .. first + n - 1``) share of the values stage's cells and
    counts (:func:`_add` adds it): each cell it touches once, with its seat-games and
    summed result in the games' order (as one bincount of the batch), so that adding the
    batches in order gives the same sums whichever thread counted which."""
    w, done = batch_results(b, players, v2)
    codes = b.triples[:, :players].astype(np.int64)
    hand = b.hand_triples[:, :players].astype(np.int64)
    if (codes < 0).any() or (hand < 0).any():
        raise RunError("swap study: a seat without 3 face-up and 3 hand cards after the "
                       "swap; the study needs the rules' 3 + 3 (R5)")
    # the position after the starting player, where the deal fixes the start
    pos = ((np.arange(players)[None, :] - b.starter[:, None].astype(np.int64)) % players
           if position else np.zeros((n, players), np.int64))
    cell = (INDEX[codes] * NTRIPLE + INDEX[hand]) * players + pos
    half = (np.arange(first, first + n) % 2)[:, None] + np.zeros(players, np.int64)
    flat = (half * ncell + cell).ravel()
    touched, which = np.unique(flat, return_inverse=True)
    return {"count": np.bincount(codes.ravel(), minlength=SIZE),
            "score": np.bincount(codes.ravel(), weights=w.ravel(), minlength=SIZE),
            "unf": np.bincount(codes[~done].ravel(), minlength=SIZE),
            "touched": touched, "n": np.bincount(which, minlength=touched.size),
            "w": np.bincount(which, weights=w.ravel(), minlength=touched.size),
            "unfinished": int((~done).sum())}


def _add(part, cell_n, cell_w, count, score, unf):
    """Add a batch's share (:func:`_cells`) to the values stage's cells and counts (in
    place); its unfinished games."""
    count += part["count"]
    score += part["score"]
    unf += part["unf"]
    cell_n.ravel()[part["touched"]] += part["n"]
    cell_w.ravel()[part["touched"]] += part["w"]
    return part["unfinished"]
