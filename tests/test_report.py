"""Saved runs for analysis: `sim.load` (the notebook API) and `sim report` (one self-contained
HTML page, its plots as PNG and its tables as CSV beside it), checked down to a real headless
browser rendering the page with every plot."""
from __future__ import annotations

import base64
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import sim
from reports.html import write_report
from sim.runs.runner import RunConfig, run

STRATEGIES = ["lowest", "random", "lowest"]
# the mixed seating of `saved`: no chart by position after the starter
CORE_PLOTS = ("win_rate_by_strategy", "win_rate_by_seat", "turns_histogram",
              "pickups_histogram")
CORE_TABLES = ("run", "by_strategy", "by_seat", "turns_counts", "pickups_counts")


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    """A finished run of 3,000 three-player games saved in 3 batch files."""
    out = tmp_path_factory.mktemp("saved") / "run"
    cfg = RunConfig(games=3000, players=3, seed=11, strategies=STRATEGIES, batch=1000,
                    threads=1)
    summary = run(cfg, out=out).to_dict()
    return out, summary


def _copy(saved, tmp_path):
    dst = tmp_path / "run"
    shutil.copytree(saved[0], dst)
    return dst


def _embedded_pngs(html: str) -> list[bytes]:
    return [base64.b64decode(m) for m in
            re.findall(r'<img src="data:image/png;base64,([A-Za-z0-9+/=]+)"', html)]


# -- sim.load --------------------------------------------------------------------------------
def test_load_gives_the_records_and_the_summary(saved):
    path, summary = saved
    r = sim.load(path)
    assert r.summary == summary
    assert r.manifest["options"]["seed"] == 11
    assert r.compare is None and r.study is None
    assert len(r.parts) == 3
    games = r.games
    assert isinstance(games, pd.DataFrame) and len(games) == 3000
    assert games["game"].tolist() == list(range(3000))            # all parts, in order
    wins = games.loc[~games["unfinished"], "winner"].value_counts()
    assert [int(wins.get(s, 0)) for s in range(3)] == [s["wins"] for s in summary["by_seat"]]
    assert r.by_seat["wins"].tolist() == [s["wins"] for s in summary["by_seat"]]
    assert r.by_seat["strategy"].tolist() == STRATEGIES
    assert set(r.by_strategy["strategy"]) == {"lowest", "random"}
    assert r.by_strategy["games"].sum() == 3 * 3000
    assert "3,000 games" in repr(r)


def test_load_opens_each_kind_with_its_own_reader(saved, tmp_path):
    """A run folder is a run whatever other files lie in it; a tournament's folder gives its
    compare.json, a swap study's its study.json; a kind this version does not know is
    refused in one line."""
    path = _copy(saved, tmp_path)
    (path / "compare.json").write_text(json.dumps(COMPARE))
    (path / "study.json").write_text(json.dumps(STUDY))
    r = sim.load(path)
    assert r.compare is None and r.study is None and len(r.parts) == 3
    manifest = json.loads((path / "manifest.json").read_text())
    for kind, name, attr in (("compare", "compare.json", "compare"),
                             ("swap-study", "study.json", "study")):
        (path / "manifest.json").write_text(json.dumps(dict(manifest, kind=kind)))
        assert getattr(sim.load(path), attr) == json.loads((path / name).read_text())
    (path / "manifest.json").write_text(json.dumps(dict(manifest, kind="mystery")))
    with pytest.raises(ValueError, match=r"kind 'mystery', which this version .* cannot open"):
        sim.load(path)


def test_load_refuses_what_is_not_a_finished_run(saved, tmp_path):
    with pytest.raises(ValueError, match="not a saved folder.*manifest.json.*sim run, sim "
                                         "compare, sim study swap, sim tune, sim study rules "
                                         "or sim review"):
        sim.load(tmp_path)
    with pytest.raises(ValueError, match="no such folder"):
        sim.load(tmp_path / "missing")
    part = tmp_path / "unfinished"
    (part / "games").mkdir(parents=True)
    shutil.copy(saved[0] / "manifest.json", part)
    shutil.copy(saved[0] / "games" / "part-00000.parquet", part / "games")
    with pytest.raises(ValueError, match=r"did not finish.*1 of 3 batches.*--resume"):
        sim.load(part)


# -- the report ------------------------------------------------------------------------------
def test_report_writes_one_page_with_plots_and_tables(saved, tmp_path):
    path, summary = saved
    out = tmp_path / "out" / "report.html"
    files = write_report(path, out)
    assert files[0] == out and out.exists()
    folder = tmp_path / "out" / "report_files"
    for name in CORE_PLOTS:
        png = folder / f"{name}.png"
        assert png in files and png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    for name in CORE_TABLES:
        assert folder / f"{name}.csv" in files
    assert folder / "start_position.csv" not in files
    html = out.read_text()
    embedded = _embedded_pngs(html)
    assert sorted(embedded) == sorted((folder / f"{n}.png").read_bytes() for n in CORE_PLOTS)
    assert not re.search(r'(src|href)="(https?:)?//', html)       # self-contained
    by_seat = pd.read_csv(folder / "by_seat.csv")
    assert by_seat["wins"].tolist() == [s["wins"] for s in summary["by_seat"]]
    for text in ("3,000 games", "seed 11", "95% CI", "seed rules", "lowest", "random",
                 "Game length", "starting player", "n = 3,000"):
        assert text in html
    assert 'id="tournament"' not in html and 'id="study"' not in html
    assert not (path / "report.html").exists()               # the run folder is untouched


