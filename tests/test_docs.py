"""The documentation cannot drift from the program: every ``sim ...`` command line in
README.md and docs/ names a command and options that exist, and every Python block of a page
runs (the blocks of one page in order, in one namespace, as a notebook would)."""
from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import typer

from sim.cli.app import app

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```", re.M | re.S)
SHELL = {"", "sh", "bash", "console", "shell"}


def _commands(page: Path):
    """(line, the command) of every `sim ...` in a shell block or an inline code span."""
    text = page.read_text()
    found = []
    for m in FENCE.finditer(text):
        if m.group(1) in SHELL:
            for line in m.group(2).splitlines():
                found.append(line.strip().removeprefix("$ "))
    prose = FENCE.sub("", text)
    found += re.findall(r"`(sim [^`]+)`", prose)
    out = []
    for line in found:
        line = re.sub(r"\s+#.*$", "", line)                 # a trailing comment
        for part in re.split(r"\s*\|\s*", line):              # each command of a pipeline
            part = re.split(r"\s[<>]", part)[0].strip()        # no redirection
            if part.startswith("sim ") or part == "sim":
                out.append(part)
    return out


CASES = [(p.relative_to(ROOT).as_posix(), c) for p in PAGES for c in _commands(p)]


def test_the_pages_show_commands():
    pages = {p for p, _ in CASES}
    assert {"README.md", "docs/running.md", "docs/comparing.md", "docs/swap.md"} <= pages
    assert len(CASES) > 50


@pytest.mark.parametrize("page,line", CASES)
def test_each_command_line_exists(page, line):
    try:
        words = shlex.split(line)
    except ValueError:
        words = line.split()
    cmd, i = typer.main.get_command(app), 1
    while hasattr(cmd, "commands") and i < len(words) and not words[i].startswith("-"):
        assert words[i] in cmd.commands, f"{page}: `{line}`: no command {words[i]!r}"
        cmd, i = cmd.commands[words[i]], i + 1
    names = {o for p in cmd.params for o in (*p.opts, *p.secondary_opts)} | {"--help"}
    for w in words[i:]:
        if w.startswith("-") and not re.fullmatch(r"-[\d.]+\w*", w) and w != "-":
            assert w.split("=")[0] in names, f"{page}: `{line}`: no option {w!r}"


PYTHON = [(p.relative_to(ROOT).as_posix(),
           [m.group(2) for m in FENCE.finditer(p.read_text()) if m.group(1) == "python"])
          for p in PAGES]


@pytest.mark.slow
@pytest.mark.parametrize("page,blocks", [(p, b) for p, b in PYTHON if b])
def test_each_python_block_runs(page, blocks, tmp_path):
    script = tmp_path / "page.py"
    script.write_text("\n\n".join(blocks))
    (tmp_path / "docs").symlink_to(ROOT / "docs")     # the pages' paths, e.g. docs/examples
    r = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True,
                       text=True, timeout=600)
    assert r.returncode == 0, f"{page}:\n{r.stderr[-3000:]}"


@pytest.mark.parametrize("page", [p.relative_to(ROOT).as_posix() for p in PAGES])
def test_each_link_to_a_file_exists(page):
    text = (ROOT / page).read_text()
    for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text):
        if "://" not in target:
            assert ((ROOT / page).parent / target).exists(), f"{page}: link to {target}"
