"""The ``sim`` command line (typer): the app and its commands, grouped as ``sim --help`` shows
them. The commands live by job in :mod:`~sim.cli.run_commands` (run, replay),
:mod:`~sim.cli.study_commands` (compare, study swap, study rules, tune),
:mod:`~sim.cli.tool_commands` (analyze, swap, play, report, rules, strategies) and
:mod:`~sim.cli.review_command` (review); what they share is :mod:`sim.cli.options`, and the
work of the long ones, shared with the Python API, :mod:`sim.cli.work`. Every user mistake,
the option parser's included, is one ``error:`` line and exit code 2 (:class:`_Command`)."""
from __future__ import annotations

import sys

import typer
from typer.core import TyperCommand, TyperGroup

from sim.cli import review_command, run_commands, study_commands, tool_commands


# click's UsageError as typer raises it (newer typers carry a click of their own)
UsageError = next(c for c in typer.BadParameter.__mro__ if c.__name__ == "UsageError")


def _one_line(e, ctx) -> None:
    """The parser's complaint as the project's one ``error:`` line (no usage box)."""
    message = e.format_message().rstrip(".")
    where = (e.ctx or ctx).command_path if (e.ctx or ctx) else "sim"
    typer.echo(f"error: {message[:1].lower()}{message[1:]} (see '{where} --help')", err=True)
    raise typer.Exit(2)


class _OneLineErrors:
    """A command or group whose parsing mistakes are :func:`_one_line`."""

    def parse_args(self, ctx, args):
        try:
            return super().parse_args(ctx, args)
        except UsageError as e:
            _one_line(e, ctx)


class _Command(_OneLineErrors, TyperCommand):
    pass


class _Group(_OneLineErrors, TyperGroup):
    def resolve_command(self, ctx, args):           # an unknown command
        try:
            return super().resolve_command(ctx, args)
        except UsageError as e:
            _one_line(e, ctx)

    def list_commands(self, ctx):                   # sim --help in the order registered
        return list(self.commands)


app = typer.Typer(cls=_Group, no_args_is_help=True, pretty_exceptions_enable=False,
                  help="Simulate the card game Shithead: millions of games, win rates with 95% "
                       "intervals (the rules: docs/rules.md, `sim rules`).")
study_app = typer.Typer(cls=_Group, no_args_is_help=True,
                        help="Studies: swap (which cards face up), rules (house rules).")



def _print_version(wanted: bool):
    if wanted:                      # imported here: sim.kernel loads Numba (--debug needs it not)
        from sim.kernel.version import VERSION
        typer.echo(f"sim (shithead-sim) {VERSION}")
        raise typer.Exit()


@app.callback()
def _top(version: bool = typer.Option(False, "--version", callback=_print_version,
                                      is_eager=True, help="Print the version and exit.")):
    """The options before any command: ``--version``."""


PLAY, ASK, ONE, REFERENCE = "Play games", "Answer questions", "Look at one game", "Reference"

# (function, name, panel, examples): the order of `sim --help`
COMMANDS = [
    (run_commands.run, "run", PLAY,
     ["sim run --games 1e6 --players 4", "sim run -n 250k -s lowest -s random -s counting",
      "sim run --games 1e6 --rules classic --json > summary.json"]),
    (study_commands.compare, "compare", PLAY,
     ["sim compare lowest counting montecarlo --games 12k",
      "sim compare lowest random --until-clear --out runs/cmp"]),
    (study_commands.tune, "tune", PLAY,
     ["sim tune counting --against lowest,random --trials 30 --out runs/tune"]),
    (tool_commands.report, "report", PLAY,
     ["sim report runs/cmp -o cmp.html"]),
    (tool_commands.analyze_command, "analyze", ASK,
     ["sim analyze docs/examples/midgame-seed-4p.json",
      "sim replay --seed 7 --game 12 --at 30 --json --as-mover | sim analyze -"]),
    (tool_commands.swap_command, "swap", ASK,
     ["sim swap 4 5 6 9 10 K", "sim swap 4 5 6 9 10 K --players 3 --model runs/swap"]),
    (tool_commands.play_command, "play", ONE,
     ["sim play --players 3", "sim play --load ~/.cache/shithead-sim/games/<file>.json"]),
    (run_commands.replay, "replay", ONE,
     ["sim replay --seed 7 --game 12 --players 4",
      "sim replay --file ~/.cache/shithead-sim/games/<file>.json"]),
    (review_command.review_command, "review", ONE,
     ["sim review ~/.cache/shithead-sim/games/<file>.json --out runs/review"]),
    (tool_commands.rules_command, "rules", REFERENCE,
     ["sim rules", "sim rules explain R12", "sim rules explain classic"]),
    (tool_commands.strategies, "strategies", REFERENCE, ["sim strategies"]),
]
STUDIES = [
    (study_commands.study_swap, "swap",
     ["sim study swap --players 4 --games 1e6 --out runs/swap"]),
    (study_commands.study_rules, "rules",
     ["sim study rules --players 4 --base seed --out runs/lab"]),
]


def _examples(lines) -> str:
    return "Examples:\n" + "\n".join(f"  {line}" for line in lines)


for fn, name, panel, examples in COMMANDS:
    app.command(name, cls=_Command, rich_help_panel=panel, epilog=_examples(examples))(fn)
    if name == "analyze":                           # the studies sit with the questions
        app.add_typer(study_app, name="study", rich_help_panel=ASK)
for fn, name, examples in STUDIES:
    study_app.command(name, cls=_Command, epilog=_examples(examples))(fn)


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
