"""The Python API (``sim.run``, ``sim.compare``, ``sim.study_swap``, ``sim.study_rules``,
``sim.tune``, ``sim.swap``, ``sim.report``): the commands' options as keyword arguments,
the result as ``sim.load`` opens the folder the command saves, the same numbers as the
command, quiet when asked, and Ctrl-C returning the result so far, which ``resume`` finishes
exactly."""
from __future__ import annotations

import contextlib
import json

import pytest

import sim
from sim.commands import common as work


def test_run_gives_what_the_command_gives(cli, tmp_path):
    r = sim.run(games=3000, players=3, seed=4, strategy=["lowest", "random", "counting"],
                out=tmp_path / "r", quiet=True)
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
            if done >= 30_000:
                raise KeyboardInterrupt
        yield progress
    monkeypatch.setattr(work, "maybe_progress", stop_after)
    options = dict(games=400_000, players=4, seed=6, batch=20_000, out=tmp_path / "r",
                   quiet=True)
    part = sim.run(**options)
    assert "interrupted" in part.summary["partial"]
    assert 30_000 <= part.summary["overall"]["games"] < 400_000
    monkeypatch.undo()
    whole = sim.run(**{**options, "resume": True})
    fresh = sim.run(**{**options, "out": tmp_path / "fresh"})
    assert whole.by_seat.equals(fresh.by_seat) and "partial" not in whole.summary


def _numbers(rows, drop=("spec", "seconds")):
    """Rows without what names the folder or the clock."""
    return [{k: v for k, v in r.items() if k not in drop} for r in rows]


def test_swap_gives_what_the_command_gives(cli):
    df = sim.swap("4 5 6 9 10 K", players=3, deals=300, seed=2, quiet=True)
    printed = json.loads(cli("swap", "4", "5", "6", "9", "10", "K", "--players", 3,
                             "--deals", 300, "--seed", 2, "--json").output)
    assert df.to_dict("records") == printed["splits"]
    assert df.attrs["answer"] == printed["answer"] and df.attrs["summary"] == printed["summary"]
    assert sim.swap(["4", "5", "6", "9", "10", "K"], players=3, deals=300, seed=2,
                    quiet=True).equals(df)


@pytest.mark.slow
def test_study_swap_gives_what_the_command_gives(cli, tmp_path):
    s = sim.study_swap(players=2, games=2000, h2h_games=400, seed=1, quiet=True)
    assert s.manifest["kind"] == "swap-study" and s.study is not None
    printed = json.loads(cli("study", "swap", "--players", 2, "--games", 2000, "--h2h-games",
                             400, "--seed", 1, "--json", "--out", tmp_path / "s").output)
    assert _numbers(s.study["head_to_head"]) == _numbers(printed["head_to_head"])
    assert s.study["verdict"] == printed["verdict"]
    page = sim.report(s, tmp_path / "page.html")
    assert page == tmp_path / "page.html" and "<html" in page.read_text().lower()
    # the swap advice from the study's model, as the command gives it
    df = sim.swap("4 5 6 9 10 K", model=s.path, quiet=True)
    printed = json.loads(cli("swap", "4", "5", "6", "9", "10", "K", "--model", s.path,
                             "--json").output)
    assert df.to_dict("records") == printed["splits"]


def test_study_rules_gives_what_the_command_gives(cli):
    options = dict(players=3, only=["ten_anywhere"], games=300, skill_deals=60, mc_deals=0,
                   seed=2)
    lab = sim.study_rules(**options, quiet=True)
    printed = json.loads(cli("study", "rules", "--players", 3, "--only", "ten_anywhere",
                             "--games", 300, "--skill-deals", 60, "--mc-deals", 0, "--seed", 2,
                             "--json").output)
    base = next(r for r in printed["rulesets"] if r["ident"] == "base")
    assert lab.manifest["kind"] == "rules-lab"
    assert lab.by_seat.to_dict("records") == base["seats"]
    assert lab.summary["overall"]["games"] == printed["games_played"]


