"""``sim review GAME.json``: each decision of one seat of a saved game against the best move
by ``sim analyze``'s playouts (:mod:`sim.studies.review`; the text is
:mod:`reports.review`'s). Progress on stderr, one line a decision; Ctrl-C prints the
decisions reviewed so far."""
from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from sim.cli.options import (
    QUIET, THREADS, complete_strategy, fail, json_option, one_line, out_option,
)


def review_command(
        game: Path = typer.Argument(..., help="A game saved by sim play, or by sim replay "
                                    "... --save."),
        seat: Optional[int] = typer.Option(None, "--seat", help="The seat to review (default: "
                                           "the human's seat of a game of sim play)."),
        rollouts: str = typer.Option("300", "--rollouts", help="Worlds per decision that "
                                     "rank every legal move (the swap: every distinct choice "
                                     "of face-up cards), each played out once in each, as "
                                     "hint ranks them; as many fresh worlds then measure the "
                                     "best against the move made."),
        seed: Optional[int] = typer.Option(None, "--seed", help="Seed of the playouts "
                                           "(default: the game's own, the seed sim play's "
                                           "hint used; a turn is analysed with seed + the "
                                           "turns played, as hint does); the same seed gives "
                                           "the same review."),
        opponents: str = typer.Option("counting", "--opponents", autocompletion=complete_strategy,
                                      help="Strategy of every seat "
                                      "in the playouts, after the move reviewed."),
        out: Optional[Path] = out_option("the review (review.json, game.json): sim report DIR "
                                         "draws its page"),
        threads: Optional[int] = THREADS,
        as_json: bool = json_option("the review"), quiet: bool = QUIET):
    """Review one seat's decisions in a saved game."""
    from sim.cli import work
    from sim.cli.savedgame import load

    try:
        saved = load(game)
    except ValueError as e:
        fail(str(e).replace("--file: ", ""))
    with one_line():
        done = work.review(saved, seat=seat, rollouts=rollouts, seed=seed, opponents=opponents,
                           out=out, threads=threads, quiet=quiet)
    r = done.result
    if as_json:
        from reports.review import judged_dict
        from sim.cli import jsonout
        extra = {"partial": "interrupted"} if done.partial else {}
        jsonout.echo("review", done.ruleset, {"game": str(game), **done.asked},
                     {**judged_dict(r), **extra})      # a tied move is no mistake
    else:
        from reports.review import describe
        typer.echo("\n".join(describe(r, _game_line(saved))))
        if out is not None:
            typer.echo(f"Saved to {out} (its page: sim report {out}).")
    if done.partial:
        raise typer.Exit(130)


def _game_line(saved: dict) -> str:
    where = (f"game {saved['game']} of seed {saved.get('seed')}" if saved.get("game") is not None
             else f"a game of sim play, seed {saved.get('seed')}")
    seats = ", ".join(f"{s}: {n}" for s, n in enumerate(saved["seats"]))
    from sim.kernel.ruleset import Ruleset

    return (f"Game: {where}, {saved['players']} players, rules {Ruleset.parse(saved['rules'])}, "
            f"{saved['status']}; seats {seats}.")
