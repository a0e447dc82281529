"""``sim review GAME.json``: each decision of one seat of a saved game against the best move
by ``sim analyze``'s playouts (:mod:`sim.studies.review`; its text :mod:`reports.review`'s)."""
from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from sim.commands.common import compile_notice, count, out_field, shared
from sim.commands.declare import Command, Options, argument, option, play
from sim.runs.kinds import KINDS


@dataclass
class ReviewOptions(Options):
    game: Path = argument("A game saved by sim play, or by sim replay ... --save.")
    seat: Optional[int] = option(None, "--seat", help="The seat to review (default: the "
                                 "human's seat of a game of sim play).")
    rollouts: str = option("300", "--rollouts", help="Worlds per decision that rank every "
                           "legal move (the swap: every distinct choice of face-up cards), "
                           "each played out once in each, as hint ranks them; as many fresh "
                           "worlds then measure the best against the move made.")
    seed: Optional[int] = option(None, "--seed", help="Seed of the playouts (default: the "
                                 "game's own, the seed sim play's hint used; a turn is analysed "
                                 "with seed + the turns played, as hint does); the same seed "
                                 "gives the same review.")
    opponents: str = option("counting", "--opponents", complete="strategy", help="Strategy of "
                            "every seat in the playouts, after the move reviewed.")
    out: Optional[Path] = out_field("the review (review.json, game.json): sim report DIR "
                                    "draws its page")
    threads: Optional[int] = shared("threads")
    quiet: bool = shared("quiet")


def saved_game(o: ReviewOptions) -> dict:
    """The game to review: ``game`` as read from its file (or given as the dict)."""
    from sim.commands.savedgame import load

    if isinstance(o.game, dict):
        return o.game
    try:
        return load(o.game)
    except ValueError as e:
        raise ValueError(str(e).replace("--file: ", "")) from None


def review(o: ReviewOptions):
    """The review: ``result`` is the :class:`~sim.studies.review.Review`, saved in ``out``
    if given (on Ctrl-C, of the decisions reviewed so far, saved marked partial); unless
    ``quiet``, a line on stderr for each decision."""
    from reports.review import turn_text
    from sim.kernel.ruleset import Ruleset
    from sim.studies import review as rv

    game = saved_game(o)
    n = count(o.rollouts, "--rollouts", "review --rollouts")
    asked = {"seat": o.seat, "rollouts": n, "seed": o.seed, "opponents": o.opponents,
             "out": str(o.out) if o.out else None}

    def say(text):
        if not o.quiet:
            print(text, file=sys.stderr, flush=True)

    def start(r):
        say(f"reviewing {r.total} decisions of seat {r.seat} (the swap included) with {n:,} "
            f"worlds each")

    def progress(r, d):
        say(f"  {len(r.decisions)}/{r.total}: {turn_text(d.turn)} {d.made} "
            f"({d.seconds:.1f} s){'  mistake' if d.mistake else ''}")

    with compile_notice(not o.quiet, "the game and its playouts"):
        done = play(lambda _: rv.review(game, o.seat, rollouts=n, seed=o.seed,
                                        opponents=o.opponents, out=o.out, on_start=start,
                                        on_decision=progress, threads=o.threads),
                    True, Ruleset.parse(game["rules"]), asked)
    done.asked.update(seat=done.result.seat, seed=done.result.seed)     # as resolved
    return done


COMMAND = Command(
    "review", ReviewOptions, review, "Review one seat's decisions in a saved game.",
    show="sim.cli.review_command:review_command", panel="Look at one game",
    kind=KINDS["review"], result="sim.studies.review:Review",
    partial="sim.studies.review:Review",
    examples=("sim review ~/.cache/shithead-sim/games/<file>.json --out runs/review",))
