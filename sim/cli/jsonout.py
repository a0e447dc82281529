"""The one JSON grammar of every ``--json`` output (docs/json.md): ``kind``, ``version``,
``ruleset`` (every option as used, or null), ``options`` (what was asked), then the results
under the kind's own keys. One function writes it, so the commands cannot drift apart."""
from __future__ import annotations

import json

import typer

VERSION = 1         # raise when a key documented in docs/json.md changes meaning or goes


def envelope(kind: str, ruleset, options: dict, results: dict) -> dict:
    """The printed document: the four head keys first, then ``results`` (which must not
    reuse them). ``ruleset``: a :class:`~sim.kernel.ruleset.Ruleset`, its ``to_dict()``, or
    ``None`` where no rules apply."""
    head = {"kind": kind, "version": VERSION,
            "ruleset": ruleset.to_dict() if hasattr(ruleset, "to_dict") else ruleset,
            "options": options}
    clash = head.keys() & results.keys()
    if clash:
        raise ValueError(f"result keys {sorted(clash)} would hide the JSON head")
    return {**head, **results}


def echo(kind: str, ruleset, options: dict, results: dict, **dumps) -> None:
    """Print :func:`envelope` as indented JSON (``dumps``: extra ``json.dumps`` arguments)."""
    typer.echo(json.dumps(envelope(kind, ruleset, options, results), indent=2, **dumps))