@pytest.mark.slow
def test_the_page_is_chosen_by_the_manifest_kind(saved, tmp_path):
    """A run folder draws a run, whatever other files lie in it; a folder of an unknown kind
    is a clear error."""
    path = _copy(saved, tmp_path)
    (path / "compare.json").write_text(json.dumps(COMPARE))
    (path / "study.json").write_text(json.dumps(STUDY))
    files = write_report(path, tmp_path / "r.html")
    html = (tmp_path / "r.html").read_text()
    assert 'id="tournament"' not in html and 'id="study"' not in html
    assert "Shithead simulation" in html and 'id="seats"' in html
    assert len(_embedded_pngs(html)) == sum(f.suffix == ".png" for f in files)
    manifest = json.loads((path / "manifest.json").read_text())
    (path / "manifest.json").write_text(json.dumps(dict(manifest, kind="mystery")))
    with pytest.raises(ValueError, match="kind 'mystery'.*run, compare, swap-study"):
        write_report(path, tmp_path / "x.html")
    from reports.html import page_module
    from sim.runs.kinds import KINDS
    assert {k: page_module(k).__name__ for k in KINDS} == {
        "run": "reports.html.run", "compare": "reports.html.compare",
        "swap-study": "reports.html.study", "tune": "reports.html.tune",
        "review": "reports.html.review",
        "rules-lab": "reports.html.ruleslab"}


def test_the_page_template_is_its_own_file():
    import reports.html as pkg
    here = os.path.dirname(pkg.__file__)
    template = open(os.path.join(here, "page.html.j2")).read()
    assert "{% for s in sections %}" in template and 'data-rendered="pending"' in template
    assert os.path.exists(os.path.join(here, "page.css"))
    assert "<html" not in open(os.path.join(here, "__init__.py")).read()


def test_report_names_a_malformed_extra_file(tmp_path):
    path = _folder_of(tmp_path, "compare", {"strategies": _NAMES, "players": 3, "games": 9,
                                             "seed": 0, "rules": "seed"},
                      {"overall": {"games": 9}, "by_seat": [], "by_strategy": []},
                      "compare.json", {"per_strategy": [{"games": 1}]})
    with pytest.raises(ValueError, match="compare.json does not have the expected shape"):
        write_report(path, tmp_path / "r.html")


def test_cli_report(saved, tmp_path, cli):
    path = _copy(saved, tmp_path)
    r = cli("report", path)
    assert r.exit_code == 0, r.output
    assert (path / "report.html").exists() and (path / "report_files" / "by_seat.csv").exists()
    r = cli("report", path, "-o", tmp_path / "elsewhere.html")
    assert r.exit_code == 0 and (tmp_path / "elsewhere.html").exists()
    (tmp_path / "empty").mkdir()
    for bad, words in ((tmp_path / "empty", "not a saved folder"),
                       (tmp_path / "nope", "no such folder")):
        r = cli("report", bad)
        assert r.exit_code == 2
        assert words in r.output and "Traceback" not in r.output


def _folder_of(tmp_path, kind, options, summary, name, data):
    """A folder as `sim compare --out` / `sim study swap --out` save it: no game records."""
    path = tmp_path / kind
    path.mkdir()
    (path / "manifest.json").write_text(json.dumps({"kind": kind, "options": options,
                                                    "versions": {"shithead-sim": "0.1.0"}}))
    (path / "summary.json").write_text(json.dumps({"config": options, **summary}))
    (path / name).write_text(json.dumps(data))
    return path


