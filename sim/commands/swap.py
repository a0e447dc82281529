"""``sim swap`` / ``sim.swap``: which three of six cards to put face up (R5), by the model of
a saved swap study or by playouts (:mod:`sim.studies.swapstudy.advice`)."""
from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import List, Optional

from sim.commands.common import (
    CARD, at_terminal, count, progress_bar, ruleset, say_compiling, seq, shared,
)
from sim.commands.declare import Command, Done, Options, argument, option

# The playouts' defaults (an option left None is not given: with --model, giving one is a
# mistake)
PLAYERS, RULES, SEED = 4, "seed", 0


@dataclass
class SwapOptions(Options):
    cards: List[str] = argument("Your six cards: the three dealt face up and your three hand "
                                "cards, in any order, e.g. `4 5 6 9 10 K` (10 or T, J, Q, K, "
                                "A, 2-9; JK for a joker; case does not matter).")
    players: Optional[int] = shared("players", None, shown=str(PLAYERS))
    rules: Optional[str] = shared("rules", None, shown=RULES)
    rule: Optional[List[str]] = shared("rule")
    model: Optional[Path] = option(None, "--model", help="A folder saved by `sim study swap "
                                   "--out DIR`: value the splits by its split model (its "
                                   "players and rules; giving others, or a playout option, "
                                   "is an error) instead of playouts.")
    deals: Optional[str] = option(None, "--deals", help="Playouts: deals where you hold these "
                                  "cards, each played once for every split (common random "
                                  "numbers); 5000 answers in about a second, the interval "
                                  "shrinks as 1/sqrt(deals).", shown="5000")
    strategy: Optional[str] = option(None, "--strategy", "-s", complete="strategy",
                                     help="Playouts: the move strategy of every seat (the "
                                     "others swap by its own swap policy); default lowest, as "
                                     "`sim study swap`.", shown="lowest")
    max_turns: Optional[int] = option(None, "--max-turns", help="Playouts: turns after which "
                                      "a game is unfinished (R25: a loss).", shown="2000")
    seed: Optional[int] = shared("seed", None, shown=str(SEED))
    threads: Optional[int] = shared("threads")
    quiet: bool = shared("quiet")


def read_cards(words) -> list[int]:
    """The cards typed (``4 5 6 9 10 K``: ``10`` or ``t``, ``k`` or ``K``, ``jk`` or
    ``joker``; spaces or commas between; one string or a list) as rank codes;
    ``ValueError`` naming an unknown word."""
    from sim.kernel.cards import rank_code

    spellings = CARD | {"t": "10"}       # the names of sim play, and T for a ten
    out = []
    for w in " ".join(str(c) for c in seq(words)).replace(",", " ").split():
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


def swap(o: SwapOptions) -> Done:
    """The answer (:mod:`sim.studies.swapstudy.advice`) for the cards typed, by the model
    saved in ``model`` or by playouts, with its ``summary`` (the text's first lines): an
    option left None is not given (with a model a playout option is a mistake; its players
    and rules are checked only if given); by playouts, 4 players, the seed rules and the
    study's own playouts unless given."""
    import time

    from reports.swap import summary
    from sim.studies.swapstudy import advice

    given = {k for k in ("players", "rules", "rule", "deals", "strategy", "max_turns", "seed")
             if getattr(o, k) is not None}
    players, rules, seed = o.players or PLAYERS, o.rules or RULES, o.seed or SEED
    codes = read_cards(o.cards)
    t0 = time.perf_counter()
    with _swap_progress(not o.quiet and o.model is None) as progress:
        if o.model is None:
            a = advice.by_playouts(
                codes, players=players, rules=ruleset(rules, seq(o.rule)),
                strategy=o.strategy or advice.DEFAULT_STRATEGY, seed=seed, progress=progress,
                deals=count(advice.DEFAULT_DEALS if o.deals is None else o.deals, "--deals"),
                max_turns=advice.DEFAULT_CAP if o.max_turns is None else o.max_turns,
                threads=o.threads)
        else:
            playouts = [f"--{k.replace('_', '-')}" for k in ("deals", "strategy", "max_turns",
                                                             "seed") if k in given]
            if playouts:
                raise ValueError(f"--model values the splits by the study's model, which "
                                 f"plays no games: {', '.join(playouts)} set(s) the "
                                 f"playouts; give --model or the playout options, not both")
            rs = ruleset(rules, seq(o.rule)) if given & {"rules", "rule"} else None
            a = advice.by_model(codes, o.model,
                                players=players if "players" in given else None,
                                rules=rs.to_json() if rs is not None else None)
    a["summary"] = summary(a)
    from sim.kernel.ruleset import Ruleset
    asked = {"cards": o.cards, "players": a["players"],
             "model": str(o.model) if o.model else None, "deals": a.get("deals"),
             "strategy": a["strategy"], "seed": a["seed"], "max_turns": a.get("max_turns")}
    return Done(a, time.perf_counter() - t0, Ruleset.parse(a["rules"]), asked)


def _frame(done):
    """The splits as a pandas DataFrame, best first; ``df.attrs``: the rest of the answer."""
    import pandas as pd

    a = dict(done.result)
    df = pd.DataFrame(a.pop("splits"))
    df.attrs.update(a)
    return df


COMMAND = Command(
    "swap", SwapOptions, swap, "Which three of your six cards to put face up (R5).",
    show="sim.cli.tool_commands:swap_command", result=dict, python="swap", opened=_frame,
    examples=("sim swap 4 5 6 9 10 K", "sim swap 4 5 6 9 10 K --players 3 --model runs/swap"))
