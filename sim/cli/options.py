"""What the commands of ``sim`` share: the common options, reading counts (``250k``) and
rules (``--rules``/``--rule``), the run configuration, the one-line error and the progress
bar."""
from __future__ import annotations

import json
import re
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import List, Optional

import typer

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


def fail(message: str, code: int = 2):
    """Print ``error: message`` (one line, to stderr) and exit with ``code``."""
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code)


def forward(options: dict, *drop: str) -> dict:
    """A command's options (its ``locals()``, taken first) for its :mod:`sim.cli.work`
    function, which takes them by the same names: all but ``--json`` and ``drop``; ``--json``
    prints the JSON alone, so it is quiet too."""
    kept = {k: v for k, v in options.items() if k not in ("as_json", *drop)}
    return {**kept, "quiet": kept["quiet"] or options["as_json"]}


@contextmanager
def one_line(stopped: str = "interrupted", hint=""):
    """A user's mistake (``ValueError``) as its :func:`fail` line, exit 2; Ctrl-C as
    ``stopped`` (or the interrupt's own words) and ``hint``, exit 130; ``hint`` may be a
    function, asked when the stop comes (what was saved by then:
    :func:`sim.runs.folder.resume_advice`)."""
    try:
        yield
    except ValueError as e:
        fail(str(e))
    except KeyboardInterrupt as e:
        fail((str(e) or stopped) + (hint() if callable(hint) else hint), 130)


def resume_advice(out, what: str) -> str:
    """:func:`sim.runs.folder.resume_advice` (imported when asked: the command line loads no
    Numba before a command runs, for --debug)."""
    from sim.runs.folder import resume_advice as advice
    return advice(out, what)


def ruleset(rules: str, rule: Optional[List[str]], choose_face_ups=False,
            last_player_loses=False):
    """``--rules PRESET``, every ``--rule key=value`` and the ``--v1``/``--v2`` shorthands as
    one :class:`~sim.kernel.ruleset.Ruleset` (``ValueError`` naming what is wrong)."""
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


# Shell completion of values (``sim run --rules <TAB>``): the names a command accepts,
# read from their one owner (the presets' table, the strategies' registry) when the shell asks.
def _names(kind: str) -> list[str]:
    if kind == "rules":
        from sim.kernel.ruleset import PRESETS
        return list(PRESETS)
    import strategies
    from sim.kernel.strategy import MOVES, SWAPS

    strategies.load()             # registers them; nothing compiles until a command runs
    return sorted(MOVES if kind == "strategy" else SWAPS)


def _completer(kind: str):
    """A typer ``autocompletion`` for a name of ``kind`` (``rules``, ``strategy``, ``swap``);
    in a comma list (``--against lowest,co<TAB>``) it completes the last name."""
    def complete(incomplete: str):
        head, _, last = incomplete.rpartition(",")
        head = head + "," if head else ""
        return [head + n for n in _names(kind) if n.startswith(last)]
    return complete


complete_rules, complete_strategy, complete_swap = (_completer(k) for k in
                                                     ("rules", "strategy", "swap"))


# Options shared by the commands.
GAMES = typer.Option("10k", "--games", "-n", help="Number of games: 1e6, 1_000_000, 250k.")
PLAYERS = typer.Option(4, "--players", "-p", help="Players, 2 to 6; 2 to 8 with two decks "
                       "(R1, H18).")
SEED = typer.Option(0, "--seed", help="Seed of the run: same seed and options, same results.")
STRATEGY = typer.Option(None, "--strategy", "-s", autocompletion=complete_strategy,
                        help="Strategy: once for all seats, or once per seat in seat order "
                             "(see `sim strategies`). Default: lowest.")
SWAP = typer.Option(None, "--swap", autocompletion=complete_swap,
                    help="Swap policy (R5/V1): once for all seats or once per seat. "
                         "Default: each strategy's own.")
RULES = typer.Option("seed", "--rules", autocompletion=complete_rules,
                     help="Rules preset: seed (docs/rules.md §1-9), classic, "
                          "masters-of-shithead, boothj5 (see `sim rules`).")
RULE = typer.Option(None, "--rule", "-r", help="A house-rule option over the preset, "
                    "key=value (repeatable), e.g. --rule ten_anywhere=true (see `sim rules`).")
V1 = typer.Option(False, "--choose-face-ups", "--v1", help="Variant V1: choose 3 face-ups of 6.")
V2 = typer.Option(False, "--last-player-loses", "--v2",
                  help="Variant V2: play to the last; the result is the finishing order.")
CAP = typer.Option(10_000, "--max-turns", help="Turns after which a game is unfinished (R25).")
CYCLE_STOP = typer.Option(True, "--cycle-stop/--no-cycle-stop", help="Stop a game as soon as "
                          "a position repeats, which proves it endless: recorded as unfinished "
                          "(reason cycle, not cap). Only when every seat's strategy is pure "
                          "(`sim strategies`); never changes a result, only the turns of "
                          "unfinished games.")
THREADS = typer.Option(None, "--threads", "-t", help="Threads (default: all cores). The "
                       "results do not depend on it.")
QUIET = typer.Option(False, "--quiet", "-q", help="No progress bar.")
BACKEND = typer.Option("local", "--backend", help="local (this machine) or dask.")
SCHEDULER = typer.Option(None, "--scheduler", help="Address of a Dask scheduler, e.g. "
                         "tcp://host:8786.")
WORKERS = typer.Option(None, "--workers", help="Start a local Dask cluster with this many "
                       "worker processes.")


def make_backend(name, scheduler, workers, threads):
    """``--backend``, ``--scheduler``, ``--workers`` as a backend of :mod:`sim.runs.backends`
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


def json_option(what: str = "the result"):
    """``--json``: print ``what`` as JSON (docs/json.md)."""
    return typer.Option(False, "--json", help=f"Print {what} as JSON.")


def out_option(holds: str, required: bool = False):
    """``--out``/``-o``: the folder a command saves into, holding ``holds``."""
    return typer.Option(... if required else None, "--out", "-o", help=f"Folder for {holds}.")


def resume_option(what: str, note: str = ""):
    """``--resume``: continue the ``what`` saved in ``--out``."""
    return typer.Option(False, "--resume", help=f"Continue the {what} saved in --out{note}.")


COMPILING = "compiling (first run only)"


_SAID = [False]             # this process said it compiles: once is enough


def say_compiling(what: str = "the game core and the seated strategies",
                  how_long: str = "under a minute") -> None:
    """One line on stderr while ``what`` compiles (not in the compile cache yet): every
    command says it in these words, once."""
    if not _SAID[0]:
        _SAID[0] = True
        typer.echo(f"{COMPILING}: {what} compiled and cached, {how_long}", err=True)


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
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, ProgressColumn, TextColumn
    from rich.text import Text

    class Rate(ProgressColumn):
        def render(self, task):
            return Text(f"{task.speed:,.0f} games/s" if task.speed else "")

    from rich.console import Console

    # on stderr, whatever stdout is (a file, a pipe): stdout holds the answer alone
    return Progress("[progress.description]{task.description}", BarColumn(),
                    MofNCompleteColumn(), Rate(), TextColumn("{task.fields[left]}"),
                    transient=True,
                    console=Console(stderr=True))


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


def options_given(ctx: typer.Context, *names) -> bool:
    """Did the user give any of these options (rather than leave their defaults)?"""
    return any(getattr(ctx.get_parameter_source(name), "name", "DEFAULT") not in
               ("DEFAULT", "DEFAULT_MAP") for name in names)
