"""Our bot inside another program's own engine: trachwo/masters-of-shithead.

    python benchmarks/peer_engine.py --engine <masters-of-shithead>/src --deals 100 \\
        --players 3 --opponent DeeperShit --out benchmarks/results/peer_engine_deeper.json

Three or four players (``--players``), the peer's rules, engine and bots (its ``shithead``
package, imported from ``--engine``; it needs only numpy, not its GUI). Each deal is played
once from each dealer, the same talon every time, so that our seat holds every seat's cards
once (the peer's own ``play_ai_evaluation_round``). Our seat is a :class:`Bridge` player: at
each of its decisions it writes the peer's state as a docs/position.md position of the
``masters-of-shithead`` preset, from our seat's view where it matters (R26: our strategy reads
only the public part and its own hand; the hidden cards are filled in truly only because a
position must hold every card, and ``montecarlo`` re-deals them), and sets the cards known to
be in each hand (``KNOWN``: the peer's ``seen`` flag on hand cards, i.e. picked up from the
pile or taken from the face-ups), asks the strategy for a move, and plays that move card by
card in the peer's engine. Where the peer's turn goes on (a burn, a queen to cover) it asks
again from the new position, as our engine would (R21, H8).

The preset plays the peer's card-by-card turn (H19, play on): once our play is on the pile
and drawn for, the peer offers more cards of that rank (the ones just drawn included, and
face-up cards once the hand is empty) beside ending the turn; that is a chain here, so our
strategy is asked again from a position whose ``run`` counts the run's cards, and its
continuation is played card by card, its ``end`` ends the peer's turn. Its face-up pick-up
(H11 ``one_then_rank``) is the peer's TAKE and then as many GETs of the rank. At every
decision the peer's offered plays are checked against our legal moves in the position (the
ranks that may be played, a pick-up, ``end``, a blind turn): a decision where they differ is
*untranslatable*; a step of our move that the peer does not offer is a *mismatch* (the peer's
first offered play is played then). Both counts, with the first examples, are in the output.

Score: the peer's own (``stats.py``): when a seat goes out it scores the number of seats still
in, so with three players 2, 1, 0 (the shithead); (n - 1) / 2 is the fair share. A game stops
as soon as our seat's score is known (it went out, or is the shithead): the rest cannot change
it. A game the peer aborts (100 turns per remaining player) is counted as unfinished.

The peer's randomness is its own (Python's ``random`` module, seeded here per deal: the same
deals for every strategy of ours given the same ``--seed``), and DeeperShit's tree search runs
for a wall-clock second, so results repeat only up to that search: run nothing else beside it.
"""
from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sim.kernel import engine, referee                        # noqa: E402
from sim.kernel.layout import FU, HANDS, KNOWN, MAXP, NR, PUB  # noqa: E402
from sim.kernel.moves import is_legal_move                    # noqa: E402
from sim.kernel.position import legal_ids, move_to_dict, to_state   # noqa: E402
from sim.kernel.cards import NAMES                            # noqa: E402
from sim.kernel.rng import seed_game                          # noqa: E402
from sim.runs.config import RunConfig                         # noqa: E402

RULES = "masters-of-shithead"
CODE = {name: r for r, name in enumerate(NAMES)}


def load_engine(src: Path):
    """The peer's modules, imported from its source folder (the one holding ``shithead/``)."""
    if not (src / "shithead" / "game.py").is_file():
        sys.exit(f"error: --engine {src}: expected the peer's source folder, holding "
                 f"shithead/game.py (masters-of-shithead/src)")
    sys.path.insert(0, str(src))
    from shithead import game, play, player, state, fup_table   # noqa: F401
    return game, play, player, state, fup_table


