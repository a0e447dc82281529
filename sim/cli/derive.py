"""The typer command of a declared command (:class:`sim.commands.declare.Command`): its
options dataclass read as typer options and arguments (names, defaults, help, completion),
then the front end's printer (the declaration's ``show``) called with the options and with
the options only the command line has (``--json``, ``--debug``), which are the printer's own
keyword parameters."""
from __future__ import annotations

import dataclasses
import functools
import importlib
import inspect
import typing

import typer

from sim.cli.options import completer, json_option


def front(command):
    """The printer of ``command``: its ``show`` (a function or ``"module:function"``), or
    :func:`plain` for a command declared without one."""
    show = command.show
    if show is None:
        return functools.partial(plain, command)
    if callable(show):
        return show
    module, _, name = show.partition(":")
    return getattr(importlib.import_module(module), name)


def plain(command, o, as_json: bool = json_option()):
    """The printer of ``command`` when it is declared without one: its result as JSON
    (docs/json.md's envelope with ``--json``), or each of its fields on a line."""
    from sim.cli import jsonout
    from sim.cli.options import one_line

    with one_line():
        done = command.work(dataclasses.replace(o, quiet=o.quiet or as_json)
                            if hasattr(o, "quiet") else o)
    result = done.result
    if hasattr(result, "_asdict"):                   # a typed partial (a NamedTuple)
        result = result._asdict()
    if not isinstance(result, dict):
        result = {"result": result}
    if as_json:
        jsonout.echo(command.name.replace(" ", "-"), done.ruleset, done.asked, result)
    else:
        for k, v in result.items():
            typer.echo(f"{k}: {v}")
    if done.partial:
        raise typer.Exit(130)


def _parameter(f: dataclasses.Field, kind) -> inspect.Parameter:
    spec = f.metadata["cli"]
    extra = {"autocompletion": completer(spec.complete)} if spec.complete else {}
    if spec.shown is not None:
        extra["show_default"] = spec.shown
    if spec.argument:
        default = typer.Argument(..., help=spec.help, **extra)
    else:
        default = typer.Option(... if spec.cli_required else f.default, *spec.names,
                               help=spec.help, **extra)
    return inspect.Parameter(f.name, inspect.Parameter.KEYWORD_ONLY, default=default,
                             annotation=kind)


def typer_command(command):
    """The function typer registers for ``command``: its signature every option of the
    declaration, then the printer's own; called, it builds the options dataclass and hands
    it to the printer."""
    show = front(command)
    own = list(inspect.signature(show).parameters.values())[1:]      # after the options
    hints = typing.get_type_hints(getattr(show, "func", show))     # a partial: its function
    names = {p.name for p in own}
    params = [_parameter(f, kind) for f, kind in command.options.fields()]
    params += [p.replace(kind=inspect.Parameter.KEYWORD_ONLY, annotation=hints[p.name])
               for p in own]

    def cli(**given):
        extra = {k: given.pop(k) for k in list(given) if k in names}
        return show(command.options(**given), **extra)

    cli.__name__ = cli.__qualname__ = command.name.replace(" ", "_")
    cli.__doc__ = command.help
    cli.__signature__ = inspect.Signature(params)
    return cli
