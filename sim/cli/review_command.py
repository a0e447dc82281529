"""``sim review GAME.json``: each decision of one seat of a saved game against the best move
by ``sim analyze``'s playouts (:mod:`sim.studies.review`; the text is
:mod:`reports.review`'s). Progress on stderr, one line a decision; Ctrl-C prints the
decisions reviewed so far."""
from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from sim.cli.options import (
    QUIET, fail, json_option, out_option, parse_count, say_compiling_playouts,
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
        opponents: str = typer.Option("counting", "--opponents", help="Strategy of every seat "
                                      "in the playouts, after the move reviewed."),
        out: Optional[Path] = out_option("the review (review.json, game.json): sim report DIR "
                                         "draws its page"),
        as_json: bool = json_option("the review"), quiet: bool = QUIET):
    """Review one seat's decisions in a saved game."""
    from reports.review import turn_text
    from sim.cli.savedgame import load
    from sim.runs import folder
    from sim.runs.config import check_seed
    from sim.studies import review as rv

    try:
        saved = load(game)
        n = parse_count(rollouts, "--rollouts")
        seed = rv.default_seed(saved) if seed is None else seed
        check_seed(seed)
        seat = rv.default_seat(saved) if seat is None else seat
        todo, _ = rv.plan(saved, seat)
        total = len(todo) + rv.has_swap(saved)
        if out is not None:            # checked before the review: its result is not lost
            folder.new_dir(out)
    except ValueError as e:
        fail(str(e).replace("--file: ", ""))
    if not quiet:
        say_compiling_playouts()
        typer.echo(f"reviewing {total} decisions of seat {seat} (the swap included) with "
                   f"{n:,} worlds each", err=True)

    def progress(r, d):
        if not quiet:
            typer.echo(f"  {len(r.decisions)}/{r.total}: {turn_text(d.turn)} {d.made} "
                       f"({d.seconds:.1f} s){'  mistake' if d.mistake else ''}", err=True)

    r = rv.Review(seat, 0, False, n, seed, opponents, total, 0, 0)
    try:
        rv.review(saved, seat, rollouts=n, seed=seed, opponents=opponents,
                  on_decision=progress, into=r)
    except KeyboardInterrupt:
        r.interrupted = True
    except ValueError as e:
        fail(str(e))
    if out is not None:
        try:
            rv.save(r, saved, out)
        except (ValueError, OSError) as e:
            fail(str(e))
    if as_json:
        from sim.cli import jsonout
        from sim.kernel.ruleset import Ruleset
        asked = {"game": str(game), "seat": seat, "rollouts": n, "seed": seed,
                 "opponents": opponents, "out": str(out) if out else None}
        extra = {"partial": "interrupted"} if r.interrupted else {}
        jsonout.echo("review", Ruleset.parse(saved["rules"]), asked,
                     {**r.to_dict(), **extra})
    else:
        from reports.review import describe
        typer.echo("\n".join(describe(r, _game_line(saved))))
        if out is not None:
            typer.echo(f"Saved to {out} (its page: sim report {out}).")
    if r.interrupted:
        raise typer.Exit(130)


def _game_line(saved: dict) -> str:
    where = (f"game {saved['game']} of seed {saved.get('seed')}" if saved.get("game") is not None
             else f"a game of sim play, seed {saved.get('seed')}")
    seats = ", ".join(f"{s}: {n}" for s, n in enumerate(saved["seats"]))
    from sim.kernel.ruleset import Ruleset

    return (f"Game: {where}, {saved['players']} players, rules {Ruleset.parse(saved['rules'])}, "
            f"{saved['status']}; seats {seats}.")
