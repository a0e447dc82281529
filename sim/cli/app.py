"""The ``sim`` command line (typer): the app and its commands, grouped as ``sim --help`` shows
them. The long commands (run, compare, tune, swap, review, study swap, study rules) are
declared in :mod:`sim.commands`, their typer commands derived (:mod:`sim.cli.derive`) and
their printers by job in :mod:`~sim.cli.run_commands`, :mod:`~sim.cli.study_commands`,
:mod:`~sim.cli.tool_commands` and :mod:`~sim.cli.review_command`, beside the hand-written
commands (replay, analyze, play, report, rules, strategies); what they share is
:mod:`sim.cli.options`. Every user mistake,
the option parser's included, is one ``error:`` line and exit code 2 (:class:`_Command`)."""
from __future__ import annotations

import sys

import typer
from typer.core import TyperCommand, TyperGroup

from sim.cli import run_commands, tool_commands


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

# The hand-written commands: name -> (function, panel, examples); the long commands are
# declared in sim.commands, each with its panel and examples.
HAND_WRITTEN = {
    "report": (tool_commands.report, PLAY, ["sim report runs/cmp -o cmp.html"]),
    "play": (tool_commands.play_command, ONE,
             ["sim play --players 3",
              "sim play --load ~/.cache/shithead-sim/games/<file>.json"]),
    "replay": (run_commands.replay, ONE,
               ["sim replay --seed 7 --game 12 --players 4",
                "sim replay --file ~/.cache/shithead-sim/games/<file>.json"]),
    "rules": (tool_commands.rules_command, REFERENCE,
              ["sim rules", "sim rules explain R12", "sim rules explain classic"]),
    "strategies": (tool_commands.strategies, REFERENCE, ["sim strategies"]),
}
# The order of `sim --help`; a command registered later (sim.commands.register) comes last.
ORDER = ["run", "compare", "tune", "report", "analyze", "study", "swap", "play", "replay",
         "review", "rules", "strategies"]


def _examples(lines) -> str:
    return "Examples:\n" + "\n".join(f"  {line}" for line in lines)


def install(command) -> None:
    """Add a declared command (:class:`sim.commands.declare.Command`) to the app, its typer
    command derived from the declaration (:func:`sim.cli.derive.typer_command`); a name of
    two words (``study swap``) goes under its group."""
    from sim.cli.derive import typer_command

    group, _, name = command.name.rpartition(" ")
    target = {"": app, "study": study_app}.get(group)
    if target is None:
        raise ValueError(f"{command.name!r}: sim has no command group {group!r}")
    if any(c.name == name for c in target.registered_commands):
        return
    extra = {} if group else {"rich_help_panel": command.panel}
    target.command(name, cls=_Command, epilog=_examples(command.examples),
                   **extra)(typer_command(command))


def _install_all() -> None:
    from sim.commands import COMMANDS, on_register

    for name in ORDER:
        if name in HAND_WRITTEN:
            fn, panel, examples = HAND_WRITTEN[name]
            app.command(name, cls=_Command, rich_help_panel=panel,
                        epilog=_examples(examples))(fn)
        elif name == "study":                        # the studies sit with the questions
            app.add_typer(study_app, name="study", rich_help_panel=ASK)
        else:
            install(COMMANDS[name])
    on_register(install)                         # the study commands, and any added later


_install_all()


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
