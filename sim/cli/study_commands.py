"""The printers of the commands that answer a question with many games: ``sim compare``,
``sim study swap``, ``sim study rules`` (the rules lab) and ``sim tune``; each command is
declared, its options and work, in :mod:`sim.commands`."""
from __future__ import annotations

from dataclasses import replace

import typer

from sim.cli.options import json_option, one_line, resume_advice


def compare(o, as_json: bool = json_option()):
    """``sim compare``'s printer (:class:`sim.commands.compare.CompareOptions`): the tables,
    as text or JSON; Ctrl-C prints the finished blocks, marked partial (exit 130)."""
    from sim.commands.compare import compare as play

    with one_line(hint=lambda: resume_advice(o.out, "the finished blocks are")):
        done = play(replace(o, quiet=o.quiet or as_json))
    result = done.result
    if done.partial:
        result["partial"] = "interrupted" + resume_advice(o.out, "the finished blocks are")
    if as_json:
        from sim.cli import jsonout
        jsonout.echo("compare", done.ruleset, done.asked, {**result, "seconds": done.seconds})
    else:
        from reports.text import print_compare
        if done.partial:
            typer.echo(f"PARTIAL ({result['partial']}): {result['games']:,} of "
                       f"{done.asked['games']:,} games")
        print_compare(result, done.seconds)
    if done.partial:
        raise typer.Exit(130)


def study_swap(o, as_json: bool = json_option("the study")):
    """``sim study swap``'s printer (:class:`sim.commands.swapstudy.SwapStudyOptions`)."""
    from sim.commands.swapstudy import study_swap as play

    with one_line():
        done = play(replace(o, quiet=o.quiet or as_json))
    if done.partial:
        _study_partial(done.partial, o.out, as_json, done.seconds, done.ruleset)
    study = dict(done.result, seconds=done.seconds)
    if as_json:
        from sim.cli import jsonout
        jsonout.echo("study-swap", done.ruleset, done.asked, study)
    else:
        from reports.text import print_study
        print_study(study)


def _study_partial(partial, out, as_json, seconds, ruleset):
    """Ctrl-C in the swap study: the values stage's games so far (a run's summary, labelled
    PARTIAL) and the head-to-heads finished; exit 130."""
    tally, h2h = partial.result.tally, partial.result.head_to_head
    what = (f"interrupted in the {partial.stage} stage"
            + resume_advice(out, "the games so far are"))
    if as_json:
        result = tally.to_dict()
        result["partial"] = what
        result["head_to_head"] = h2h
        from sim.cli import jsonout
        jsonout.echo("study-swap", ruleset, {"out": str(out)}, {**result, "seconds": seconds})
    else:
        from reports.text import print_summary
        print_summary(tally, seconds, partial=what + " (the values stage, random swaps)")
        for r in h2h:
            typer.echo(f"head-to-head, split against {r['policy']}: {100 * r['diff']:+.2f} "
                       f"points per seat (95% CI {100 * r['ci_low']:+.2f} to "
                       f"{100 * r['ci_high']:+.2f}), {r['games']:,} games")
    raise typer.Exit(130)


def study_rules(o, as_json: bool = json_option("the study")):
    """``sim study rules``'s printer (:class:`sim.commands.ruleslab.RulesLabOptions`)."""
    from sim.commands.ruleslab import study_rules as play

    with one_line():
        done = play(replace(o, quiet=o.quiet or as_json))
    if done.partial:                    # the lab so far (a LabPartial)
        result = dict(done.result.lab, seconds=done.seconds)
        result["partial"] += resume_advice(o.out, "the rulesets measured are")
    else:
        result = dict(done.result, seconds=done.seconds)
    if as_json:
        from sim.cli import jsonout
        jsonout.echo("study-rules", done.ruleset, done.asked, result)
    else:
        from reports.lab_text import ruleslab_lines
        if done.partial:
            typer.echo(f"PARTIAL ({result['partial']})")
        typer.echo("\n".join(ruleslab_lines(result)))
    if done.partial:
        raise typer.Exit(130)


def tune(o, as_json: bool = json_option()):
    """``sim tune``'s printer (:class:`sim.commands.tune.TuneOptions`)."""
    from sim.commands.tune import tune as play

    with one_line(hint=lambda: resume_advice(o.out, "the finished trials are")):
        done = play(replace(o, quiet=o.quiet or as_json))
    if done.partial:
        _tune_partial(done.partial, o.out, as_json, done.ruleset)
    result = dict(done.result, seconds=done.seconds)
    if as_json:
        from sim.cli import jsonout
        jsonout.echo("tune", done.ruleset, {**result.pop("options"), **done.asked}, result)
        return
    from reports.plain import tune_lines

    typer.echo("\n".join(tune_lines(result, result["options"]["against"], o.players,
                                     done.ruleset.last_player_loses)))


def _tune_partial(partial, out, as_json, ruleset):
    """Ctrl-C in sim tune: the trials finished and the best so far, labelled PARTIAL (not
    checked on fresh deals); exit 130."""
    done, best = partial.result.trials, partial.result.best
    what = (f"interrupted during {partial.stage}, after {len(done)} of {partial.of} trials"
            + resume_advice(out, "they are"))
    if as_json:
        from sim.cli import jsonout
        jsonout.echo("tune", ruleset, {"out": str(out) if out else None},
                     {"partial": what, "trials": done, "best": best})
    else:
        typer.echo(f"PARTIAL ({what})")
        if best is not None:
            typer.echo(f"best so far (trial {best['number']}, not checked on fresh deals): "
                       f"{best['spec']}: {100 * best['value']:.2f}% (95% CI "
                       f"{100 * best['ci_low']:.2f}% - {100 * best['ci_high']:.2f}%)")
    raise typer.Exit(130)
