"""Does the ``masters-of-shithead`` preset play like trachwo/masters-of-shithead? CheapShit at
every seat, in its engine and in ours, statistic by statistic.

    python benchmarks/peer_agreement.py peer --engine <masters-of-shithead>/src \\
        --players 2 3 4 5 6 --games 100000 --seed 1 --out peer.json
    python benchmarks/peer_agreement.py ours --players 2 3 4 5 6 --games 100000 --seed 1 \\
        --out ours.json
    python benchmarks/peer_agreement.py compare peer.json ours.json [--md table.md]

``peer`` plays the peer's own engine (its ``shithead`` package, imported from ``--engine``; it
needs numpy, not its GUI) through a copy of its own game loop, ``shithead.play_round`` as its
face-up table generator drives it (that module imports the GUI, so it is copied here, prints
and prompts left out): ``CheapShit`` at every seat, no face-up table (so no swap: its
constructor's default), the dealer of each game the previous game's shithead (random for the
first game and after an aborted one), a game aborted after 100 turns per remaining player.
``--variant`` runs it with one of docs/rules.md §11.5's remaining differences taken out, by a patch
applied here (the peer's files are never changed): ``deal-order-starter`` (§11.5.1: the starter
by rank alone, ties to the earliest seat in deal order, as H14 here), ``no-kill-faceups``
(§11.5.4: its KILL branch offers no face-up cards), ``one-card-four`` (CheapShit lays one
card of a rank outside 4..J into a four while the stock lasts, and no more: a ``cheapest``
without §11.6's four-of-a-kind clause), or several joined by ``+``.

``ours`` plays the same games in our kernel: the ``masters-of-shithead`` preset, ``cheapest``
at every seat and its default swap (``none``, as CheapShit without a table), every game replayed
move by move (:func:`sim.runs.onegame.record_game`, the batch's own games: checked against
:func:`sim.runs.batch.play_batch`) to count *player-turns* as the peer does, a turn being all of
one player's moves until the turn passes (a chain's continuations, its ``end``, a replay after
a burn or a cover are the same turn; a turn given back by a skip is a new one), and to apply the
peer's abort rule to them (a game is unfinished once its current turn number exceeds 100 times
the players still in; R25's move cap is set far above).

Both sides save the same sufficient statistics per player count (finished games only, but the
unfinished count): player-turns, pick-ups (R10, a failed blind turn included), burns (by tens
R21 and by fours R22), the turns completed before the stock ran out (the peer's own
``refill_turns``), the starter's seat and every seat's place, seats counted from the dealer's
left (0) to the dealer (n - 1); and every seat's face-up triple (after the swap: as dealt) with
its place, trachwo's ``fup_table`` definition (score = players still in when it goes out, 0
for the shithead; the key its sorted ranks). ``compare`` prints both engines' values with a
two-sample z-score per statistic and the triple tables' chi-square per degree of freedom.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import random
import sys
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

RULES = "masters-of-shithead"
PEER_RANKS = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]  # its sort
START_ORDER = ["4", "5", "6", "7", "8", "9", "J", "Q", "K", "A", "10", "2", "3"]   # H15 preset
TURNS_PER_PLAYER = 100          # the peer's MAX_NOF_TURNS_PER_PLAYER
SCALARS = ("turns", "pickups", "burns", "burns_ten", "burns_four", "stock_turns")
VARIANTS = ("deal-order-starter", "no-kill-faceups", "one-card-four")
SPREAD = {"4", "5", "6", "7", "8", "9", "J"}        # CheapShit lays all of these (§11.6)


def triple_key(ranks) -> str:
    """trachwo's face-up table key: the ranks sorted in its card order, joined by '-'."""
    return "-".join(sorted(ranks, key=PEER_RANKS.index))


