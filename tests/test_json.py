"""One JSON grammar for every --json (kind, version, ruleset, options, then the
results; docs/json.md), sim strategies --json, sim.load's by_strategy for every kind of
folder, and the neighbour note of a run whose seats hold different strategies."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

import sim
from reports.html import write_report
from sim.cli.jsonout import VERSION, envelope
from sim.kernel.ruleset import PRESETS
from sim.runs.runner import RunConfig, run

ROOT = Path(__file__).resolve().parents[1]
POSITION = ROOT / "docs" / "examples" / "midgame-seed-4p.json"
HEAD = ["kind", "version", "ruleset", "options", "sim_version"]
FAIR = "sim compare lowest random --players 3"


def _printed(cli, *args) -> dict:
    r = cli(*args)
    assert r.exit_code == 0, r.output
    return json.loads(r.output)


@pytest.fixture(scope="module")
def tuned(tmp_path_factory):
    """A tuning saved in --out, and what its --json printed."""
    from typer.testing import CliRunner

    from sim.cli.app import app

    out = tmp_path_factory.mktemp("tune") / "t"
    r = CliRunner().invoke(app, ["tune", "counting", "--against", "lowest", "--trials", "1",
                                 "--games-per-trial", "20", "-q", "--threads", "1", "--json",
                                 "--out", str(out)])
    assert r.exit_code == 0, r.output
    return out, json.loads(r.output)


COMMANDS = {
    "run": ("run", "--games", "300", "-p", "3", "--threads", "1", "--json"),
    "compare": ("compare", "lowest", "random", "-p", "3", "--games", "300", "-q", "--json",
                "--threads", "1"),
    "analysis": ("analyze", str(POSITION), "--rollouts", "10", "--json"),
    "swap-advice": ("swap", "4", "5", "6", "9", "10", "K", "--deals", "100", "--json"),
    "rules": ("rules", "--json"),
    "rules-explain": ("rules", "explain", "H14", "--json"),
    "strategies": ("strategies", "--json"),
    "study-rules": ("study", "rules", "--only", "hand_size", "--games", "200", "--skill-deals",
                    "10", "--mc-deals", "0", "-q", "--json", "--threads", "1"),
}


# what each command of COMMANDS was asked, as its ``options`` must echo it (a part of them)
ASKED = {
    "run": {"games": 300, "players": 3, "threads": 1},
    "compare": {"strategies": ["lowest", "random"], "players": 3, "games": 300, "threads": 1},
    "analysis": {"rollouts": 10},
    "swap-advice": {"deals": 100},
    "rules": {"presets": list(PRESETS)},
    "rules-explain": {"ids": ["H14"]},
    "strategies": {},
    "study-rules": {"only": ["hand_size"], "threads": 1},
}


@pytest.mark.parametrize("kind", list(COMMANDS))
def test_every_json_output_has_the_head(cli, kind):
    """kind, version, ruleset (in full, or null where no rules apply), options, sim_version:
    first and in this order, then the results."""
    out = _printed(cli, *COMMANDS[kind])
    assert list(out)[:5] == HEAD
    assert out["kind"] == kind and out["version"] == VERSION
    assert out["sim_version"] == sim.__version__
    asked = ASKED[kind]
    assert {k: out["options"].get(k) for k in asked} == asked
    if not asked:
        assert out["options"] == {}
    if kind in ("rules", "rules-explain", "strategies"):
        assert out["ruleset"] is None
    else:
        assert out["ruleset"]["base"] == "seed" and "count_rule" in out["ruleset"]   # H1


@pytest.mark.slow
def test_study_and_tune_json_have_the_head(cli, tmp_path, tuned):
    study = _printed(cli, "study", "swap", "-p", "3", "--games", "1500", "--h2h-games", "150",
                     "--out", tmp_path / "s", "--json", "-q", "--threads", "1")
    assert list(study)[:5] == HEAD and study["kind"] == "study-swap"
    assert study["ruleset"]["base"] == "seed" and study["options"]["games"] == 1500
    assert study["verdict"]
    result = tuned[1]
    assert list(result)[:5] == HEAD and result["kind"] == "tune"
    assert result["options"]["strategy"] == "counting" and "fresh" in result
    assert result["ruleset"]["last_player_loses"] is False                     # V2 off


def test_the_head_cannot_be_hidden_by_a_result():
    with pytest.raises(ValueError, match="options"):
        envelope("run", None, {}, {"options": 1})
    with pytest.raises(ValueError, match="sim_version"):
        envelope("run", None, {}, {"sim_version": "x"})


def test_one_version_number_everywhere(cli):
    """``sim --version``, ``sim.__version__``, every --json head and every saved manifest
    give the one number of sim.kernel.version, which pyproject.toml reads."""
    from sim.runs.folder import versions

    r = cli("--version")
    assert r.exit_code == 0 and r.output.split() == ["sim", "(shithead-sim)", sim.__version__]
    assert envelope("run", None, {}, {})["sim_version"] == sim.__version__
    assert versions()["shithead-sim"] == sim.__version__
    assert 'version = {attr = "sim.kernel.version.VERSION"}' in (
        ROOT / "pyproject.toml").read_text()


def test_docs_json_names_every_kind_and_readme_links_it():
    text = (ROOT / "docs" / "json.md").read_text()
    for kind in ("run", "compare", "study-swap", "swap-advice", "tune", "analysis", "rules",
                 "rules-explain", "strategies", "review"):
        assert f"### `{kind}`" in text
    for key in ("neighbours", "by_strategy", "per_strategy", "fair_command"):
        assert key in text
    assert "(docs/json.md)" in (ROOT / "README.md").read_text()


def test_strategies_json(cli):
    out = _printed(cli, "strategies", "--json")
    moves = {s["name"]: s for s in out["strategies"]}
    assert {"random", "lowest", "counting", "montecarlo"} <= set(moves)
    assert moves["lowest"]["pure"] is True and moves["lowest"]["swap"] == "highest-up"
    assert "pickup_limit" in moves["counting"]["params"]
    assert {"default", "low", "high"} == set(moves["counting"]["params"]["pickup_limit"])
    assert "random" in {s["name"] for s in out["swaps"]}
    assert all("swap" not in s for s in out["swaps"])


def test_load_by_strategy_of_a_compare_folder(cli, tmp_path):
    """A tournament's per-strategy table was only in .compare; now it is .by_strategy too."""
    r = cli("compare", "lowest", "random", "-p", "3", "--games", "300", "-q", "--threads", "1",
            "--out", tmp_path / "c")
    assert r.exit_code == 0, r.output
    loaded = sim.load(tmp_path / "c")
    assert loaded.by_strategy["strategy"].tolist() == ["lowest", "random"]
    assert loaded.by_strategy.to_dict(orient="records") == loaded.compare["per_strategy"]
    write_report(tmp_path / "c", tmp_path / "c.html")               # the page still draws


