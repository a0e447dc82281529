"""The work of the commands that play many games (``sim run``, ``sim compare``, ``sim study
swap``, ``sim study rules``, ``sim tune``), of ``sim swap`` and of ``sim review``, written
once: the typer commands print what it returns, the Python API (:mod:`sim.cli.api`) opens
what it saved as ``sim.load`` does.

Each function takes the command's options as typed (counts as ``"250k"`` or numbers, a
per-seat option as one value or a list), checks them (``ValueError``: the command's one line),
says the time estimate, shows the progress unless ``quiet``, plays and returns :class:`Done`;
Ctrl-C during play is :attr:`Done.partial`, with what was finished.
"""
from __future__ import annotations

import importlib
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass

from sim.cli.options import (
    at_terminal, make_backend, maybe_progress, parse_count, phase_of, progress_bar, ruleset,
    run_config, say_compiling,
)


@dataclass
class Done:
    """What a command did: ``result`` (its own: a run's Tally, a tournament's ``(Tournament,
    info)``, a study's dict), ``seconds`` of play (not the estimate before it, which may
    compile), ``ruleset``, ``asked`` (the options as used, ``--json``'s ``options``) and,
    when Ctrl-C stopped the play, ``partial`` (a :class:`~sim.runs.partial.Partial`)."""

    result: object
    seconds: float
    ruleset: object
    asked: dict
    partial: object = None


def _seq(value) -> list | None:
    """A per-seat or repeatable option given as one value or a list of them."""
    if value is None:
        return None
    return [value] if isinstance(value, str) else list(value)


def _count(value, option: str = "--games", limit: str | None = None) -> int:
    return parse_count(str(value), option, limit)


def _play(work, quiet, ruleset, asked, total=None, label="games", configs=None,
          engine=None) -> Done:
    """``work(progress)`` under the progress bar (its time left: this run's own speed,
    :mod:`sim.runs.estimate`); the Dask ``engine``, if any, closed after."""
    from sim.runs.partial import Interrupted

    t0 = time.perf_counter()
    try:
        with maybe_progress(not quiet, total, label, configs=configs) as progress:
            result = work(progress)
        return Done(result, time.perf_counter() - t0, ruleset, asked)
    except Interrupted as e:
        return Done(e.partial.result, time.perf_counter() - t0, ruleset, asked, e.partial)
    finally:
        if engine is not None and hasattr(engine, "close"):
            engine.close()


def run(*, games=10_000, players=4, seed=0, strategy=None, swap=None, rules="seed", rule=None,
        choose_face_ups=False, last_player_loses=False, max_turns=10_000, threads=None,
        cycle_stop=True, out=None, resume=False, batch="100k", backend="local", scheduler=None,
        workers=None, quiet=False, meanwhile=None) -> Done:
    """``sim run``: ``result`` is the run's :class:`~sim.runs.tally.Tally` (on Ctrl-C, of the
    games played so far; ``out`` keeps the whole batches). ``meanwhile``: a module the front
    end prints with, imported on a thread of its own while this one plays the games (the
    core releases the GIL, so the import runs on another core; importing it again later
    waits for this one to finish)."""
    from sim.runs import folder
    from sim.runs.runner import run as play

    cfg = run_config(games, players, seed, _seq(strategy), _seq(swap), rules, choose_face_ups,
                     last_player_loses, max_turns, threads, _count(batch, "--batch"),
                     _seq(rule), cycle_stop)
    folder.check_resume(resume, out, "run")      # --out checked before anything is played
    engine = make_backend(backend, scheduler, workers, threads)
    asked = {k: v for k, v in cfg.describe().items() if k != "options"}
    asked.update(threads=threads, batch=cfg.batch, out=str(out) if out else None,
                 resume=resume, backend=backend)
    if meanwhile:
        threading.Thread(target=importlib.import_module, args=(meanwhile,), daemon=True).start()
    return _play(lambda progress: play(cfg, progress=progress, out=out, resume=resume,
                                       backend=engine),
                 quiet, cfg.ruleset, asked, cfg.games, configs=[cfg], engine=engine)


