"""Named data across the core's edge: the per-game records are written and read by
field name (sim.kernel.records.FIELDS), so two swapped fields fail a test here; the pool's
entries are named; a RunConfig is set once and never changed."""
from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest

from sim.kernel.engine import apply_move
from sim.kernel.fastpath import POOLS, make_pool
from sim.kernel.layout import (
    BURNS, DEALER, FIRST, HTRIPLES, MAXP, OUTORDER, PICKUPS, TRIPLES, TURN,
)
from sim.kernel.records import FIELDS, Records, allocate
from sim.runs.batch import play_batch
from sim.runs.onegame import record_game
from sim.runs.config import RunConfig
from sim.runs.store import Store, records

GAMES = 60


@pytest.fixture(scope="module")
def cfg():
    # V2 (the whole finishing order), a first-class strategy (highest) beside the inlined
    # lowest, pure seats and a cap: games finish, stop at the cap (R25) or as endless (cycles)
    return RunConfig(games=GAMES, players=3, seed=5, strategies=["lowest", "highest", "lowest"],
                     swaps=["highest-up", "none", "random"], max_turns=400,
                     rules={"base": "seed", "last_player_loses": True}, threads=1)


@pytest.fixture(scope="module")
def batch(cfg):
    return play_batch(cfg, 0, GAMES, 1)


def replayed(cfg, game) -> dict:
    """Every record field of one game, by name, from the step-by-step kernel (record_game,
    then the moves applied one by one): not through the batch core's writer."""
    rec = record_game(cfg, game)
    st = rec.start.copy()
    for m in rec.moves:
        apply_move(st, m)
    return {"status": rec.status, "end": rec.end, "cycle_turns": rec.cycle_turns,
            "turns": st[TURN], "burns": st[BURNS], "starter": rec.start[FIRST],
            "dealer": rec.dealt[DEALER], "order": st[OUTORDER:OUTORDER + MAXP],
            "pickups": st[PICKUPS:PICKUPS + MAXP], "triples": rec.start[TRIPLES:TRIPLES + MAXP],
            "hand_triples": rec.start[HTRIPLES:HTRIPLES + MAXP], "errors": rec.error}


@pytest.fixture(scope="module")
def replays(cfg):
    return [replayed(cfg, g) for g in range(GAMES)]


def mismatches(records, replays) -> set:
    """The record fields that differ, by name, from the games replayed."""
    return {name for g, want in enumerate(replays) for name, value in want.items()
            if not np.array_equal(getattr(records, name)[g], value)}


def test_the_core_writes_every_record_field_under_its_own_name(batch, replays):
    """Each field of the batch, read by name, is what the game replayed move by move gives
    (R25 turns, R3 dealer, R6 starter, V2 order, the swap's triples)."""
    assert set(Records._fields) == {f.name for f in FIELDS} == set(replays[0])
    assert mismatches(batch.records, replays) == set()


def test_a_core_that_swapped_two_fields_would_fail(batch, replays):
    """The check above sees any two fields of the same shape swapped (which the types alone
    would let through): every pair, swapped in the records, is found."""
    names = [f.name for f in FIELDS if f.name != "errors"]     # all zero in these games
    shape = {f.name: f.shape for f in FIELDS}
    pairs = [(a, b) for i, a in enumerate(names) for b in names[i + 1:] if shape[a] == shape[b]]
    assert len(pairs) == 21 + 6
    r = batch.records
    for a, b in pairs:
        swapped = r._replace(**{a: getattr(r, b), b: getattr(r, a)})
        assert mismatches(swapped, replays) == {a, b}, (a, b)


def test_records_are_allocated_as_defined():
    r = allocate(5)
    for f in FIELDS:
        a = getattr(r, f.name)
        assert a.shape == (5,) + f.shape and a.dtype == f.dtype, f.name


