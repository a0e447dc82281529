"""The kinds of saved folder are declared once (sim.runs.kinds.KINDS) and everything that
names a kind agrees with that table: the command that saves it exists and has ``--resume``
exactly when the kind says so, its reader and page import, each study's KIND and result
file are the table's."""
from __future__ import annotations

import importlib

import pytest
import typer

from sim.cli.app import app
from sim.runs.kinds import KINDS, kind_of

# the module that writes each kind, and its constants naming the kind and its result file
WRITERS = {"run": ("sim.runs.store", "KIND", None),
           "compare": ("sim.studies.compare", "KIND", "RESULT"),
           "swap-study": ("sim.studies.swapstudy.study", "KIND", "STUDY"),
           "tune": ("sim.studies.tune", "KIND", "RESULT"),
           "rules-lab": ("sim.studies.ruleslab.study", "KIND", "RESULT")}


def _command(words: str):
    cmd = typer.main.get_command(app)
    for w in words.split()[1:]:
        cmd = cmd.commands[w]
    return cmd


@pytest.mark.parametrize("name", list(KINDS))
def test_each_kind_names_a_command_reader_and_page_that_exist(name):
    k = KINDS[name]
    options = {o for p in _command(k.command).params for o in p.opts}
    assert "--out" in options
    assert ("--resume" in options) is k.resume, "a kind resumes exactly when its command can"
    module, _, fn = k.reader.partition(":")
    assert callable(getattr(importlib.import_module(module), fn))
    page = importlib.import_module(k.page)
    assert hasattr(page, "TITLE") or hasattr(page, "title")
    assert hasattr(page, "answer") or hasattr(page, "build")


@pytest.mark.parametrize("name", list(WRITERS))
def test_each_writer_uses_the_declared_kind_and_result_file(name):
    module, kind, result = WRITERS[name]
    m = importlib.import_module(module)
    assert getattr(m, kind) == name
    if result is not None:
        assert getattr(m, result) == KINDS[name].result


def test_an_unknown_kind_is_one_clear_error():
    with pytest.raises(ValueError, match="kind 'mystery'.*known kinds: run, compare"):
        kind_of("mystery", "somewhere")