@pytest.mark.slow
def test_report_of_a_tournament_folder(tmp_path):
    options = {"strategies": _NAMES, "players": 3, "games": 9000, "seed": 0, "rules": "seed"}
    path = _folder_of(tmp_path, "compare", options,
                      {"overall": {"games": 9000, "finished": 9000, "unfinished": 0},
                       "by_seat": COMPARE["seat_effect"], "by_strategy": COMPARE["per_strategy"]},
                      "compare.json", COMPARE)
    r = sim.load(path)
    assert r.games.empty and r.compare == COMPARE
    files = write_report(path, tmp_path / "t.html")
    names = {f.name for f in files}
    assert {"tournament_strategies.png", "head_to_head.png", "tournament_seats.png"} <= names
    assert "turns_histogram.png" not in names                 # no game records: no histograms
    html = (tmp_path / "t.html").read_text()
    assert "Shithead tournament" in html and 'id="tournament"' in html
    assert 'id="length"' not in html and 'id="strategies"' not in html
    assert "careful" in html and "Plackett-Luce" in html and "Bradley-Terry" not in html
    assert len(_embedded_pngs(html)) == sum(n.endswith(".png") for n in names)
    h2h = pd.read_csv(tmp_path / "t_files" / "head_to_head.csv", index_col=0)
    assert h2h.loc["lowest", "random"] == COMPARE["head_to_head"]["matrix"][0][1]
    # the seat pairs unfinished games left undecided, beside the meetings
    assert "undecided (unfinished)" in html
    with_open = {**COMPARE, "head_to_head": {**COMPARE["head_to_head"],
                                             "meetings": [[0, 900, 800], [900, 0, 0],
                                                          [800, 0, 0]],
                                             "unfinished": [[0, 17, 4], [17, 0, 0],
                                                            [4, 0, 0]]}}
    (tmp_path / "open").mkdir()
    path = _folder_of(tmp_path / "open", "compare", options,
                      {"overall": {"games": 9000, "finished": 9000, "unfinished": 0},
                       "by_seat": COMPARE["seat_effect"], "by_strategy": COMPARE["per_strategy"]},
                      "compare.json", with_open)
    write_report(path, tmp_path / "open.html")
    assert "<td>17</td>" in (tmp_path / "open.html").read_text().replace(" ", "")
    assert pd.isna(h2h.loc["random", "careful"])


def _compare_folder(tmp_path, data=None, name="compare"):
    data = data or COMPARE
    options = {"strategies": data["strategies"], "players": data["players"],
               "games": data["games"], "seed": 0, "rules": "seed"}
    path = tmp_path / name
    path.mkdir()
    return _folder_of(path, "compare", options,
                      {"overall": {"games": data["games"]}, "by_seat": data["seat_effect"],
                       "by_strategy": data["per_strategy"]}, "compare.json", data)


def _wide_compare(k=7, sparse=False):
    """A tournament of k strategies with long names (the widest tables a page draws);
    ``sparse``: every strategy and pair seen in fewer than 30 games (SPARSE)."""
    names = [f"counting(pickup_limit={i}, shed={i}.5)" for i in range(k)]
    n = 20 if sparse else 9000
    meet = 12 if sparse else 2500
    per = [{"strategy": s, "games": n, "wins": n // k, "win_rate": 1 / k - 0.01 * i,
            "ci_low": 1 / k - 0.01 * i - 0.01, "ci_high": 1 / k - 0.01 * i + 0.01,
            "rating": 10.0 - i, "rating_low": -10.0 - i, "rating_high": 30.0 - i}
           for i, s in enumerate(names)]
    m = [[None if i == j else 0.5 + 0.01 * (j - i) for j in range(k)] for i in range(k)]
    lo = [[None if v is None else v - 0.02 for v in row] for row in m]
    hi = [[None if v is None else v + 0.02 for v in row] for row in m]
    level = 1 - 0.05 / (k - 1)
    return {"strategies": names, "players": 4, "games": n, "deals": n // k, "unfinished": 0,
            "per_strategy": per,
            "head_to_head": {"strategies": names, "matrix": m, "ci_low": lo, "ci_high": hi,
                             "meetings": [[0 if i == j else meet for j in range(k)]
                                          for i in range(k)]},
            "seat_effect": [{"seat": s, "games": n, "wins": n // 4, "win_rate": 0.25,
                             "ci_low": 0.24, "ci_high": 0.26} for s in range(4)],
            "intervals": "anytime-valid (confidence sequences)",
            "info": {"until_clear": True, "stopped": "clear", "looks": 3},
            "leader": {"strategy": names[0], "level": level, "deals": n // k, "clear": True,
                       "comparisons": [{"against": b, "difference": 0.01 * j,
                                        "ci_low": 0.01 * j - 0.005,
                                        "ci_high": 0.01 * j + 0.005, "p_value": 1e-3 / j,
                                        "p_adjusted": min(1.0, 1e-3 * (k - 1) / j)}
                                       for j, b in enumerate(names) if j]}}


@pytest.mark.slow
def test_the_tournament_page_leads_with_the_leaders_differences(tmp_path):
    """The leader against each other strategy (forest plot and table: the
    difference, its interval at level 1 - 0.05/(k-1), Bonferroni, and p raw and adjusted)
    comes before every other section, as sim compare prints it."""
    path = _compare_folder(tmp_path)
    files = write_report(path, tmp_path / "t.html")
    html = (tmp_path / "t.html").read_text()
    order = re.findall(r'<section id="([^"]+)"', html)
    assert order == ["leader", "tournament", "run"]
    names = {f.name for f in files}
    assert {"leader_differences.png", "leader_differences.csv"} <= names
    leader = html[html.index('<section id="leader"'):html.index('<section id="tournament"')]
    assert leader.index("<img") < leader.index("<table")            # the plot, then the table
    for text in ("careful against each other strategy", "97.5% confidence interval",
                 "1 − 0.05/(k − 1) with k = 3", "Bonferroni", "p (raw)",
                 "p adjusted (× 2, Bonferroni)", "+5.56", "-0.40 – +11.50", "0.031", "0.062",
                 "&lt; 1e-16", "not clearly ahead of lowest", "fixed-sample"):
        assert text in leader, text
    df = pd.read_csv(tmp_path / "t_files" / "leader_differences.csv")
    assert df["against"].tolist() == ["lowest", "random"]
    assert df["p_adjusted"].tolist() == [0.062, 2e-150]
    # after --until-clear the interval is named what it is: an anytime-valid sequence
    path = _compare_folder(tmp_path, _wide_compare(4), "sequential")
    write_report(path, tmp_path / "s.html")
    leader = (tmp_path / "s.html").read_text().split('<section id="tournament"')[0]
    assert "98.33% confidence sequence" in leader and "anytime-valid" in leader
    assert "ahead of every other strategy" in leader and "k = 4" in leader
    assert "Play stopped after 3 looks, when the leader was clear." in leader
    # a compare.json from before the leader was saved: no answer section, no error
    old = {k: v for k, v in COMPARE.items() if k != "leader"}
    write_report(_compare_folder(tmp_path, old, "old"), tmp_path / "o.html")
    assert 'id="leader"' not in (tmp_path / "o.html").read_text()


