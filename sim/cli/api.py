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
folder: :func:`swap` returns a DataFrame (and Ctrl-C raises). The logic a command and its
call share lives beside the command (``advise``, ``lab_counts``, ``tune_budget``).
"""
from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from sim.cli.options import (
    make_backend, maybe_progress, parse_count, phase_of, ruleset, run_config, say_estimate,
)
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
    from sim.studies.compare import check_field, compare as play, estimate_plan, save
    from sim.studies.saved import load

    strategies = _seq(strategies)
    check_field(strategies)
    cfg = run_config("1", players, seed, strategies[:1], None, rules, choose_face_ups,
                     last_player_loses, max_turns, threads, rule=_seq(rule))
    total = parse_count(str(games))
    cap = parse_count(str(max_games), "max_games") if max_games else total
    path = _folder(out)
    say_estimate(estimate_plan(cfg, strategies, cap if until_clear else total), threads, quiet)
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


def _saved_so_far(path: Path):
    """An interrupted study: its folder as :func:`sim.load` opens it (the partial result the
    command prints), or, when nothing loadable was saved yet, the ``KeyboardInterrupt``."""
    from sim.studies.saved import load
    try:
        return load(path)
    except ValueError:
        raise KeyboardInterrupt(f"interrupted; what was finished is in {path}, continue "
                                f"with resume=True, out={str(path)!r}") from None


def study_swap(players: int = 4, games="100k", h2h_games=None, seed: int = 0,
               rules: str = "seed", rule=None, choose_face_ups: bool = False,
               last_player_loses: bool = False, max_turns: int = DEFAULT_CAP, threads=None,
               cycle_stop: bool = True, strategy: str = "lowest", out=None,
               resume: bool = False, quiet: bool = False):
    """The swap study as ``sim study swap`` runs it, with its options. Returns the study as
    :func:`sim.load` opens it (kind ``swap-study``: ``.study``, ``.summary``, ``.games``);
    Ctrl-C returns the folder so far (``.summary["partial"]``; ``resume=True`` continues)."""
    from sim.runs.partial import Interrupted
    from sim.studies.saved import load
    from sim.studies.swapstudy import planned_games, swap_study

    cfg = run_config("1", players, seed, [strategy], None, rules, choose_face_ups,
                     last_player_loses, max_turns, threads, rule=_seq(rule))
    n = parse_count(str(games))
    h2h = parse_count(str(h2h_games), "--h2h-games") if h2h_games else None
    path = _folder(out)
    say_estimate([(cfg, planned_games(n, h2h))], threads, quiet)
    try:
        with maybe_progress(_shown(quiet), n, "value games", force=True) as progress:
            swap_study(path, players=players, games=n, seed=seed, rules=cfg.rules,
                       strategy=strategy, threads=threads, progress=progress, h2h_games=h2h,
                       max_turns=max_turns, cycle_stop=cycle_stop, resume=resume,
                       phase=phase_of(progress))
    except Interrupted:
        return _saved_so_far(path)
    return load(path)


def study_rules(players: int = 4, base: str = "seed", rule=None, only=None, games="40k",
                skill_deals="10k", mc_deals="100", mc_block: int = 20,
                precision: float = 0.1, strategy: str = "lowest", seed: int = 0,
                max_turns: int = DEFAULT_CAP, threads=None, cycle_stop: bool = True,
                backend: str = "local", scheduler=None, workers=None, out=None,
                resume: bool = False, quiet: bool = False):
    """The rules lab as ``sim study rules`` runs it, with its options (``rule``, ``only``:
    one or a list). Returns it as :func:`sim.load` opens it (kind ``rules-lab``); Ctrl-C
    returns the folder so far where one was saved (``resume=True`` continues)."""
    from sim.cli.lab_command import lab_counts
    from sim.runs import folder
    from sim.runs.partial import Interrupted
    from sim.studies.ruleslab.study import estimate_plan, rules_lab
    from sim.studies.saved import load

    counts = lab_counts(games, skill_deals, mc_deals)
    folder.check_resume(resume, out, "study")
    path, rule, only = _folder(out), _seq(rule) or [], _seq(only) or []
    shared = dict(players=players, base=base, rule=rule, only=only, strategy=strategy,
                  seed=seed, max_turns=max_turns, threads=threads, cycle_stop=cycle_stop,
                  **counts)
    engine = make_backend(backend, scheduler, workers, threads)
    try:
        if not resume:
            say_estimate(estimate_plan(**shared), threads, quiet)
        with maybe_progress(_shown(quiet), None, "rules lab", force=True) as progress:
            rules_lab(**shared, mc_block=mc_block, precision=precision, out=path,
                      resume=resume, backend=engine, progress=progress,
                      phase=phase_of(progress))
    except Interrupted:
        return _saved_so_far(path)
    finally:
        if engine is not None and hasattr(engine, "close"):
            engine.close()
    return load(path)


def tune(strategy: str, against, players: int = 4, trials: int = 100,
         games_per_trial="2000", fresh_games=None, param=None, seed: int = 0,
         rules: str = "seed", rule=None, max_turns: int = DEFAULT_CAP, threads=None,
         cycle_stop: bool = True, out=None, resume: bool = False, quiet: bool = False):
    """A tuning as ``sim tune`` runs it (optuna), with its options (``against``: names
    separated by commas, or a list; ``param``: one or a list). Returns it as :func:`sim.load`
    opens it (kind ``tune``: ``.tune``); Ctrl-C returns the folder so far where it can be
    opened, else the ``KeyboardInterrupt`` goes on (the trials finished are in ``out``,
    ``resume=True`` continues)."""
    from sim.cli.study_commands import tune_budget, tune_field
    from sim.runs import folder
    from sim.runs.extras import require
    from sim.runs.partial import Interrupted
    from sim.studies.saved import load
    from sim.studies.tune import lineup, tune as run_tune

    require("optuna", "sim.tune")
    folder.check_resume(resume, out, "tuning")
    rs, field = ruleset(rules, _seq(rule)), tune_field(against)
    per_trial, fresh, planned = tune_budget(games_per_trial, fresh_games, trials, players)
    table = run_config("1", players, seed, lineup(strategy, field, players), None, rules,
                       False, False, max_turns, threads, rule=_seq(rule))
    path = _folder(out)
    say_estimate([(table, planned)], threads or 1, quiet)
    try:
        with maybe_progress(_shown(quiet), planned, force=True) as progress:
            run_tune(strategy, field, players=players, trials=trials,
                     games_per_trial=per_trial, fresh_games=fresh, seed=seed, rules=rs,
                     threads=threads or 1, max_turns=max_turns, params=_seq(param), out=path,
                     resume=resume, progress=progress, cycle_stop=cycle_stop)
    except Interrupted:
        return _saved_so_far(path)
    return load(path)


def swap(cards, players=None, rules=None, rule=None, model=None, deals=None,
         strategy=None, max_turns=None, seed=None, quiet: bool = False):
    """Which three of six cards to put face up, as ``sim swap`` answers it, with its options
    (``cards``: ``"4 5 6 9 10 K"`` or a list; by playouts, 4 players and the seed rules
    unless given; ``model``: a saved swap study's folder, its players and rules, used
    instead of playouts, when no playout option ``deals``, ``strategy``, ``max_turns``,
    ``seed`` is given). Returns the splits as a pandas DataFrame, best first (columns
    face_up, hand, value, low, high, vs_best, ...); ``df.attrs`` holds the rest of the answer
    (``answer``, ``summary``, ``best``, ``usual``, ``tie``, ``deals``, ...). It saves no
    folder: Ctrl-C raises ``KeyboardInterrupt``."""
    import pandas as pd

    from reports.swap import summary
    from sim.cli.swap_command import _progress, advise
    from sim.studies.swapstudy.advice import DEFAULT_CAP, DEFAULT_DEALS, DEFAULT_STRATEGY

    given = {o for o, v in (("players", players), ("rules", rules), ("rule", rule),
                            ("deals", deals), ("strategy", strategy),
                            ("max_turns", max_turns), ("seed", seed)) if v is not None}
    with _progress(_shown(quiet) and model is None, force=True) as progress:
        a = advise(cards, given, players or 4, rules or "seed", _seq(rule), model,
                   DEFAULT_DEALS if deals is None else deals, strategy or DEFAULT_STRATEGY,
                   DEFAULT_CAP if max_turns is None else max_turns, seed or 0, progress)
    a["summary"] = summary(a)
    df = pd.DataFrame(a.pop("splits"))
    df.attrs.update(a)
    return df


def report(result, output=None) -> Path:
    """The HTML page of a saved folder (a result of these calls or of :func:`sim.load`, or
    its path), as ``sim report DIR -o output`` writes it (default ``DIR/report.html``; its
    PNG and CSV files in ``<name>_files/`` beside it). Returns the page's path."""
    from reports.html import write_report

    return write_report(getattr(result, "path", result), output)[0]
