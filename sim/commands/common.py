"""What the declared commands share below the command line: the options every command of
games has (:data:`SHARED`, with their defaults and help), reading counts (``250k``) and rules
(``rules``/``rule``), the run configuration, the Dask backend, and what a person watching is
told: the progress bar and the line saying the code compiles.

``sim.cli`` shows these options as typer options (:mod:`sim.cli.derive`) and the Python API
takes them as keyword arguments (:mod:`sim.commands.api`): both read them here.
"""
from __future__ import annotations

import json
import re
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import List, Optional

from sim.commands.declare import Spec, option
from sim.kernel.cards import NAMES

# A card as a player types it (``sim play``'s moves, ``sim swap``'s cards): a word -> its name
CARD = {name.lower(): name for name in NAMES} | {"joker": "JK"}

_SUFFIX = {"k": 10**3, "m": 10**6, "g": 10**9}


# The most each count, size or budget option takes, and why (the one line of its error): a
# value past it would fill the memory or outlast any user; every option is read by
# parse_count with its own.
LIMITS = {
    "--games": (10**15, "the game numbers and totals stay exact; years of play"),
    "--batch": (10**7, "a batch's records are held in memory: about 110 bytes a game"),
    "--max-games": (10**8, "a tournament keeps every deal's results in memory"),
    "compare --games": (10**8, "a tournament keeps every deal's results in memory"),
    "study swap --games": (10**9, "every game is saved in the study's folder"),
    "--h2h-games": (10**8, "each head-to-head keeps its deals' results in memory"),
    "study rules --games": (10**7, "every ruleset's games are kept in memory"),
    "--skill-deals": (10**6, "every ruleset's games are kept in memory"),
    "--mc-deals": (10**5, "montecarlo's games take seconds each"),
    "--mc-block": (10**5, "at most --mc-deals"),
    "--trials": (10**4, "the optimiser slows with every trial"),
    "--games-per-trial": (10**8, "a trial keeps its deals' results in memory"),
    "--fresh-games": (10**8, "the check keeps its deals' results in memory"),
    "--rollouts": (10**7, "every world's result of every move is kept in memory"),
    "--max-rollouts": (10**7, "every world's result of every move is kept in memory"),
    "review --rollouts": (10**6, "two blocks of worlds for every decision of the game"),
    "--hint-rollouts": (10**6, "a hint should answer in seconds"),
    "--deals": (10**7, "every deal's result of every split is kept in memory"),
}


def parse_count(text: str, option: str = "--games", limit: str | None = None) -> int:
    """``1e6``, ``1_000_000``, ``250k``, ``2M`` -> a positive int, at most :data:`LIMITS`'s
    for ``limit`` (default: the option; None there: no limit); ``ValueError`` otherwise."""
    raw = str(text).strip().lower().replace("_", "").replace(",", "")
    mult = 1
    if raw and raw[-1] in _SUFFIX:
        raw, mult = raw[:-1], _SUFFIX[raw[-1]]
    try:
        if not re.fullmatch(r"[+-]?(\d+(\.\d*)?|\.\d+)(e[+-]?\d+)?", raw):
            raise ValueError
        value = float(raw) * mult
    except ValueError:
        raise ValueError(f"{option}: expected a number of games such as 1e6, 1_000_000 or "
                         f"250k, got {text!r}") from None
    if value != int(value):
        raise ValueError(f"{option}: expected a whole number, got {text!r}")
    if value < 1:
        raise ValueError(f"{option}: expected at least 1, got {text!r}")
    most, why = LIMITS.get(limit or option, (None, ""))
    if most is not None and value > most:
        raise ValueError(f"{option}: at most {most:,} ({why}), got {text!r}")
    return int(value)


def seq(value) -> list | None:
    """A per-seat or repeatable option given as one value or a list of them."""
    if value is None:
        return None
    return [value] if isinstance(value, str) else list(value)


def count(value, option: str = "--games", limit: str | None = None) -> int:
    """A count option as typed (``"250k"``) or as a number."""
    return parse_count(str(value), option, limit)


def ruleset(rules: str, rule: Optional[List[str]], choose_face_ups=False,
            last_player_loses=False):
    """``rules`` (a preset), every ``rule`` (``key=value``) and the V1/V2 shorthands as one
    :class:`~sim.kernel.ruleset.Ruleset` (``ValueError`` naming what is wrong)."""
    from sim.kernel.ruleset import Ruleset

    overrides = list(rule or [])
    if choose_face_ups:
        overrides.append("choose_face_ups=true")
    if last_player_loses:
        overrides.append("last_player_loses=true")
    try:
        return Ruleset.build(rules, overrides)
    except ValueError as e:
        raise ValueError(f"--rules/--rule: {e}") from None