def test_tune_gives_what_the_command_gives(cli):
    pytest.importorskip("optuna")
    t = sim.tune("counting", against="lowest", players=2, trials=3, games_per_trial=200,
                 seed=3, quiet=True)
    printed = json.loads(cli("tune", "counting", "--against", "lowest", "--players", 2,
                             "--trials", 3, "--games-per-trial", 200, "--seed", 3,
                             "--json").output)
    assert t.manifest["kind"] == "tune"
    assert _numbers(t.tune["trials"]) == _numbers(printed["trials"])
    assert _numbers([t.tune["best"]]) == _numbers([printed["best"]])


def test_the_studies_print_nothing_when_quiet(capsys):
    sim.swap("4 5 6 9 10 K", deals=100, quiet=True)
    pytest.importorskip("optuna")
    sim.tune("counting", against=["lowest"], players=2, trials=2, games_per_trial=100,
             quiet=True)
    out = capsys.readouterr()
    assert out.out == "" and out.err == ""


def test_the_studies_mistakes_are_value_errors():
    with pytest.raises(ValueError, match="unknown card 'Z'"):
        sim.swap("4 5 6 9 10 Z", quiet=True)
    with pytest.raises(ValueError, match="--model"):
        sim.swap("4 5 6 9 10 K", model="somewhere", deals=100, quiet=True)
    with pytest.raises(ValueError, match="--games"):
        sim.study_swap(games="lots", quiet=True)
    with pytest.raises(ValueError, match="--skill-deals"):
        sim.study_rules(skill_deals="0", quiet=True)
    pytest.importorskip("optuna")
    with pytest.raises(ValueError, match="--games-per-trial"):
        sim.tune("counting", against="lowest", games_per_trial="x", quiet=True)


def test_ctrl_c_in_the_swap_study_returns_its_games_so_far(monkeypatch, tmp_path):
    @contextlib.contextmanager
    def stop_after(wanted, total, *args, **kw):
        def progress(done):
            if done >= 1000:
                raise KeyboardInterrupt
        yield progress
    monkeypatch.setattr(work, "maybe_progress", stop_after)
    # a batch of 20,000 games in chunks of about 0.05 s: the stop lands within it (a batch
    # finished whole when the stop comes is kept whole)
    part = sim.study_swap(players=2, games=20_000, seed=1, out=tmp_path / "s", quiet=True)
    assert "interrupted" in part.summary["partial"] and part.study is None
    assert 1000 <= part.summary["overall"]["games"] < 20_000


def test_ctrl_c_in_tune_returns_the_trials_so_far_and_resume_finishes_them(monkeypatch,
                                                                            tmp_path):
    pytest.importorskip("optuna")

    @contextlib.contextmanager
    def stop_after(wanted, total, *args, **kw):
        def progress(done):
            if done >= 600:
                raise KeyboardInterrupt
        yield progress
    monkeypatch.setattr(work, "maybe_progress", stop_after)
    options = dict(against="lowest", players=2, trials=4, games_per_trial=200, seed=3,
                   quiet=True)
    part = sim.tune("counting", out=tmp_path / "t", **options)
    assert "interrupted" in part.summary["partial"] and 0 < len(part.tune["trials"]) < 4
    monkeypatch.undo()
    whole = sim.tune("counting", out=tmp_path / "t", resume=True, **options)
    fresh = sim.tune("counting", out=tmp_path / "fresh", **options)
    assert _numbers(whole.tune["trials"]) == _numbers(fresh.tune["trials"])
    assert "partial" not in whole.summary


def test_a_run_without_out_writes_no_folder(monkeypatch, tmp_path):
    """sim.run without out: no folder (not even a temporary one), the summary as a saved
    run's, its per-game records in memory the same as the saved run's; past what memory
    keeps, .games asks for out=; nor can its page be drawn without a folder."""
    import tempfile

    import pandas as pd

    from sim.runs import folder

    def no_folder(*a, **kw):
        raise AssertionError("a temporary folder was made")
    monkeypatch.setattr(tempfile, "mkdtemp", no_folder)
    options = dict(games=900, players=3, seed=7, batch=400, quiet=True)
    memory = sim.run(**options)
    saved = sim.run(**options, out=tmp_path / "r")
    assert memory.path is None and memory.manifest["kind"] == "run"
    assert memory.summary["overall"] == saved.summary["overall"]
    assert memory.by_seat.equals(saved.by_seat)
    pd.testing.assert_frame_equal(memory.games, saved.games)
    with pytest.raises(ValueError, match="out=DIR"):
        sim.report(memory)
    monkeypatch.setattr(folder, "IN_MEMORY", 500)
    big = sim.run(**options)
    assert big.summary["overall"] == saved.summary["overall"]
    with pytest.raises(ValueError, match="out=DIR"):
        big.games
    with pytest.raises(ValueError, match="give out"):
        sim.run(**options, resume=True)


