"""The game of ``sim play``: one table, a human seat and bots, played by the batch core's code.

The deal is :func:`sim.kernel.referee.deal_game` from the game's random stream (seed, game
0), the swap phase is :func:`sim.kernel.referee.swap_phase` (R5, V1; the human's choice enters
it as a fixed swap), the H16 opening is :func:`sim.kernel.referee.opening`, and every move goes
through :func:`sim.kernel.engine.apply_move` after a check against the legal word (R24). So
``--seed S`` deals the cards of game 0 of ``sim run --seed S`` with the same players and rules.
The bots are seated by :class:`~sim.runs.config.RunConfig`, as a run seats its strategies.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from reports.analysis import answer_line, describe
from reports.game import HUMAN, label, tell_move
from sim.cli.words import swap_mask
from sim.kernel import engine, referee, dealing
from sim.kernel.cards import NAMES, rank_code
from sim.kernel.layout import (
    CURRENT, EV_GAME_OVER, FU, HANDS, MAXP, NR, PUB, STATE_SIZE, STOCK, STOCKLEN, V1,
)
from sim.kernel.moves import is_legal_move
from sim.kernel.position import legal_ids, move_to_dict, move_to_id, why_illegal
from sim.kernel.rng import seed_game
from sim.kernel.ruleset import Ruleset
from sim.runs.config import RunConfig
from sim.studies.analysis import analyze_decision


@dataclass
class Table:
    """One game at the terminal: the rules, the seats, the state and what was played."""

    players: int
    rules: Ruleset
    seed: int
    seat: int = 0
    opponents: list = field(default_factory=lambda: ["counting"])
    max_turns: int = 10_000
    hint_rollouts: int = 500

    def __post_init__(self):
        self.rules.check_players(self.players)
        if not 0 <= self.seat < self.players:
            raise ValueError(f"--seat: expected a seat from 0 to {self.players - 1}, got "
                             f"{self.seat}")
        bots = self.players - 1
        names = list(self.opponents or ["counting"])
        if len(names) == 1:
            names *= bots
        if len(names) != bots:
            raise ValueError(f"--opponents: give one strategy for every bot or one per bot "
                             f"seat ({bots}), got {len(names)}")
        it = iter(names)
        self.seats = [HUMAN if s == self.seat else next(it) for s in range(self.players)]
        # The bots seated as a run seats its strategies (the seed checked there too); the
        # human's seat holds a bot's entry that never moves, and its swap is replaced by the
        # human's choice (swap).
        self.cfg = RunConfig(games=1, players=self.players, seed=self.seed,
                             strategies=[names[0] if n == HUMAN else n for n in self.seats],
                             rules=self.rules, max_turns=self.max_turns)
        self.st = np.zeros(STATE_SIZE, np.int32)
        self.rng = np.zeros(4, np.uint64)
        self.dealt = None
        self.start = None
        self.log: list[dict] = []
        self.reason = "not started"
        self.mask = None                 # the human's face-up choice (R5, V1), once made
        self.drawn: list[str] = []       # the cards the human drew with its last move (R8)

    def swap_name(self, s: int) -> str | None:
        """Seat ``s``'s swap policy (None for the human's own choice)."""
        return None if s == self.seat else self.cfg.swaps[s]

    # -- set-up -----------------------------------------------------------------------------
    def deal(self) -> None:
        """R3, R4 (H12, H13, H17): the deal of game 0 of ``seed``, as a run deals it."""
        seed_game(self.rng, np.uint64(self.seed), 0)
        referee.deal_game(self.st, self.rng, self.players, self.cfg.rules_vector)
        self.dealt = self.st.copy()

    def swap_choices(self) -> list[str]:
        """The human's cards to choose from (R5: dealt face-ups first, then the hand; V1: the
        cards dealt to the hand), as the swap phase orders them."""
        return [NAMES[r] for r in dealing.swap_choices(self.st, self.seat)]   # H12: 2 x hand size

    def choose_mask(self, text: str):
        """The human's face-up choice as a mask over :meth:`swap_choices`, or a reason."""
        return swap_mask(text, self.swap_choices(), bool(self.st[V1]))

    def swap(self, mask: int) -> None:
        """R5/V1 for every seat (the bots' policies, the human's ``mask``), then R6."""
        from strategies.swaps import given_swaps

        swaps, table, params = given_swaps(self.cfg.pool, {self.seat: int(mask)})
        choice = np.zeros(MAXP, np.int64)
        err = np.zeros(3, np.int64)
        cards = np.zeros(referee.SWAP_CARDS, np.int32)
        if not referee.swap_phase(self.st, self.rng, swaps, table, params, choice, cards, err):
            s = int(err[0])
            raise ValueError(f"swap policy {self.swap_name(s)!r} (seat {s}) returned "
                             f"{int(err[1])}, which is not a choice of half its cards (R5)")
        self.start = self.st.copy()
        self.mask = int(mask)

    def opening(self):
        """H16: the starter's forced first move, when the ruleset has one; its line."""
        log = np.full(1, -1, np.int32)
        referee.opening(self.st.copy(), log)       # which move it is: the core decides
        if log[0] < 0:
            return None
        return self.play(int(log[0]))[0]

    # -- play -------------------------------------------------------------------------------
    def label(self, s: int) -> str:
        return label(self.seats, s)

    def legal(self) -> list[int]:
        return legal_ids(self.st)

    def bot_move(self) -> int:
        """The bot to move chooses (R26: the public state and its own hand only)."""
        p = int(self.st[CURRENT])
        obs = self.st[:PUB]
        hand = self.st[HANDS + p * NR:HANDS + p * NR + NR]
        obs.flags.writeable = False
        hand.flags.writeable = False
        legal = engine.legal_word(self.st)
        m = int(self.cfg.move_objs[p].fn(obs, hand, legal, self.rng, self.cfg.rows[p]))
        if not is_legal_move(legal, m, obs, hand):      # R24; big plays too (H18)
            raise ValueError(f"strategy {self.seats[p]!r} (seat {p}) returned move id {m}, "
                             f"which is not a legal move (R24)")
        return m

    def play(self, m: int) -> tuple[str, bool]:
        """Play legal move ``m`` of the seat to move, recorded; its line, and whether the
        game is over."""
        p = int(self.st[CURRENT])
        self.log.append({"seat": p, "move": move_to_dict(m, self.st)})   # H11 n: all of them
        stock = Counter(self.st[STOCK:STOCK + self.st[STOCKLEN]].tolist())
        line, ev = tell_move(self.st, m, self.label(p))
        left = Counter(self.st[STOCK:STOCK + self.st[STOCKLEN]].tolist())
        self.drawn = [NAMES[r] for r in sorted((stock - left).elements())] \
            if p == self.seat else []
        return line, bool(ev & EV_GAME_OVER)

    def typed_id(self, move: dict) -> int:
        """The id of a move as :func:`sim.cli.words.parse` reads a typed line. An add names
        how many face-up cards go along by writing them (``add K K``): under H11
        ``one_then_rank`` one unless more are written; under ``must_add_rank`` all of them
        (written or not); otherwise one (R12). ``ValueError`` in words when the line cannot
        be such a move."""
        if "add" not in move:
            return move_to_id(move, self.st)
        n, rank = move.get("n"), move["add"]
        rule = self.rules.faceup_pickup
        if rule == "one_then_rank":
            return move_to_id({"pickup": True, "add": rank, "n": n or 1}, self.st)
        if n is None:
            return move_to_id(move)
        held = int(self.st[FU + int(self.st[CURRENT]) * NR + rank_code(rank)])
        if rule == "must_add_rank" and n == held:
            return move_to_id({"pickup": True, "add": rank})
        if rule == "must_add_rank":
            raise ValueError(f"every face-up {rank} you hold ({held}) goes along with the pile "
                             f"(H11 faceup_pickup=must_add_rank): type `add {rank}`")
        if rule == "pile_only":
            raise ValueError("no face-up card goes along with the pile (H11 "
                             "faceup_pickup=pile_only): type `pickup`")
        raise ValueError(f"one face-up card at most goes along with the pile (R12): type "
                         f"`add {rank}`")

    def why_illegal(self, move: dict) -> str | None:
        """None if ``move`` (as typed: :meth:`typed_id`) is legal here, else why not, in
        words, as the kernel says it (R24, with the rule), addressed to the human."""
        try:
            m = self.typed_id(move)
        except ValueError as e:
            return str(e).replace("seat " + str(int(self.st[CURRENT])) + " has", "you have")
        if m in self.legal():
            return None
        return why_illegal(self.st, m, self.rules, you=True)

    def hint(self) -> list[str]:
        """``sim analyze``'s answer for the human's position, hidden cards re-dealt: the
        answer's line first, then the details. The analysis is the one ``sim review`` ranks
        the decision by (:func:`sim.studies.analysis.analyze_decision`, the game's seed): the
        game's stream is untouched, and a review with ``--rollouts`` the hint's ranks this
        decision as the hint did."""
        a = analyze_decision(self.st.copy(), rollouts=self.hint_rollouts, seed=self.seed)
        return [answer_line(a)] + describe(a, from_file=False)