def compare(strategies, *, players=4, games="100k", seed=0, rules="seed", rule=None,
            choose_face_ups=False, last_player_loses=False, max_turns=10_000, threads=None,
            cycle_stop=True, until_clear=False, max_games=None, independent=False,
            seating="balanced", out=None, resume=False, quiet=False) -> Done:
    """``sim compare``: ``result`` is the tournament as a dict (``Tournament.to_dict()`` and
    its ``info``), saved in ``out`` (compare.json) by :func:`sim.studies.compare.compare`,
    also when Ctrl-C stopped it after a deal was played under every rotation."""
    from sim.runs import folder
    from sim.studies.compare import check_field, compare as play

    strategies = _seq(strategies)
    cfg = run_config("1", players, seed, strategies[:1], None, rules, choose_face_ups,
                     last_player_loses, max_turns, threads, rule=_seq(rule))
    total = _count(games, limit="compare --games")
    cap = _count(max_games, "--max-games") if max_games else total
    check_field(strategies)                     # before the estimate: nothing played yet
    folder.check_resume(resume, out, "comparison")
    asked = {"strategies": strategies, "players": players, "games": total, "seed": seed,
             "rules": cfg.rules, "until_clear": until_clear, "max_games": cap,
             "independent": independent, "max_turns": max_turns, "cycle_stop": cycle_stop,
             "seating": seating, "threads": threads, "out": str(out) if out else None}
    planned = cap if until_clear else total
    done = _play(lambda progress: play(
        strategies, players=players, games=total, seed=seed, rules=cfg.rules,
        max_turns=max_turns, threads=threads, independent=independent,
        until_clear=until_clear, max_games=cap, progress=progress, out=out,
        cycle_stop=cycle_stop, seating=seating, resume=resume),
        quiet, cfg.ruleset, asked, planned)
    t, info = done.result.tournament, done.result.info
    if not t.games:
        raise KeyboardInterrupt("interrupted before a deal was played under every rotation")
    done.result = dict(t.to_dict(), info=info)
    return done


def study_swap(*, players=4, games="100k", h2h_games=None, seed=0, rules="seed", rule=None,
               choose_face_ups=False, last_player_loses=False, max_turns=10_000, threads=None,
               cycle_stop=True, strategy="lowest", out=None, resume=False,
               quiet=False) -> Done:
    """``sim study swap`` into ``out``: ``result`` is the study; on Ctrl-C, ``{"tally": the
    values stage's Tally, "head_to_head": [those finished]}``."""
    from sim.studies.swapstudy import swap_study

    cfg = run_config("1", players, seed, [strategy], None, rules, choose_face_ups,
                     last_player_loses, max_turns, threads, rule=_seq(rule))
    n = _count(games, limit="study swap --games")
    h2h = _count(h2h_games, "--h2h-games") if h2h_games else None
    asked = {"players": players, "games": n, "h2h_games": h2h, "seed": seed,
             "rules": cfg.rules, "strategy": strategy, "max_turns": max_turns,
             "cycle_stop": cycle_stop, "threads": threads, "out": str(out)}
    return _play(lambda progress: swap_study(
        out, players=players, games=n, seed=seed, rules=cfg.rules, strategy=strategy,
        threads=threads, progress=progress, h2h_games=h2h, max_turns=max_turns,
        cycle_stop=cycle_stop, resume=resume, phase=phase_of(progress)),
        quiet, cfg.ruleset, asked, n, "value games")


