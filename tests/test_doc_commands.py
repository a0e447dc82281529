"""The pages' command lines run: every `sim ...` line of a shell block in
README.md and docs/ is run, page by page in its order, in a scratch folder (HOME too), on a
small budget where the page's is large; and every console block of the README shows the
layout its command prints today. tests/test_docs.py checks that the commands and options
exist; this runs them.

The lines run under ``/bin/sh`` (the pages' pipes and redirections are shell), with ``sim``
a shell function calling ``python -m sim`` of this interpreter: a user's shell is not needed beyond it.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from test_docs import FENCE, PAGES, ROOT, SHELL

# Lines not meant to run as written: a placeholder the reader fills in.
PLACEHOLDER = re.compile(r"<[^>]+>|\bHOST\b|\bDIR\b|\bN\b|\.\.\.")

# The page's budget -> a test's: (pattern, replacement), applied in order to each line.
SMALL = [
    (re.compile(r"(sim (?:run|compare)\b.*?--games )\S+"), r"\g<1>1200"),
    (re.compile(r"(--games-per-trial )\S+"), r"\g<1>60"),
    (re.compile(r"(--trials )(\d+)"), lambda m: f"{m.group(1)}{2 + int(m.group(2)) // 100}"),
    (re.compile(r"(--rollouts )\S+"), r"\g<1>60"),
    (re.compile(r"--until-clear"), "--until-clear --max-rollouts 120"),
]
# Options a line gets when it gives none: each command's small budget.
EXTRA = {
    "study rules": "--games 600 --skill-deals 30 --mc-deals 2 --mc-block 2",
    "tune": "--trials 2 --games-per-trial 60 --fresh-games 60",
    "analyze": "--rollouts 60",
    "review": "--rollouts 30",
    "swap": "--deals 60",
}


def shell_lines(page: Path) -> list[str]:
    """The command lines of the page's shell blocks that call ``sim``, comments cut."""
    out = []
    for m in FENCE.finditer(page.read_text()):
        if m.group(1) not in SHELL or m.group(1) == "console":
            continue
        for line in m.group(2).splitlines():
            line = re.sub(r"\s+#.*$", "", line.strip())
            if re.search(r"(^|\|\s*)sim\b", line):
                out.append(line)
    return out


def small(line: str) -> str:
    """``line`` on a test's budget: the page's counts made small, a command's budget given."""
    for pattern, repl in SMALL:
        line = pattern.sub(repl, line)
    for command, options in EXTRA.items():
        if re.search(rf"\bsim {command}\b", line):
            given = set(re.findall(r"--[a-z-]+", line))
            more = [o for o in re.findall(r"(--[a-z-]+ \S+)", options)
                    if o.split()[0] not in given]
            line = re.sub(rf"(\bsim {command}\b[^|<>]*)", lambda m: f"{m.group(1)} "
                          f"{' '.join(more)}", line, count=1)
            line = re.sub(r"\s+", " ", line)
    return line


RUNNABLE = [(p.relative_to(ROOT).as_posix(), [x for x in shell_lines(p)
                                             if not PLACEHOLDER.search(x)]) for p in PAGES]


def _scratch(tmp_path: Path) -> dict:
    """A scratch folder and HOME holding what the pages assume: docs/examples, the
    strategies file of docs/strategies.md (`mybots.py`, here and in ~) and a position
    (`position.json`); the compile cache the tests use (nothing compiles again)."""
    from sim.kernel.compiler import cache_dir

    shutil.copytree(ROOT / "docs" / "examples", tmp_path / "docs" / "examples")
    blocks = [m.group(2) for m in FENCE.finditer((ROOT / "docs" / "strategies.md").read_text())
              if m.group(1) == "python"]
    bots = "\n\n".join(b for b in blocks if "def careful" in b or "def example" in b)
    home = tmp_path / "home"
    home.mkdir()
    for where in (tmp_path, home):
        (where / "mybots.py").write_text(bots)
    shutil.copy(ROOT / "docs" / "examples" / "midgame-seed-4p.json", tmp_path / "position.json")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("COLUMNS", "LINES"))}
    env.update(HOME=str(home), SHITHEAD_CACHE_DIR=str(cache_dir().parent),
               PYTHONPATH=os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")]).rstrip(":"),
               SIM_PYTHON=sys.executable)
    return env


def _sh(line: str, cwd: Path, env: dict, timeout=600) -> subprocess.CompletedProcess:
    script = 'sim() { "$SIM_PYTHON" -m sim "$@"; }\n' + line     # the line as written
    return subprocess.run(["/bin/sh", "-c", script], cwd=cwd, env=env, capture_output=True,
                          text=True, stdin=subprocess.DEVNULL, timeout=timeout)


