"""The Python API of a notebook, derived from the declared commands: ``sim.run``,
``sim.compare``, ``sim.study_swap``, ``sim.study_rules``, ``sim.tune`` and ``sim.swap`` (and
any command registered with a ``python`` name) take the command's options as keyword
arguments (:func:`function`); :func:`report` is ``sim report``.

A command that saves a folder returns what ``sim.load`` returns for it (``out``; without it a
temporary folder, ``result.path``, except ``sim.run``, which then writes none: its
declaration's own ``python_call``), so a notebook reads a fresh run and a saved one the same
way. A progress bar shows in a terminal or a notebook unless ``quiet=True``. Ctrl-C
(``KeyboardInterrupt``) returns the result so far, as the command prints it, with
``result.summary["partial"]`` saying so; the folder keeps what ``resume=True`` continues.
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


def _folder(out) -> Path:
    return Path(out).expanduser() if out is not None else Path(tempfile.mkdtemp(
        prefix="shithead-sim-"))


def execute(command: Command, options):
    """Run ``command`` with ``options`` (its options dataclass) as the Python API does: a
    command that saves no folder returns its ``opened`` value (or its result); one that
    does saves into ``out`` or a temporary folder and returns the folder as :func:`sim.load`
    opens it. Ctrl-C: the result so far, as saved, or, when nothing loadable was saved yet,
    the ``KeyboardInterrupt`` saying so."""
    if command.kind is None:
        done = command.work(options)
        return command.opened(done) if command.opened else done.result
    from sim.studies.saved import load

    path = _folder(options.out)
    done = command.work(dataclasses.replace(options, out=path))
    try:
        return load(path)
    except ValueError:
        if done.partial is None:
            raise
        from sim.runs.folder import read_manifest

        if read_manifest(path, quiet=True) is None:     # stopped before it was written
            raise KeyboardInterrupt(f"interrupted; nothing was saved in {path} yet (start "
                                    f"again without resume=True)") from None
        raise KeyboardInterrupt(f"interrupted; what was finished is in {path}, continue "
                                f"with resume=True, out={str(path)!r}") from None


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
        if command.python_call is not None:
            return command.python_call(options)
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