class Bridge:
    """Our strategy at one seat of the peer's engine: plans a move, plays it card by card."""

    def __init__(self, spec: str, seed: int, mods, endgame: str | None = None,
                 players: int = 3):
        _, self.play_mod, _, self.state_mod, _ = mods
        self.players = players
        self.cfg = RunConfig(games=1, players=players, seed=seed, strategies=[spec],
                             rules=RULES)
        self.fn = self.cfg.move_objs[0].fn
        self.row = self.cfg.rows[0]
        # the two-seat endgame (stock empty), where DeeperShit searches: another strategy?
        end = RunConfig(games=1, players=players, seed=seed, strategies=[endgame or spec],
                        rules=RULES)
        self.end_fn, self.end_row = end.move_objs[0].fn, end.rows[0]
        self.rng = np.zeros(4, np.uint64)
        self.plan: list[tuple[str, str]] = []
        self.swap_plan: list[tuple[str, str]] | None = None
        self.mismatches = self.untranslatable = 0
        self.turn, self.trace, self.move = -1, [], None
        self.run = 0                      # cards of our current run on the pile (H19)
        self.examples: list[dict] = []    # the first mismatches, for the record
        self.untranslatable_examples: list[dict] = []
        self.decisions = 0
        # our decisions within a chain (H19), continue or end; and the burns where the peer's
        # KILL branch offered more cards of the rank (kept, or drawn within our play: here the
        # four burns as it is made, R22)
        self.chain = Counter()
        self.cpu = 0.0

    def new_game(self, seed: int, game_no: int, names: list[str], dealer: int) -> None:
        seed_game(self.rng, np.uint64(seed), game_no)
        self.names, self.dealer = names, dealer
        self.plan, self.swap_plan = [], None

    # -- the peer's state as our position ----------------------------------------------------
    def position(self, s, run: int = 0) -> tuple[dict, list]:
        """The peer's state as a position; ``run``: our chain's cards so far (H19), else 0."""
        n = self.players
        seat = {n: i for i, n in enumerate(self.names)}
        by_seat = {seat[p.name]: p for p in s.players}
        ranks = lambda cards: [c.rank for c in cards]          # noqa: E731
        empty = [[] for _ in range(n)]
        hands, ups, downs, known = (list(map(list, empty)) for _ in range(4))
        for i, p in by_seat.items():
            hands[i], ups[i], downs[i] = ranks(p.hand), ranks(p.face_up), ranks(p.face_down)
            known[i] = [c.rank for c in p.hand if c.seen]
        pile = ranks(s.discard.deck)
        me = s.players[s.player]
        # the direction of the turn: a run's reversals (the peer's kings) apply when the turn
        # passes, and a position holds only the run's count of cards (H19, docs/position.md)
        direction = 1 if s.direction else -1
        cover = bool(pile) and pile[-1] == "Q" and s.n_played > 0
        count = 0 if (not pile or cover) else 1        # H1 off: count restricts nothing
        # the seats out, in the order they went out (the peer scores them so)
        out = sorted((i for i in range(n) if i not in by_seat),
                     key=lambda i: -s.result[self.names[i]][0])
        pos = {"ruleset": RULES, "players": n, "current": seat[me.name],
               "direction": direction, "hands": hands, "face_up": ups, "face_down": downs,
               "stock": ranks(s.talon), "pile": pile, "count": count,
               "burned": ranks(s.killed), "removed": ranks(s.burnt), "out": out,
               "dealer": self.dealer, "run": run}
        return pos, known

    def decide(self, s, plays, run: int = 0) -> dict:
        """Our strategy's move at the peer's state (R26: public part and own hand only), the
        peer's offered ``plays`` checked against our legal moves there."""
        t = time.process_time()
        pos, known = self.position(s, run)
        st = to_state(pos)
        self.check_offer(s, plays, st, pos)
        for i, ks in enumerate(known):
            for r in ks:
                st[KNOWN + i * NR + CODE[r]] += 1
        p = pos["current"]
        obs, hand = st[:PUB], st[HANDS + p * NR:HANDS + p * NR + NR]
        legal = engine.legal_word(st)
        endgame = len(s.players) == 2 and not len(s.talon)
        fn, row = (self.end_fn, self.end_row) if endgame else (self.fn, self.row)
        m = int(fn(obs, hand, legal, self.rng, row))
        if not is_legal_move(legal, m, obs, hand):
            raise SystemExit(f"error: our strategy returned an illegal move {m} (R24)")
        self.decisions += 1
        self.cpu += time.process_time() - t
        return move_to_dict(m, st)

    def check_offer(self, s, plays, st, pos) -> None:
        """Count a decision where the peer offers other moves than our rules allow here: the
        ranks that may be played, a pick-up, ``end`` (H19), a blind turn."""
        me = s.players[s.player]
        src = {"HAND": me.hand, "FUP": me.face_up}
        peer = {("play", src[p.action][p.index].rank) for p in plays if p.action in src}
        peer |= {(a, "") for a, b in (("pickup", "TAKE"), ("end", "END"), ("blind", "FDOWN"))
                 if any(p.action == b for p in plays)}
        ours = set()
        for m in legal_ids(st):
            d = move_to_dict(m, st)
            ours.add(("play", d["play"][0]) if "play" in d else (next(iter(d)), ""))
        if peer != ours:
            self.untranslatable += 1
            if len(self.untranslatable_examples) < 10:
                self.untranslatable_examples.append(
                    {"peer_only": sorted(peer - ours), "ours_only": sorted(ours - peer),
                     "position": pos, "offered": [str(p) for p in plays]})

    def swap(self, s) -> list[str]:
        """Our swap policy's face-ups for our seat, from the dealt cards (R5, the swap phase of
        our own core, :func:`sim.kernel.referee.swap_phase`, on the peer's deal)."""
        pos, _ = self.position(s)
        pos["current"], pos["direction"] = 0, 1
        st = to_state(pos)
        pool = self.cfg.pool
        choice, err = np.zeros(MAXP, np.int64), np.zeros(3, np.int64)
        cards = np.zeros(referee.SWAP_CARDS, np.int32)
        if not referee.swap_phase(st, self.rng, pool.swaps, self.cfg.seat_table, pool.params,
                                  choice, cards, err):
            raise SystemExit("error: our swap policy made an illegal choice (R5)")
        me = self.names.index(s.players[s.player].name)
        return [NAMES[r] for r in range(NR) for _ in range(int(st[FU + me * NR + r]))]

    # -- one play of the peer's engine ---------------------------------------------------------
    def select(self, plays, s):
        Play = self.play_mod.Play
        me = s.players[s.player]
        if s.game_phase == self.state_mod.SWAPPING_CARDS:
            if self.swap_plan is None:
                want = self.swap(s)
                self.swap_plan = [("GET", "")] * len(me.face_up) + [("PUT", r) for r in want]
            if not self.swap_plan:
                return Play("END")
            act, r = self.swap_plan.pop(0)
            if act == "GET":
                return Play("GET", 0)
            return Play("PUT", next(i for i, c in enumerate(me.hand) if c.rank == r))
        if s.game_phase == self.state_mod.FIND_STARTER:
            return plays[0]                       # show the start card when we hold it
        if s.turn_count != self.turn:             # a plan lives for one turn
            self.plan, self.turn, self.trace, self.run = [], s.turn_count, [], 0
        pile = s.discard.deck
        lead = s.n_played == 0 or not pile or (pile[-1].rank == "Q" and s.discard.get_ntop() < 4)
        play = self.choose(plays, s, me)
        if play.action in ("HAND", "FUP"):        # the run's cards (H19): a lead starts one
            self.run = 1 if lead else self.run + 1
        elif play.action in ("FDOWN", "KILL", "TAKE"):
            self.run = 0
        self.trace.append(str(play))
        return play

    def choose(self, plays, s, me):
        Play = self.play_mod.Play
        acts = [p.action for p in plays]
        on_table = not len(me.hand) and len(me.face_up) and s.n_played == 0
        if len(plays) == 1 and not on_table:      # forced (refill, take, out, ...)
            if self.plan and self.fits(self.plan[0], plays[0], me):
                self.plan.pop(0)
            return plays[0]
        if not self.plan:
            run = 0
            if s.n_played > 0 and "END" in acts:
                if not ({"HAND", "FUP"} & set(acts)) or me.get_fup:
                    return Play("END")            # our move is played out
                run = self.run                    # more of the rank may follow: a chain (H19)
            elif "KILL" in acts:
                if {"HAND", "FUP"} & set(acts):   # the peer would let us add more first
                    self.chain["burn, more offered"] += 1
                return Play("KILL")               # four of a kind burns at once here (R22)
            self.move = self.decide(s, plays, run)
            if run:
                self.chain["end" if self.move.get("end") else "continue"] += 1
            self.plan = self.to_plan(self.move, me)
        step = self.plan.pop(0)
        for p in plays:
            if self.fits(step, p, me):
                return p
        if step[0] == "GET" and "END" in acts:    # no more face-ups of that rank: done
            self.plan = []
            return Play("END")
        self.mismatches += 1
        if len(self.examples) < 10:
            self.examples.append({"step": list(step), "offered": [str(p) for p in plays],
                                  "hand": [c.rank for c in me.hand],
                                  "face_up": [c.rank for c in me.face_up],
                                  "pile": [c.rank for c in s.discard.deck][-4:],
                                  "n_played": s.n_played, "move": self.move,
                                  "turn_so_far": list(self.trace)})
        self.plan = []
        return plays[0]

    @staticmethod
    def fits(step, p, me) -> bool:
        """Whether the peer's play ``p`` carries out our plan's ``step``."""
        act, r = step
        if p.action != act:
            return False
        if act in ("TAKE", "END"):
            return True
        if act == "FDOWN":
            return p.index == len(me.face_down) - 1     # our top card: the stack's last
        return (me.hand if act == "HAND" else me.face_up)[p.index].rank == r

    @staticmethod
    def to_plan(move: dict, me) -> list[tuple[str, str]]:
        if "play" in move:
            act = "HAND" if len(me.hand) else "FUP"
            return [(act, r) for r in move["play"]]
        if move.get("blind"):
            return [("FDOWN", "")]
        if move.get("end"):
            return [("END", "")]                  # H19: the chain ends, the turn passes
        plan = [("TAKE", "")]
        if "add" in move:                         # H11 one_then_rank: n face-ups of it
            n = move.get("n", sum(c.rank == move["add"] for c in me.face_up))
            plan += [("GET", move["add"])] * n
        return plan