class Tally:
    """One side's sufficient statistics at one player count."""

    def __init__(self, n: int):
        self.n = n
        self.games = self.unfinished = 0
        self.sums = {k: [0, 0.0, 0.0] for k in SCALARS}          # count, sum, sum of squares
        self.starter = [0] * n                                    # by seat from the dealer's left
        self.place = [[0] * n for _ in range(n)]                  # [seat][place - 1]
        self.triples = defaultdict(lambda: [0] * n)               # key -> games by place
        self.notes = defaultdict(int)                             # diagnostics, by name

    def add(self, finished: bool, values: dict, starter: int, places: list, triples: list):
        """One game: ``values`` by SCALARS (None: not reached), seats from the dealer's left."""
        self.games += 1
        if not finished:
            self.unfinished += 1
            return
        for k, v in values.items():
            if v is not None:
                s = self.sums[k]
                s[0] += 1
                s[1] += v
                s[2] += v * v
        self.starter[starter] += 1
        for seat, (pl, tr) in enumerate(zip(places, triples)):
            self.place[seat][pl - 1] += 1
            self.triples[tr][pl - 1] += 1

    def to_json(self) -> dict:
        return {"n": self.n, "games": self.games, "unfinished": self.unfinished,
                "sums": self.sums, "starter": self.starter, "place": self.place,
                "triples": dict(sorted(self.triples.items())), "notes": dict(self.notes)}


def progress(n, g, games, t0):
    """Every 2000 games, one line on stderr (overwritten): how far, and the CPU so far."""
    if (g + 1) % 2000 == 0:
        print(f"\r{n} players: {g + 1}/{games} games, {time.process_time() - t0:.0f} CPU-s",
              end="", file=sys.stderr, flush=True)


def side_result(tally, t0) -> dict:
    """A side's result for one player count: the tally's statistics and its CPU seconds."""
    print(file=sys.stderr)
    res = tally.to_json()
    res["cpu_seconds"] = time.process_time() - t0
    return res


# -- the peer's engine -------------------------------------------------------------------------
def load_engine(src: Path):
    """The peer's modules, imported from its source folder (the one holding ``shithead/``)."""
    if not (src / "shithead" / "game.py").is_file():
        sys.exit(f"error: --engine {src}: expected the peer's source folder, holding "
                 f"shithead/game.py (masters-of-shithead/src)")
    sys.path.insert(0, str(src))
    from shithead import game, play, player, state
    return game, play, player, state


def peer_side(a) -> dict:
    game, play_mod, plr, state_mod = load_engine(a.engine.resolve())
    Game, Play, State = game.Game, play_mod.Play, state_mod.State
    variant = set(a.variant.split("+")) if a.variant else set()
    bad = variant - set(VARIANTS)
    if bad:
        sys.exit(f"error: --variant: {', '.join(sorted(bad))}: expected one of "
                 f"{', '.join(VARIANTS)}, joined by +")
    if "no-kill-faceups" in variant:
        patch_no_kill_faceups(State)
    if "one-card-four" in variant:
        patch_one_card_four(plr.CheapShit, Play)
    out = {}
    for n in a.players:
        random.seed(a.seed * 1_000_003 + n)          # the peer's randomness: its global module
        tally = Tally(n)
        players = [plr.CheapShit(f"Player{i}") for i in range(n)]   # no table: no swap
        shithead = None
        t0 = time.process_time()
        for g in range(a.games):
            try:
                shithead = peer_game(Game, Play, State, state_mod, players, shithead, tally,
                                     "deal-order-starter" in variant)
            except AttributeError as e:
                # its auction's last resort reads a State.starter that does not exist: two
                # players holding the same three cards (rank and suit, two decks) tie to the
                # end of the auction. The game cannot be played there; it is left out.
                if "starter" not in str(e):
                    raise
                tally.notes["crashed_identical_hands"] += 1
                shithead = None
            progress(n, g, a.games, t0)
        out[str(n)] = side_result(tally, t0)
    return out


def patch_no_kill_faceups(State):
    """§11.5.4 taken out: in the KILL branch (four or more of a rank on top, mid-turn) the
    peer offers no face-up card, so a hand emptied into a four burns it without them."""
    legal = State.get_legal_game_plays

    def get_legal_game_plays(self):
        plays = legal(self)
        plr = self.players[self.player]
        if (self.n_played > 0 and not plr.get_fup and self.discard.get_ntop() >= 4
                and any(p.action == "KILL" for p in plays)):
            plays = [p for p in plays if p.action != "FUP"]
        return plays

    State.get_legal_game_plays = get_legal_game_plays


def patch_one_card_four(CheapShit, Play):
    """CheapShit without the KILL-branch adds of a rank it lays one at a time (outside 4..J,
    the stock not empty): its one card completes the four and the pile burns, as a
    ``cheapest`` without §11.6's "its cards complete a four: all of them" would play."""
    select = CheapShit.select_play

    def select_play(self, plays, state):
        if (any(p.action == "KILL" for p in plays) and len(state.talon)
                and state.discard.get_top_rank() not in SPREAD):
            return Play("KILL")
        return select(self, plays, state)

    CheapShit.select_play = select_play


