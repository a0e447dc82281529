"""The Python API of a notebook: :func:`run` and :func:`compare` (``sim.run``, ``sim.compare``),
the commands of the same names with their options as keyword arguments.

Each returns what ``sim.load`` returns for the folder the command saves (``out``; without
it a temporary folder, ``result.path``), so a notebook reads a fresh run and a saved one the
same way. A progress bar shows in a terminal or a notebook unless ``quiet=True``. Ctrl-C
(``KeyboardInterrupt``) returns the result so far, as the command prints it, with
``result.summary["partial"]`` saying so; the folder keeps what ``resume=True`` continues.
Mistakes raise ``ValueError`` with the command's one-line message.
"""
from __future__ import annotations

import sys
import tempfile
from dataclasses import replace
from pathlib import Path

from sim.cli.options import make_backend, maybe_progress, parse_count, run_config, say_estimate
from sim.runs.config import DEFAULT_CAP


def _seq(value) -> list | None:
    """A per-seat option given as one value or a list of them."""
    if value is None:
        return None
    return [value] if isinstance(value, str) else list(value)


def _shown(quiet: bool) -> bool:
    """A progress bar: in a terminal, or in a notebook (IPython's kernel)."""
    return not quiet and (sys.stderr.isatty() or "ipykernel" in sys.modules)


def _folder(out) -> Path:
    return Path(out).expanduser() if out is not None else Path(tempfile.mkdtemp(
        prefix="shithead-sim-"))


def run(games=10_000, players: int = 4, seed: int = 0, strategy=None, swap=None,
        rules: str = "seed", rule=None, choose_face_ups: bool = False,
        last_player_loses: bool = False, max_turns: int = DEFAULT_CAP, threads=None,
        cycle_stop: bool = True, out=None, resume: bool = False, batch="100k",
        backend: str = "local", scheduler=None, workers=None, quiet: bool = False):
    """Play games as ``sim run`` does; the options are its own (``strategy`` and ``swap``: one
    name, or one per seat; ``rule``: ``"key=value"`` or a list of them; ``games`` and
    ``batch``: a number or text such as ``"1e6"``). Returns the run as
    :func:`sim.load` opens it (:class:`~sim.runs.saved.Loaded`: ``.by_seat``,
    ``.by_strategy``, ``.summary``, ``.games``)."""
    from sim.runs.partial import Interrupted
    from sim.runs.runner import games_to_play, run as play
    from sim.studies.saved import load

    cfg = run_config(str(games), players, seed, _seq(strategy), _seq(swap), rules,
                     choose_face_ups, last_player_loses, max_turns, threads,
                     parse_count(str(batch), "batch"), _seq(rule), cycle_stop)
    path = _folder(out)
    engine = make_backend(backend, scheduler, workers, threads)
    try:
        if engine is None:
            say_estimate([(cfg, games_to_play(cfg, path, resume))], cfg.threads, quiet)
        with maybe_progress(_shown(quiet), cfg.games, configs=[cfg], force=True) as progress:
            play(cfg, progress=progress, out=path, resume=resume, backend=engine)
    except Interrupted as e:
        return _partial_run(path, e.partial.result)
    finally:
        if engine is not None and hasattr(engine, "close"):
            engine.close()
    return load(path)


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


def compare(strategies, players: int = 4, games="100k", seed: int = 0, rules: str = "seed",
            rule=None, choose_face_ups: bool = False, last_player_loses: bool = False,
            max_turns: int = DEFAULT_CAP, threads=None, cycle_stop: bool = True,
            until_clear: bool = False, max_games=None, independent: bool = False,
            seating: str = "balanced", out=None, resume: bool = False, quiet: bool = False):
    """A tournament as ``sim compare`` plays it, with its options (``strategies``: two or
    more names). Returns the tournament as :func:`sim.load` opens it: ``.compare`` (every
    table of the command), ``.by_strategy``, ``.by_seat``, ``.games``."""
    from sim.runs.partial import Interrupted
    from sim.studies.compare import check_field, compare as play, save
    from sim.studies.saved import load

    strategies = _seq(strategies)
    check_field(strategies)
    cfg = run_config("1", players, seed, strategies[:1], None, rules, choose_face_ups,
                     last_player_loses, max_turns, threads, rule=_seq(rule))
    total = parse_count(str(games))
    cap = parse_count(str(max_games), "max_games") if max_games else total
    path = _folder(out)
    k = len(strategies)
    say_estimate([(replace(cfg, strategies=[strategies[(r + i) % k] for i in range(players)],
                           swaps=[None], preset_rows=None), (cap if until_clear else total) // k)
                  for r in range(k)], threads, quiet)
    try:
        with maybe_progress(_shown(quiet), cap if until_clear else total,
                            force=True) as progress:
            t, info = play(strategies, players=players, games=total, seed=seed,
                           rules=cfg.rules, max_turns=max_turns, threads=threads,
                           independent=independent, until_clear=until_clear, max_games=cap,
                           progress=progress, out=path, cycle_stop=cycle_stop,
                           seating=seating, resume=resume)
    except Interrupted as e:
        t, info = e.partial.result
        if not t.games:
            raise KeyboardInterrupt("interrupted before a deal was played under every "
                                    "rotation") from None
    result = t.to_dict()
    result["info"] = info
    save(path, t, info, result)
    return load(path)