# FORMAT 2 of the saved folder (sim.runs.store): each column and the record field it holds.
SAVED = {"status": "status", "unfinished_by": "end", "cycle_turns": "cycle_turns",
         "turns": "turns", "burns": "burns", "starter": "starter", "dealer": "dealer",
         **{f"order_{s}": ("order", s) for s in range(MAXP)},
         **{f"pickups_{s}": ("pickups", s) for s in range(MAXP)},
         **{f"faceup_{s}": ("triples", s) for s in range(MAXP)},
         **{f"hand_{s}": ("hand_triples", s) for s in range(MAXP)}}
END = {None: 0, "cap": 1, "cycle": 2}                # sim.kernel.cycle.END_*


def check_columns(df, b):
    """The saved columns, in FORMAT 2's order, hold the batch's fields named in SAVED."""
    assert list(df.columns[:10]) == ["game", "status", "unfinished", "unfinished_by",
                                     "cycle_turns", "winner", "turns", "burns", "starter",
                                     "dealer"]
    assert list(df.columns[10:10 + 4 * MAXP]) == list(SAVED)[7:]
    assert (df["game"].to_numpy() == b.games).all()
    assert (df["winner"].to_numpy() == b.order[:, 0]).all()
    for column, field in SAVED.items():
        name, seat = field if isinstance(field, tuple) else (field, None)
        want = getattr(b.records, name)
        want = want if seat is None else want[:, seat]
        got = df[column].to_numpy()
        if name == "end":
            got = np.array([END[None if pd.isna(x) else x] for x in df[column]])
        assert np.array_equal(got, want), column


def test_the_saved_columns_hold_the_fields_they_are_named_after(cfg, batch):
    assert set(batch.end) == {0, 1, 2}      # finished, at the cap, endless
    check_columns(records(cfg, batch), batch)


def test_a_swap_of_two_saved_fields_fails_the_check(cfg, batch, monkeypatch):
    """The check above can fail: the writer with two record fields' columns swapped."""
    from sim.runs import store

    at = {f.name: i for i, f in enumerate(FIELDS)}
    swapped = list(FIELDS)
    i, j = at["triples"], at["hand_triples"]
    swapped[i], swapped[j] = (swapped[i]._replace(column=FIELDS[j].column),
                              swapped[j]._replace(column=FIELDS[i].column))
    monkeypatch.setattr(store, "FIELDS", tuple(swapped))
    with pytest.raises(AssertionError, match="faceup_0"):
        check_columns(records(cfg, batch), batch)


def test_the_store_reads_back_every_saved_field_by_name(cfg, batch, tmp_path):
    store = Store(tmp_path / "run", cfg)
    store.write(0, batch)
    back = store.read(0)
    assert back.first == batch.first
    for f in FIELDS:
        want = getattr(batch, f.name) if f.column else np.zeros_like(getattr(batch, f.name))
        got = getattr(back, f.name)
        assert got.dtype == f.dtype and np.array_equal(got, want), f.name


def test_a_folder_saved_with_six_seats_is_still_read(cfg, batch, tmp_path):
    """Store format 3 saves 8 seats' columns (H18); a part saved with 6 (format 2) reads back
    with the seats it lacks padded as the core pads a seat the game does not have."""
    store = Store(tmp_path / "run", cfg)
    store.write(0, batch)
    df = pd.read_parquet(store.part(0))
    assert "order_7" in df and "pickups_7" in df
    df.drop(columns=[c for c in df if c.rsplit("_", 1)[-1] in ("6", "7")
                     and c.split("_")[0] in ("order", "pickups", "faceup", "hand")]
            ).to_parquet(store.part(0))
    back = store.read(0)
    for f in FIELDS:
        if f.column:
            assert np.array_equal(getattr(back, f.name), getattr(batch, f.name)), f.name


def test_a_batch_cut_keeps_each_field_and_the_game_numbers(batch):
    part = batch.take(np.array([3, 1]))
    assert part.games.tolist() == [3, 1]
    for f in FIELDS:
        assert np.array_equal(getattr(part, f.name), getattr(batch, f.name)[[3, 1]]), f.name
    with pytest.raises(AttributeError):
        batch.nonesuch


