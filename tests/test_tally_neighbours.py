"""The neighbours under a run with mixed seats: saved as facts (sim.runs.tally.neighbours),
worded by reports (reports.plain.neighbours_text), speaking of that run's own seats."""
from __future__ import annotations

import re

from reports.plain import neighbours_text
from sim.kernel.ruleset import Ruleset
from sim.runs.tally import neighbours


def test_the_note_names_the_runs_own_seating_and_quotes_no_figure():
    """``sim run -p 3 -s counting -s random -s highest``: the facts are the seats, the
    strategies and the sim compare that measures them fairly; the note says which strategy
    sat where and gives that command; it quotes no percentage (a figure measured for another
    table would not speak of these seats)."""
    got = neighbours(["counting", "random", "highest"], 3, Ruleset.parse("seed"))
    assert got == {"seats": ["counting", "random", "highest"],
                   "strategies": ["counting", "random", "highest"],
                   "fair_command": "sim compare counting random highest --players 3"}
    note = neighbours_text(got)
    assert "seat 0 counting, seat 1 random, seat 2 highest" in note
    assert note.startswith("The seats hold different strategies")
    assert note.endswith(got["fair_command"])
    assert not re.search(r"\d\s*%|\d+k games", note), note
    assert "lowest" not in note and "save-specials" not in note


def test_the_note_follows_the_seats_it_is_given():
    a = neighbours(["lowest", "random", "lowest"], 3, Ruleset.parse("seed"))
    b = neighbours(["random", "lowest", "lowest"], 3, Ruleset.parse("seed"))
    assert "seat 0 lowest, seat 1 random, seat 2 lowest" in neighbours_text(a)
    assert "seat 0 random, seat 1 lowest, seat 2 lowest" in neighbours_text(b)
    assert a["fair_command"] == "sim compare lowest random --players 3"
    assert neighbours(["lowest"] * 4, 4, Ruleset.parse("seed")) is None


def test_a_summary_saved_with_the_words_shows_them():
    """A run saved before the facts (store format 2) saved the note itself: shown as saved."""
    old = {"note": "The seats hold different strategies (as worded then)",
           "seats": ["lowest", "random"], "strategies": ["lowest", "random"],
           "fair_command": "sim compare lowest random --players 2"}
    assert neighbours_text(old) == old["note"]


def test_a_tally_adds_another_tallys_counts_as_it_adds_their_games():
    """A Dask task sends back its games' counts, not their records (Tally.counts): adding
    the counts of any split of the games gives the tally of them all, seed rules and V2."""
    from sim.runs.batch import play_batch
    from sim.runs.config import RunConfig
    from sim.runs.tally import Tally

    for rules in ("seed", "classic"):
        cfg = RunConfig(games=3000, players=4, rules=rules, strategies=["lowest", "random"] * 2)
        b = play_batch(cfg, 0, 3000, 2)
        whole = Tally(cfg)
        whole.add(b)
        parts = Tally(cfg)
        for lo, hi in ((0, 700), (700, 2999), (2999, 3000)):
            t = Tally(cfg)
            t.add(b.take(slice(lo, hi)))
            parts.add(t.counts())
        assert parts.to_dict() == whole.to_dict()