def test_layout_problems_finds_a_cut_title_and_a_legend_over_data():
    """The check every plot passes (kept on the page as data-layout): it fails a legend
    inside the axes over a bar's label and a title longer than the figure."""
    from reports.html.common import new_figure, rate_bars, layout_problems
    fig = new_figure(4, 3)
    ax = fig.add_subplot()
    ax.bar([0, 1], [0.9, 0.95], label="rate")
    ax.annotate("95.0%", (1, 0.95), ha="center", va="bottom")
    ax.legend(loc="upper right")
    ax.set_title("A title much longer than this small figure can hold on one line at all")
    problems = layout_problems(fig)
    assert any("drawn outside the figure" in p for p in problems), problems
    assert any("legend covers the plot" in p for p in problems), problems
    assert any("legend covers the text '95.0%'" in p for p in problems), problems
    fig = new_figure(8, 4)
    rate_bars(fig.add_subplot(), ["a", "b"], [0.9, 0.95], [0.85, 0.9], [0.95, 0.99],
               "#4c78a8", players=2, n=[1000, 10])
    assert layout_problems(fig) == []


@pytest.fixture
def figures(monkeypatch):
    """Every figure a report draws, by name, for checking what it shows."""
    from reports.html import common
    drawn = {}
    real = common.Page.figure

    def keep(self, name, fig, caption):
        drawn[name] = fig
        return real(self, name, fig, caption)
    monkeypatch.setattr(common.Page, "figure", keep)
    return drawn


def _hatched(ax):
    return [p for p in ax.patches if p.get_hatch()]


@pytest.mark.slow
def test_sparse_cells_are_marked_in_every_plot(tmp_path, figures):
    """A rate from fewer than 30 games is hatched grey and named in the legend, never
    coloured like the best: the swap study's heat map, the tournament's head-to-head and
    its bars."""
    from reports.html.common import SPARSE
    study = dict(STUDY, triples=[dict(t, games=10 if t["triple"] == ["A", "2", "10"] else
                                      1000) for t in STUDY["triples"]])
    path = _folder_of(tmp_path, "swap-study", {"players": 3, "games": 5000, "seed": 0},
                      {"overall": {"games": 5000}, "by_seat": [], "by_strategy": []},
                      "study.json", study)
    write_report(path, tmp_path / "s.html")
    ax = figures["study_heatmap"].axes[0]
    image = ax.images[0].get_array()
    ranks = [t.get_text() for t in ax.get_xticklabels()]
    row, col = ranks.index("2"), ranks.index("10")     # "10 A 2": lowest 10, highest 2
    assert image.mask[row, col] and not image.mask[ranks.index("K"), ranks.index("Q")]
    assert [(p.get_x() + 0.5, p.get_y() + 0.5) for p in _hatched(ax)] == [(col, row)]
    legend = figures["study_heatmap"].legends[0]
    assert [t.get_text() for t in legend.texts] == [
        f"fewer than {SPARSE} seat-games: too few to colour"]
    html = (tmp_path / "s.html").read_text()
    assert f"hatched grey: fewer than {SPARSE} seat-games" in html
    figures.clear()
    write_report(_compare_folder(tmp_path, _wide_compare(3, sparse=True)), tmp_path / "t.html")
    h2h = figures["head_to_head"].axes[0]
    assert h2h.images[0].get_array().mask.all()               # 12 meetings a pair: none coloured
    assert len(_hatched(h2h)) == 6
    bars = figures["tournament_strategies"].axes[0]
    assert len(_hatched(bars)) == 3                           # 20 seat-games each
    assert "(sparse)" in " ".join(t.get_text() for t in bars.texts)
    assert "12 (sparse)" in (tmp_path / "t.html").read_text()
    figures.clear()
    write_report(_compare_folder(tmp_path, _wide_compare(3), "dense"), tmp_path / "d.html")
    assert not _hatched(figures["head_to_head"].axes[0])
    assert not _hatched(figures["tournament_strategies"].axes[0])


