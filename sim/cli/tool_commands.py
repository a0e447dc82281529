"""The other commands: ``sim analyze`` (a position's moves), ``sim swap``'s printer (which
three of six cards to put face up, R5: the command is declared in :mod:`sim.commands.swap`),
``sim play`` (a game at the terminal), ``sim report`` (HTML), ``sim rules`` and ``sim strategies``
(what there is)."""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import List, Optional

import typer

from sim.cli.options import (
    CAP, PLAYERS, RULE, RULES, V1, V2, complete_strategy, fail, json_option,
    one_line, options_given,
)
from sim.commands.common import compile_notice, parse_count, ruleset


def analyze_command(o, as_json: bool = json_option("the answer")):
    """``sim analyze``'s printer (:class:`sim.commands.analyze.AnalyzeOptions`): the moves,
    best first, as text or JSON."""
    from reports.analysis import describe, position_line
    from sim.commands.analyze import analyze

    with one_line():
        done = analyze(replace(o, quiet=o.quiet or as_json))
    a = done.result
    if as_json:
        from sim.cli import jsonout
        jsonout.echo("analysis", done.ruleset, done.asked, {**a.info(), "moves": a.rows()})
    else:
        typer.echo("\n".join(describe(a, position_line(a.state))))


def swap_command(o, as_json: bool = json_option("the splits")):
    """``sim swap``'s printer (:class:`sim.commands.swap.SwapOptions`): the splits, best
    first, as text or JSON."""
    from sim.commands.swap import swap

    with one_line():
        done = swap(replace(o, quiet=o.quiet or as_json))
    a = done.result
    if as_json:
        from sim.cli import jsonout
        jsonout.echo("swap-advice", done.ruleset, done.asked, a)
        return
    from reports.swap import advice_lines
    typer.echo("\n".join(advice_lines(a)))


def play_command(
        ctx: typer.Context,
        players: int = PLAYERS,
        opponents: Optional[List[str]] = typer.Option(None, "--opponents",
                                                      autocompletion=complete_strategy,
                                                      help="The bots' "
                                                      "strategy: once for every bot or once per "
                                                      "bot seat in seat order (default "
                                                      "counting)."),
        rules: str = RULES, rule: Optional[List[str]] = RULE, choose_face_ups: bool = V1,
        last_player_loses: bool = V2,
        seed: Optional[int] = typer.Option(None, "--seed", help="Deal the cards of this seed "
                                           "again (game 0 of `sim run --seed S`); default: a "
                                           "new seed, printed."),
        seat: int = typer.Option(0, "--seat", help="Your seat (0 to players-1)."),
        save: Optional[Path] = typer.Option(None, "--save", help="File to save the game to, "
                                            "checked before the deal (default ~/.cache/"
                                            "shithead-sim/games/<time>-seed<seed>.json; with "
                                            "--load, the loaded file); `sim replay --file` "
                                            "shows it."),
        load: Optional[Path] = typer.Option(None, "--load", help="Continue a game saved by sim "
                                            "play (with `save` at the prompt, `quit`, Ctrl-C or "
                                            "the end of input): its own players, bots, rules "
                                            "and seed, exactly where it stopped."),
        hint_rollouts: str = typer.Option("500", "--hint-rollouts", help="Worlds per `hint` "
                                          "(sim analyze --rollouts)."),
        max_turns: int = CAP):
    """Play a game in the terminal against bots."""
    import secrets

    from sim.cli.play import Terminal, play, resume
    from sim.cli.table import Table

    try:
        n = parse_count(hint_rollouts, "--hint-rollouts")
        if load is not None:
            given = [o for o in ("players", "opponents", "rules", "rule", "choose_face_ups",
                                 "last_player_loses", "seed", "seat", "max_turns")
                     if options_given(ctx, o)]
            if given:
                fail(f"--load continues the saved game with its own players, bots, rules and "
                     f"seed; drop --{given[0].replace('_', '-')}")
            table = resume(load, n)
            save = save if save is not None else load
        else:
            if seed is None:
                seed = secrets.randbelow(2**31)                 # a new deal, said on screen
            table = Table(players, ruleset(rules, rule, choose_face_ups, last_player_loses),
                          seed, seat, list(opponents or ["counting"]), max_turns, n)
        with compile_notice(what="the game and the hint's playouts"):
            record = play(table, Terminal(), save)
    except ValueError as e:
        fail(str(e))
    except KeyboardInterrupt:                    # before play() could save (--load's set-up)
        fail("interrupted" + (f" while setting up {load}; the file is unchanged" if load else ""),
             130)
    if record["reason"] == "interrupted":
        raise typer.Exit(130)                               # Ctrl-C: saved, then stopped