def run_config(games, players, seed, strategy, swap, rules, choose_face_ups, last_player_loses,
               max_turns, threads, batch=100_000, rule=None, cycle_stop=True):
    """The :class:`~sim.runs.config.RunConfig` of the options as typed."""
    from sim.runs.config import RunConfig

    return RunConfig(games=parse_count(str(games)), players=players, seed=seed,
                     strategies=strategy or ["lowest"], swaps=swap or [None],
                     rules=ruleset(rules, rule, choose_face_ups, last_player_loses),
                     max_turns=max_turns, threads=threads, batch=batch,
                     cycle_stop=cycle_stop)


def make_backend(name, scheduler, workers, threads):
    """``backend``, ``scheduler``, ``workers`` as a backend of :mod:`sim.runs.backends`
    (None: this process); ``RunError`` naming a wrong combination."""
    from sim.runs.runner import RunError

    if name == "local":
        if scheduler or workers:
            raise RunError("--scheduler and --workers go with --backend dask")
        return None
    if name != "dask":
        raise RunError(f"--backend: expected local or dask, got {name!r}")
    if scheduler and workers:
        raise RunError("--backend dask: give --scheduler (an existing cluster) or --workers "
                       "(a local one), not both")
    import os
    most = 2 * (os.cpu_count() or 1)
    if workers is not None and not 1 <= workers <= most:
        raise RunError(f"--workers: expected 1 to {most} (a local cluster's workers are "
                       f"processes of this machine: twice its cores), got {workers}")
    from sim.runs.backends import DaskBackend
    return DaskBackend(scheduler=scheduler, workers=workers, threads=threads)


# The options shared by the commands of games: name -> (default, its names, help, what
# completes its value). :func:`shared` makes the field of an options dataclass; the command
# line's hand-written commands (replay, analyze, play) take theirs from here too.
SHARED = {
    "games": ("10k", ("--games", "-n"), "Number of games: 1e6, 1_000_000, 250k.", None),
    "players": (4, ("--players", "-p"), "Players, 2 to 6; 2 to 8 with two decks (R1, H18).",
                None),
    "seed": (0, ("--seed",), "Seed of the run: same seed and options, same results.", None),
    "strategy": (None, ("--strategy", "-s"), "Strategy: once for all seats, or once per seat "
                 "in seat order (see `sim strategies`). Default: lowest.", "strategy"),
    "swap": (None, ("--swap",), "Swap policy (R5/V1): once for all seats or once per seat. "
             "Default: each strategy's own.", "swap"),
    "rules": ("seed", ("--rules",), "Rules preset: seed (docs/rules.md §1-9), classic, "
              "masters-of-shithead, boothj5 (see `sim rules`).", "rules"),
    "rule": (None, ("--rule", "-r"), "A house-rule option over the preset, key=value "
             "(repeatable), e.g. --rule ten_anywhere=true (see `sim rules`).", None),
    "choose_face_ups": (False, ("--choose-face-ups", "--v1"),
                        "Variant V1: choose 3 face-ups of 6.", None),
    "last_player_loses": (False, ("--last-player-loses", "--v2"),
                          "Variant V2: play to the last; the result is the finishing order.",
                          None),
    "max_turns": (10_000, ("--max-turns",), "Turns after which a game is unfinished (R25).",
                  None),
    "threads": (None, ("--threads", "-t"), "Threads (default: all cores). The results do not "
                "depend on it.", None),
    "cycle_stop": (True, ("--cycle-stop/--no-cycle-stop",), "Stop a game as soon as a "
                   "position repeats, which proves it endless: recorded as unfinished (reason "
                   "cycle, not cap). Only when every seat's strategy is pure (`sim "
                   "strategies`); never changes a result, only the turns of unfinished games.",
                   None),
    "quiet": (False, ("--quiet", "-q"), "No progress bar.", None),
    "backend": ("local", ("--backend",), "local (this machine) or dask.", None),
    "scheduler": (None, ("--scheduler",), "Address of a Dask scheduler, e.g. "
                  "tcp://host:8786.", None),
    "workers": (None, ("--workers",), "Start a local Dask cluster with this many worker "
                "processes.", None),
}


def shared_spec(name: str) -> tuple:
    """``(default, Spec)`` of the shared option ``name``."""
    default, names, help, complete = SHARED[name]
    return default, Spec(names, help, complete)


_SAME = object()


def shared(name: str, default=_SAME, **spec):
    """The options-dataclass field of the shared option ``name`` (:data:`SHARED`); a
    ``default`` or a ``help``/``names``/``complete``/``shown`` of this command's own
    replaces the shared one."""
    base, names, help, complete = SHARED[name]
    return option(base if default is _SAME else default, *spec.get("names", names),
                  help=spec.get("help", help), complete=spec.get("complete", complete),
                  shown=spec.get("shown"))