def _study_folder(tmp_path):
    options = {"players": 3, "games": 5000, "seed": 0, "rules": "seed", "strategy": "lowest"}
    study = dict(STUDY, games=5000, unfinished=12, strategy="lowest",
                 head_to_head=POLICIES, verdict="No policy tested is clearly best.",
                 h2h_games_per_policy=2000)
    return _folder_of(tmp_path, "swap-study", options,
                      {"overall": {"games": 5000}, "by_seat": [], "by_strategy": []},
                      "study.json", study)


@pytest.mark.slow
def test_report_of_a_swap_study_folder(tmp_path):
    """A study.json as older versions wrote it (triples and a value table's head-to-head)."""
    path = _study_folder(tmp_path)
    files = write_report(path, tmp_path / "s.html")
    names = {f.name for f in files}
    assert {"study_heatmap.png", "study_best_worst.png", "study_policies.png",
            "study_policies.csv", "study_top10.csv", "study_triples.csv"} <= names
    html = (tmp_path / "s.html").read_text()
    assert "Shithead swap study" in html and "No policy tested is clearly best." in html
    assert "highest-up" in html and 'id="seats"' not in html
    assert "not a policy" in html and "count as games not won" in html
    assert "12 of 5,000 games unfinished" in html
    top = pd.read_csv(tmp_path / "s_files" / "study_top10.csv")
    best = max(STUDY["triples"], key=lambda t: t["win_rate"])
    assert top["triple"].iloc[0] == "10 A 2"          # cards shown in rank order
    assert top["win_rate"].iloc[0] == best["win_rate"]
    assert "&lt; 1e-16" in html                       # a p-value of 0 is not printed as 0
    # the page opens with the answer in plain words, under the rules it ran under
    # (an older study.json without 'answer': made from its head-to-head)
    answer = "Answer (3 players, seed rules): The split policy trails the usual advice"
    assert answer in html and html.index(answer) < html.index("A swap divides six cards")


@pytest.mark.slow
def test_report_of_a_real_swap_study(tmp_path):
    """End to end: sim study swap's folder, with per-game records, reported."""
    from sim.studies.swapstudy import swap_study
    out = tmp_path / "study"
    study = swap_study(out, players=3, games=1500, h2h_games=300, threads=1)
    assert not sim.load(out).games.empty
    files = write_report(out, tmp_path / "real.html")
    names = {f.name for f in files}
    assert {"study_policies.png", "study_card_gains.png", "study_card_gains.csv",
            "study_heatmap.png", "study_best_worst.png"} <= names
    html = (tmp_path / "real.html").read_text()
    assert "table (old: raw triple win rates)" in html and "The split model" in html
    for e in study["examples"]:
        assert " ".join(e["cards"]) in html
    assert len(_embedded_pngs(html)) == sum(n.endswith(".png") for n in names)


# -- in a real browser -----------------------------------------------------------------------
def _chromium():
    for name in (os.environ.get("CHROMIUM"), "chromium", "chromium-browser", "google-chrome",
                 "google-chrome-stable"):
        if name and shutil.which(name):
            return shutil.which(name)
    return None


def _tune_folder(tmp_path):
    spec = ("counting(pickup_limit=3, shed=3.0, break_cost=3.0, cost_ten=7.0, cost_two=9.0, "
            "cost_joker=13.0, near=4, danger=10.0)")
    trials = [{"number": i, "value": 0.5 + 0.01 * i, "ci_low": 0.45 + 0.01 * i,
               "ci_high": 0.55 + 0.01 * i, "spec": spec} for i in range(8)]
    est = {"spec": spec, "estimate": 0.55, "ci_low": 0.5, "ci_high": 0.6}
    tune = {"strategy": "counting", "against": ["lowest", "random"], "players": 3,
            "options": {"games_per_trial": 300}, "trials": trials,
            "fresh": {"games": 300, "better": False, "best": est, "default": est,
                      "difference": {"estimate": 0.0, "ci_low": -0.07, "ci_high": 0.07}}}
    options = {"strategy": "counting", "players": 3, "games": 2400, "seed": 0,
               "rules": "seed"}
    return _folder_of(tmp_path, "tune", options, {"overall": {"games": 2400}, "by_seat": [],
                                                   "by_strategy": []}, "tune.json", tune)


def _review_folder(tmp_path):
    """A saved review (sim review --out) of a made-up game: 12 decisions, two mistakes."""
    from sim.studies.review import Decision, Review, save
    decisions = [Decision(turn=3 * i + 1, moves=3, made="7", best="9" if i in (4, 9) else "7",
                          value_made=0.3 + 0.03 * i - (0.2 if i in (4, 9) else 0),
                          value_best=0.3 + 0.03 * i, loss=0.2 if i in (4, 9) else 0.0,
                          low=0.1 if i in (4, 9) else 0.0, high=0.3 if i in (4, 9) else 0.0,
                          mistake=i in (4, 9), worlds=300, seconds=1.0) for i in range(12)]
    r = Review(1, 3, False, 300, 0, "counting", 12, 40, 2, decisions)
    game = {"players": 3, "rules": "seed", "seed": 4, "seats": ["you", "counting", "counting"]}
    save(r, game, tmp_path / "review")
    return tmp_path / "review"


