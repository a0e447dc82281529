"""The Python API of a notebook, derived from the declared commands: ``sim.run``,
``sim.compare``, ``sim.study_swap``, ``sim.study_rules``, ``sim.tune`` and ``sim.swap`` (and
any command registered with a ``python`` name) take the command's options as keyword
arguments (:func:`function`); :func:`report` is ``sim report``.

A command that saves a folder returns what ``sim.load`` returns for it, so a notebook reads
a fresh result and a saved one the same way; it writes the folder only when asked (``out``):
without it the folder is kept in memory and ``result.path`` is None (the swap study, whose
head-to-head plays its split model from a file, saves into a temporary folder). A progress bar shows in a
terminal or a notebook unless ``quiet=True``. Ctrl-C (``KeyboardInterrupt``) returns the
result so far, as the command prints it, with ``result.summary["partial"]`` saying so; a
folder keeps what ``resume=True`` continues.
Mistakes raise ``ValueError`` with the command's one-line message, an unknown keyword a
``TypeError`` naming the command's options. ``sim.swap`` saves no folder: it returns a
DataFrame (and Ctrl-C raises).
"""
from __future__ import annotations

import dataclasses
import inspect
import tempfile
from pathlib import Path

from sim.commands.declare import Command


def execute(command: Command, options):
    """Run ``command`` with ``options`` (its options dataclass) as the Python API does: a
    command that saves no folder returns its ``opened`` value (or its result); one that
    does returns its folder as :func:`sim.load` opens it, saved in ``out``, or without it
    kept in memory (:class:`~sim.runs.folder.Memory`: ``result.path`` None; a kind that
    must have files, the swap study, in a temporary folder). Ctrl-C: the result so far (as
    saved, or the declaration's ``stopped``), or, when nothing was finished yet, the
    ``KeyboardInterrupt`` saying so."""
    if command.kind is None:
        done = command.work(options)
        return command.opened(done) if command.opened else done.result
    from sim.runs import folder
    from sim.studies.saved import load, read

    if options.out is None and getattr(options, "resume", False):
        raise ValueError(f"resume=True continues the {command.name} saved in out=DIR: give "
                         f"out")
    if options.out is not None:
        where = Path(options.out).expanduser()
    elif command.kind.in_memory:
        where = folder.Memory()
    else:
        where = Path(tempfile.mkdtemp(prefix="shithead-sim-"))
    done = command.work(dataclasses.replace(options, out=where))
    try:
        return read(where) if isinstance(where, folder.Memory) else load(where)
    except ValueError:
        if done.partial is None:
            raise
    # stopped before it saved a result its reader opens
    memory = isinstance(where, folder.Memory)
    manifest = None if memory else folder.read_manifest(where, quiet=True)
    if not memory and manifest is None:                 # stopped before it was written
        raise KeyboardInterrupt(f"interrupted; nothing was saved in {where} yet (start again "
                                f"without resume=True)") from None
    if command.stopped is not None:
        return command.stopped(done, where if memory else folder.Folder(where, manifest))
    if memory:
        raise KeyboardInterrupt("interrupted before anything was finished") from None
    raise KeyboardInterrupt(f"interrupted; what was finished is in {where}, continue with "
                            f"resume=True, out={str(where)!r}") from None


def _signature(command: Command) -> inspect.Signature:
    params = []
    for f, kind in command.options.fields():
        if f.metadata["cli"].argument:
            params.append(inspect.Parameter(f.name, inspect.Parameter.POSITIONAL_OR_KEYWORD,
                                            annotation=kind))
        else:
            params.append(inspect.Parameter(f.name, inspect.Parameter.KEYWORD_ONLY,
                                            default=f.default, annotation=kind))
    return inspect.Signature(params)


def _doc(command: Command) -> str:
    saves = (f"Returns the folder it saves as :func:`sim.load` opens it (kind "
             f"``{command.kind.name}``)." if command.kind is not None else "")
    lines = [f"{command.help} As ``sim {command.name}``, its options as keyword arguments "
             f"(counts as numbers or text such as ``\"1e6\"``; a per-seat or repeatable "
             f"option one value or a list). {saves}", "", "Options:"]
    for f, _ in command.options.fields():
        spec = f.metadata["cli"]
        default = "" if spec.argument else f" = {f.default!r}"
        lines.append(f"    {f.name}{default}: {spec.help}")
    return "\n".join(lines)


def function(command: Command):
    """The ``sim.*`` function of ``command``: its arguments by position, its options by
    keyword, read into its options dataclass, then :func:`execute`."""
    name = f"sim.{command.python}"

    def call(*args, **kwargs):
        options = command.options.of(name, args, kwargs)
        return execute(command, options)

    call.__name__ = call.__qualname__ = command.python
    call.__module__ = "sim"
    call.__doc__ = _doc(command)
    call.__signature__ = _signature(command)
    return call


def report(result, output=None) -> Path:
    """The HTML page of a saved folder (a result of these calls or of :func:`sim.load`, or
    its path), as ``sim report DIR -o output`` writes it (default ``DIR/report.html``; its
    PNG and CSV files in ``<name>_files/`` beside it). Returns the page's path."""
    from reports.html import write_report

    if getattr(result, "manifest", None) is not None and result.path is None:
        raise ValueError("this result was not saved in a folder, and a page is drawn from "
                         "one: run it again with out=DIR, then sim.report(it)")
    return write_report(getattr(result, "path", result), output)[0]
