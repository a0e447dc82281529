"""``sim compare``: tournaments on duplicate deals, every strategy in every seat equally often
and each deal replayed under every rotation of its seating (common random numbers: the luck
of the deal cancels out of the comparison).

A deal is a game index (its cards depend only on (seed, index), sim.kernel.rng), so rotation
``r`` of deal ``d`` is game ``d`` of a run whose seats are rotated by ``r``. The seating
design is :mod:`sim.studies.design`'s, the records and statistics
:class:`~sim.studies.tournament.Tournament`'s; a block of deals is one call of the core
(:class:`~sim.studies.match.Match`), kept in the order of the deals, so nothing depends on
threads or block sizes. ``until_clear`` stops once the leader is ahead of every other
strategy by anytime-valid confidence sequences (docs/comparing.md).
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from sim.kernel.fastpath import POOL
from sim.runs import folder
from sim.runs.store import part_name
from sim.runs.kinds import KINDS
from sim.runs.workers import Group, Played, stream
from sim.runs.config import RunError
from sim.runs.partial import Interrupted, Partial
from sim.runs.saved import Loaded
from sim.runs.tally import cycle_facts
from sim.studies.design import seat_orders, seating_note
from sim.studies.match import Match, split_rotations
from sim.studies.saved import Games, close, opened, result_of
from sim.studies.stats import ALPHA
from sim.studies.tournament import Tournament


def blocks(deals, block, until_clear):
    """(first deal, deals) of each block. A fixed ``block``, else 20 blocks (at most 50,000
    deals each); until-clear looks early and then every 25% more deals, since the confidence
    sequences allow any number of looks."""
    first = 0
    while first < deals:
        if block:
            n = block
        elif until_clear:
            n = min(50_000, max(250, first // 4))
        else:
            n = max(1, min(deals // 20 or 1, 50_000))
        n = min(n, deals - first)
        yield first, n
        first += n


KIND = "compare"          # its format and what must match to resume: sim.runs.kinds
RESULT = KINDS[KIND].result


class Comparison(NamedTuple):
    """What :func:`compare` returns, and an interrupted comparison's ``partial.result``: the
    :class:`~sim.studies.tournament.Tournament` of the deals played and ``info`` (the design,
    seating, timings and, when stopped early, why: :func:`describe`'s dict)."""

    tournament: Tournament
    info: dict


class _Read:
    """A block read back from the folder (``--resume``), as a started one reads
    (:class:`~sim.studies.match.Block`): nothing to play."""

    jobs = ()

    def __init__(self, index, orders, batch):
        self.index, self.orders, self.batch = index, orders, batch

    def result(self):
        return self.batch, None


def _saved_block(df, deals, k, path):
    """A block read back (:class:`~sim.studies.saved.Games`) as :meth:`Match.play` returns
    it: rotation by rotation, each in the order of its deals."""
    from sim.runs.batch import Batch
    from sim.runs.store import read_records

    if len(df) != deals * k:
        raise folder.StoreError(f"--resume: {path} holds {len(df)} games, expected {deals * k}")
    df = df.sort_values(["rotation", "deal"], kind="stable")
    return Batch(0, read_records(df), numbers=df["game"].to_numpy())


def _block_frame(cfg, batch, rows, deals, k, names, swaps):
    """The per-game records of a block (sim.runs.store's columns, plus deal and rotation):
    ``batch`` holds its games rotation by rotation (``rows``: their seatings, pool entries
    per seat; ``deals``: the block's deal numbers), with the names of the pool's strategies
    and of their swap policies."""
    from sim.runs.store import records

    df = records(cfg, batch)
    n = len(deals)
    rotation = np.repeat(np.arange(k, dtype=np.int8), n)
    df.insert(0, "rotation", rotation)
    df.pop("game")
    df.insert(0, "deal", np.tile(deals, k))               # the deal's cards: seed and deal
    df.insert(0, "game", np.tile(deals, k) * k + rotation)
    for s in range(cfg.players):                           # who sat where, game by game
        df[f"strategy_{s}"] = np.asarray(names, object)[rows[:, s]]
        df[f"swap_{s}"] = np.asarray(swaps, object)[rows[:, s]]
    df = df.sort_values("game", kind="stable").reset_index(drop=True)
    for c in df.columns:
        if c.startswith(("strategy_", "swap_")):
            df[c] = df[c].astype(str).astype("category")
    return df


def check_field(strategies) -> None:
    """The strategies of a tournament: two or more, each once (``RunError`` if not)."""
    if len(strategies) < 2:
        raise RunError("compare: give at least two strategies")
    if len(set(strategies)) != len(strategies):
        raise RunError("compare: each strategy once (seats are rotated for you)")


def compare(strategies, players=4, games=100_000, seed=0, rules="seed", max_turns=10_000,
            threads=None, block=None, independent=False, until_clear=False,
            max_games=None, swaps=None, progress=None, out=None, cycle_stop=True,
            seating="balanced", resume=False):
    """Play a duplicate-deal tournament; return its :class:`Comparison`.

    ``games`` counts every game played (deals x rotations). ``independent`` replays no deal:
    each rotation gets its own game indices (to measure what duplicate deals gain). With
    ``out`` (a folder) the per-game records are written to ``out/games`` as blocks finish.
    ``seating``: ``"balanced"`` or ``"fixed"`` cyclic orders (:mod:`sim.studies.design`).
    ``resume`` continues the tournament saved in ``out``: its blocks are read back, the
    missing ones played, which gives exactly the uninterrupted result.

    Ctrl-C raises :class:`~sim.runs.partial.Interrupted` within about a second, its
    ``partial.result`` the :class:`Comparison` of the deals played so far (whole blocks
    are saved: ``resume`` plays the rest). ``out`` is then finished with compare.json
    (:func:`read`), or marked partial once a deal was played under every rotation.
    """
    import numba

    check_field(strategies)
    k = len(strategies)
    if k > POOL:
        raise RunError(f"compare: at most {POOL} strategies in one tournament, got {k}")
    threads = threads or numba.config.NUMBA_NUM_THREADS
    seat_orders(k, seating, seed, np.zeros(0))       # a wrong --seating fails before any play
    match = Match(strategies, players, seed, rules, max_turns, threads, swaps=swaps,
                  cycle_stop=cycle_stop)
    base = match.configs[0]                          # rotation 0 of the order given
    opts = base.options
    total = max_games if until_clear else games
    if total is None or total < k:
        raise RunError(f"--games: at least one game per rotation ({k}), got {total}")
    deals = total // k
    plan = {"strategies": list(strategies), "players": players, "deals": deals, "seed": seed,
            "options": opts, "max_turns": max_turns, "cycle_stop": bool(cycle_stop),
            "independent": independent, "until_clear": until_clear, "block": block,
            "seating": seating, "swaps": match.swaps}
    options = {"strategies": list(strategies), "players": players, "games": games,
               "seed": seed, "rules": rules, "until_clear": until_clear,
               "max_games": max_games if max_games is not None else games,
               "independent": independent, "max_turns": max_turns, "cycle_stop": cycle_stop,
               "seating": seating}
    # DIR/games/part-NNNNN.parquet: each block's games, read back on --resume
    saved = None if out is None else folder.open_for_write(
        out, KIND, options=options, facts={"plan": plan}, resume=resume, default=float)
    kept = Games(saved, resume)
    t = Tournament(list(strategies), players, bool(opts["last_player_loses"]),
                   sequential=until_clear)
    stopped, looks, leader = "games", 0, None

    def describe(stopped):
        return {"stopped": stopped, "until_clear": until_clear, "looks": looks,
                "leader": leader, "alpha": ALPHA,
                "method": ("anytime-valid confidence sequences (Waudby-Smith & Ramdas 2024, "
                           "betting, dKelly) of the paired per-deal difference, leader against "
                           f"each other strategy at level {1 - ALPHA / (k - 1):.4g}")
                if until_clear else None,
                "independent": independent, "seed": seed, "rules": rules, "options": opts,
                "block": block, "cycle_stop": cycle_facts(base),
                "seating": seating if k > 2 else "fixed",
                "seating_note": seating_note(seating if k > 2 else "fixed", k)}

    played = Played(progress)

    def begin(item):
        index, (first, n) = item
        orders = seat_orders(k, seating, seed, np.arange(first, first + n))
        name = part_name(index)
        df = kept.read(name)
        if df is not None:
            return _Read(name, orders, _saved_block(df, n, k, kept.path(name)))
        # the games are rotation by rotation, each in the order of its deals
        numbers = np.tile(first + np.arange(n, dtype=np.int64), k)
        if independent:
            numbers += np.repeat(np.arange(k, dtype=np.int64), n) * deals

        def save(b, rows):             # on the pool's thread that finishes the block
            kept.write(name, _block_frame(base, b, rows, first + np.arange(n), k, strategies,
                                          match.swaps))
        return match.start(group, orders, numbers, tick=played.tick, index=(name, first, n),
                           then=save if kept.keeps else None)

    def cut(started):
        # the deals of the blocks started and not added played from each one's first, as
        # the progress counted them (not saved: the folder keeps whole blocks)
        for h in started:
            if not isinstance(h, _Read):
                b, m = h.played()
                if m:
                    t.add_block(split_rotations(b, k), h.orders[:m])
        raise KeyboardInterrupt("interrupted")

    # The blocks are one stream of work on the pool (sim.runs.workers): the next ones are
    # played while one is added up and saved; until-clear's look after each block drops
    # those started ahead, so the result is that of blocks played one after the other.
    group = Group(threads)
    try:
        with group:
            for h, (b, rows) in stream(group, enumerate(blocks(deals, block, until_clear)),
                                       begin, lambda h: (h, h.result()), cut):
                t.add_block(split_rotations(b, k), h.orders)
                if rows is None:                   # read back: its games were not ticked
                    played.seen(played.done + b.status.size)
                if until_clear:
                    looks += 1
                    leader, clear = t.clear_leader()
                    if clear:
                        stopped = "clear"
                        break
    except KeyboardInterrupt:
        stopped = "interrupted"
    info = describe(stopped)
    partial = (f"interrupted: the deals played so far{folder.resume_hint(saved)}"
               if stopped == "interrupted" else None)
    if saved is not None and t.games:       # compare.json: finished, or partial (--resume goes on)
        extra = {"partial": partial} if partial else {}
        close(saved, {RESULT: dict(t.to_dict(), info=info, **extra)}, partial, default=float)
    if partial:
        raise Interrupted(Partial(Comparison(t, info), t.games, deals * k))
    return Comparison(t, info)


def read(saved) -> Loaded:
    """The tournament in ``saved`` (kind ``compare``; sim.studies.saved): compare.json,
    its options (the manifest's), the seat effect as ``by_seat`` and the per-strategy rows as
    ``by_strategy`` (every strategy held every seat, so no seats column)."""
    parts = saved.parts()
    d = result_of(saved, RESULT, "compare file",
                  f" ({len(parts)} files of games saved)" if parts else "")
    info = d.get("info", {})
    games, unf = d.get("games"), d.get("unfinished")
    overall = {"games": games, "unfinished": unf,
               "finished": games - unf if games is not None and unf is not None else None,
               "unfinished_cap": d.get("unfinished_cap"),
               "unfinished_cycle": d.get("unfinished_cycle"),
               "cycle_stop": info.get("cycle_stop"), "mean_turns": d.get("mean_turns")}
    return opened(saved, d, overall=overall, by_seat=d.get("seat_effect", []),
                  by_strategy=d.get("per_strategy", []))