@pytest.mark.slow
def test_every_page_leads_with_its_answer_and_every_plot_passes_the_layout_check(tmp_path):
    """The answer first (the tournament's leader, the swap study's best split, the
    tuning's check on fresh deals), the options last; every plot's layout check
    (data-layout, layout_problems) passed. Without a browser, so it runs everywhere."""
    for kind, path, first in (("compare", _compare_folder(tmp_path), "leader"),
                              ("swap-study", _study_folder(tmp_path), "study"),
                              ("tune", _tune_folder(tmp_path), "tune"),
                              ("review", _review_folder(tmp_path), "review")):
        write_report(path, tmp_path / f"{kind}.html")
        html = (tmp_path / f"{kind}.html").read_text()
        order = re.findall(r'<section id="([^"]+)"', html)
        assert order[0] == first and order[-1] == "run", kind
        layout = re.findall(r'data-layout="([^"]*)"', html)
        assert layout and set(layout) == {"ok"}, (kind, layout)
    tune = (tmp_path / "tune.html").read_text()
    assert tune.index("no clear improvement over the defaults") < tune.index("<img")


def _leads_with(html: str, answer: str, first: str) -> None:
    """The page's first section is its answer (``first``), holding ``answer``,
    before every chart and table of the results; the options, versions and date close the
    page, in "How this was run", after every chart and every other table."""
    order = re.findall(r'<section id="([^"]+)"', html)
    assert order[0] == first and order[-1] == "run", order
    at = html.index(answer)
    head = html.index(f'<section id="{first}"')
    how = html.index('<section id="run"')
    assert head < at < how, answer
    assert html[how:].count("<table") == 1 and "<img" not in html[how:]   # the options alone
    assert "<h2>How this was run</h2>" in html[how:] and "versions" in html[how:]
    charts = [m.start() for m in re.finditer("<img", html)]
    assert not charts or at < charts[0]                  # the answer before any chart


def test_every_kind_of_page_leads_with_its_answer_and_ends_with_how_it_was_run(saved, tmp_path):
    """Every page kind opens with its answer (a
    run: each strategy's win rate in its seating, or the first player's edge; the
    tournament's leader; the swap study's answer; the tuning's check on fresh deals; the
    review's summary) and closes with the options table, after the charts and tables."""
    html = write_report(saved[0], tmp_path / "run.html")[0].read_text()
    best = max(saved[1]["by_strategy"], key=lambda r: r["win_rate"])["strategy"]
    _leads_with(html, f"{best} won ", "answer")
    assert html.index(f"{best} won ") < html.index('<section id="strategies"')
    same = tmp_path / "same"
    run(RunConfig(games=2000, players=3, seed=5, strategies=["lowest"], threads=1), out=same)
    html = write_report(same, tmp_path / "same.html")[0].read_text()
    _leads_with(html, "The player who made the first move won", "answer")
    for kind, path, first, answer in (
            ("compare", _compare_folder(tmp_path), "leader", "careful has the highest"),
            ("swap-study", _study_folder(tmp_path), "study", "Answer (3 players, seed rules)"),
            ("tune", _tune_folder(tmp_path), "tune", "no clear improvement over the defaults"),
            ("review", _review_folder(tmp_path), "review", "Summary: 12 decisions")):
        html = write_report(path, tmp_path / f"{kind}.html")[0].read_text()
        _leads_with(html, answer, first)


@pytest.fixture(scope="session")
def page_shots(tmp_path_factory):
    """Where the browser tests keep their screenshots: $SHITHEAD_ARTIFACTS/report-pages when
    set (for a CI job to upload), else report-pages under pytest's base temporary folder
    (pytest keeps the last three runs)."""
    root = os.environ.get("SHITHEAD_ARTIFACTS")
    folder = (Path(root) if root else tmp_path_factory.getbasetemp()) / "report-pages"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["run", "run-8", "compare", "compare-wide", "swap-study",
                                  "tune", "review"])
