"""The Python API (``sim.run``, ``sim.compare``): the commands' options as keyword arguments,
the result as ``sim.load`` opens the folder the command saves, the same numbers as the
command, quiet when asked, and Ctrl-C returning the result so far, which ``resume`` finishes
exactly."""
from __future__ import annotations

import contextlib
import json

import pytest

import sim
from sim.cli import api


def test_run_gives_what_the_command_gives(cli, tmp_path):
    r = sim.run(games=3000, players=3, seed=4, strategy=["lowest", "random", "counting"],
                quiet=True)
    assert r.manifest["kind"] == "run" and len(r.games) == 3000
    printed = json.loads(cli("run", "--games", 3000, "--players", 3, "--seed", 4, "-s", "lowest",
                             "-s", "random", "-s", "counting", "--json").output)
    assert r.by_seat.to_dict("records") == printed["by_seat"]
    assert r.summary["overall"]["games"] == printed["overall"]["games"] == 3000
    again = sim.load(r.path)
    assert again.by_seat.equals(r.by_seat)


def test_compare_gives_what_the_command_gives(cli, tmp_path):
    c = sim.compare(["lowest", "random"], players=2, games=600, seed=2, out=tmp_path / "c",
                    quiet=True)
    assert c.manifest["kind"] == "compare" and c.compare is not None
    printed = json.loads(cli("compare", "lowest", "random", "--players", 2, "--games", 600,
                             "--seed", 2, "--json").output)
    assert c.compare["per_strategy"] == printed["per_strategy"]
    assert sim.load(tmp_path / "c").compare == c.compare


def test_quiet_prints_nothing(capsys):
    sim.run(games=200, players=2, quiet=True)
    out = capsys.readouterr()
    assert out.out == "" and out.err == ""


def test_a_mistake_is_a_value_error():
    with pytest.raises(ValueError, match="R1"):
        sim.run(games=100, players=9, quiet=True)
    with pytest.raises(ValueError, match="at least two strategies"):
        sim.compare(["lowest"], quiet=True)


def test_ctrl_c_returns_the_result_so_far_and_resume_finishes_it(monkeypatch, tmp_path):
    @contextlib.contextmanager
    def stop_after(wanted, total, *args, **kw):
        def progress(done):
            if done >= 1500:
                raise KeyboardInterrupt
        yield progress
    monkeypatch.setattr(api, "maybe_progress", stop_after)
    options = dict(games=4000, players=4, seed=6, batch=1000, out=tmp_path / "r", quiet=True)
    part = sim.run(**options)
    assert "interrupted" in part.summary["partial"]
    assert 1500 <= part.summary["overall"]["games"] < 4000
    monkeypatch.undo()
    whole = sim.run(**{**options, "resume": True})
    fresh = sim.run(**{**options, "out": tmp_path / "fresh"})
    assert whole.by_seat.equals(fresh.by_seat) and "partial" not in whole.summary
