"""The ``sim`` command line (typer): the app and its commands, registered in the order of
``sim --help``. The commands live by job in :mod:`~sim.cli.run_commands` (run, replay),
:mod:`~sim.cli.study_commands` (compare, study swap, tune), :mod:`~sim.cli.tool_commands`
(analyze, play, report, rules, strategies), :mod:`~sim.cli.review_command` (review),
:mod:`~sim.cli.swap_command` (swap) and :mod:`~sim.cli.lab_command` (study rules); what they
share is :mod:`sim.cli.options`."""
from __future__ import annotations

import sys

import typer

from sim.cli import (lab_command, review_command, run_commands, study_commands,
                     swap_command, tool_commands)
from sim.kernel.version import VERSION

app = typer.Typer(add_completion=False, no_args_is_help=True, pretty_exceptions_enable=False,
                  help="Simulate the card game Shithead (rules: RULES.md R1-R26, V1, V2, "
                       "house rules H1-H17: see `sim rules`).")
study_app = typer.Typer(no_args_is_help=True, help="Studies that answer one question.")


def _print_version(wanted: bool):
    if wanted:
        typer.echo(f"sim (shithead-sim) {VERSION}")
        raise typer.Exit()


@app.callback()
def _top(version: bool = typer.Option(False, "--version", callback=_print_version,
                                      is_eager=True, help="Print the version and exit.")):
    """The options before any command: ``--version``."""

app.command()(run_commands.run)
app.command()(study_commands.compare)
app.add_typer(study_app, name="study")
study_app.command("swap")(study_commands.study_swap)
study_app.command("rules")(lab_command.study_rules)
app.command()(run_commands.replay)
app.command("review")(review_command.review_command)
app.command("rules")(tool_commands.rules_command)
app.command()(tool_commands.strategies)
app.command()(tool_commands.report)
app.command("analyze")(tool_commands.analyze_command)
app.command("play")(tool_commands.play_command)
app.command()(study_commands.tune)
app.command("swap")(swap_command.swap_command)


def main():  # console script entry point
    """``sim``: the typer app, with Python's garbage collector tuned for a short command.

    Importing Numba and loading compiled code create about a million objects, none of them
    garbage: with the default thresholds the collector ran many full passes over them during
    start-up and one more at exit. So the first generation is collected less often (cycles
    still are, and memory stays flat in long runs), and everything alive at exit is frozen
    instead of collected; frozen objects are not finalised at exit, which matters only for
    resources left open (none are: every file is closed by its ``with``, and standard output
    is flushed here).
    """
    import gc

    gc.set_threshold(100_000, 20, 20)
    try:
        app()
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        gc.freeze()       # the collection at exit would walk every object for nothing


if __name__ == "__main__":
    main()