def test_report_renders_in_a_headless_browser(saved, tmp_path, kind, page_shots):
    """Every kind of page in Chromium at 1280 px: every plot decodes, nothing sticks
    out sideways (the page's own check, data-overflow: the page no wider than the window,
    no table or plot wider than the column or scrolling inside it), every plot passed the
    layout check (data-layout: no cut title, no legend over data); the screenshot is kept
    and its margins right of the column are blank."""
    browser = _chromium()
    if browser is None:
        pytest.skip("no Chromium found (apt-get install -y chromium, or set CHROMIUM=path): "
                    "the page is not checked in a real browser")
    if kind == "run":
        path = _copy(saved, tmp_path)
    elif kind == "run-8":
        path = _eight_seats(tmp_path)
    elif kind == "compare":
        path = _compare_folder(tmp_path)
    elif kind == "compare-wide":
        path = _compare_folder(tmp_path, _wide_compare(7))
    elif kind == "tune":
        path = _tune_folder(tmp_path)
    elif kind == "review":
        path = _review_folder(tmp_path)
    else:
        path = _study_folder(tmp_path)
    page = tmp_path / "page" / "report.html"
    files = write_report(path, page)
    plots = sum(f.suffix == ".png" for f in files)
    base = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
            "--no-first-run", "--disable-background-networking", "--disable-component-update",
            "--disable-sync", "--disable-dev-shm-usage", f"--user-data-dir={tmp_path / 'prof'}",
            "--virtual-time-budget=5000", "--hide-scrollbars", "--window-size=1280,900"]
    dom = subprocess.run(base + ["--dump-dom", page.as_uri()], capture_output=True, text=True,
                         timeout=120)
    assert dom.returncode == 0, dom.stderr[-2000:]
    # Set by the page's script once the load event fired and every image decoded with a size.
    assert f'data-images="{plots}/{plots}"' in dom.stdout, dom.stdout[:500]
    assert 'data-rendered="ok"' in dom.stdout
    assert dom.stdout.count("<img") == plots
    assert re.findall(r'data-overflow="([^"]*)"', dom.stdout) == ["none"]
    assert re.findall(r'data-layout="([^"]*)"', dom.stdout) == ["ok"] * plots
    shot = page_shots / f"{kind}.png"
    shot.unlink(missing_ok=True)
    r = subprocess.run(base[:-1] + [f"--screenshot={shot}", "--window-size=1280,6000",
                                    page.as_uri()], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and shot.exists(), r.stderr[-2000:]
    from PIL import Image
    with Image.open(shot) as im:
        assert im.size == (1280, 6000)
        rgb = np.asarray(im.convert("RGB"))
    # the column is 1000 px wide plus padding, centred: nothing is drawn beside it
    margin = np.concatenate([rgb[:, :100], rgb[:, -100:]], axis=1).reshape(-1, 3)
    assert (margin == rgb[0, 0]).all(), f"something drawn beside the column ({kind})"
    assert rgb[:1500, 140:1140].std() > 10                   # and the page has content


def _eight_seats(tmp_path):
    """A V2 run of 8 players with two decks (boothj5, H18), eight seats of five strategies."""
    out = tmp_path / "eight"
    run(RunConfig(games=1500, players=8, seed=2, rules="boothj5", threads=1,
                  strategies=["lowest", "random", "counting", "save-specials", "lowest",
                              "random", "counting", "highest"]), out=out)
    return out


def test_the_page_of_eight_seats_passes_the_layout_check(tmp_path):
    """Eight seats (H18): every plot passes the layout check, the seat table leaves out the
    run's own columns, the options name each seat; with one strategy at every seat the
    start-position plot too (its axis label wrapped, its bars given room)."""
    html = write_report(_eight_seats(tmp_path), tmp_path / "eight.html")[0].read_text()
    layout = re.findall(r'data-layout="([^"]*)"', html)
    assert layout and set(layout) == {"ok"}, layout
    assert "seat 7" in html and "starter +7" not in html           # mixed seats: no chart
    assert "Win rate by seat (unfinished and mean turns: the same on every row" in html
    assert "7: highest (swap highest-up)" in html
    out = tmp_path / "eight-same"
    run(RunConfig(games=500, players=8, seed=2, rules="boothj5", threads=1,
                  strategies=["lowest"]), out=out)
    html = write_report(out, tmp_path / "same.html")[0].read_text()
    layout = re.findall(r'data-layout="([^"]*)"', html)
    assert "starter +7" in html and layout and set(layout) == {"ok"}, layout


# -- fixtures of the files later commands add --------------------------------------------------
_NAMES = ["lowest", "random", "careful"]
COMPARE = {
    "strategies": _NAMES, "players": 3, "games": 9000, "deals": 3000, "unfinished": 0,
    "per_strategy": [
        {"strategy": s, "games": 9000, "wins": w, "win_rate": w / 9000,
         "ci_low": w / 9000 - 0.01, "ci_high": w / 9000 + 0.01, "rating": r,
         "rating_low": r - 20, "rating_high": r + 20}
        for s, w, r in zip(_NAMES, (4000, 500, 4500), (60.0, -170.0, 110.0))],
    "head_to_head": {"strategies": _NAMES,
                     "matrix": [[None, 0.88, 0.47], [0.12, None, None], [0.53, None, None]]},
    "seat_effect": [{"seat": s, "games": 9000, "wins": 3000, "win_rate": 1 / 3,
                     "ci_low": 0.32, "ci_high": 0.34} for s in range(3)],
    "starter_effect": {"games": 9000, "starter_wins": 2900, "win_rate": 2900 / 9000,
                       "ci_low": 0.31, "ci_high": 0.33},
    "leader": {"strategy": "careful", "level": 1 - 0.05 / 2, "deals": 3000, "clear": False,
               "comparisons": [
                   {"against": "lowest", "difference": 0.0556, "ci_low": -0.004,
                    "ci_high": 0.115, "p_value": 0.031, "p_adjusted": 0.062},
                   {"against": "random", "difference": 0.444, "ci_low": 0.41,
                    "ci_high": 0.48, "p_value": 1e-150, "p_adjusted": 2e-150}]},
}
_TRIPLES = [["3", "3", "4"], ["5", "7", "9"], ["A", "2", "10"], ["K", "K", "Q"],
            ["2", "2", "2"], ["3", "8", "J"], ["4", "6", "10"], ["9", "9", "A"],
            ["3", "4", "5"], ["J", "Q", "K"], ["6", "6", "6"], ["2", "5", "8"],
            ["7", "7", "10"], ["3", "9", "Q"], ["4", "J", "2"]]
STUDY = {"players": 3, "games": 15 * 1000, "triples": [
    {"triple": t, "games": 1000, "wins": w, "win_rate": w / 1000, "ci_low": w / 1000 - 0.03,
     "ci_high": w / 1000 + 0.03}
    for t, w in zip(_TRIPLES, (200, 260, 520, 330, 480, 280, 400, 350, 210, 340, 300, 420,
                               390, 290, 450))]}
POLICIES = [{"policy": p, "deals": 1000, "games": 2000, "table_share": 0.5 + d / 2,
             "diff": d, "ci_low": d - 0.01, "ci_high": d + 0.01, "p_value": pv,
             "p_adjusted": pv} for p, d, pv in (("none", 0.12, 0.0), ("highest-up", -0.004,
                                                                      0.04))]


def test_the_simulator_does_not_import_the_reports(saved):
    """Statistics that sim/ uses (Wilson, tallies) and sim.load live in sim/: opening a saved
    run and using the study's statistics load no module of reports/."""
    code = ("import sys, sim, sim.runs.tally, sim.runs.saved, sim.studies.swapstudy\n"
            f"r = sim.load({str(saved[0])!r}); r.games\n"
            "sim.runs.tally.wilson(3, 10)\n"
            "bad = sorted(m for m in sys.modules if m == 'reports' or m.startswith('reports.'))\n"
            "assert not bad, bad\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [os.path.dirname(os.path.dirname(os.path.abspath(__file__)))]
        + [p for p in [os.environ.get("PYTHONPATH")] if p]))
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                       timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]


