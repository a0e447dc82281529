"""The file a game of ``sim play`` is saved to, read back by ``sim replay --file`` and continued
by ``sim play --load``: JSON with the deal, the position after the swaps (and the human's
face-up choice), every move and the result."""
from __future__ import annotations

import json
import time
from pathlib import Path

from reports.game import result_of
from sim.kernel.layout import CURRENT, FIRST, OVER, TURN
from sim.kernel.position import to_position
from sim.kernel.ruleset import Ruleset
from sim.runs.folder import write_bytes

FORMAT = "shithead-sim played game"
VERSION = 1


def record(table) -> dict:
    """The game at ``table`` (:class:`sim.cli.table.Table`) as it is saved."""
    over = table.start is not None and bool(table.st[OVER])
    return {
        "format": FORMAT, "version": VERSION,
        "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "seed": table.seed, "players": table.players, "rules": table.rules.to_json(),
        "seat": table.seat, "seats": table.seats,
        "swaps": [table.swap_name(s) for s in range(table.players)],
        "swap_mask": table.mask,
        "max_turns": table.max_turns,
        "dealt": to_position(table.dealt, table.rules) if table.dealt is not None else None,
        "start": to_position(table.start, table.rules) if table.start is not None else None,
        "first": int(table.start[FIRST]) if table.start is not None else None,
        "moves": table.log,
        "status": "finished" if over else "unfinished",
        "reason": table.reason,
        "turns": int(table.st[TURN]),
        "result": result_of(table.st) if over else None,
    }


def default_save_path(seed: int) -> Path:
    return (Path.home() / ".cache" / "shithead-sim" / "games"
            / f"{time.strftime('%Y%m%d-%H%M%S')}-seed{seed}.json")


def dumps(record: dict) -> str:
    """The game as its file holds it (printed when no file can be written): JSON with one
    key a line, and one line per move: short enough to read."""
    def value(k, v):
        if k == "moves" and v:
            return "[\n  " + ",\n  ".join(json.dumps(x) for x in v) + "\n ]"
        return json.dumps(v)
    return "{\n" + ",\n".join(f" {json.dumps(k)}: {value(k, v)}" for k, v in record.items()) \
        + "\n}\n"


def check_writable(path, option: str = "--save") -> Path:
    """``path`` made absolute once it is known that a game can be written there (its folder
    made if missing); ``ValueError`` saying why not. Checked before the deal, so that no game
    is played that cannot be saved."""
    path = Path(path).expanduser().absolute()
    if path.is_dir():
        raise ValueError(f"{option}: {path} is a folder; give a file, such as "
                         f"{path / 'game.json'}")
    up = next((p for p in path.parents if p.exists()), None)
    if up is not None and not up.is_dir():
        raise ValueError(f"{option}: cannot write {path}: {up} is a file, not a folder")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text("")
        tmp.unlink()
    except OSError as e:
        raise ValueError(f"{option}: cannot write {path}: {e.strerror or e}") from None
    return path


def save(record: dict, path: Path) -> Path:
    """Write the game (whole, or not at all: written, then renamed)."""
    path = Path(path).expanduser()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_bytes(path, dumps(record).encode())
    except OSError as e:
        raise ValueError(f"cannot write {path}: {e.strerror or e}") from None
    return path


def load(path, option: str = "--file") -> dict:
    """A game saved by ``sim play``; ``ValueError`` saying what is wrong."""
    try:
        data = json.loads(Path(path).expanduser().read_text())
    except OSError as e:
        raise ValueError(f"{option}: cannot read {path}: {e.strerror or e}") from None
    except json.JSONDecodeError as e:
        raise ValueError(f"{option}: {path} is not valid JSON ({e.msg} at line {e.lineno})") \
            from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ValueError(f"{option}: {path} is not a game saved by sim play")
    missing = {"players", "rules", "seats", "dealt", "start", "moves", "status"} - set(data)
    if missing:
        raise ValueError(f"{option}: {path} lacks {', '.join(sorted(missing))}")
    try:                                  # R1, H18: the ruleset seats the players, or not
        Ruleset.parse(data["rules"]).check_players(data["players"])
    except ValueError as e:
        raise ValueError(f"{option}: {path}: {e}") from None
    return data


def run_record(cfg, game: int, rec) -> dict:
    """Game ``game`` of a run (``cfg``: its RunConfig; ``rec``: :func:`sim.runs.onegame.
    record_game`) as ``sim play`` saves a game, for ``sim replay --save``: no human seat
    (``seat`` null), the run's strategies in ``seats``."""
    from sim.kernel.engine import apply_move
    from sim.kernel.position import move_to_dict

    st = rec.start.copy()
    moves = []
    for m in rec.moves:
        moves.append({"seat": int(st[CURRENT]), "move": move_to_dict(int(m), st)})
        apply_move(st, int(m))
    over = bool(st[OVER])
    reasons = {0: "game over", 1: "endless (a position repeated)" if rec.cycle_turns
               else "turn limit"}
    return {
        "format": FORMAT, "version": VERSION,
        "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "seed": cfg.seed, "game": game, "players": cfg.players,
        "rules": cfg.ruleset.to_json(), "seat": None, "seats": list(cfg.strategies),
        "swaps": list(cfg.swaps), "max_turns": cfg.max_turns,
        "dealt": to_position(rec.dealt, cfg.ruleset),
        "start": to_position(rec.start, cfg.ruleset), "first": int(rec.start[FIRST]),
        "moves": moves, "status": "finished" if over else "unfinished",
        "reason": reasons.get(rec.status, "strategy error (R24)"), "turns": int(st[TURN]),
        "result": result_of(st) if over else None,
    }