def bridge_class(mods):
    plr = mods[2]

    class Ours(plr.AiPlayer):
        def __init__(self, name, bridge):
            super().__init__(name, None, False)
            self.bridge = bridge

        def select_play(self, plays, state):
            return self.bridge.select(plays, state)

        def copy(self):                          # the peer's State copies its players
            new = Ours(self.name, self.bridge)
            new.turn_count = self.turn_count
            new.face_down, new.face_up = self.face_down.copy(), self.face_up.copy()
            new.hand = self.hand.copy()
            new.get_fup, new.get_fup_rank = self.get_fup, self.get_fup_rank
            return new

    return Ours


def redealt_deeper(mods):
    """DeeperShit whose endgame search runs on one re-deal of the cards it cannot see (the
    engine's own ``State.simulation_state``, "we cannot use the real game state, that would
    be cheating"), as its docstring says it does: as shipped, its thread searches a copy of
    the true state, so it sees our hand and every face-down card (R26 forbids us that)."""
    plr, state_mod = mods[2], mods[3]

    class RedealtDeeper(plr.DeeperShit):
        def select_play(self, plays, state):
            endgame = not len(state.talon) and len(state.players) <= 2
            if (self.thread and self.thread_started) or not endgame or len(plays) == 1:
                return super().select_play(plays, state)
            sim = state_mod.State.simulation_state(state, self.name)
            self.thread = plr.SelectMctsThread(sim, self.timeout, self.policy, self.verbose)
            self.thread.start()
            self.thread_started = True
            return None

        def copy(self):
            new = super().copy()
            new.__class__ = RedealtDeeper
            return new

    return RedealtDeeper


