"""The long commands, each declared once (:class:`~sim.commands.declare.Command`: its options
dataclass, its work, the kind of folder it saves, its result and partial types), below the
command line: ``sim.cli`` derives its typer commands from :data:`COMMANDS`
(:mod:`sim.cli.derive`), the Python API its ``sim.*`` functions (:mod:`sim.commands.api`),
``sim.load`` and ``sim report`` read the kinds the commands registered
(:data:`sim.runs.kinds.KINDS`).

A new command is one module declaring its ``Command`` and one :func:`register` call
(docs/architecture.md, "A new study"). This layer sits above :mod:`reports` (a command's
answer carries its summary lines) and below :mod:`sim.cli`; it imports neither typer nor
Numba when imported.
"""
from __future__ import annotations

from sim.commands.declare import Command

COMMANDS: dict[str, Command] = {}
_LISTENERS: list = []


def register(command: Command) -> Command:
    """Add ``command`` (its name not taken) and the kind of folder it saves
    (:func:`sim.runs.kinds.declare`); a front end listening (:func:`on_register`) gets it at
    once."""
    from sim.runs.kinds import declare

    if command.name in COMMANDS:
        raise ValueError(f"a command named {command.name!r} is already registered")
    if command.kind is not None:
        declare(command.kind)
    COMMANDS[command.name] = command
    for listener in _LISTENERS:
        listener(command)
    return command


def on_register(listener) -> None:
    """Call ``listener(command)`` for every command registered, now and later."""
    _LISTENERS.append(listener)
    for command in list(COMMANDS.values()):
        listener(command)


def by_python_name(name: str) -> Command | None:
    """The command whose ``sim.*`` function is ``name``, or None."""
    return next((c for c in COMMANDS.values() if c.python == name), None)


def _builtin():
    from sim.commands import analyze, compare, review, ruleslab, run, swap, swapstudy, tune

    for module in (run, compare, tune, analyze, swap, swapstudy, ruleslab, review):
        register(module.COMMAND)


_builtin()
