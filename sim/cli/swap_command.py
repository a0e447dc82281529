"""``sim swap``: which three of your six cards to put face up (R5), the splits ranked, from
playouts or a swap study's model (:mod:`sim.studies.swapstudy.advice`)."""
from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path
from typing import List, Optional

import typer

from sim.cli.options import (
    PLAYERS, QUIET, RULE, RULES, SEED, at_terminal, fail, json_option, options_given,
    parse_count, progress_bar, ruleset, say_compiling,
)
from sim.cli.words import CARD

# what players type: the names of sim play, and T for a ten
SPELLINGS = CARD | {"t": "10"}


def read_cards(words: List[str]) -> list[int]:
    """The cards typed (``4 5 6 9 10 K``: ``10`` or ``t``, ``k`` or ``K``, ``jk`` or
    ``joker``; spaces or commas between) as rank codes; ``ValueError`` naming an unknown
    word."""
    from sim.kernel.cards import rank_code
    out = []
    for w in " ".join(words).replace(",", " ").split():
        name = SPELLINGS.get(w.lower())
        if name is None:
            raise ValueError(f"unknown card {w!r}: cards are 2-9, 10 (or T), J, Q, K, A and "
                             f"JK (a joker, where the ruleset has them)")
        out.append(rank_code(name))
    return out


@contextmanager
def _progress(wanted, force=False):
    """The playouts' progress: a bar on a terminal (stderr), else nothing; first, once the
    input is checked, a line saying so when the playout kernel is not in the compile cache."""
    from sim.kernel.compiler import cached
    from sim.kernel.sampling import split_playouts
    note = [wanted and not cached(split_playouts)]

    def say_once():
        if note[0]:
            note[0] = False
            say_compiling("the swap's playout kernel", "about a minute")
    if not (wanted and (force or at_terminal())):       # force: the Python API's bar
        yield lambda done, total: say_once()
        return
    with progress_bar() as bar:
        task = bar.add_task("games", total=None)

        def tick(done, total):
            say_once()
            bar.update(task, completed=done, total=total)
        yield tick


def advise(cards, given, players, rules, rule, model, deals, strategy, max_turns, seed,
           progress=None) -> dict:
    """``sim swap``'s answer (:mod:`sim.studies.swapstudy.advice`) for the cards typed, by
    the model of ``model`` or by playouts; ``given``: the options set explicitly (with a
    model a playout option is a mistake; its players and rules are checked only if given)."""
    from sim.studies.swapstudy import advice as adv

    codes = read_cards([cards] if isinstance(cards, str) else [str(c) for c in cards])
    if model is not None:
        playouts = [f"--{o.replace('_', '-')}" for o in ("deals", "strategy", "max_turns",
                                                       "seed") if o in given]
        if playouts:
            raise ValueError(f"--model values the splits by the study's model, which plays "
                             f"no games: {', '.join(playouts)} set(s) the playouts; give "
                             f"--model or the playout options, not both")
        rs = ruleset(rules, rule) if given & {"rules", "rule"} else None
        return adv.by_model(codes, model, players=players if "players" in given else None,
                            rules=rs.to_json() if rs is not None else None)
    return adv.by_playouts(codes, players=players, rules=ruleset(rules, rule),
                           strategy=strategy, deals=parse_count(str(deals), "--deals"),
                           seed=seed, max_turns=max_turns, progress=progress)


def swap_command(
        ctx: typer.Context,
        cards: List[str] = typer.Argument(..., help="Your six cards: the three dealt face up "
                                          "and your three hand cards, in any order, e.g. `4 5 "
                                          "6 9 10 K` (10 or T, J, Q, K, A, 2-9; JK for a "
                                          "joker; case does not matter)."),
        players: int = PLAYERS,
        rules: str = RULES, rule: Optional[List[str]] = RULE,
        model: Optional[Path] = typer.Option(None, "--model", help="A folder saved by `sim "
                                             "study swap --out DIR`: value the splits by its "
                                             "split model (its players and rules; giving "
                                             "others, or a playout option, is an error) "
                                             "instead of playouts."),
        deals: str = typer.Option("5000", "--deals", help="Playouts: deals where you hold "
                                  "these cards, each played once for every split (common "
                                  "random numbers); 5000 answers in about a second, the "
                                  "interval shrinks as 1/sqrt(deals)."),
        strategy: str = typer.Option("lowest", "--strategy", "-s", help="Playouts: the move "
                                     "strategy of every seat (the others swap by its own swap "
                                     "policy); default lowest, as `sim study swap`."),
        max_turns: int = typer.Option(2000, "--max-turns", help="Playouts: turns after which "
                                      "a game is unfinished (R25: a loss)."),
        seed: int = SEED,
        quiet: bool = QUIET,
        as_json: bool = json_option("the splits")):
    """Which three of your six cards to put face up (R5)."""
    try:
        given = {o for o in ("players", "rules", "rule", "deals", "strategy", "max_turns",
                             "seed") if options_given(ctx, o)}
        with _progress(not (quiet or as_json) and model is None) as progress:
            a = advise(cards, given, players, rules, rule, model, deals, strategy, max_turns,
                       seed, progress)
    except ValueError as e:
        fail(str(e))
    except KeyboardInterrupt:
        fail("interrupted", code=130)
    from reports.swap import summary
    a["summary"] = summary(a)                 # the text's first lines, in the JSON too
    if as_json:
        from sim.cli import jsonout
        from sim.kernel.ruleset import Ruleset
        asked = {"cards": cards, "players": a["players"], "model": str(model) if model else None,
                 "deals": a.get("deals"), "strategy": a["strategy"], "seed": a["seed"],
                 "max_turns": a.get("max_turns")}
        jsonout.echo("swap-advice", Ruleset.parse(a["rules"]), asked, a, default=float)
        return
    from reports.swap import advice_lines
    typer.echo("\n".join(advice_lines(a)))
