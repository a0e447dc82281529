"""The kinds of saved folder, each declared once: the manifest's ``kind``, the command that
saves it, the files it writes when finished, its format, what must match to resume it,
whether the command resumes it, the function that opens it (``sim.load``) and the module
that draws its page (``sim report``).

Every other part reads this table: :func:`sim.runs.folder.open_for_write` (format, match,
result files), :func:`sim.studies.saved.load` (the readers), the advice for an unfinished
folder (:func:`sim.runs.saved.unfinished`), the pages (:func:`reports.html.page_module`). The readers and pages are named as strings, so that
this module, low in the layers, imports none of them (each is imported when asked for).
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Kind:
    """A kind of saved folder: ``name`` (the manifest's ``kind``), ``command`` (what saves
    it), ``result`` (the file written when it is finished), ``reader``
    (``module:function(folder)`` returning a :class:`~sim.runs.saved.Loaded`, the folder a
    :class:`~sim.runs.folder.Folder` on disk or in memory), ``page`` (the module of its HTML
    page), ``format`` (the version of its files), ``match`` (the names of the facts that must
    be as saved to continue it, :func:`sim.runs.folder.open_for_write`), ``also`` (its other
    files written at the end, removed when it resumes), ``resume`` (the command has
    ``--resume``) and ``in_memory`` (a Python call without ``out=`` keeps it in memory)."""

    name: str
    command: str
    result: str
    reader: str
    page: str
    format: int = 1
    match: tuple = ()
    also: tuple = ("summary.json",)
    resume: bool = True
    in_memory: bool = True

    @property
    def results(self) -> tuple:
        """Every file written at the end: the result, then the others."""
        return (self.result, *self.also)


KINDS = {k.name: k for k in (
    # format 2: the columns unfinished_by and cycle_turns (games proven endless are stopped,
    # sim.kernel.cycle); 3: summary.json's overall.cycle_stop and neighbours are facts, not
    # words (sim.runs.tally); 4: per-seat columns for 8 seats (two decks seat 8, H18).
    # To resume: the options, the batch size (the saved batches are its games) and each
    # seat's strategy identity.
    Kind("run", "sim run", "summary.json", "sim.runs.saved:read", "reports.html.run",
         format=4, match=("options", "batch", "strategies"), also=()),
    # 2: info.cycle_stop is facts, not words (sim.runs.tally.cycle_facts); 3: per-seat record
    # columns for 8 seats (sim.runs.store, H18). To resume: the plan (what decides the games
    # and the blocks).
    Kind("compare", "sim compare", "compare.json", "sim.studies.compare:read",
         "reports.html.compare", format=3, match=("plan",)),
    # 2: values.json's cycle_stop and neighbours are facts (sim.runs.tally); 3: per-seat
    # record columns for 8 seats (sim.runs.store, H18). To resume: the options and the batch
    # size. Never only in memory: its head-to-head plays the split model from its file
    # (split.csv), and sim.swap(model=DIR) reads it.
    Kind("swap-study", "sim study swap", "study.json", "sim.studies.swapstudy.study:read",
         "reports.html.study", format=3, match=("options", "batch"),
         also=("values.json", "summary.json", "split_cov.npz"), in_memory=False),
    # To resume: every option but the number of trials and the final check's games (more
    # of either continues the same search).
    Kind("tune", "sim tune", "tune.json", "sim.studies.tune:read", "reports.html.tune",
         match=("strategy", "against", "players", "games_per_trial", "seed", "rules",
                "max_turns", "cycle_stop", "space")),
    # To resume: the plan (every option that decides the games and the stopping).
    Kind("rules-lab", "sim study rules", "ruleslab.json", "sim.studies.ruleslab.study:read",
         "reports.html.ruleslab", match=("plan",)),
    # a review is short: it has no --resume, it is run again
    Kind("review", "sim review", "review.json", "sim.studies.review:read",
         "reports.html.review", also=(), resume=False),
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