def test_the_budget_is_made_small_and_placeholders_left_out():
    assert small("sim run --games 1e8 --out runs/big") == "sim run --games 1200 --out runs/big"
    assert (small("sim study rules --only hand_size")
            == "sim study rules --only hand_size --games 600 --skill-deals 30 --mc-deals 2 "
               "--mc-block 2")
    assert "--trials 3" in small("sim tune counting --trials 150 --resume")
    assert (small("sim analyze - < position.json --rollouts 5000 --json")
            == "sim analyze - < position.json --rollouts 60 --json")
    assert PLACEHOLDER.search("sim review ~/.cache/shithead-sim/games/<file>.json")
    assert PLACEHOLDER.search("sim run --backend dask --scheduler tcp://HOST:8786")
    lines = {p: x for p, x in RUNNABLE}
    assert len(lines["docs/strategies.md"]) >= 6 and len(lines["docs/running.md"]) >= 6


@pytest.mark.slow
@pytest.mark.skipif(not Path("/bin/sh").exists(), reason="needs /bin/sh (the pages' pipes)")
@pytest.mark.parametrize("page,lines", [(p, x) for p, x in RUNNABLE if x])
def test_every_command_line_of_a_page_runs(page, lines, tmp_path):
    env = _scratch(tmp_path)
    for line in lines:
        done = _sh(small(line), tmp_path, env)
        assert done.returncode == 0, (f"{page}: `{line}` (run as `{small(line)}`) exited "
                                      f"{done.returncode}:\n{done.stderr[-3000:]}")
        assert "Traceback" not in done.stderr, f"{page}: `{line}`:\n{done.stderr[-3000:]}"


def _skeleton(line: str) -> str:
    """A printed line's layout: numbers (and their signs, commas, points) as one mark,
    spaces collapsed."""
    line = re.sub(r"[+-]?\d[\d,.]*(e-?\d+)?%?", "#", line)
    return re.sub(r"\s+", " ", line).strip()


def _console_blocks():
    text = (ROOT / "README.md").read_text()
    for m in FENCE.finditer(text):
        if m.group(1) == "console":
            first, *shown = m.group(2).splitlines()
            yield first.removeprefix("$ "), [x for x in shown if x.strip() != "..."]


CONSOLE = list(_console_blocks())


def test_the_readme_shows_console_blocks():
    assert len(CONSOLE) >= 5 and all(c.startswith("sim ") for c, _ in CONSOLE)


@pytest.mark.slow
@pytest.mark.parametrize("command,shown", CONSOLE, ids=[c for c, _ in CONSOLE])
def test_each_readme_console_block_shows_what_the_command_prints(command, shown, tmp_path):
    """The lines shown (those not cut as ``...``) are lines the command prints today, in
    that order, numbers aside; the command is run as shown (the same seed: the same games),
    so a table's columns, a headline's words and their order must be today's."""
    env = _scratch(tmp_path)
    shutil.copytree(ROOT / "docs" / "examples", tmp_path / "docs" / "examples",
                    dirs_exist_ok=True)
    env["COLUMNS"] = "100"
    done = _sh(command, tmp_path, env)
    assert done.returncode == 0, done.stderr[-3000:]
    missing = first_missing(done.stdout, shown)
    assert missing is None, (f"README.md: `{command}` shows\n  {missing}\nwhich it no longer "
                             f"prints (in this order); it prints:\n{done.stdout}")


def first_missing(printed: str, shown: list[str]):
    """The first of the lines ``shown`` not in ``printed`` (None: they all are), in order,
    numbers aside: a table
    row (``┃``, ``│``) as a whole row, every column in place; a line of text anywhere
    within the text (the page may wrap it elsewhere than the terminal did)."""
    lines = [_skeleton(x) for x in printed.splitlines()]
    text, starts = "", []
    for x in lines:
        starts.append(len(text))
        text += x + " "
    at = 0
    for line in shown:
        want = _skeleton(line.removesuffix("..."))       # a line the page cuts short
        if want[:1] in "┃│":
            found = next((starts[i] for i, x in enumerate(lines)
                          if x == want and starts[i] >= at), -1)
        else:
            found = text.find(want, at)
        if found < 0:
            return line
        at = found + len(want)
    return None


def shows_layout(printed: str, shown: list[str]) -> bool:
    return first_missing(printed, shown) is None


def test_a_console_block_must_show_todays_layout():
    printed = ("100 games, 4 players: 0 unfinished (0 at the limit of 10 turns)\n"
               "┃ seat ┃ games ┃ win rate ┃\n│    0 │    25 │   25.00% │\n")
    assert shows_layout(printed, ["1 games, 4 players: 0 unfinished (0 at the", "limit of 1",
                                  "┃ seat ┃ games ┃ win rate ┃", "│ 1 │ 9 │ 2.5% │"])
    assert not shows_layout(printed, ["┃ seat ┃ strategy ┃ games ┃ win rate ┃"])  # a column
    assert not shows_layout(printed, ["┃ seat ┃ games ┃"])                   # a part of a row
    assert not shows_layout(printed, ["┃ seat ┃ games ┃ win rate ┃", "100 games"])  # order
    assert shows_layout(printed, ["100 games, 4 players: 0 unfinished ..."])     # cut short
