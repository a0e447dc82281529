"""The commands that play games of a run: ``sim run``'s printer (the command is declared in
:mod:`sim.commands.run`) and ``sim replay``."""
from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path
from typing import List, Optional

import typer

from sim.cli.options import (
    CAP, CYCLE_STOP, GAMES, PLAYERS, RULE, RULES, SEED, STRATEGY, SWAP, V1, V2, fail,
    json_option, one_line, resume_advice,
)
from sim.commands.common import compile_notice, run_config


def _debug_mode():
    """``--debug``: Numba compiles nothing when ``NUMBA_DISABLE_JIT`` is set before it is
    imported, which the command has not done yet (sim.kernel.compiler.DEBUG)."""
    import os

    if "numba" in sys.modules:
        import numba

        if not numba.config.DISABLE_JIT:
            fail("--debug: Numba is already loaded in this process; set NUMBA_DISABLE_JIT=1 "
                 "before starting Python instead")
    os.environ["NUMBA_DISABLE_JIT"] = "1"
    # The random streams and bit counts work modulo 2**64 (sim/kernel/rng.py, moves.py), as
    # compiled; uncompiled, NumPy warns at each wrap. Those warnings are the tool's, not the
    # user's: silenced for the kernel's modules only (a strategy's own overflow still shows).
    import warnings
    warnings.filterwarnings("ignore", message="overflow encountered", category=RuntimeWarning,
                            module=r"sim\.kernel\.")


def run(o, as_json: bool = json_option("the summary"),
        debug: bool = typer.Option(False, "--debug", help="Run uncompiled, as plain Python "
                                   "(NUMBA_DISABLE_JIT=1), on one thread: a breakpoint in a "
                                   "strategy stops there. About 300 times slower; same games.")):
    """``sim run``'s printer (its options: :class:`sim.commands.run.RunOptions`): the summary
    as text or JSON; Ctrl-C prints the games so far, marked partial (exit 130)."""
    from sim.commands.run import run as play

    if debug:
        _debug_mode()
        o = replace(o, threads=1)
    with one_line("interrupted before any game was played"):
        done = play(replace(o, quiet=o.quiet or as_json),
                    meanwhile=None if as_json else "reports.text")
    partial = done.partial and "interrupted" + resume_advice(o.out, "the finished batches are")
    if as_json:
        from sim.cli import jsonout
        result = done.result.to_dict()
        del result["config"]
        extra = {"partial": partial} if partial else {}
        jsonout.echo("run", done.ruleset, done.asked, {**result, "seconds": done.seconds,
                                                       **extra})
    else:
        from reports.text import print_summary
        print_summary(done.result, done.seconds, partial=partial)
    if partial:
        raise typer.Exit(130)


def replay(game: Optional[int] = typer.Option(None, "--game", "-g", help="Index of the game "
                                               "(from 0)."),
           games: str = GAMES, players: int = PLAYERS, seed: int = SEED,
           strategy: Optional[List[str]] = STRATEGY, swap: Optional[List[str]] = SWAP,
           rules: str = RULES, rule: Optional[List[str]] = RULE, choose_face_ups: bool = V1,
           last_player_loses: bool = V2, max_turns: int = CAP, cycle_stop: bool = CYCLE_STOP,
           file: Optional[Path] = typer.Option(None, "--file", help="Show a game saved by "
                                               "sim play instead."),
           save: Optional[Path] = typer.Option(None, "--save", help="Also save the game to "
                                               "this file as sim play saves one (for sim "
                                               "review GAME.json, sim replay --file)."),
           at: Optional[int] = typer.Option(None, "--at", help="Show the position before "
                                            "this turn (turns from 1, as the replay numbers "
                                            "them) instead of the game."),
           as_mover: bool = typer.Option(False, "--as-mover", help="With --at: the cards the "
                                         "seat to move cannot see written \"?\" (R26), a view "
                                         "sim analyze reads."),
           as_json: bool = typer.Option(False, "--json", help="With --at: print the position "
                                        "as docs/position.md JSON, ready for "
                                        "sim analyze.")):
    """Show one game turn by turn, or a position of it."""
    from reports.game import replay_lines
    from sim.commands.savedgame import check_writable, load, run_record, save as save_game
    from sim.runs.runner import RunError, record_game

    try:
        if save is not None:
            save = check_writable(save)            # before the game is replayed
        if (as_mover or as_json) and at is None:
            raise ValueError("--json and --as-mover go with --at TURN (the position before "
                             "that turn)")
        if file is not None:
            saved = load(file)
        else:
            if game is None:
                raise RunError("--game: give the index of a game of the run (or --file PATH "
                               "for a game saved by sim play)")
            cfg = run_config(games, players, seed, strategy, swap, rules, choose_face_ups,
                             last_player_loses, max_turns, None, rule=rule,
                             cycle_stop=cycle_stop)
            if not 0 <= game < 10**15:
                raise RunError(f"--game: expected a game index from 0 to 10**15 - 1, got "
                               f"{game}")
            cfg = replace(cfg, games=max(cfg.games, game + 1))     # the run reaches the game
            with compile_notice(not as_json, "the rules, step by step"):
                rec = record_game(cfg, game)
                saved = run_record(cfg, game, rec)
        with compile_notice(not as_json, "the rules, step by step"):
            if at is not None:
                lines = _position_at(saved, at, as_mover, as_json)
            elif file is not None:
                from reports.game import describe_saved
                lines = describe_saved(saved)
            else:
                lines = replay_lines(cfg, game, rec)
        if save is not None:
            path = save_game(saved, save)
            typer.echo(f"Saved to {path} (review it with: sim review {path} --seat S).",
                       err=True)
    except (RunError, ValueError) as e:
        fail(str(e))
    typer.echo("\n".join(lines))


def _position_at(saved: dict, at: int, as_mover: bool, as_json: bool) -> list[str]:
    """``--at``: the position before turn ``at`` of a saved game, as JSON or as its seat to
    move sees it at the table."""
    import json

    from sim.kernel.layout import CURRENT
    from sim.studies.review import state_at

    st = state_at(saved, at)
    if as_json:
        from sim.kernel.position import to_position
        from sim.studies.view import to_view
        pos = (to_view if as_mover else to_position)(st, saved["rules"])
        return [json.dumps(pos)]
    from reports.game import table_view
    p = int(st[CURRENT])
    return ([f"Before turn {at}: seat {p} to move."] + table_view(st, p, saved["seats"])
            + [f"(--json prints it as docs/position.md JSON for sim analyze; --as-mover with the "
               f"cards seat {p} cannot see written \"?\")"])
