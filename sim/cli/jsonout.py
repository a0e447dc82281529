"""The one JSON grammar of every ``--json`` output (docs/json.md): ``kind``, ``version``,
``ruleset`` (every option as used, or null), ``options`` (what was asked), ``sim_version``
(the package's, as ``sim --version`` prints it), then the results under the kind's own keys.
One function writes it, so the commands cannot drift apart."""
from __future__ import annotations

import json

import typer

from sim.kernel.version import VERSION as SIM_VERSION

VERSION = 2         # raise when a key documented in docs/json.md changes meaning or goes


def envelope(kind: str, ruleset, options: dict, results: dict) -> dict:
    """The printed document: the five head keys first, then ``results`` (which must not
    reuse them). ``ruleset``: a :class:`~sim.kernel.ruleset.Ruleset`, its ``to_dict()``, or
    ``None`` where no rules apply."""
    head = {"kind": kind, "version": VERSION,
            "ruleset": ruleset.to_dict() if hasattr(ruleset, "to_dict") else ruleset,
            "options": options, "sim_version": SIM_VERSION}
    clash = head.keys() & results.keys()
    if clash:
        raise ValueError(f"result keys {sorted(clash)} would hide the JSON head")
    return {**head, **results}


def echo(kind: str, ruleset, options: dict, results: dict, **dumps) -> None:
    """Print :func:`envelope` as indented JSON, numpy numbers as floats (``dumps``: extra
    ``json.dumps`` arguments)."""
    typer.echo(json.dumps(envelope(kind, ruleset, options, results), indent=2, default=float,
                          **dumps))
