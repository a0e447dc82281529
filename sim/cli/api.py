"""The Python API of a notebook: :func:`run`, :func:`compare`, :func:`study_swap`,
:func:`study_rules`, :func:`tune` and :func:`swap` (``sim.run``, ...), the commands ``sim run``,
``sim compare``, ``sim study swap``, ``sim study rules``, ``sim tune`` and ``sim swap`` with
their options as keyword arguments; :func:`report`, ``sim report``.

Each returns what ``sim.load`` returns for the folder the command saves (``out``; without
it a temporary folder, ``result.path``), so a notebook reads a fresh run and a saved one the
same way. A progress bar shows in a terminal or a notebook unless ``quiet=True``. Ctrl-C
(``KeyboardInterrupt``) returns the result so far, as the command prints it, with
``result.summary["partial"]`` saying so; the folder keeps what ``resume=True`` continues.
Mistakes raise ``ValueError`` with the command's one-line message. ``sim swap`` saves no
folder: :func:`swap` returns a DataFrame (and Ctrl-C raises). The work of each call is the
command's own (:mod:`sim.cli.work`).
"""
from __future__ import annotations

import tempfile
from pathlib import Path

from sim.cli import work


def _folder(out) -> Path:
    return Path(out).expanduser() if out is not None else Path(tempfile.mkdtemp(
        prefix="shithead-sim-"))


def _saved(command, options: dict):
    """Run ``command`` (a :mod:`sim.cli.work` function) with a call's options into ``out`` or
    a temporary folder; the folder as :func:`sim.load` opens it. Ctrl-C: the result so far, as saved (a
    run's: its tally, the summary ``sim run`` prints), or, when nothing loadable was saved
    yet, the ``KeyboardInterrupt``."""
    from sim.studies.saved import load

    path = _folder(options.get("out"))
    done = command(**{**options, "out": path})
    if done.partial is not None and command is work.run:
        return _partial_run(path, done.result)
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


def _partial_run(path: Path, tally):
    """An interrupted run: its tally so far as the summary (as ``sim run`` prints it); the
    folder's per-game records are those of the whole batches saved."""
    import pandas as pd

    from sim.runs import folder
    from sim.runs.saved import Loaded, parts_of

    summary = tally.to_dict()
    summary["partial"] = (f"interrupted: {tally.games:,} of {tally.cfg.games:,} games; "
                          f"continue with resume=True, out={str(path)!r}")
    return Loaded(path=path, manifest=folder.read_manifest(path) or {}, summary=summary,
                  by_seat=pd.DataFrame(summary.get("by_seat", [])),
                  by_strategy=pd.DataFrame(summary.get("by_strategy", [])),
                  parts=parts_of(path))


def run(**options):
    """Play games as ``sim run`` does, with its options (:func:`sim.cli.work.run`:
    ``strategy`` and ``swap``: one name, or one per seat; ``rule``: ``"key=value"`` or a list
    of them; ``games`` and ``batch``: a number or text such as ``"1e6"``). Returns the run as
    :func:`sim.load` opens it (:class:`~sim.runs.saved.Loaded`: ``.by_seat``,
    ``.by_strategy``, ``.summary``, ``.games``)."""
    return _saved(work.run, options)


def compare(strategies, **options):
    """A tournament of ``strategies`` (two or more names) as ``sim compare`` plays it, with
    its options (:func:`sim.cli.work.compare`). Returns the tournament as :func:`sim.load`
    opens it: ``.compare`` (every table of the command), ``.by_strategy``, ``.by_seat``,
    ``.games``."""
    return _saved(work.compare, dict(options, strategies=strategies))


def study_swap(**options):
    """The swap study as ``sim study swap`` runs it, with its options
    (:func:`sim.cli.work.study_swap`). Returns the study as :func:`sim.load` opens it (kind
    ``swap-study``: ``.study``, ``.summary``, ``.games``); Ctrl-C returns the folder so far
    (``.summary["partial"]``; ``resume=True`` continues)."""
    return _saved(work.study_swap, options)


def study_rules(**options):
    """The rules lab as ``sim study rules`` runs it, with its options
    (:func:`sim.cli.work.study_rules`; ``rule``, ``only``: one or a list). Returns it as
    :func:`sim.load` opens it (kind ``rules-lab``); Ctrl-C returns the folder so far where
    one was saved (``resume=True`` continues)."""
    return _saved(work.study_rules, options)


def tune(strategy, against, **options):
    """A tuning of ``strategy`` against the field ``against`` (names separated by commas, or
    a list) as ``sim tune`` runs it (optuna), with its options (:func:`sim.cli.work.tune`;
    ``param``: one or a list). Returns it as :func:`sim.load` opens it (kind ``tune``:
    ``.tune``); Ctrl-C returns the folder so far where it can be opened, else the
    ``KeyboardInterrupt`` goes on (the trials finished are in ``out``, ``resume=True``
    continues)."""
    return _saved(work.tune, dict(options, strategy=strategy, against=against))


def swap(cards, **options):
    """Which three of six cards to put face up, as ``sim swap`` answers it, with its options
    (:func:`sim.cli.work.swap`; ``cards``: ``"4 5 6 9 10 K"`` or a list; by playouts, 4
    players and the seed rules unless given; ``model``: a saved swap study's folder, its
    players and rules, used instead of playouts, when no playout option ``deals``,
    ``strategy``, ``max_turns``, ``seed`` is given). Returns the splits as a pandas
    DataFrame, best first (columns face_up, hand, value, low, high, vs_best, ...);
    ``df.attrs`` holds the rest of the answer (``answer``, ``summary``, ``best``, ``usual``,
    ``tie``, ``deals``, ...). It saves no folder: Ctrl-C raises ``KeyboardInterrupt``."""
    import pandas as pd

    a = work.swap(cards, **options)
    df = pd.DataFrame(a.pop("splits"))
    df.attrs.update(a)
    return df


def report(result, output=None) -> Path:
    """The HTML page of a saved folder (a result of these calls or of :func:`sim.load`, or
    its path), as ``sim report DIR -o output`` writes it (default ``DIR/report.html``; its
    PNG and CSV files in ``<name>_files/`` beside it). Returns the page's path."""
    from reports.html import write_report

    return write_report(getattr(result, "path", result), output)[0]