def test_load_by_strategy_of_a_tune_folder(tuned):
    out, result = tuned
    bs = sim.load(out).by_strategy
    assert bs["role"].tolist() == ["best", "default"]
    assert bs["estimate"].tolist() == [result["fresh"]["best"]["estimate"],
                                       result["fresh"]["default"]["estimate"]]


def test_the_neighbour_note_with_mixed_seats(cli):
    args = ("run", "--games", "300", "-p", "3", "--threads", "1", "-s", "lowest", "-s",
            "random", "-s", "lowest")
    r = cli(*args)
    assert r.exit_code == 0, r.output
    text = " ".join(r.output.split())
    assert "Note: The seats hold different strategies" in text and FAIR in text
    out = _printed(cli, *args, "--json")
    assert out["neighbours"]["fair_command"] == FAIR
    assert out["neighbours"]["strategies"] == ["lowest", "random"]


def test_no_neighbour_note_with_one_strategy(cli):
    args = ("run", "--games", "300", "-p", "3", "--threads", "1", "-s", "lowest")
    r = cli(*args)
    assert r.exit_code == 0, r.output
    assert "different strategies" not in r.output and "sim compare" not in r.output
    assert _printed(cli, *args, "--json")["neighbours"] is None


def test_the_note_carries_the_rules_into_the_fair_command(cli):
    """The tournament it suggests plays under the same rules (H6 skip_rank)."""
    out = _printed(cli, "run", "--games", "100", "-p", "3", "--threads", "1", "-s", "lowest",
                   "-s", "random", "-s", "lowest", "--rules", "classic", "--rule", "skip_rank=8",
                   "--json")
    assert out["neighbours"]["fair_command"] == (FAIR + " --rules classic --rule skip_rank=8")


@pytest.mark.slow
def test_the_run_page_notes_the_neighbours_only_when_seats_differ(tmp_path):
    pages = {}
    for name, strategies in (("mixed", ["lowest", "random", "lowest"]), ("same", ["lowest"])):
        cfg = RunConfig(games=300, players=3, seed=1, strategies=strategies, threads=1)
        run(cfg, out=tmp_path / name)
        write_report(tmp_path / name, tmp_path / f"{name}.html")
        pages[name] = " ".join((tmp_path / f"{name}.html").read_text().split())
    assert "Note: The seats hold different strategies" in pages["mixed"]
    assert FAIR in pages["mixed"]
    assert "different strategies" not in pages["same"]


def test_the_run_header_says_the_rules_in_words(cli):
    r = cli("run", "--games", "100", "-p", "3", "--threads", "1", "--rules", "classic",
            "--rule", "skip_rank=8")
    assert r.exit_code == 0, r.output
    assert "classic rules, changed: H6 skip_rank 8" in r.output
    assert "{'base'" not in r.output