def study_rules(*, players=4, base="seed", rule=None, only=None, games="40k", skill_deals="10k",
                mc_deals="100", mc_block=20, precision=0.1, strategy="lowest", seed=0,
                max_turns=10_000, threads=None, cycle_stop=True, backend="local",
                scheduler=None, workers=None, out=None, resume=False, quiet=False) -> Done:
    """``sim study rules``: ``result`` is the lab's (on Ctrl-C, of the rulesets measured so
    far, marked ``partial``)."""
    from sim.kernel.ruleset import Ruleset
    from sim.runs import folder
    from sim.studies.ruleslab.study import rules_lab
    from sim.studies.ruleslab.variants import variants

    # the budgets as typed (``40k``; ``--mc-deals 0`` leaves montecarlo out)
    counts = {"games": _count(games, limit="study rules --games"),
              "skill_deals": _count(skill_deals, "--skill-deals"),
              "mc_deals": 0 if str(mc_deals).strip() == "0" else _count(mc_deals, "--mc-deals")}
    folder.check_resume(resume, out, "study")
    variants(base, players, _seq(rule) or [], _seq(only) or [])   # before anything is played
    shared = dict(players=players, base=base, rule=_seq(rule) or [], only=_seq(only) or [],
                  strategy=strategy, seed=seed, max_turns=max_turns, threads=threads,
                  cycle_stop=cycle_stop, **counts)
    engine = make_backend(backend, scheduler, workers, threads)
    asked = {"players": players, "base": base, "rule": shared["rule"], "only": shared["only"],
             **counts, "mc_block": mc_block, "precision": precision, "strategy": strategy,
             "seed": seed, "max_turns": max_turns, "cycle_stop": cycle_stop,
             "threads": threads, "backend": backend, "out": str(out) if out else None,
             "resume": resume}
    done = _play(lambda progress: rules_lab(
        **shared, mc_block=mc_block, precision=precision, out=out, resume=resume,
        backend=engine, progress=progress, phase=phase_of(progress)),
        quiet, None, asked, None, "rules lab", engine=engine)
    done.ruleset = Ruleset.build(base, shared["rule"])
    return done


