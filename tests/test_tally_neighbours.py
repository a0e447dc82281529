"""The neighbours note under a run with mixed seats speaks of that run's own seats."""
from __future__ import annotations

import re

from sim.kernel.ruleset import Ruleset
from sim.runs.tally import neighbours


def test_the_note_names_the_runs_own_seating_and_quotes_no_figure():
    """``sim run -p 3 -s counting -s random -s highest``: the note says which strategy sat
    where and gives the sim compare that measures them fairly; it quotes no percentage (a
    figure measured for another table would not speak of these seats)."""
    got = neighbours(["counting", "random", "highest"], 3, Ruleset.parse("seed"))
    note = got["note"]
    assert "seat 0 counting, seat 1 random, seat 2 highest" in note
    assert got["seats"] == ["counting", "random", "highest"]
    assert got["strategies"] == ["counting", "random", "highest"]
    assert got["fair_command"] == "sim compare counting random highest --players 3"
    assert note.endswith(got["fair_command"])
    assert not re.search(r"\d\s*%|\d+k games", note), note
    assert "lowest" not in note and "save-specials" not in note


def test_the_note_follows_the_seats_it_is_given():
    a = neighbours(["lowest", "random", "lowest"], 3, Ruleset.parse("seed"))
    b = neighbours(["random", "lowest", "lowest"], 3, Ruleset.parse("seed"))
    assert "seat 0 lowest, seat 1 random, seat 2 lowest" in a["note"]
    assert "seat 0 random, seat 1 lowest, seat 2 lowest" in b["note"]
    assert a["fair_command"] == "sim compare lowest random --players 3"
    assert neighbours(["lowest"] * 4, 4, Ruleset.parse("seed")) is None
