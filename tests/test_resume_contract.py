"""One interrupt/resume contract, run against every kind of saved folder that resumes
(sim.runs.kinds.KINDS): a command stopped by Ctrl-C (at its first progress tick, and midway
through its first stage) and then resumed with the same options leaves the folder an
uninterrupted run leaves: the same result file (timings aside), the same per-game records,
the same totals as ``sim.load`` reads them and the same page as ``sim report`` draws it
(its text, how it was run aside). And a stop advises ``--resume`` only when the folder it
names holds something to resume.

The commands run through the Python API (``sim.run``, ...), which is the command's own work
(sim.commands); Ctrl-C is the progress callback raising KeyboardInterrupt, as a terminal's
SIGINT does on the waiting thread.
"""
from __future__ import annotations

import contextlib
import json
import re

import pytest

import sim
from sim.commands import common as work
from sim.runs.kinds import KINDS

# Each resumable kind on a small budget: (the call, the units of its first stage).
CASES = {
    "run": (lambda out, **kw: sim.run(games=6000, batch=1000, players=3, seed=1, threads=2,
                                      out=out, quiet=True, **kw), 6000),
    "compare": (lambda out, **kw: sim.compare(["lowest", "random"], players=3, games=3000,
                                              seed=1, threads=2, out=out, quiet=True, **kw),
                3000),
    "swap-study": (lambda out, **kw: sim.study_swap(players=2, games=4000, h2h_games=400,
                                                    seed=1, threads=2, out=out, quiet=True,
                                                    **kw), 4000),
    "rules-lab": (lambda out, **kw: sim.study_rules(players=3, only=["hand_size"], games=600,
                                                    skill_deals=40, mc_deals=2, mc_block=2,
                                                    seed=1, threads=2, out=out, quiet=True,
                                                    **kw), 600),
    "tune": (lambda out, **kw: sim.tune("counting", against="lowest", players=2, trials=3,
                                        games_per_trial=120, fresh_games=120, seed=3,
                                        threads=2, out=out, quiet=True, **kw), 360),
}

# what differs between two runs of the same work: when and how fast, and whether resumed
TIMING = {"seconds", "games_per_second", "created", "finished", "started", "elapsed",
          "resume", "loaded", "rate", "speed", "partial"}


def test_every_resumable_kind_is_in_the_contract():
    assert set(CASES) == {name for name, k in KINDS.items() if k.resume}


def _stop_after(n):
    @contextlib.contextmanager
    def progress_bar(wanted, total, *args, **kw):
        def progress(done):
            if done >= n:
                raise KeyboardInterrupt
        yield progress
    return progress_bar


def _stable(data):
    """``data`` without what differs between two runs of the same work (:data:`TIMING`)."""
    if isinstance(data, dict):
        return {k: _stable(v) for k, v in data.items() if k not in TIMING}
    if isinstance(data, list):
        return [_stable(v) for v in data]
    return data


def _read(file, folder):
    """A result file, its own folder's path written as DIR (a policy file's name)."""
    return _stable(json.loads(file.read_text().replace(str(folder), "DIR")))


def _games(loaded):
    """A folder's per-game records, its own path written as DIR (a policy file's name)."""
    df = loaded.games.copy()
    for c in df.columns:
        if df[c].dtype == object or str(df[c].dtype).startswith("str"):
            df[c] = df[c].astype(str).str.replace(str(loaded.path), "DIR", regex=False)
    return df


def _page_text(folder, tmp_path, name):
    """The page ``sim report`` draws, as text, but its last section (how it was run: the
    options, versions, dates) and its plots."""
    html = sim.report(folder, tmp_path / f"{name}.html").read_text()
    html = html.split('<section id="run"')[0]
    html = re.sub(r"<img[^>]*>", "", html)
    text = re.sub(r"<[^>]+>", " ", html)
    text = re.sub(r"\d+(\.\d+)? s\b|[\d,]+ games/s|\d{4}-\d\d-\d\d[ T][\d:]+", "#",
                  text.replace(str(folder), "DIR"))
    return " ".join(text.split())


@pytest.mark.slow
@pytest.mark.parametrize("kind", list(CASES))
def test_a_stopped_then_resumed_command_leaves_the_uninterrupted_folder(kind, tmp_path,
                                                                       monkeypatch):
    if kind == "tune":
        pytest.importorskip("optuna")
    call, units = CASES[kind]
    whole = call(tmp_path / "whole")
    result = KINDS[kind].result
    reference = _read(whole.path / result, whole.path)
    # the folder's format and what must match to resume are the kind's (sim.runs.kinds)
    assert whole.manifest["format"] == KINDS[kind].format
    assert list(whole.manifest["match"]) == ["format", "code", *KINDS[kind].match]
    # the result as sim.load gives it is the kind's result file
    assert _stable(json.loads(json.dumps(whole.result).replace(str(whole.path), "DIR"))) \
        == reference
    for at in (1, units // 2):
        out = tmp_path / f"stopped-{at}"
        monkeypatch.setattr(work, "maybe_progress", _stop_after(at))
        try:
            call(out)
        except KeyboardInterrupt as e:      # stopped before anything could be opened
            said = str(e)
            saved = (out / "manifest.json").exists()
            assert ("resume=True" in said) is saved, said
            if not saved:
                assert "nothing was saved" in said, said
        monkeypatch.undo()
        if not (out / "manifest.json").exists():
            resumed = call(out)              # nothing saved: started again, as advised
        else:
            resumed = call(out, resume=True)
        assert resumed.manifest["state"] == "finished"
        assert _read(out / result, out) == reference, (kind, at)
        assert _stable(resumed.summary) == _stable(whole.summary), (kind, at)
        if whole.parts:                      # the per-game records, game for game
            assert _games(resumed).equals(_games(whole)), (kind, at)
        assert _page_text(out, tmp_path, f"r{at}") == _page_text(whole.path, tmp_path, "w")