def test_make_pool_places_each_entry_by_name(cfg):
    """sim.kernel.fastpath.make_pool: the move rows first, then the swap rows; the kinds of
    the moves, of the swaps, then the pure flags; padded with the first entry."""
    a, b = cfg.seat_entry(0), cfg.seat_entry(1)
    a = a._replace(move_params=np.array([1.0, 2.0]), swap_params=np.array([3.0]), move_kind=1,
                   swap_kind=3, pure=True)
    b = b._replace(move_params=np.array([4.0]), swap_params=np.array([5.0, 6.0, 7.0]),
                   move_kind=0, swap_kind=2, pure=False)
    pool = make_pool([a, b])
    n = POOLS[0]
    assert len(pool.moves) == len(pool.swaps) == n
    assert pool.moves[:2] == (a.move, b.move) and pool.swaps[:2] == (a.swap, b.swap)
    assert pool.kinds.tolist() == ([1, 0] + [1] * (n - 2) + [3, 2] + [3] * (n - 2)
                                   + [1, 0] + [1] * (n - 2))
    assert pool.params.shape == (2 * n, 3)
    assert pool.params[:2].tolist() == [[1, 2, 0], [4, 0, 0]]
    assert pool.params[n:n + 2].tolist() == [[3, 0, 0], [5, 6, 7]]
    third, past = cfg.seat_entry(2), cfg.seat_entry(3)      # lowest, random swaps; no seat
    assert (third.move, third.swap) == (cfg.move_objs[2].fn, cfg.swap_objs[2].fn)
    assert third.pure is True
    assert third.move_params.tolist() == cfg.rows[2].tolist()
    assert (past.move, past.swap) == (cfg.move_objs[0].fn, cfg.swap_objs[0].fn)
    assert past.move_params.size == past.swap_params.size == 0


def test_a_config_is_set_once_and_declares_what_it_holds(cfg, batch):
    """RunConfig: checked values set by the constructor; nothing assigned afterwards (a
    changed config is a new one, dataclasses.replace); no attribute it does not declare."""
    assert cfg.strategies == ["lowest", "highest", "lowest"]
    assert cfg.swaps == ["highest-up", "none", "random"]
    assert cfg.rules == {"base": "seed", "last_player_loses": True}     # docs/position.md's JSON
    with pytest.raises(dataclasses.FrozenInstanceError):
        cfg.games = 2
    declared = {f.name for f in dataclasses.fields(RunConfig)}
    cached = {"pool", "seat_table", "rules_vector"}
    assert set(vars(cfg)) <= declared | cached
    assert set(vars(cfg)) >= declared and set(vars(cfg)) & cached   # the batch used some
    more = dataclasses.replace(cfg, games=GAMES + 1)
    assert more.games == GAMES + 1 and cfg.games == GAMES
    assert more.describe() == {**cfg.describe(), "games": GAMES + 1}
    one = RunConfig(players=3, strategies=["random"])
    assert one.strategies == ["random"] * 3 and one.swaps == ["random"] * 3   # its default


def test_a_second_process_loads_the_core_from_the_cache(batch):
    """cache=True with named-tuple arguments: a fresh process finds the compiled core on
    disk (this process has compiled and saved it) and compiles nothing."""
    import json
    import subprocess
    import sys

    code = ("import json\n"
            "from sim.kernel import referee as core\n"
            "from sim.runs.runner import RunConfig, play_batch\n"
            "play_batch(RunConfig(games=20, players=3, seed=1), 0, 20, 1)\n"
            "s = core.run_alone.stats\n"
            "print(json.dumps({'hits': sum(s.cache_hits.values()),\n"
            "                  'misses': sum(s.cache_misses.values())}))\n")
    play_batch(RunConfig(games=20, players=3, seed=1), 0, 20, 1)    # compiled here if not yet
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True,
                         text=True).stdout
    assert json.loads(out.strip().splitlines()[-1]) == {"hits": 1, "misses": 0}