def deal_order_starter(state, state_mod) -> int:
    """H14 (docs/rules.md): the hands after the swap, rank by rank in the preset's
    ``starter_order``, ties to the earliest seat in deal order (from the dealer's left)."""
    n = len(state.players)
    for rank in START_ORDER:
        for j in range(n):
            s = (state.dealer + 1 + j) % n
            if any(c.rank == rank for c in state.players[s].hand):
                return s
    return (state.dealer + 1) % n


def peer_game(Game, Play, State, state_mod, players, shithead, tally, deal_order) -> str | None:
    """One game of ``shithead.play_round`` (auto, no face-up table, no statistics object),
    observed play by play; returns the shithead's name (None when aborted)."""
    n = len(players)
    dealer = -1 if shithead is None else [p.name for p in players].index(shithead)
    log_info = ("No Secrets", False, False, "")
    state = State(players, dealer, Game.calc_nof_decks(n), log_info)
    state = Game.next_state(state, Play("SHUFFLE"))
    state = Game.next_state(state, Play("BURN"))
    state = Game.next_state(state, Play("DEAL"))
    seat = {p.name: i for i, p in enumerate(players)}
    rel = lambda s: (s - state.dealer - 1) % n                 # noqa: E731
    v = dict.fromkeys(SCALARS, 0)
    v["stock_turns"] = None
    starter, triples, drawn = None, None, set()
    while len(state.players) > 1:
        if state.game_phase == state_mod.FIND_STARTER and starter is None:
            ours = deal_order_starter(state, state_mod)
            if deal_order:                  # as resolve_auction does on a single bid
                state.player = ours
                state.next_player = (ours + 1) % n
                state.game_phase = state_mod.PLAY_GAME
                state.turn_count = 1
        if state.game_phase == state_mod.PLAY_GAME and starter is None:
            starter = seat[state.players[state.player].name]
            triples = [None] * n
            for p in state.players:
                triples[rel(seat[p.name])] = triple_key([c.rank for c in p.face_up])
            if starter != ours:
                tally.notes["starter_not_deal_order"] += 1
        player = state.players[state.player]
        play = player.play(state)
        if play.action == "ABORT":
            tally.add(False, v, 0, [], [])
            return None
        act = play.action
        if act in ("HAND", "FUP", "FDOWN") and state.game_phase == state_mod.PLAY_GAME:
            top = state.discard.get_top_rank()
            if (state.n_played > 0 and act != "FDOWN" and top not in (None, "Q")
                    and (player.hand if act == "HAND" else player.face_up)[play.index].rank
                    == top):
                # a card added to the run's rank (H19 here; not a cover, H8), in its KILL
                # branch (four or more on top) or not
                kill = state.discard.get_ntop() >= 4
                tally.notes["kill_branch_cards" if kill else "continued_cards"] += 1
                if act == "FUP":
                    tally.notes["kill_branch_faceup_cards" if kill
                                else "continued_faceup_cards"] += 1
                    if kill and len(state.talon):
                        tally.notes["kill_branch_faceup_cards_stock_left"] += 1
                if act == "HAND" and id(player.hand[play.index]) in drawn:
                    tally.notes["drawn_cards_added"] += 1      # drawn this turn (H19)
            rank = (player.hand if act == "HAND" else
                    player.face_up if act == "FUP" else player.face_down)[play.index].rank
        if act == "OUT" and state.discard.get_ntop() >= 4:
            tally.notes["out_on_a_four"] += 1                  # H20
        elif act == "GET":
            tally.notes["faceup_cards_picked_up"] += 1         # H11 one_then_rank
        elif act in ("END", "TAKE", "OUT"):
            drawn = set()
        before = {id(c) for c in player.hand} if act == "REFILL" else None
        state = Game.next_state(state, play)
        if before is not None:
            drawn |= {id(c) for c in player.hand} - before
        if not len(state.discard) or state.discard.get_top_rank() == "Q":
            drawn = set()                   # a burn or a cover: the next play is a lead
        if state.game_phase not in (state_mod.PLAY_GAME, state_mod.SHITHEAD_FOUND):
            continue
        if act in ("HAND", "FUP", "FDOWN"):
            if act == "FDOWN" and len(player.hand):     # blind, not playable: picked up
                v["pickups"] += 1
            elif rank == "10":
                v["burns"] += 1
                v["burns_ten"] += 1
        elif act == "TAKE":
            v["pickups"] += 1
        elif act == "KILL":
            v["burns"] += 1
            v["burns_four"] += 1
        if v["stock_turns"] is None and not len(state.talon):
            v["stock_turns"] = state.turn_count - 1      # the peer's refill_turns
    # the game is over: everyone's score (players still in when out; 0 for the shithead)
    v["turns"] = state.turn_count - 1
    places = [0] * n
    for name, (score, _) in state.result.items():
        places[rel(seat[name])] = n - score
    tally.add(True, v, rel(starter), places, triples)
    return state.players[0].name


