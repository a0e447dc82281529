"""What the commands of ``sim`` share at the command line: the one-line error, the typer
options of the hand-written commands (replay, analyze, play: the shared ones read from
:data:`sim.commands.common.SHARED`, as the declared commands' are), shell completion, and
reading a JSON document. Counts, rules, the run configuration and the progress bar are the
commands' own, below the command line (:mod:`sim.commands.common`)."""
from __future__ import annotations

from contextlib import contextmanager

import typer

from sim.commands.common import shared_spec


def fail(message: str, code: int = 2):
    """Print ``error: message`` (one line, to stderr) and exit with ``code``."""
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code)


@contextmanager
def one_line(stopped: str = "interrupted", hint=""):
    """A user's mistake (``ValueError``) as its :func:`fail` line, exit 2; Ctrl-C as
    ``stopped`` (or the interrupt's own words) and ``hint``, exit 130; ``hint`` may be a
    function, asked when the stop comes (what was saved by then:
    :func:`sim.runs.folder.resume_advice`)."""
    try:
        yield
    except ValueError as e:
        fail(str(e))
    except KeyboardInterrupt as e:
        fail((str(e) or stopped) + (hint() if callable(hint) else hint), 130)


def resume_advice(out, what: str) -> str:
    """:func:`sim.runs.folder.resume_advice` (imported when asked: the command line loads no
    Numba before a command runs, for --debug)."""
    from sim.runs.folder import resume_advice as advice
    return advice(out, what)


# Shell completion of values (``sim run --rules <TAB>``): the names a command accepts,
# read from their one owner (the presets' table, the strategies' registry) when the shell asks.
def _names(kind: str) -> list[str]:
    if kind == "rules":
        from sim.kernel.ruleset import PRESETS
        return list(PRESETS)
    import strategies
    from sim.kernel.strategy import MOVES, SWAPS

    strategies.load()             # registers them; nothing compiles until a command runs
    return sorted(MOVES if kind == "strategy" else SWAPS)


def completer(kind: str):
    """A typer ``autocompletion`` for a name of ``kind`` (``rules``, ``strategy``, ``swap``);
    in a comma list (``--against lowest,co<TAB>``) it completes the last name."""
    def complete(incomplete: str):
        head, _, last = incomplete.rpartition(",")
        head = head + "," if head else ""
        return [head + n for n in _names(kind) if n.startswith(last)]
    return complete


complete_rules, complete_strategy, complete_swap = (completer(k) for k in
                                                     ("rules", "strategy", "swap"))


def typer_option(name: str, **change):
    """The typer option of the shared option ``name`` (:data:`sim.commands.common.SHARED`),
    its ``default`` changed if given."""
    default, spec = shared_spec(name)
    extra = {"autocompletion": completer(spec.complete)} if spec.complete else {}
    return typer.Option(change.get("default", default), *spec.names, help=spec.help, **extra)


# The shared options of the hand-written commands.
(GAMES, PLAYERS, SEED, STRATEGY, SWAP, RULES, RULE, V1, V2, CAP, CYCLE_STOP, THREADS,
 QUIET) = (typer_option(n) for n in (
    "games", "players", "seed", "strategy", "swap", "rules", "rule", "choose_face_ups",
    "last_player_loses", "max_turns", "cycle_stop", "threads", "quiet"))


def json_option(what: str = "the result"):
    """``--json``: print ``what`` as JSON (docs/json.md)."""
    return typer.Option(False, "--json", help=f"Print {what} as JSON.")


def options_given(ctx: typer.Context, *names) -> bool:
    """Did the user give any of these options (rather than leave their defaults)?"""
    return any(getattr(ctx.get_parameter_source(name), "name", "DEFAULT") not in
               ("DEFAULT", "DEFAULT_MAP") for name in names)
