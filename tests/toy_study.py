"""A toy study, declared as a new study would be (docs/architecture.md, "A new study"): how
often the first seat wins, measured in blocks of games. This one module holds its options,
its work (saving each block, resuming the rest), its reader and its page; one call,
``sim.commands.register(COMMAND)``, gives it ``sim toy``, ``sim.toy(...)``, ``--resume``,
``sim.load`` and ``sim report``. tests/test_toy_study.py registers it."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple, Optional

from sim.commands.common import count, out_field, resume_field, run_config, shared
from sim.commands.declare import Command, Options, option, play
from sim.runs.kinds import Kind

RESULT = "toy.json"


@dataclass
class ToyOptions(Options):
    games: str = shared("games", "2k")
    block: int = option(500, "--block", help="Games per block (each saved as it ends).")
    players: int = shared("players")
    seed: int = shared("seed")
    out: Optional[Path] = out_field("toy.json and a block file per block")
    resume: bool = resume_field("toy study")
    quiet: bool = shared("quiet")


class ToyPartial(NamedTuple):
    """A stopped toy study: the blocks finished, and the result they give."""

    blocks: int
    result: dict


def _result(wins: list, games: int) -> dict:
    played = sum(n for _, n in wins)
    won = sum(w for w, _ in wins)
    return {"games": games, "played": played, "first_seat_wins": won,
            "first_seat_rate": won / played if played else None, "blocks": len(wins)}


def toy(o: ToyOptions):
    """Play ``games`` in blocks of ``block``, each block's first-seat wins saved in ``out``;
    ``resume`` plays the blocks not saved yet."""
    from sim.runs import folder
    from sim.runs.partial import Interrupted, Partial
    from sim.runs.runner import run

    games = count(o.games)
    folder.check_resume(o.resume, o.out, "toy study")
    where = folder.Memory() if o.out is None else o.out       # no --out: kept in memory
    saved = folder.open_for_write(where, KIND.name, options={"games": games, "players":
                                  o.players, "seed": o.seed, "block": o.block}, resume=o.resume)
    starts = range(0, games, o.block)

    def work(progress):
        wins = []
        try:
            for i, first in enumerate(starts):
                block = f"blocks/block-{i}.json"
                if saved.has(block):
                    wins.append(tuple(saved.json(block, "block")["wins"]))
                else:
                    n = min(o.block, games - first)
                    cfg = run_config(n, o.players, o.seed + i, None, None, "seed", False,
                                     False, 10_000, None)
                    tally = run(cfg)
                    wins.append((int(tally.wins[0]), n))
                    saved.write_json(block, {"wins": list(wins[-1])})
                if progress:
                    progress(sum(n for _, n in wins))
        except KeyboardInterrupt:
            result = dict(_result(wins, games), partial=f"interrupted after {len(wins)} "
                          f"blocks")
            saved.mark_partial(result["partial"], {RESULT: result})
            raise Interrupted(Partial(ToyPartial(len(wins), result), len(wins),
                                      len(starts), "blocks")) from None
        result = _result(wins, games)
        saved.finish({RESULT: result})
        return result

    return play(work, o.quiet, None, {"games": games, "out": str(o.out)}, games)


def read(saved):
    """``sim.load`` of a toy folder (on disk or in memory)."""
    from sim.studies.saved import opened, result_of

    result = result_of(saved, RESULT, "toy study")
    return opened(saved, result, overall=dict(result, games=result["played"]))


# The page (sim report): its title and its answer.
TITLE = "toy study"


def answer(page, run) -> None:
    r = run.summary["overall"]
    page.section("toy", "How often the first seat wins").text(
        f"The first seat won {r['first_seat_wins']:,} of {r['played']:,} games.")


# its folder: format 1; to resume, these options must be as saved
KIND = Kind("toy", "sim toy", RESULT, f"{__name__}:read", __name__, format=1,
            match=("games", "players", "seed", "block"), also=())
COMMAND = Command("toy", ToyOptions, toy, "How often the first seat wins (a toy study).",
                  show=None, kind=KIND, result=dict, partial=ToyPartial, python="toy",
                  examples=("sim toy --games 2k --out runs/toy",))
