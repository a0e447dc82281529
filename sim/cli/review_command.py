"""``sim review GAME.json``: each decision of one seat of a saved game against the best move
by ``sim analyze``'s playouts (:mod:`sim.studies.review`; the text is
:mod:`reports.review`'s). Progress on stderr, one line a decision; Ctrl-C prints the
decisions reviewed so far. The command is declared in :mod:`sim.commands.review`."""
from __future__ import annotations

from dataclasses import replace

import typer

from sim.cli.options import json_option, one_line


def review_command(o, as_json: bool = json_option("the review")):
    """``sim review``'s printer (:class:`sim.commands.review.ReviewOptions`): the review as
    text or JSON; Ctrl-C prints the decisions reviewed so far (exit 130)."""
    from sim.commands.review import review, saved_game

    with one_line():
        saved = saved_game(o)
        done = review(replace(o, game=saved, quiet=o.quiet or as_json))
    r = done.result
    if as_json:
        from reports.review import judged_dict
        from sim.cli import jsonout
        extra = {"partial": "interrupted"} if done.partial else {}
        jsonout.echo("review", done.ruleset, {"game": str(o.game), **done.asked},
                     {**judged_dict(r), **extra})      # a tied move is no mistake
    else:
        from reports.review import describe
        typer.echo("\n".join(describe(r, _game_line(saved))))
        if o.out is not None:
            typer.echo(f"Saved to {o.out} (its page: sim report {o.out}).")
    if done.partial:
        raise typer.Exit(130)


def _game_line(saved: dict) -> str:
    where = (f"game {saved['game']} of seed {saved.get('seed')}" if saved.get("game") is not None
             else f"a game of sim play, seed {saved.get('seed')}")
    seats = ", ".join(f"{s}: {n}" for s, n in enumerate(saved["seats"]))
    from sim.kernel.ruleset import Ruleset

    return (f"Game: {where}, {saved['players']} players, rules {Ruleset.parse(saved['rules'])}, "
            f"{saved['status']}; seats {seats}.")