def out_field(holds: str, required: bool = False):
    """``out``: the folder a command saves into, holding ``holds`` (``required``: the command
    line asks for it; the Python API keeps it in memory without it, sim.commands.api)."""
    return option(None, "--out", "-o", help=f"Folder for {holds}.", cli_required=required)


def resume_field(what: str, note: str = ""):
    """``resume``: continue the ``what`` saved in ``out``."""
    return option(False, "--resume", help=f"Continue the {what} saved in --out{note}.")


def read_json(path: str, what: str = "position"):
    """A JSON document from a file, or from stdin when ``path`` is ``-``; ``ValueError``
    saying what is wrong."""
    try:
        text = sys.stdin.read() if path == "-" else Path(path).expanduser().read_text()
    except OSError as e:
        raise ValueError(f"cannot read {what} {path}: {e.strerror or e}") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise ValueError(f"{'stdin' if path == '-' else path}: not valid JSON ({e.msg} at line "
                         f"{e.lineno}, column {e.colno})") from None


# What a person watching is told ----------------------------------------------------------

COMPILING = "compiling (first run only)"

_SAID = [False]             # this process said it compiles: once is enough


def _say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def say_compiling(what: str = "the game core and the seated strategies",
                  how_long: str = "under a minute") -> None:
    """One line on stderr while ``what`` compiles (not in the compile cache yet): every
    command says it in these words, once."""
    if not _SAID[0]:
        _SAID[0] = True
        _say(f"{COMPILING}: {what} compiled and cached, {how_long}")


@contextmanager
def compile_notice(wanted: bool = True, what: str = "the code this command needs"):
    """Say :func:`say_compiling` the moment Numba starts compiling within the block (a cold
    cache: ``sim replay``, ``analyze``, ``review``, ``play`` and its ``hint`` wait seconds
    for it), unless ``wanted`` is false (``--quiet``, ``--json``)."""
    if not wanted:
        yield
        return
    from sim.kernel.compiler import on_compile
    with on_compile(lambda: say_compiling(what, "seconds to a minute, once")):
        yield


def at_terminal() -> bool:
    """Is a person watching stderr (a terminal, or the notebook of a Python API call), not a
    script reading the output?"""
    return sys.stderr.isatty() or "ipykernel" in sys.modules


class maybe_progress:
    """A progress bar where a person watches (:func:`at_terminal`), else nothing; yields
    itself, a callback(done), which also has ``phase(label, total)``: name the stage under
    way (``total`` None: a stage without games, the bar pulses), counting from 0 again.
    While the core compiles (not in the compile cache yet, sim.runs.batch.compiled) the bar
    says so until the first games are played; without a bar a line on stderr says so (unless
    ``wanted`` is false)."""

    def __init__(self, wanted, total, label="games", configs=None):
        self.bar = progress_bar() if wanted and at_terminal() else None
        self.total, self.label = total, label
        from sim.runs.batch import compiled
        self.compiling = not compiled(configs)
        if self.compiling and wanted and self.bar is None:
            say_compiling()

    def __enter__(self):
        if self.bar is None:
            return None
        self.bar.__enter__()
        self._task(COMPILING if self.compiling else self.label, self.total)
        return self

    def _task(self, description, total):
        from sim.runs.estimate import Eta
        self.eta = Eta(total)              # this stage's own speed: its time left
        self.task = self.bar.add_task(description, total=total, left="")

    def __exit__(self, *exc):
        if self.bar is not None:
            self.bar.__exit__(*exc)
        return False

    def __call__(self, done):
        from sim.runs.estimate import duration_text
        if self.compiling:                 # the first games: compiled
            self.compiling = False
            self.bar.update(self.task, description=self.label)
        left = self.eta.update(done)
        self.bar.update(self.task, completed=done,
                        left="" if left is None else f"{duration_text(left)} left")

    def phase(self, label, total=None):
        self.bar.remove_task(self.task)
        self.label = label
        self._task(COMPILING if self.compiling else label, total)


def phase_of(progress):
    """The ``phase(label, total)`` of a :class:`maybe_progress` callback, or None."""
    return getattr(progress, "phase", None)


def progress_bar():
    """The progress bar of a long command (rich): done of total, games a second, time left."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, ProgressColumn, TextColumn
    from rich.text import Text

    class Rate(ProgressColumn):
        def render(self, task):
            return Text(f"{task.speed:,.0f} games/s" if task.speed else "")

    # on stderr, whatever stdout is (a file, a pipe): stdout holds the answer alone
    return Progress("[progress.description]{task.description}", BarColumn(),
                    MofNCompleteColumn(), Rate(), TextColumn("{task.fields[left]}"),
                    transient=True, console=Console(stderr=True))
