"""Open a saved run (``sim run --out DIR``) for analysis: ``sim.load(DIR)``.

>>> run = sim.load("runs/big")            # doctest: +SKIP
>>> run.by_seat                           # the summary's seat table, as a DataFrame
>>> run.games.groupby("starter")["turns"].mean()   # every per-game record

The summary, manifest and tables are read at once; the per-game records (one Parquet file
per batch) are read on first use of ``.games`` and kept, so opening a run of 10^8 games to
look at its summary costs nothing. :func:`iter_parts` reads chosen columns batch by batch,
for statistics over runs too big for memory.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd


@dataclass(repr=False, eq=False)
class Loaded:
    """A saved run: ``summary``/``manifest`` (dicts, as saved), ``by_seat`` (the summary's
    seat table), ``by_strategy`` (the per-strategy table of every kind of folder: see
    :func:`strategy_table`), ``compare``/``study``/``tune`` (the tournament's, swap study's
    and tuning's results, or ``None``), and ``games``: every per-game record, sorted by game."""

    path: Path
    manifest: dict
    summary: dict
    by_seat: pd.DataFrame
    by_strategy: pd.DataFrame
    compare: dict | None = None
    study: dict | None = None
    tune: dict | None = None
    parts: list[Path] = field(default_factory=list)
    _games: pd.DataFrame | None = field(default=None, init=False)

    @property
    def games(self) -> pd.DataFrame:
        """Per-game records of all batches (columns game, status, unfinished, unfinished_by
        ("cap" or "cycle", null when finished; runs saved since store format 2), cycle_turns,
        winner, turns, burns, starter, dealer, order_*, pickups_*, faceup_*, hand_*,
        strategy_*, swap_*),
        sorted by game; a swap study's add stage, seed and opponent and keep the order of
        its files (values stage first, then each head-to-head)."""
        if self._games is None:
            frames = [pd.read_parquet(p) for p in self.parts]
            if frames:
                df = pd.concat(frames, ignore_index=True)
                if "stage" not in df:          # a run: one game index per game
                    df = df.sort_values("game", kind="stable").reset_index(drop=True)
                # a swap study: its stages reuse game indices (duplicate deals); the files'
                # order keeps each stage and each head-to-head together, games in order
            else:
                df = pd.DataFrame()
            self._games = df
        return self._games

    @property
    def players(self) -> int:
        return int(self.config["players"])

    @property
    def config(self) -> dict:
        """The run's options (``summary["config"]``: games, players, seed, strategies...)."""
        return self.summary.get("config") or self.manifest.get("options", {})

    def iter_parts(self, columns=None):
        """The per-game records one batch at a time (only ``columns`` if given)."""
        for p in self.parts:
            yield pd.read_parquet(p, columns=columns)

    def __repr__(self) -> str:
        cfg = self.config
        extra = [name for name in ("compare", "study", "tune") if getattr(self, name) is not None]
        return (f"<shithead-sim run {str(self.path)!r}: {cfg.get('games', '?'):,} games, "
                f"{cfg.get('players', '?')} players, seed {cfg.get('seed', '?')}, "
                f"{len(self.parts)} part file(s)"
                + (f", with {' and '.join(extra)}" if extra else "") + ">")


def _read_json(path: Path, what: str) -> dict:
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError) as e:
        raise ValueError(f"{path} is not a readable {what}: {e}") from None
    if not isinstance(data, dict):
        raise ValueError(f"{path} is not a readable {what}: expected a JSON object")
    return data


def load(path) -> Loaded:
    """Open the run saved in ``path`` by ``sim run --out``.

    ``ValueError`` if ``path`` is not a saved run (no ``manifest.json``), or if the run did
    not finish (no ``summary.json``: continue it with ``--resume``)."""
    root = Path(path).expanduser()
    if not root.exists():
        raise ValueError(f"{root}: no such folder (expected the --out folder of `sim run`)")
    if not root.is_dir():
        raise ValueError(f"{root} is a file, not a saved run (expected the --out folder of "
                         f"`sim run`)")
    if not (root / "manifest.json").exists():
        raise ValueError(f"{root} is not a saved run: it has no manifest.json (expected the "
                         f"--out folder of `sim run`)")
    manifest = _read_json(root / "manifest.json", "manifest")
    parts = sorted((root / "games").glob("part-*.parquet"))
    if not (root / "summary.json").exists():
        raise ValueError(unfinished(root, manifest, parts))
    summary = _read_json(root / "summary.json", "summary")
    optional = {}
    for name in ("compare", "study", "tune"):
        f = root / f"{name}.json"
        optional[name] = _read_json(f, f"{name} file") if f.exists() else None
    return Loaded(path=root, manifest=manifest, summary=summary,
                  by_seat=pd.DataFrame(summary.get("by_seat", [])),
                  by_strategy=pd.DataFrame(strategy_table(summary, optional["compare"],
                                                          optional["tune"])),
                  compare=optional["compare"], study=optional["study"], tune=optional["tune"],
                  parts=parts)


# the command that saves each kind of folder
COMMANDS = {"run": "sim run", "compare": "sim compare", "swap-study": "sim study swap",
            "tune": "sim tune"}


def unfinished(root: Path, manifest: dict, parts: list) -> str:
    """What to say of a saved folder without its summary.json: the command that saved it
    stopped (killed, or interrupted before it saved a partial result), and ``--resume``
    continues it; how far it got."""
    kind = manifest.get("kind", "run")
    options = manifest.get("options", {})
    progress = ""
    if kind == "run":
        games, batch = options.get("games"), manifest.get("batch")
        if isinstance(games, int) and isinstance(batch, int) and batch > 0:
            progress = f" ({len(parts)} of {-(-games // batch)} batches saved)"
    elif kind == "tune":
        trials = root / "trials.jsonl"
        done = (sum(1 for line in trials.read_text().splitlines() if line.strip())
                if trials.exists() else 0)
        progress = f" ({done} of {options.get('trials', '?')} trials saved)"
    elif parts:
        progress = f" ({len(parts)} files of games saved)"
    command = COMMANDS.get(kind, f"the command that saved it ({kind})")
    return (f"the {'run' if kind == 'run' else kind} in {root} did not finish: it has no "
            f"summary.json{progress}. Continue it with the same `{command}` options plus "
            f"`--out {root} --resume`, then report it")


def strategy_table(summary: dict, compare: dict | None, tune: dict | None) -> list[dict]:
    """The per-strategy rows of a saved folder, whatever command saved it: a run's and a swap
    study's (its values stage) are the summary's ``by_strategy`` (one row per strategy and
    swap, with the seats it held); a tournament's are ``compare.json``'s ``per_strategy``
    (every strategy held every seat, so no seats column); a tuning's are the best and the
    default parameters as measured again on fresh deals (``role``, ``strategy``: the spec,
    ``games``, ``estimate`` and its interval), from ``tune.json``."""
    if summary.get("by_strategy"):
        return summary["by_strategy"]
    if compare is not None:
        return compare.get("per_strategy", [])
    if tune is not None and "fresh" in tune:
        fresh = tune["fresh"]
        return [{"role": role, "strategy": fresh[role]["spec"], "games": fresh["games"],
                 **{k: v for k, v in fresh[role].items() if k != "spec"}}
                for role in ("best", "default") if role in fresh]
    return []
