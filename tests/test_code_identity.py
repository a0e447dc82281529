"""The code identities (sim.kernel.identity): the compile cache's folder changes when the
kernel, the strategies or the modules that decide which games a run plays and what it records
change; a saved folder's "code", which ``--resume`` requires unchanged, changes with those and
with the studies' seating designs, blocks and stages; neither changes when the CLI, the
reports, the docs or the statistics drawn from the games do."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from sim.kernel import identity
from sim.kernel.compiler import cache_dir

ROOT = Path(__file__).resolve().parents[1]

# Every module of sim.runs is either covered or said not to change a game or its record.
NOT_RESULTS = {"__init__.py", "estimate.py", "extras.py", "folder.py", "kinds.py", "partial.py",
               "saved.py", "tally.py"}

# Every module of sim.studies either decides a folder's games (identity.GAMES) or reads them.
READS_GAMES = {"__init__.py", "analysis.py", "discordant.py", "race.py", "rankings.py",
               "review.py", "saved.py", "stats.py", "swapreview.py", "tournament.py", "view.py",
               "swapstudy/__init__.py", "swapstudy/advice.py", "swapstudy/glm.py",
               "swapstudy/model.py", "swapstudy/policy.py", "swapstudy/table.py",
               "swapstudy/triples.py", "ruleslab/__init__.py", "ruleslab/measures.py"}

HELP = ('help="Games per batch (and per file)."', 'help="Games in each batch and file."')


def _copy(tmp_path: Path, name: str) -> Path:
    root = tmp_path / name
    for folder in ("sim", "strategies", "reports", "docs"):
        shutil.copytree(ROOT / folder, root / folder,
                        ignore=shutil.ignore_patterns("__pycache__"))
    return root


def _edit(root: Path, rel: str, old: str = "", new: str = "\n# an edit\n") -> None:
    path = root / rel
    text = path.read_text()
    assert old in text, (rel, old)                 # the edit must change something
    path.write_text(text.replace(old, new, 1) if old else text + new)


def test_every_module_of_sim_runs_is_covered_or_declared_not_to_shape_results():
    covered = {Path(c).name for c in identity.CODE if c.startswith("sim/runs/")}
    present = {p.name for p in (ROOT / "sim" / "runs").glob("*.py")}
    assert covered | NOT_RESULTS == present, "classify the new module of sim/runs"
    assert not covered & NOT_RESULTS
    assert all((ROOT / c).exists() for c in identity.CODE)


def test_every_module_of_sim_studies_decides_games_or_reads_them():
    studies = ROOT / "sim" / "studies"
    deciding = {Path(c).relative_to("sim/studies").as_posix() for c in identity.GAMES}
    present = {p.relative_to(studies).as_posix() for p in studies.rglob("*.py")}
    assert deciding | READS_GAMES == present, "classify the new module of sim/studies"
    assert not deciding & READS_GAMES


@pytest.mark.parametrize("rel, same_cache, same_code", [
    ("sim/studies/design.py", True, False),          # a seating design: which games
    ("sim/studies/compare.py", True, False),         # compare's blocks
    ("sim/studies/swapstudy/h2h.py", True, False),   # a study's stage
    ("sim/studies/stats.py", True, True),            # statistics drawn from the games
    ("reports/ties.py", True, True),                 # wording
    ("sim/cli/study_commands.py", True, True),       # the command line
    ("sim/kernel/engine.py", False, False),          # the rules
])
def test_a_design_or_stage_edit_refuses_resume_and_recompiles_nothing(tmp_path, rel,
                                                                      same_cache, same_code):
    from sim.kernel.compiler import results_code

    root = _copy(tmp_path, "tree")
    cache, code = cache_dir(root), results_code(root)
    assert code == results_code() and cache == cache_dir()
    _edit(root, rel)
    assert (cache_dir(root) == cache) is same_cache
    assert (results_code(root) == code) is same_code


@pytest.mark.parametrize("rel, old, new, same", [
    ("sim/commands/run.py", *HELP, True),                         # a help string
    ("sim/cli/app.py", "", "\n# an edit\n", True),
    ("reports/plain.py", "", "\n# an edit\n", True),              # the reports
    ("docs/rules.md", "", "\nan edit\n", True),                   # the docs
    ("sim/runs/tally.py", "", "\n# an edit\n", True),             # re-counted on --resume
    ("sim/studies/compare.py", "", "\n# an edit\n", True),
    ("sim/kernel/engine.py", "", "\n# an edit\n", False),         # the rules
    ("strategies/heuristics.py", "", "\n# an edit\n", False),     # a strategy
    ("sim/runs/batch.py", "", "\n# an edit\n", False),            # the batches played
    ("sim/runs/config.py", "", "\n# an edit\n", False),           # seats, seeds
    ("sim/runs/store.py", "", "\n# an edit\n", False),            # the records saved
    ("sim/moves.py", "", "\n# an edit\n", False),                 # what a strategy imports
])
def test_the_identity_follows_what_changes_results(tmp_path, rel, old, new, same):
    root = _copy(tmp_path, "tree")
    before = cache_dir(root)
    assert before == cache_dir()                        # a copy of this tree: the same code
    _edit(root, rel, old, new)
    assert (cache_dir(root) == before) is same


def test_resume_continues_after_a_help_edit_and_refuses_after_an_engine_edit(
        cli, tmp_path, monkeypatch):
    """Through ``sim run --out DIR`` and ``--resume``, the code identity being that of a copy
    of the tree with one edit: a batch lost (as a killed run leaves it) is played again under
    a help string's edit, giving the uninterrupted result; an engine's edit is refused."""
    out = tmp_path / "run"
    args = ["run", "--games", "3000", "--batch", "1000", "--seed", "7", "-p", "2", "-s", "lowest",
            "-s", "random", "--threads", "1", "--out", out, "--json", "--quiet"]
    done = cli(*args)
    assert done.exit_code == 0, done.output
    reference = json.loads(done.output)
    RESULTS = [k for k in reference if k not in ("seconds", "options")]
    assert "by_seat" in RESULTS

    def interrupt():
        (out / "games" / "part-00002.parquet").unlink()
        (out / "summary.json").unlink()

    helped, engine = _copy(tmp_path, "help"), _copy(tmp_path, "engine")
    _edit(helped, "sim/commands/run.py", *HELP)
    _edit(engine, "sim/kernel/engine.py")
    interrupt()
    monkeypatch.setattr(identity, "own",
                        lambda salt, extra=(): identity.digest(helped, salt, extra))
    resumed = cli(*args, "--resume")
    assert resumed.exit_code == 0, resumed.output
    again = json.loads(resumed.output)
    assert again["options"]["resume"] and again["overall"]["games"] == 3000
    assert [again[k] for k in RESULTS] == [reference[k] for k in RESULTS]

    interrupt()
    monkeypatch.setattr(identity, "own",
                        lambda salt, extra=(): identity.digest(engine, salt, extra))
    refused = cli(*args, "--resume")
    assert refused.exit_code == 2
    assert "code" in refused.output and "not mixed" in refused.output
