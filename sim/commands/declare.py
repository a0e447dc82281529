"""How a long command is declared, once: its options as a dataclass (each field's default,
the names and help the command line shows, what completes its value), the function doing its
work, the kind of folder it saves (:class:`sim.runs.kinds.Kind`: result files, format, what
must match to resume, resume, reader, page), its result and partial types, and the front
end's printer. Everything else is derived from the :class:`Command`: the typer command
(:func:`sim.cli.derive.typer_command`), the ``sim.*`` function
(:func:`sim.commands.api.function`: the folder kept in memory without ``out``), ``sim.load``
and ``sim report`` (through the kind), ``--resume`` (the option is in the dataclass exactly
when the kind resumes, tests/test_kinds.py; the folder checked against the kind's format
and match, :func:`sim.runs.folder.open_for_write`).

>>> @dataclass
... class ToyOptions(Options):
...     games: str = option("1k", "--games", "-n", help="Games to play.")
>>> register(Command("toy", ToyOptions, work=toy, help="A toy study.", kind=Kind(...)))
"""
from __future__ import annotations

import dataclasses
import time
import typing
from dataclasses import dataclass, field
from typing import Callable


@dataclass(frozen=True)
class Spec:
    """What the command line shows of an option: its ``names`` (``("--games", "-n")``; none:
    an argument), ``help``, what ``complete``\\s its value (``rules``, ``strategy``, ``swap``),
    whether the command line requires it (``cli_required``: the Python API has a default)
    and the default ``--help`` shows (``shown``) where None stands for it."""

    names: tuple
    help: str
    complete: str | None = None
    cli_required: bool = False
    shown: str | None = None         # the default --help shows for a None that means it

    @property
    def argument(self) -> bool:
        return not self.names


def option(default, *names: str, help: str, complete: str | None = None,
           cli_required: bool = False, shown: str | None = None):
    """A field of an options dataclass: ``default`` and what the command line shows."""
    return field(default=default, metadata={"cli": Spec(tuple(names), help, complete,
                                                        cli_required, shown)})


def argument(help: str, complete: str | None = None):
    """A required field given by position (``sim compare A B``, ``sim.compare([A, B])``)."""
    return field(metadata={"cli": Spec((), help, complete)})


class Options:
    """The base of a command's options dataclass: its fields in order, with their types as
    declared, and a call's keyword arguments read into it (unknown ones refused, naming the
    command's options)."""

    @classmethod
    def fields(cls) -> list[tuple[dataclasses.Field, object]]:
        """(field, its type) of every option, in the order declared."""
        hints = typing.get_type_hints(cls)
        return [(f, hints[f.name]) for f in dataclasses.fields(cls)]

    @classmethod
    def of(cls, command: str, args: tuple, kwargs: dict):
        """The options of a Python call: ``args`` fill the arguments in order; ``TypeError``
        naming an unknown keyword and the known ones."""
        names = [f.name for f, _ in cls.fields()]
        arguments = [f.name for f, _ in cls.fields() if f.metadata["cli"].argument]
        if len(args) > len(arguments):
            raise TypeError(f"{command}() takes {len(arguments)} positional argument(s) "
                            f"({', '.join(arguments) or 'none'}), got {len(args)}")
        given = dict(zip(arguments, args))
        for k, v in kwargs.items():
            if k not in names:
                raise TypeError(f"{command}() got an unexpected keyword argument {k!r} (its "
                                f"options: {', '.join(names)})")
            if k in given:
                raise TypeError(f"{command}() got multiple values for {k!r}")
            given[k] = v
        missing = [a for a in arguments if a not in given]
        if missing:
            raise TypeError(f"{command}() missing required argument(s): {', '.join(missing)}")
        return cls(**given)

    def asdict(self) -> dict:
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}


@dataclass
class Done:
    """What a command did: ``result`` (of the command's ``result`` type), ``seconds`` of play
    (not the estimate before it, which may compile), ``ruleset``, ``asked`` (the options as
    used, ``--json``'s ``options``) and, when Ctrl-C stopped the play, ``partial`` (a
    :class:`~sim.runs.partial.Partial` whose ``result`` is of the command's ``partial``
    type)."""

    result: object
    seconds: float
    ruleset: object
    asked: dict
    partial: object = None


@dataclass(frozen=True)
class Command:
    """A long command, declared once.

    ``name``: the words after ``sim`` (``"study swap"``); ``options``: its :class:`Options`
    dataclass; ``work(options, **front)``: plays and returns a :class:`Done` (``front``: what
    only the command line passes, such as ``meanwhile``); ``help`` and ``examples``: ``sim
    --help``'s; ``kind``: the :class:`~sim.runs.kinds.Kind` of the folder it saves (None: it
    saves none); ``result``/``partial``: the types of ``Done.result`` and of a stop's
    ``Partial.result``; ``show``: ``"module:function"`` of the front end printing a
    :class:`Done`; ``python``: the name of its ``sim.*`` function (None: none);
    ``opened(done)``: what the Python function returns for a command that saves no
    folder (``sim swap``: a DataFrame; default: the result); ``stopped(done, folder)``: what
    it returns when Ctrl-C stopped a command before it saved a result its reader opens
    (``sim.run``: the tally so far; default: a ``KeyboardInterrupt`` saying what was kept),
    :func:`sim.commands.api.execute`."""

    name: str
    options: type
    work: Callable
    help: str
    show: str
    examples: tuple = ()
    kind: object = None
    result: object = None
    partial: object = None
    python: str | None = None
    panel: str = "Answer questions"
    opened: Callable | None = None
    stopped: Callable | None = None


def play(work, quiet, ruleset, asked, total=None, label="games", configs=None,
         engine=None) -> Done:
    """``work(progress)`` under the progress bar (:class:`sim.commands.common.maybe_progress`;
    its time left: this run's own speed); the Dask ``engine``, if any, closed after. A stop (:class:`~sim.runs.partial.Interrupted`)
    is the :class:`Done`'s ``partial``."""
    from sim.commands import common
    from sim.runs.partial import Interrupted

    t0 = time.perf_counter()
    try:
        with common.maybe_progress(not quiet, total, label, configs=configs) as progress:
            result = work(progress)
        return Done(result, time.perf_counter() - t0, ruleset, asked)
    except Interrupted as e:
        return Done(e.partial.result, time.perf_counter() - t0, ruleset, asked, e.partial)
    finally:
        if engine is not None and hasattr(engine, "close"):
            engine.close()
