"""The kinds of saved folder, each declared once: the manifest's ``kind``, the command that
saves it, the file it writes when finished, whether the command resumes it, the function
that opens it (``sim.load``) and the module that draws its page (``sim report``).

Every other part reads this table: :func:`sim.studies.saved.load` (the readers), the advice
for an unfinished folder (:func:`sim.runs.saved.unfinished`), the pages
(:func:`reports.html.page_module`). The readers and pages are named as strings, so that
this module, low in the layers, imports none of them (each is imported when asked for).
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Kind:
    """A kind of saved folder: ``name`` (the manifest's ``kind``), ``command`` (what saves
    it), ``result`` (the file written when it is finished), ``resume`` (the command has
    ``--resume``), ``reader`` (``module:function(root, manifest)`` returning a
    :class:`~sim.runs.saved.Loaded`) and ``page`` (the module of its HTML page)."""

    name: str
    command: str
    result: str
    reader: str
    page: str
    resume: bool = True


KINDS = {k.name: k for k in (
    Kind("run", "sim run", "summary.json", "sim.runs.saved:read", "reports.html.run"),
    Kind("compare", "sim compare", "compare.json", "sim.studies.compare:read",
         "reports.html.compare"),
    Kind("swap-study", "sim study swap", "study.json", "sim.studies.swapstudy.study:read",
         "reports.html.study"),
    Kind("tune", "sim tune", "tune.json", "sim.studies.tune:read", "reports.html.tune"),
    Kind("rules-lab", "sim study rules", "ruleslab.json", "sim.studies.ruleslab.study:read",
         "reports.html.ruleslab"),
    # a review is short: it has no --resume, it is run again
    Kind("review", "sim review", "review.json", "sim.studies.review:read",
         "reports.html.review", resume=False),
)}



def declare(kind: Kind) -> None:
    """Add a new kind (a study registered by :func:`sim.commands.register`); a built-in kind
    again is nothing new, another kind of the same name a mistake."""
    known = KINDS.get(kind.name)
    if known is not None and known != kind:
        raise ValueError(f"a kind of folder named {kind.name!r} is already declared")
    KINDS[kind.name] = kind


def saved_text() -> str:
    """"the --out folder of sim run, ... or sim review": the commands that save a folder."""
    commands = [k.command for k in KINDS.values()]
    return f"the --out folder of {', '.join(commands[:-1])} or {commands[-1]}"


def kind_of(name: str, root=None) -> Kind:
    """The :class:`Kind` named ``name``; ``ValueError`` naming the known kinds if none is
    (a folder saved by another version, ``root``)."""
    if name not in KINDS:
        where = f"{root} holds a folder of kind {name!r}" if root else f"kind {name!r}"
        raise ValueError(f"{where}, which this version of shithead-sim cannot open (known "
                         f"kinds: {', '.join(KINDS)})")
    return KINDS[name]