@pytest.mark.parametrize("kind", ["compare", "tune",
                                  pytest.param("rules-lab", marks=pytest.mark.slow)])
def test_a_study_without_out_writes_no_folder(kind, monkeypatch, tmp_path):
    """sim.compare, sim.tune and sim.study_rules without out (sim.runs.kinds: in_memory):
    no folder, not even a temporary one, and the result as the saved folder opens (summary,
    tables, the study's own result, per-game records), path None; its page needs a folder."""
    import tempfile

    import pandas as pd

    from test_resume_contract import CASES, _stable

    call = CASES[kind][0]
    saved = call(tmp_path / "saved")
    monkeypatch.chdir(tmp_path / "saved")           # nothing is written where it runs either
    before = sorted(p.name for p in (tmp_path / "saved").iterdir())

    def no_folder(*a, **kw):
        raise AssertionError("a temporary folder was made")
    monkeypatch.setattr(tempfile, "mkdtemp", no_folder)
    memory = call(None)
    assert memory.path is None and memory.manifest["kind"] == kind
    assert sorted(p.name for p in (tmp_path / "saved").iterdir()) == before
    assert memory.manifest["match"] == saved.manifest["match"]
    assert _stable(memory.summary) == _stable(saved.summary)
    assert memory.by_seat.equals(saved.by_seat) and memory.by_strategy.equals(saved.by_strategy)
    for name in ("result", "compare", "study", "tune"):
        assert _stable(getattr(memory, name)) == _stable(getattr(saved, name))
    assert memory.result is not None
    pd.testing.assert_frame_equal(memory.games, saved.games)
    assert "not saved" in repr(memory)
    with pytest.raises(ValueError, match="out=DIR"):
        sim.report(memory)


def test_a_study_kept_in_memory_keeps_its_records_up_to_a_limit(monkeypatch):
    """Past sim.runs.folder.IN_MEMORY games a study without out keeps no records, and .games
    says to give out= (rather than exhaust memory)."""
    from sim.runs import folder

    monkeypatch.setattr(folder, "IN_MEMORY", 1000)
    cmp = sim.compare(["lowest", "random"], players=2, games=1600, seed=2, quiet=True)
    assert cmp.compare["games"] == 1600 and cmp.path is None
    with pytest.raises(ValueError, match="out=DIR"):
        cmp.games


@pytest.mark.parametrize("kind", ["compare", "tune"])
def test_a_study_kept_in_memory_stopped_gives_its_result_so_far_and_no_resume(kind,
                                                                               monkeypatch):
    """Ctrl-C midway through a study without out: the result so far, marked partial, and no
    advice to resume (there is no folder to continue)."""
    from test_resume_contract import CASES, _stop_after

    call, units = CASES[kind]
    monkeypatch.setattr(work, "maybe_progress", _stop_after(units // 2))
    part = call(None)
    assert part.path is None and part.summary["partial"].startswith("interrupted")
    assert "resume" not in part.summary["partial"] and "resume" not in json.dumps(part.result)


def test_a_run_kept_in_memory_stopped_gives_its_tally_and_its_whole_batches(monkeypatch):
    """sim.run without out, stopped midway: the tally so far as the summary (saying nothing
    was saved), and the records of the batches finished whole, kept in memory."""
    from test_resume_contract import _stop_after

    monkeypatch.setattr(work, "maybe_progress", _stop_after(5000))
    part = sim.run(games=8000, batch=1000, players=3, seed=1, threads=2, quiet=True)
    assert part.path is None and "nothing was saved" in part.summary["partial"]
    played, kept = part.summary["overall"]["games"], len(part.games)
    assert 5000 <= played < 8000 and kept % 1000 == 0 and 0 < kept <= played
