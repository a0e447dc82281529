"""A new study is one module and one registration (docs/architecture.md, "A new study"): the
toy study of tests/toy_study.py, registered, has a command line command with its options'
help, a ``sim.*`` function, a saved folder that ``--resume`` continues to the uninterrupted
result, ``sim.load`` and a ``sim report`` page; nothing else names it."""
from __future__ import annotations

import contextlib
import json

import pytest

import sim


@pytest.fixture
def toy(monkeypatch):
    """The toy study registered for one test (the tables it joins restored after)."""
    import toy_study

    from sim.cli.app import app
    from sim.commands import COMMANDS, register
    from sim.runs.kinds import KINDS

    monkeypatch.setattr(app, "registered_commands", list(app.registered_commands))
    monkeypatch.setattr("sim.commands.COMMANDS", dict(COMMANDS))
    monkeypatch.setattr("sim.runs.kinds.KINDS", dict(KINDS))
    import sim.commands as commands
    import sim.runs.kinds as kinds
    assert commands.COMMANDS is not COMMANDS and kinds.KINDS is not KINDS
    register(toy_study.COMMAND)                   # the one registration
    yield toy_study
    sim.__dict__.pop("toy", None)


def test_the_toy_study_has_a_command_with_its_options(toy, cli):
    help_text = cli("toy", "--help").output
    assert "How often the first seat wins" in help_text
    for option in ("--games", "--block", "--players", "--seed", "--out", "--resume", "--json"):
        assert option in help_text


def test_the_toy_study_saves_resumes_loads_and_reports(toy, cli, tmp_path, monkeypatch):
    from sim.commands import common

    whole = sim.toy(games=1200, block=400, players=3, seed=2, out=tmp_path / "whole",
                    quiet=True)
    assert whole.manifest["kind"] == "toy"
    assert sim.load(tmp_path / "whole").summary["overall"]["played"] == 1200
    # without out: the same result, kept in memory (nothing written)
    kept = sim.toy(games=1200, block=400, players=3, seed=2, quiet=True)
    assert kept.path is None and kept.summary["overall"] == whole.summary["overall"]

    # the command line, into a folder: the same result
    printed = json.loads(cli("toy", "--games", 1200, "--block", 400, "--players", 3,
                             "--seed", 2, "--out", tmp_path / "cli", "--json").output)
    assert printed["kind"] == "toy"
    assert printed["first_seat_wins"] == whole.summary["overall"]["first_seat_wins"]

    # stopped after the first block, then resumed: the uninterrupted result
    @contextlib.contextmanager
    def stop_after_first_block(wanted, total, *args, **kw):
        def progress(done):
            if done >= 400:
                raise KeyboardInterrupt
        yield progress
    with monkeypatch.context() as stopping:
        stopping.setattr(common, "maybe_progress", stop_after_first_block)
        part = sim.toy(games=1200, block=400, players=3, seed=2, out=tmp_path / "part")
    assert part.summary["partial"] and part.summary["overall"]["played"] == 400
    resumed = sim.toy(games=1200, block=400, players=3, seed=2, out=tmp_path / "part",
                      resume=True, quiet=True)
    assert resumed.summary["overall"] == whole.summary["overall"]
    with pytest.raises(ValueError, match="seed was 2, now 3"):
        sim.toy(games=1200, block=400, players=3, seed=3, out=tmp_path / "part",
                resume=True, quiet=True)

    page = sim.report(resumed)
    assert "The first seat won" in page.read_text()


def test_a_declaration_refuses_what_it_does_not_declare(toy):
    """The options dataclass reads a Python call: an unknown keyword or a surplus
    positional is a TypeError naming the command's options; a second command of a taken
    name, or another kind of a taken kind's name, is refused at registration."""
    import dataclasses

    from sim.commands import register
    from sim.runs.kinds import declare

    with pytest.raises(TypeError, match=r"unexpected keyword argument 'gams' \(its options: "
                                        r"games, block"):
        sim.toy(gams=10)
    with pytest.raises(TypeError, match="takes 0 positional"):
        sim.toy(10)
    with pytest.raises(ValueError, match="already registered"):
        register(toy.COMMAND)
    with pytest.raises(ValueError, match="already declared"):
        declare(dataclasses.replace(toy.KIND, result="other.json"))