def play_deal(mods, players, deal: int, seed: int, ours: str, bridge: Bridge):
    """One deal, played from each dealer: our seat's scores (None: aborted)."""
    game, play_mod, plr, state_mod, _ = mods
    Game, Play = game.Game, play_mod.Play
    random.seed(seed * 1_000_003 + deal)        # the peer's own randomness: its global module
    start = state_mod.State(players, -1, Game.calc_nof_decks(len(players)),
                            ("No Secrets", False, False, ""))
    start = Game.next_state(start, Play("SHUFFLE"))
    start = Game.next_state(start, Play("BURN"))
    names = [p.name for p in players]
    scores = []
    for dealer in range(len(players)):
        s = start.copy()
        s = Game.next_state(s, Play("DEALER", dealer))
        s = Game.next_state(s, Play("DEAL"))
        bridge.new_game(seed, deal * len(players) + dealer, names, dealer)
        random.seed(seed * 1_000_003 + deal * 7 + dealer + 1)
        score = None
        while s.game_phase != state_mod.ABORTED:
            left = [p.name for p in s.players]
            if ours not in left or len(left) == 1:   # out (scored), or the shithead
                score = s.result[ours][0]
                break
            p = s.players[s.player]
            while True:
                pl = p.play(s)
                if pl is not None:
                    break
                p.thread.join()                  # DeeperShit thinks in a thread
            if pl.action == "ABORT":
                break
            s = Game.next_state(s, pl)
        scores.append(score)
    return scores


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--engine", type=Path, required=True,
                    help="the peer's source folder (masters-of-shithead/src)")
    ap.add_argument("--strategy", default="montecarlo", help="our seat's strategy")
    ap.add_argument("--endgame-strategy", default=None,
                    help="our strategy once two seats are left and the stock is empty (the "
                         "endgame where DeeperShit searches); default --strategy")
    ap.add_argument("--opponent", default="DeeperShit",
                    choices=["CheapShit", "TakeShit", "BullShit", "DeepShit", "DeeperShit",
                             "DeeperShit-redealt"],
                    help="the peer's bot in the other seats; DeeperShit-redealt: its "
                         "endgame search on a re-deal of the hidden cards (redealt_deeper)")
    ap.add_argument("--players", type=int, default=3, choices=[3, 4],
                    help="our seat and 2 or 3 of the peer's bots")
    ap.add_argument("--deals", type=int, default=50)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=1.0, help="DeeperShit's search, seconds")
    ap.add_argument("--out", type=Path, help="the result as JSON, rewritten after every deal")
    ap.add_argument("--engine-commit", default="",
                    help="the peer's commit, recorded in the result (e.g. 56b143d)")
    a = ap.parse_args(argv)
    if a.deals < 1:
        sys.exit(f"error: --deals: expected a positive number, got {a.deals}")
    mods = load_engine(a.engine.resolve())
    plr, fup = mods[2], mods[4]
    table = fup.FupTable()
    table.load(fup.FUP_TABLE_FILE, True)
    bridge = Bridge(a.strategy, a.seed, mods, a.endgame_strategy, a.players)
    Opp = redealt_deeper(mods) if a.opponent == "DeeperShit-redealt" else getattr(plr, a.opponent)
    kw = {"timeout": a.timeout} if a.opponent.startswith("DeeperShit") else {}
    players = [bridge_class(mods)("ours", bridge)] + [Opp(f"{a.opponent}{i}", table, False, **kw)
                                                      for i in range(1, a.players)]
    t0, c0, per_deal = time.time(), time.process_time(), []

    def result():
        res = summary(per_deal, a.players)
        res.update(strategy=a.strategy, endgame_strategy=a.endgame_strategy or a.strategy,
                   opponent=a.opponent, players=a.players, seed=a.seed, timeout=a.timeout,
                   engine_commit=a.engine_commit, mismatches=bridge.mismatches,
                   mismatch_examples=bridge.examples, untranslatable=bridge.untranslatable,
                   untranslatable_examples=bridge.untranslatable_examples,
                   decisions=bridge.decisions, chain_decisions=dict(bridge.chain),
                   ms_per_decision=1000 * bridge.cpu / max(bridge.decisions, 1),
                   seconds=time.time() - t0, process_cpu_seconds=time.process_time() - c0,
                   per_deal=per_deal)
        return res

    for d in range(a.deals):
        per_deal.append(play_deal(mods, players, d, a.seed, "ours", bridge))
        done = [x for x in sum(per_deal, []) if x is not None]
        print(f"\rdeal {d + 1}/{a.deals}: {len(done)} games, mean score "
              f"{np.mean(done) if done else float('nan'):.3f}, "
              f"{time.time() - t0:.0f} s", end="", file=sys.stderr, flush=True)
        if a.out:                                # every deal: a long run loses nothing
            tmp = a.out.with_suffix(".tmp")
            tmp.write_text(json.dumps(result(), indent=1) + "\n")
            tmp.replace(a.out)
    print(file=sys.stderr)
    print(json.dumps({k: v for k, v in result().items() if k != "per_deal"}, indent=1))