# -- our kernel --------------------------------------------------------------------------------
def ours_side(a) -> dict:
    from sim.kernel import engine
    from sim.kernel.cards import NAMES
    from sim.kernel.layout import (BURNED, BURNS, CURRENT, DEALER, FIRST, L_ADD, L_PICKUP,
                                   NOUT, OUTORDER, PICKUPS, PLAYERS, STOCKLEN, TRIPLES)
    from sim.runs.batch import play_batch
    from sim.runs.config import RunConfig
    from sim.runs.onegame import record_game

    ten = NAMES.index("10")
    out = {}
    for n in a.players:
        cfg = RunConfig(games=a.games, players=n, seed=a.seed, strategies=["cheapest"],
                        rules=a.rules, max_turns=a.max_turns, threads=1)
        t0 = time.process_time()
        batch = play_batch(cfg, 0, a.games, 1).records
        tally = Tally(n)
        for g in range(a.games):
            rec = record_game(cfg, g)
            if len(rec.moves) != batch.turns[g]:
                sys.exit(f"error: game {g}: the replay made {len(rec.moves)} moves, the batch "
                         f"{batch.turns[g]}")
            st = rec.start.copy()
            v = dict.fromkeys(SCALARS, 0)
            v["stock_turns"] = None
            turn, new_turn, finished = 0, True, rec.status == 0
            for m in rec.moves:
                if new_turn:
                    turn += 1
                    if turn > TURNS_PER_PLAYER * (n - st[NOUT]):   # the peer's abort
                        finished = False
                        break
                mover = st[CURRENT]
                tens = st[BURNED + ten]
                burns = st[BURNS]
                engine.apply_move(st, int(m))
                if st[BURNS] > burns:
                    kind = "burns_ten" if st[BURNED + ten] > tens else "burns_four"
                    v[kind] += 1
                if v["stock_turns"] is None and st[STOCKLEN] == 0:
                    v["stock_turns"] = turn - 1
                new_turn = st[CURRENT] != mover
                if not new_turn:            # the same seat again: a new turn only if it may
                    lw = int(engine.legal_word(st))          # pick up (a skip back to it)
                    new_turn = bool((lw >> L_PICKUP) & 1 or (lw >> L_ADD) & 1)
            if finished and rec.status != 0:
                finished = False
            v["turns"] = turn
            v["burns"] = int(st[BURNS])
            v["pickups"] = int(sum(st[PICKUPS + s] for s in range(n)))
            if finished and (v["burns"] != v["burns_ten"] + v["burns_four"]
                             or v["burns"] != batch.burns[g]):
                sys.exit(f"error: game {g}: burns do not add up")
            dealer = int(st[DEALER])
            assert st[PLAYERS] == n
            rel = lambda s: (s - dealer - 1) % n            # noqa: E731
            places = [n] * n
            for i in range(n):
                s = int(st[OUTORDER + i])
                if s >= 0:
                    places[rel(s)] = i + 1
            triples = [None] * n
            for s in range(n):
                code = int(rec.start[TRIPLES + s])
                ranks = [NAMES[code // 196], NAMES[code // 14 % 14], NAMES[code % 14]]
                triples[rel(s)] = triple_key(ranks)
            if not finished:
                tally.notes["unfinished_" + ("peer_rule" if rec.status == 0 else "cap_or_cycle")] += 1
            tally.add(finished, v, rel(int(rec.start[FIRST])), places, triples)
            progress(n, g, a.games, t0)
        out[str(n)] = side_result(tally, t0)
    return out


# -- the comparison ----------------------------------------------------------------------------
def mean_se(s):
    k, t, q = s
    if k < 2:
        return float("nan"), float("nan"), k
    m = t / k
    var = max(q / k - m * m, 0.0) * k / (k - 1)
    return m, math.sqrt(var / k), k


def z_of(ma, sa, mb, sb):
    se = math.hypot(sa, sb)
    return (ma - mb) / se if se > 0 else float("nan")


def prop(k, n):
    p = k / n if n else float("nan")
    return p, math.sqrt(p * (1 - p) / n) if n else float("nan")


def rows_for(A: dict, B: dict) -> list[tuple]:
    """(statistic, a, b, z) for one player count: every statistic both sides read."""
    n = A["n"]
    rows = []
    pa, sa = prop(A["unfinished"], A["games"])
    pb, sb = prop(B["unfinished"], B["games"])
    rows.append(("unfinished, % of games", 100 * pa, 100 * pb, z_of(pa, sa, pb, sb)))
    label = {"turns": "game length, player-turns", "pickups": "pick-ups per game",
             "burns": "burns per game", "burns_ten": "  of which by a 10 (R21)",
             "burns_four": "  of which by four of a kind (R22)",
             "stock_turns": "player-turns before the stock ran out"}
    for k in SCALARS:
        ma, sa, _ = mean_se(A["sums"][k])
        mb, sb, _ = mean_se(B["sums"][k])
        rows.append((label[k], ma, mb, z_of(ma, sa, mb, sb)))
    fa, fb = sum(A["starter"]), sum(B["starter"])
    for s in range(n):
        pa, sa = prop(A["starter"][s], fa)
        pb, sb = prop(B["starter"][s], fb)
        rows.append((f"starts: seat {seat_name(s, n)}, %", 100 * pa, 100 * pb,
                     z_of(pa, sa, pb, sb)))
    for s in range(n):
        for pl in range(n - 1) if n > 2 else range(1):   # the last place is the rest
            pa, sa = prop(A["place"][s][pl], fa)
            pb, sb = prop(B["place"][s][pl], fb)
            what = "shithead" if pl == n - 1 else f"place {pl + 1}"
            rows.append((f"seat {seat_name(s, n)} {what}, %", 100 * pa, 100 * pb,
                         z_of(pa, sa, pb, sb)))
    return rows


def seat_name(s: int, n: int) -> str:
    return "dealer" if s == n - 1 else f"+{s + 1}"


def triple_chi2(A: dict, B: dict, min_games: int = 50) -> dict:
    """Per face-up triple, trachwo's score (players still in when out, 0: shithead) compared
    between the sides: sum of z^2 over cells with at least ``min_games`` seat-games on each
    side, the sparser cells pooled into one; each cell's variance is its pooled within-cell
    variance. Returns chi2, degrees of freedom (the cells), their ratio and the cells."""
    n = A["n"]
    score = np.arange(n - 1, -1, -1, dtype=float)    # place 1 scores n - 1 ... shithead 0
    keys = sorted(set(A["triples"]) | set(B["triples"]))
    cells, pooled_a, pooled_b = [], np.zeros(n), np.zeros(n)
    for k in keys:
        ca = np.array(A["triples"].get(k, [0] * n), float)
        cb = np.array(B["triples"].get(k, [0] * n), float)
        if ca.sum() >= min_games and cb.sum() >= min_games:
            cells.append((k, ca, cb))
        else:
            pooled_a += ca
            pooled_b += cb
    npooled = len(keys) - len(cells)
    if pooled_a.sum() >= 2 and pooled_b.sum() >= 2:
        cells.append((f"pooled ({npooled} sparse cells)", pooled_a, pooled_b))
    chi2, table = 0.0, []
    for k, ca, cb in cells:
        na, nb = ca.sum(), cb.sum()
        ma, mb = ca @ score / na, cb @ score / nb
        tot = ca + cb
        m = tot @ score / tot.sum()
        var = (tot @ (score - m) ** 2) / (tot.sum() - 1)
        z = (ma - mb) / math.sqrt(var / na + var / nb) if var > 0 else 0.0
        chi2 += z * z
        table.append({"triple": k, "n_a": int(na), "mean_a": ma, "n_b": int(nb),
                      "mean_b": mb, "z": z})
    dof = len(cells)
    ma_ = np.array([t["mean_a"] for t in table])
    mb_ = np.array([t["mean_b"] for t in table])
    return {"chi2": chi2, "dof": dof, "ratio": chi2 / dof if dof else float("nan"),
            "p": chi2_sf(chi2, dof), "pooled_cells": npooled, "min_games": min_games,
            "corr": float(np.corrcoef(ma_, mb_)[0, 1]) if dof > 2 else float("nan"),
            "cells": table}


def chi2_sf(x, k):
    try:
        from scipy.stats import chi2
        return float(chi2.sf(x, k))
    except ImportError:                                  # pragma: no cover
        return float("nan")


def homogeneity(ca, cb) -> tuple[float, int]:
    """Pearson's chi-square of a 2 x k table (two samples' counts over k classes), its dof."""
    t = np.array([ca, cb], float)
    t = t[:, t.sum(0) > 0]
    e = t.sum(1, keepdims=True) * t.sum(0, keepdims=True) / t.sum()
    return float(((t - e) ** 2 / e).sum()), t.shape[1] - 1


def compact(A_all: dict, B_all: dict, ns: list, min_games: int) -> list[str]:
    """One table over the player counts: each statistic as "a / b (z)"."""
    cols = {}
    for n in ns:
        A, B = A_all["sides"][n], B_all["sides"][n]
        rows = rows_for(A, B)
        cell = {}
        for what, va, vb, z in rows[:1 + len(SCALARS)]:
            cell[what] = f"{va:.3f} / {vb:.3f} ({z:+.1f})"
        k = int(n)
        for what, va, vb, z in rows[1 + len(SCALARS):1 + len(SCALARS) + k]:
            if what.startswith(("starts: seat +1", "starts: seat dealer")):
                cell[what] = f"{va:.2f} / {vb:.2f} ({z:+.1f})"
        x2, dof = homogeneity(A["starter"], B["starter"])
        cell["starter, every seat: chi2 / dof (p)"] = f"{x2:.1f} / {dof} ({chi2_sf(x2, dof):.2g})"
        zs = np.array([r[3] for r in rows[1 + len(SCALARS) + k:]])
        cell["places, every seat: cells with \\|z\\| > 2, of; largest \\|z\\|"] = (
            f"{int((abs(zs) > 2).sum())} of {len(zs)}; {abs(zs).max():.1f}")
        tri = triple_chi2(A, B, min_games)
        cell["face-up triples: chi2 / dof = ratio (p)"] = (
            f"{tri['chi2']:.0f} / {tri['dof']} = {tri['ratio']:.2f} ({tri['p']:.2g})")
        cols[n] = cell
    keys = list(dict.fromkeys(k for c in cols.values() for k in c))
    lines = ["| statistic | " + " | ".join(f"{n} players" for n in ns) + " |",
             "|---" * (len(ns) + 1) + "|"]
    for k in keys:
        lines.append(f"| {k} | " + " | ".join(cols[n].get(k, "") for n in ns) + " |")
    return lines


def compare(a) -> None:
    A_all, B_all = json.loads(a.a.read_text()), json.loads(a.b.read_text())
    name_a, name_b = a.names
    ns = sorted(set(A_all["sides"]) & set(B_all["sides"]), key=int)
    lines = [f"Each cell: {name_a} / {name_b} (z, two-sample).", ""]
    lines += compact(A_all, B_all, ns, a.min_games)
    summary = {}
    for n in ns:
        A, B = A_all["sides"][n], B_all["sides"][n]
        rows = rows_for(A, B)
        lines.append(f"\n**{n} players** ({name_a}: {A['games']} games, {name_b}: "
                     f"{B['games']} games)\n")
        lines.append(f"| statistic | {name_a} | {name_b} | z |")
        lines.append("|---|---|---|---|")
        for what, va, vb, z in rows:
            flag = " **" if abs(z) >= 3 else ""
            lines.append(f"| {what} | {va:.3f} | {vb:.3f} | {z:+.2f}{flag} |")
        zs = np.array([r[3] for r in rows if not math.isnan(r[3])])
        tri = triple_chi2(A, B, a.min_games)
        summary[n] = {"stats": len(zs), "abs_z_over_2": int((abs(zs) > 2).sum()),
                      "abs_z_over_3": int((abs(zs) > 3).sum()),
                      "max_abs_z": float(abs(zs).max()),
                      "triples": {k: v for k, v in tri.items() if k != "cells"}}
        lines.append(f"\n{len(zs)} statistics: |z| > 2 for {summary[n]['abs_z_over_2']}, "
                     f"> 3 for {summary[n]['abs_z_over_3']}, largest {abs(zs).max():.2f}. "
                     f"Face-up triples (score by triple): chi2/dof = {tri['chi2']:.1f}/"
                     f"{tri['dof']} = {tri['ratio']:.2f} (p = {tri['p']:.3g}; "
                     f"{tri['pooled_cells']} cells under {a.min_games} seat-games pooled), "
                     f"correlation of the cell means {tri['corr']:.3f}")
    text = "\n".join(lines)
    print(text)
    if a.md:
        a.md.write_text(text + "\n")
    if a.json:
        a.json.write_text(json.dumps(summary, indent=1) + "\n")


def shipped_table(a) -> None:
    """trachwo's shipped face_up_table.json (3 players) against a side's 3-player table."""
    src = json.loads((a.engine / "shithead" / "face_up_table.json").read_text())
    side = json.loads(a.side.read_text())["sides"]["3"]
    score = np.array([2.0, 1.0, 0.0])
    chi2 = dof = 0
    for k, (tot, games, _) in src.items():
        c = np.array(side["triples"].get(k, [0, 0, 0]), float)
        if games < a.min_games or c.sum() < a.min_games:
            continue
        m = c @ score / c.sum()
        var = (c @ (score - m) ** 2) / (c.sum() - 1)
        z = (tot / games - m) / math.sqrt(var / games + var / c.sum())
        chi2 += z * z
        dof += 1
    print(f"shipped table vs {a.side.name}: chi2/dof = {chi2:.1f}/{dof} = {chi2 / dof:.2f} "
          f"(p = {chi2_sf(chi2, dof):.3g})")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    for name in ("peer", "ours"):
        p = sub.add_parser(name)
        p.add_argument("--players", type=int, nargs="+", default=[2, 3, 4, 5, 6])
        p.add_argument("--games", type=int, default=10_000, help="games per player count")
        p.add_argument("--seed", type=int, default=1)
        p.add_argument("--out", type=Path, required=True,
                       help="JSON file; these player counts are added to it (or replaced)")
        if name == "peer":
            p.add_argument("--engine", type=Path, required=True,
                           help="the peer's source folder (masters-of-shithead/src)")
            p.add_argument("--variant", default="",
                           help=f"one of {', '.join(VARIANTS)} (or several joined by +)")
            p.add_argument("--engine-commit", default="")
        else:
            p.add_argument("--rules", default=RULES)
            p.add_argument("--max-turns", type=int, default=100_000,
                           help="R25's cap in moves, far above the peer's abort rule")
    c = sub.add_parser("compare")
    c.add_argument("a", type=Path)
    c.add_argument("b", type=Path)
    c.add_argument("--names", nargs=2, default=["trachwo", "ours"])
    c.add_argument("--min-games", type=int, default=50,
                   help="triples with fewer seat-games on either side are pooled")
    c.add_argument("--md", type=Path)
    c.add_argument("--json", type=Path)
    s = sub.add_parser("shipped")
    s.add_argument("--engine", type=Path, required=True)
    s.add_argument("side", type=Path)
    s.add_argument("--min-games", type=int, default=50)
    a = ap.parse_args(argv)
    if a.cmd == "compare":
        return compare(a)
    if a.cmd == "shipped":
        return shipped_table(a)
    if a.games < 1:
        sys.exit(f"error: --games: expected a positive number, got {a.games}")
    t0 = time.time()
    sides = peer_side(a) if a.cmd == "peer" else ours_side(a)
    meta = {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(a).items()}
    meta.update(seconds=time.time() - t0, load=os.getloadavg(),
                date=time.strftime("%Y-%m-%d %H:%M"))
    old = json.loads(a.out.read_text()) if a.out.exists() else {"runs": [], "sides": {}}
    meta["players"] = list(sides)
    old["runs"].append(meta)                # the file keeps every player count's latest run
    old["sides"].update(sides)
    a.out.write_text(json.dumps(old) + "\n")
    for n, s in sides.items():
        print(f"{a.out}: {n} players, {s['games']} games ({s['unfinished']} unfinished), "
              f"{s['cpu_seconds']:.0f} CPU-s")


if __name__ == "__main__":
    main()