def tune(strategy, against, *, players=4, trials=100, games_per_trial="2000", fresh_games=None,
         param=None, seed=0, rules="seed", rule=None, max_turns=10_000, threads=None,
         cycle_stop=True, out=None, resume=False, quiet=False) -> Done:
    """``sim tune`` (optuna): ``result`` is the tuning, its ``options`` those of ``asked``
    not given here (on Ctrl-C, ``{"trials": those finished, "best": the best so far}``);
    ``against``: names separated by commas, or a list."""
    from sim.runs import folder
    from sim.runs.extras import require
    from sim.studies.tune import check_trials, lineup, tune as play

    require("optuna", "sim tune")
    check_trials(trials)
    folder.check_resume(resume, out, "tuning")
    rs = ruleset(rules, _seq(rule))
    words = against.split(",") if isinstance(against, str) else list(against)
    field = [s.strip() for s in words if s.strip()]
    per_trial = _count(games_per_trial, "--games-per-trial")
    fresh = _count(fresh_games, "--fresh-games") if fresh_games else per_trial
    # the games of the whole tuning: every trial's deals, then the final check of the best
    # and of the defaults
    planned = (trials * (per_trial // players) * players
               + 2 * max(1, fresh // players) * players)
    run_config("1", players, seed, lineup(strategy, field, players), None, rules,  # checked
               False, False, max_turns, threads, rule=_seq(rule))
    asked = {"threads": threads, "out": str(out) if out else None, "resume": resume}
    return _play(lambda progress: play(
        strategy, field, players=players, trials=trials, games_per_trial=per_trial,
        fresh_games=fresh, seed=seed, rules=rs, threads=threads, max_turns=max_turns,
        params=_seq(param), out=out, resume=resume, progress=progress, cycle_stop=cycle_stop),
        quiet, rs, asked, planned)


def review(game: dict, *, seat=None, rollouts="300", seed=None, opponents="counting", out=None,
           threads=None, quiet=False) -> Done:
    """``sim review`` of the saved ``game`` (:func:`sim.cli.savedgame.load`): ``result`` is
    the :class:`~sim.studies.review.Review`, saved in ``out`` if given (on Ctrl-C, of the
    decisions reviewed so far, saved marked partial); unless ``quiet``, a line on stderr for
    each decision."""
    import typer

    from reports.review import turn_text
    from sim.cli.options import compile_notice
    from sim.kernel.ruleset import Ruleset
    from sim.studies import review as rv

    n = _count(rollouts, "--rollouts", "review --rollouts")
    asked = {"seat": seat, "rollouts": n, "seed": seed, "opponents": opponents,
             "out": str(out) if out else None}

    def start(r):
        if not quiet:
            typer.echo(f"reviewing {r.total} decisions of seat {r.seat} (the swap included) "
                       f"with {n:,} worlds each", err=True)

    def progress(r, d):
        if not quiet:
            typer.echo(f"  {len(r.decisions)}/{r.total}: {turn_text(d.turn)} {d.made} "
                       f"({d.seconds:.1f} s){'  mistake' if d.mistake else ''}", err=True)

    with compile_notice(not quiet, "the game and its playouts"):
        done = _play(lambda _: rv.review(game, seat, rollouts=n, seed=seed, opponents=opponents,
                                         out=out, on_start=start, on_decision=progress,
                                         threads=threads),
                     True, Ruleset.parse(game["rules"]), asked)
    done.asked.update(seat=done.result.seat, seed=done.result.seed)     # as resolved
    return done


def read_cards(words) -> list[int]:
    """The cards typed (``4 5 6 9 10 K``: ``10`` or ``t``, ``k`` or ``K``, ``jk`` or
    ``joker``; spaces or commas between; one string or a list) as rank codes;
    ``ValueError`` naming an unknown word."""
    from sim.cli.words import CARD
    from sim.kernel.cards import rank_code

    spellings = CARD | {"t": "10"}       # the names of sim play, and T for a ten
    out = []
    for w in " ".join(str(c) for c in _seq(words)).replace(",", " ").split():
        name = spellings.get(w.lower())
        if name is None:
            raise ValueError(f"unknown card {w!r}: cards are 2-9, 10 (or T), J, Q, K, A and "
                             f"JK (a joker, where the ruleset has them)")
        out.append(rank_code(name))
    return out


@contextmanager
def _swap_progress(wanted):
    """The playouts' progress: a bar where a person watches, else nothing; first, once the
    input is checked, a line saying so when the playout kernel is not in the compile cache."""
    from sim.kernel.compiler import cached
    from sim.kernel.sampling import split_playouts
    note = [wanted and not cached(split_playouts)]

    def say_once():
        if note[0]:
            note[0] = False
            say_compiling("the swap's playout kernel", "about a minute")
    if not (wanted and at_terminal()):
        yield lambda done, total: say_once()
        return
    with progress_bar() as bar:
        task = bar.add_task("games", total=None)

        def tick(done, total):
            say_once()
            bar.update(task, completed=done, total=total)
        yield tick


def swap(cards, *, given=None, players=None, rules=None, rule=None, model=None, deals=None,
         strategy=None, max_turns=None, seed=None, threads=None, quiet=False) -> dict:
    """``sim swap``'s answer (:mod:`sim.studies.swapstudy.advice`) for the cards typed, by
    the model saved in ``model`` or by playouts, with its ``summary`` (the text's first
    lines). ``given``: the options set explicitly (default: those not None; with a model a
    playout option is a mistake; its players and rules are checked only if given); by
    playouts, 4 players, the seed rules and the study's own playouts unless given."""
    from reports.swap import summary
    from sim.studies.swapstudy import advice

    if given is None:
        given = {o for o, v in (("players", players), ("rules", rules), ("rule", rule),
                                ("deals", deals), ("strategy", strategy),
                                ("max_turns", max_turns), ("seed", seed)) if v is not None}
    players, rules, seed = players or 4, rules or "seed", seed or 0
    codes = read_cards(cards)
    with _swap_progress(not quiet and model is None) as progress:
        if model is None:
            a = advice.by_playouts(
                codes, players=players, rules=ruleset(rules, _seq(rule)),
                strategy=strategy or advice.DEFAULT_STRATEGY, seed=seed, progress=progress,
                deals=_count(advice.DEFAULT_DEALS if deals is None else deals, "--deals"),
                max_turns=advice.DEFAULT_CAP if max_turns is None else max_turns,
                threads=threads)
        else:
            playouts = [f"--{o.replace('_', '-')}" for o in ("deals", "strategy",
                                                           "max_turns", "seed") if o in given]
            if playouts:
                raise ValueError(f"--model values the splits by the study's model, which "
                                 f"plays no games: {', '.join(playouts)} set(s) the "
                                 f"playouts; give --model or the playout options, not both")
            rs = ruleset(rules, _seq(rule)) if given & {"rules", "rule"} else None
            a = advice.by_model(codes, model, players=players if "players" in given else None,
                                rules=rs.to_json() if rs is not None else None)
    a["summary"] = summary(a)
    return a
