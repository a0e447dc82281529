"""``sim analyze`` / ``sim.analyze``: every legal move of a position with its estimated value,
best first (:mod:`sim.studies.analysis`)."""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import List, Optional

from sim.commands.common import compile_notice, count, read_json, ruleset, seq, shared
from sim.commands.declare import Command, Done, Options, argument, option


@dataclass
class AnalyzeOptions(Options):
    position: str = argument("A position (docs/position.md JSON) file, or - for stdin. Hidden "
                             "cards may be written \"?\". (Python: the position's dict.)")
    rollouts: str = option("1000", "--rollouts", help="Worlds sampled; every legal move is "
                           "played out once in each (with --until-clear: worlds per block).")
    seed: int = shared("seed")
    opponents: str = option("counting", "--opponents", complete="strategy", help="Strategy of "
                            "the other seats in the playouts (default counting: the strongest "
                            "fast built-in; montecarlo is too slow to play out with).")
    me: Optional[str] = option(None, "--me", complete="strategy", help="Strategy of the seat "
                               "to move after its move, in the playouts (default: "
                               "--opponents).")
    rules: Optional[str] = shared("rules", None, shown="the position's", help="Rules preset "
                                  "the position must be of (default: its own ruleset; see "
                                  "`sim rules`).")
    rule: Optional[List[str]] = shared("rule")
    omniscient: bool = option(False, "--omniscient", help="Use the hidden cards written in "
                              "the position (face-downs, stock, other hands) instead of "
                              "re-dealing them.")
    until_clear: bool = option(False, "--until-clear", help="Play blocks of --rollouts "
                               "worlds, each only by the moves not yet clearly worse than the "
                               "leader, until one is left, the leader is within --tolerance "
                               "of every move left, or --max-rollouts is reached (paired, "
                               "corrected for repeated looks and comparisons).")
    max_rollouts: Optional[str] = option(None, "--max-rollouts", help="Cap of worlds for "
                                         "--until-clear (default 20 blocks).")
    tolerance: float = option(1.0, "--tolerance", help="--until-clear also stops when no move "
                              "left can be better than the leader by this many points (of "
                              "win chance; V2: hundredths of a place); 0: only when one move "
                              "is left.")
    max_turns: int = option(2000, "--max-turns", help="Turns a playout may last before it "
                            "counts as unfinished.")
    threads: Optional[int] = shared("threads")
    quiet: bool = shared("quiet", help="Say nothing on stderr (not even that the playout "
                         "kernel compiles).")


def analyze(o: AnalyzeOptions) -> Done:
    """The analysis: ``result`` is the :class:`~sim.studies.analysis.Analysis` of the
    position (``o.position``: a file's path, ``-`` for stdin, or the position's dict); the
    rules, when given, must be the position's."""
    from sim.kernel.ruleset import Ruleset
    from sim.studies.analysis import run_analysis

    data = o.position if isinstance(o.position, dict) else read_json(o.position)
    if o.rules is None and not o.rule:
        given = None
    elif isinstance(o.rules, (str, type(None))):
        given = ruleset(o.rules or "seed", seq(o.rule))
    else:                                  # a ruleset dict or Ruleset (the Python API)
        given = o.rules
    n = count(o.rollouts, "--rollouts")
    cap = count(o.max_rollouts, "--max-rollouts") if o.max_rollouts else None
    t0 = time.perf_counter()
    with compile_notice(not o.quiet, "the playout kernel and the seated strategies"):
        a = run_analysis(data, rules=given, omniscient=o.omniscient, rollouts=n, seed=o.seed,
                         opponents=o.opponents, me=o.me, until_clear=o.until_clear,
                         max_rollouts=cap, max_turns=o.max_turns, tolerance=o.tolerance,
                         threads=o.threads)
    position = o.position if isinstance(o.position, str) else "(a dict)"
    asked = {"position": position, "rollouts": n, "seed": o.seed, "opponents": o.opponents,
             "me": o.me, "omniscient": o.omniscient, "until_clear": o.until_clear,
             "max_rollouts": cap, "max_turns": o.max_turns, "tolerance": o.tolerance}
    return Done(a, time.perf_counter() - t0, Ruleset.parse(data.get("ruleset")), asked)


def _frame(done):
    """The moves as a pandas DataFrame, best first (:meth:`Analysis.frame`)."""
    return done.result.frame()


COMMAND = Command(
    "analyze", AnalyzeOptions, analyze, "Every legal move of a position with its win chance.",
    show="sim.cli.tool_commands:analyze_command", result="sim.studies.analysis:Analysis",
    python="analyze", opened=_frame,
    examples=("sim analyze docs/examples/midgame-seed-4p.json",
              "sim replay --seed 7 --game 12 --at 30 --json --as-mover | sim analyze -"))