def test_a_run_with_mixed_seats_does_not_call_its_seat_table_a_seat_effect(saved, tmp_path,
                                                                          cli):
    """-s lowest -s random -s lowest: each seat's row is its strategy in that seat, not a
    seat effect (page and terminal); one strategy at every seat: a seat effect."""
    html = write_report(saved[0], tmp_path / "mixed.html")[0].read_text()
    assert "Win rate by seat (seat effect)" not in html
    assert "Win rate by seat and the strategy there (not a seat effect)" in html
    r = cli("run", "--games", "300", "--players", "3", "-s", "lowest", "-s", "random",
            "-s", "lowest")
    assert "By seat and the strategy there (not a seat effect" in " ".join(r.output.split())
    out = tmp_path / "same"
    run(RunConfig(games=300, players=3, seed=1, strategies=["lowest"], threads=1), out=out)
    html = write_report(out)[0].read_text()
    assert "Win rate by seat (seat effect)" in html
    assert "every seat: lowest (swap highest-up)" in html          # the options, in short
    r = cli("run", "--games", "300", "--players", "3")
    assert "By seat (seat effect: lowest, swap highest-up, at every seat)" in " ".join(
        r.output.split())


def test_a_mixed_seating_run_draws_no_position_chart(saved, tmp_path, figures):
    """Under mixed seating (-s lowest -s random -s lowest) the win rate by position
    after the starter mostly shows which strategy started or sat where: the page leaves the
    chart and its table out and says why in one line; the same seats holding one strategy
    but different swap policies are mixed too. One strategy at every seat: the chart."""
    note = "Win rate by position after the starting player: not drawn"
    html = write_report(saved[0], tmp_path / "mixed.html")[0].read_text()
    assert "win_rate_by_start_position" not in figures and "starter +1" not in html
    assert not (tmp_path / "mixed_files" / "start_position.csv").exists()
    assert html.count(note) == 1 and "The player who made the first move won" not in html
    seats = html[html.index('<section id="seats"'):html.index('<section id="length"')]
    assert note in seats and "seats hold different strategies" in seats
    figures.clear()
    swaps = tmp_path / "swaps"
    run(RunConfig(games=2000, players=3, seed=4, strategies=["lowest"],
                  swaps=["highest-up", "none", "highest-up"], threads=1), out=swaps)
    html = write_report(swaps, tmp_path / "swaps.html")[0].read_text()
    assert "win_rate_by_start_position" not in figures and note in html
    assert "Win rate by seat and the strategy there (not a seat effect)" in html
    figures.clear()
    same = tmp_path / "same"
    run(RunConfig(games=2000, players=3, seed=4, strategies=["lowest"], threads=1), out=same)
    html = write_report(same, tmp_path / "same.html")[0].read_text()
    assert "win_rate_by_start_position" in figures and "starter +2" in html
    assert note not in html and "Win rate by seat (seat effect)" in html