def report(run_dir: Path = typer.Argument(..., help="Folder saved by sim run, sim compare or "
                                          "sim study swap with --out DIR."),
           output: Optional[Path] = typer.Option(None, "--output", "-o", help="HTML file to "
                                                 "write (default: DIR/report.html); its PNG "
                                                 "and CSV files go to <name>_files/ beside it.")):
    """Write an HTML page of any saved folder."""
    from reports.html import write_report

    try:
        files = write_report(run_dir, output)
    except ValueError as e:
        fail(str(e))
    except OSError as e:
        fail(f"cannot write the report: {e.strerror or e}"
             + (f": {e.filename}" if getattr(e, "filename", None) else ""))
    pngs = sum(f.suffix == ".png" for f in files)
    csvs = sum(f.suffix == ".csv" for f in files)
    from reports.plain import plural
    typer.echo(f"wrote {files[0]} ({plural(pngs, 'plot')} and {plural(csvs, 'table')} "
               f"also in "
               f"{files[0].parent / (files[0].stem + '_files')})")


def rules_command(words: Optional[List[str]] = typer.Argument(
                      None, metavar="[PRESET | explain ID... | ID...]",
                      help="A preset to show alone; or `explain` and rule ids (R12, H14, V2, "
                           "§11.5 or 11.5, R14-R16), option keys (ten_anywhere) or presets, "
                           "whose text from docs/rules.md is printed."),
                  as_json: bool = json_option("it")):
    """The rules: presets, house-rule options, one rule explained."""
    from sim.kernel.ruleset import PRESETS

    words = list(words or [])
    if words and (words[0] == "explain" or len(words) > 1 or words[0] not in PRESETS):
        from reports.rules_text import accepted, explain_lines, lookup

        ids = words[1:] if words[0] == "explain" else words
        if not ids:
            fail(f"sim rules explain needs what to explain: {accepted()}")
        try:
            found = [e.to_dict() for w in ids for e in lookup(w)]
        except KeyError as e:
            what = "rule" if words[0] == "explain" else "rules preset or rule"
            fail(f"unknown {what} {e.args[0]!r}; expected {accepted()}")
        if as_json:
            from sim.cli import jsonout
            jsonout.echo("rules-explain", None, {"ids": ids}, {"rules": found},
                         ensure_ascii=False)
        else:
            typer.echo("\n\n".join("\n".join(explain_lines(w)) for w in ids))
        return
    names = words or list(PRESETS)
    if as_json:
        from sim.cli import jsonout
        from sim.kernel.ruleset import OPTIONS, PRESET_NOTES
        jsonout.echo("rules", None, {"presets": names}, {
            "presets": {n: PRESETS[n].to_dict() for n in names},
            "notes": {n: PRESET_NOTES[n] for n in names},
            "rule_options": [{"key": o.key, "rule": o.rule, "meaning": o.meaning}
                             for o in OPTIONS]})
        return
    from reports.plain import rules_lines

    typer.echo("\n".join(rules_lines(names)))


def strategies(as_json: bool = json_option("them")):
    """The strategies and swap policies that can sit at a seat."""
    from sim.runs.registry import all_moves, all_swaps

    moves, swaps = all_moves().values(), all_swaps().values()
    if as_json:
        from sim.cli import jsonout
        jsonout.echo("strategies", None, {}, {"strategies": [_described(s) for s in moves],
                                              "swaps": [_described(s) for s in swaps]})
        return
    from reports.plain import strategy_lines

    typer.echo("\n".join(strategy_lines(moves, swaps)))


def _described(s) -> dict:
    """A strategy or swap policy as ``sim strategies --json`` lists it: name, description,
    default swap (strategies only), purity and parameters (default, low, high)."""
    out = {"name": s.name, "description": s.description}
    if getattr(s, "swap", None) is not None:
        out["swap"] = s.swap
    out["pure"] = bool(s.pure)
    def bound(x):                  # an open end (+-inf) is null: JSON has no infinity
        return None if isinstance(x, float) and abs(x) == float("inf") else x
    out["params"] = {k: {"default": d[0], "low": bound(d[1]), "high": bound(d[2])}
                     for k, d in (s.params or {}).items()}
    return out
