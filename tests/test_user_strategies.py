"""Strategies from the user's own files (`FILE.py:function`, `package.module:function`)."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

GUIDE = Path(__file__).resolve().parents[1] / "docs" / "strategies.md"


def readme_example() -> str:
    """The first strategy of docs/strategies.md (the guide the README points to)."""
    text = GUIDE.read_text()
    section = text[text.index("## A first strategy"):]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)


def test_readme_example_strategy_runs_from_its_own_file(cli, tmp_path):
    code = readme_example()
    assert len(code.strip().splitlines()) < 30
    bots = tmp_path / "mybots.py"
    bots.write_text(code)
    spec = f"{bots}:careful"
    r = cli("run", "--games", "3000", "--seed", "2", "--json", "-s", spec, "-s", "lowest",
            "-s", "lowest", "-s", "lowest")
    assert r.exit_code == 0, r.output
    out = json.loads(r.output)
    assert out["by_seat"][0]["strategy"] == spec
    assert out["overall"]["finished"] > 2500


def test_user_strategy_does_not_shadow_a_builtin(tmp_path):
    from sim.runs.registry import get_move

    bots = tmp_path / "shadow.py"
    bots.write_text(readme_example().replace("def careful", "def lowest"))
    mine = get_move(f"{bots}:lowest")
    assert get_move("lowest").fn is not mine.fn
    assert get_move("lowest").description.startswith("plays the lowest legal rank")


@pytest.mark.parametrize("content,spec_tail,message", [
    (None, "missing.py:f", "no such file"),
    ("this is not python(", "broken.py:f", "could not import"),
    ("raise RuntimeError('boom')", "boom.py:f", "RuntimeError: boom"),
    ("def f(obs, hand, legal, rng, params):\n    return 0\n", "plain.py:f", "not marked with"),
    ("x = 1\n", "nofunc.py:careful", "has no function 'careful'"),
])
def test_bad_strategy_files_are_clear_errors(cli, tmp_path, content, spec_tail, message):
    name = spec_tail.split(":")[0]
    if content is not None:
        (tmp_path / name).write_text(content)
    r = cli("run", "--games", "10", "-s", f"{tmp_path}/{spec_tail}")
    assert r.exit_code == 2
    assert message in r.output
    assert "Traceback" not in r.output


def test_a_strategy_numba_cannot_type_is_a_few_lines_naming_it_and_its_line(cli, tmp_path):
    """Not 31 lines of compiler output, but the strategy, what failed and the
    line of the user's file; the compiler's whole text in a log file named there."""
    (tmp_path / "bad.py").write_text(
        "from sim.moves import lowest_bit\nfrom sim.strategy import move_strategy\n\n\n"
        "@move_strategy()\ndef broken(obs, hand, legal, rng, params):\n"
        "    x = 'a' + obs[0]\n    return lowest_bit(legal)\n")
    r = cli("run", "--games", "10", "-s", f"{tmp_path}/bad.py:broken")
    assert r.exit_code == 2 and "Traceback" not in r.output
    line = " ".join(r.output.split())
    assert "bad.py:broken' does not compile (TypingError)" in line
    assert "line 7 of bad.py: x = 'a' + obs[0]" in line
    log = line.split("the compiler's whole text: ")[1].rstrip(")")
    assert "nopython" in open(log).read()
    assert len(r.output.strip().splitlines()) <= 4


def test_importable_module_strategy(cli):
    r = cli("run", "--games", "200", "-s", "strategies.basic:random_move", "--json")
    assert r.exit_code == 0, r.output
    assert json.loads(r.output)["by_seat"][0]["strategy"] == "strategies.basic:random_move"
    r = cli("run", "--games", "10", "-s", "no_such_package.mod:f")
    assert r.exit_code == 2 and "could not import" in r.output


@pytest.mark.slow
def test_readme_example_strategy_runs_from_outside_the_repo(tmp_path):
    """A user's file and a working folder outside the checkout, the package found as
    installed; the README's import paths (sim.strategy, sim.moves, sim.layout, sim.cards)
    keep working after the layout's split into layers."""
    import os
    import subprocess
    import sys

    (tmp_path / "mybots.py").write_text(readme_example())
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    code = ("import mybots, sim.strategy, sim.moves, sim.layout, sim.cards, sim.rules\n"
            "from sim.strategy import get_move\n"
            "print(get_move('mybots.py:careful').name)\n")
    r = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env,
                       capture_output=True, text=True)
    assert r.returncode == 0 and "mybots.py:careful" in r.stdout, r.stderr
    r = subprocess.run([sys.executable, "-m", "sim.cli", "run", "--games", "200", "--threads",
                        "1", "-q", "-p", "2", "-s", "mybots.py:careful", "-s", "lowest"], cwd=tmp_path,
                       env=env, capture_output=True, text=True)
    assert r.returncode == 0 and "mybots.py:careful" in r.stdout, r.stderr
    assert str(Path(__file__).resolve().parents[1]) != str(tmp_path)
