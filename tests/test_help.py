"""``sim --help`` reads at a glance: one line a command, in four groups; each command's help
opens with one sentence and ends with examples; every mistake the option parser finds is one
``error:`` line with exit code 2; shell completion answers."""
from __future__ import annotations

import pytest
from typer.testing import CliRunner

from sim.cli.app import ORDER, app
from sim.commands import COMMANDS

TOP = [n for n in ORDER if n != "study"]
STUDIES = [n.split()[1] for n in COMMANDS if n.startswith("study ")]

GROUPS = ["Play games", "Answer questions", "Look at one game", "Reference"]


def _invoke(*args, **kw):
    return CliRunner().invoke(app, list(args), prog_name="sim", **kw)


def test_top_help_groups_every_command_on_one_line():
    out = _invoke("--help", env={"COLUMNS": "80"}).output
    assert [g for g in GROUPS if f"─ {g} " in out] == GROUPS
    names = TOP + ["study"]
    for name in names:
        lines = [ln for ln in out.splitlines() if ln.startswith(f"│ {name} ")]
        assert len(lines) == 1, name
        # the next line is another command or the group's end: no wrapped second line
        after = out.splitlines()[out.splitlines().index(lines[0]) + 1]
        assert after.startswith("╰") or after[2:3] != " ", (name, after)


def test_study_help_names_its_studies():
    out = _invoke("study", "--help").output
    assert "swap (which cards face up), rules (house rules)" in out
    for name in ("swap", "rules"):
        assert f"│ {name} " in out


@pytest.mark.parametrize("path", [[n] for n in TOP] + [["study", n] for n in STUDIES])
def test_each_command_opens_with_one_sentence_and_ends_with_examples(path):
    out = _invoke(*path, "--help", env={"COLUMNS": "200"}).output
    body = [ln.strip() for ln in out.splitlines() if ln.strip()]
    sentence = body[1]                        # after the usage line
    assert sentence.endswith(".") and sentence.count(". ") == 0, sentence
    examples = body[body.index("Examples:") + 1:]
    assert 1 <= len(examples) <= 3 and all(e.startswith("sim ") for e in examples), examples


@pytest.mark.parametrize("args,message", [
    (["run", "--seed", "abc"], "error: invalid value for '--seed': 'abc' is not a valid int "
                               "(see 'sim run --help')"),
    (["run", "--players", "four"], "error: invalid value for '--players' / '-p': 'four' is "
                                   "not a valid int (see 'sim run --help')"),
    (["runn"], "error: no such command 'runn'. Did you mean 'run'? (see 'sim --help')"),
    (["study", "foo"], "error: no such command 'foo' (see 'sim study --help')"),
    (["swap"], "error: missing argument 'cards' (see 'sim swap --help')"),
])
def test_parser_mistakes_are_one_error_line(args, message):
    r = _invoke(*args)
    assert r.exit_code == 2
    assert r.output.strip().splitlines() == [message]


def test_shell_completion_completes_commands():
    """Bash's completion, named (``--show-completion`` detects the shell the command runs
    under: under ``make``, /bin/sh, which has none)."""
    from typer.completion import get_completion_script

    r = _invoke(env={"_SIM_COMPLETE": "complete_bash", "COMP_WORDS": "sim re",
                     "COMP_CWORD": "1"})
    assert r.output.split() == ["report", "replay", "review"]
    script = get_completion_script(prog_name="sim", complete_var="_SIM_COMPLETE", shell="bash")
    assert "complete -o default -F _sim_completion sim" in script


def test_the_command_line_loads_no_numba_until_a_command_runs():
    """--debug must set NUMBA_DISABLE_JIT before Numba loads: importing the app loads none."""
    import subprocess
    import sys
    code = "import sys, sim.cli.app; print('numba' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.stdout.strip() == "False", out.stderr


@pytest.mark.parametrize("words,cword,expected", [
    ("sim run --rules c", 3, ["classic"]),
    ("sim run -s co", 3, ["counting"]),
    ("sim run --swap hi", 3, ["highest-up"]),
    ("sim compare lowest co", 3, ["counting"]),
    ("sim tune counting --against lowest,co", 4, ["lowest,counting"]),
    ("sim study rules --base boo", 4, ["boothj5"]),
    ("sim play --opponents mo", 3, ["montecarlo"]),
    ("sim analyze x.json --me co", 4, ["counting"]),
    ("sim review g.json --opponents lo", 4, ["lowest"]),
])
def test_shell_completion_completes_values(words, cword, expected):
    """Presets, strategies and swap policies complete, from their one owner."""
    r = _invoke(env={"_SIM_COMPLETE": "complete_bash", "COMP_WORDS": words,
                     "COMP_CWORD": str(cword)})
    assert r.output.split() == expected


def test_python_dash_m_sim_is_the_command():
    """``python -m sim`` works where the ``sim`` script is not on PATH."""
    import subprocess
    import sys
    out = subprocess.run([sys.executable, "-m", "sim", "--version"], capture_output=True,
                         text=True)
    assert out.returncode == 0 and out.stdout.startswith("sim (shithead-sim) "), out.stderr