def summary(per_deal, players: int = 3):
    """Mean score with its 95% interval over deals (a deal's games, one from each dealer, are
    one cluster)."""
    rows = [[x for x in d if x is not None] for d in per_deal]
    n_games = sum(map(len, rows))
    unfinished = sum(len(d) for d in per_deal) - n_games
    means = np.array([np.mean(r) for r in rows if r])
    w = np.array([len(r) for r in rows if r], float)
    mean = float(np.sum(means * w) / w.sum())
    # ratio estimator over deals: se of sum(x)/sum(n)
    tot = np.array([np.sum(r) for r in rows if r])
    k = len(tot)
    se = math.sqrt(np.sum((tot - mean * w) ** 2) / (k - 1) / k) / w.mean() if k > 1 else float("nan")
    c = Counter(x for d in per_deal for x in d if x is not None)
    return {"games": n_games, "deals": len(per_deal), "unfinished": unfinished,
            "mean_score": mean, "ci_low": mean - 1.96 * se, "ci_high": mean + 1.96 * se,
            "first_out": c[players - 1] / max(n_games, 1), "shithead": c[0] / max(n_games, 1),
            # still in at the two-seat endgame, which decided our place (DeeperShit searches it)
            "endgames": c[0] + c[1], "endgames_lost": c[0] / max(c[0] + c[1], 1),
            "fair_share": (players - 1) / 2}


if __name__ == "__main__":
    main()
