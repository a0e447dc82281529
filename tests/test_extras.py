"""A base install (no extras) answers a command that needs one with one line naming the
``pip install`` that gives it, before any game is estimated or played."""
from __future__ import annotations

import sys

import pytest

from sim.runs.config import RunError
from sim.runs.extras import EXTRA, require


@pytest.mark.parametrize("module,extra", sorted(EXTRA.items()))
def test_require_names_the_extra(monkeypatch, module, extra):
    monkeypatch.setitem(sys.modules, module, None)      # import now raises ImportError
    with pytest.raises(RunError) as e:
        require(module, "this command")
    assert str(e.value) == (f"this command needs {module}, which the base install leaves "
                            f"out: pip install 'shithead-sim[{extra}]'")


def test_require_returns_the_module():
    assert require("optuna", "sim tune").__name__ == "optuna"


def test_tune_without_optuna_is_one_error_line(cli, monkeypatch):
    monkeypatch.setitem(sys.modules, "optuna", None)
    r = cli("tune", "counting", "--against", "lowest", "--trials", "1",
            "--games-per-trial", "40")
    assert r.exit_code == 2
    assert r.output.strip().splitlines() == [
        "error: sim tune needs optuna, which the base install leaves out: "
        "pip install 'shithead-sim[tune]'"]


def test_dask_backend_without_distributed_is_one_error_line(cli, monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)
    r = cli("run", "--games", "100", "--backend", "dask")
    assert r.exit_code == 2
    assert r.output.strip().splitlines() == [
        "error: --backend dask needs distributed, which the base install leaves out: "
        "pip install 'shithead-sim[cluster]'"]
