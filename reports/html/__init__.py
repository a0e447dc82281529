"""A saved folder as one self-contained HTML page: ``sim report DIR`` / :func:`write_report`.

The page embeds every plot as a base64 PNG (it can be mailed or archived alone); the same
plots are written as PNG files, and every table as a CSV file, in ``<name>_files/`` beside
the page. The page template is ``page.html.j2`` (Jinja2) with ``page.css``; what the page
draws depends on the kind of folder, read from its manifest (``kind``): each kind's page
module is declared with the kind (:data:`sim.runs.kinds.KINDS`).

A page module has ``TITLE`` (or ``title(run)``), and ``answer`` and ``build`` where it needs
them (the result file named when it is malformed is the kind's). Every page leads with its
answer: a module's ``answer(page, run)`` (a run's win rate by strategy or its
first player's edge, the tournament's leader against each other strategy, the swap study's
best split, the tuning's check on fresh deals, the rules lab's headline, the review's
summary), then the module's ``build(page, run)``, its charts and tables, which returns the
warnings for the top; last, "How this was run": the options, versions and date
(:func:`reports.html.common.run_section`). Every plot is checked for a cut title or a legend
over data (:func:`reports.html.common.layout_problems`, kept on the ``<img>`` as
``data-layout``).
"""
from __future__ import annotations

import datetime as _dt
from pathlib import Path

from reports.html import common
from sim.studies.saved import load

HERE = Path(__file__).resolve().parent


def page_module(kind: str):
    """The module that draws a folder of this manifest ``kind`` (declared in
    :data:`sim.runs.kinds.KINDS`)."""
    import importlib

    from sim.runs.kinds import KINDS

    if kind not in KINDS:
        raise ValueError(f"cannot report a folder of kind {kind!r} (manifest.json): known "
                         f"kinds are {', '.join(KINDS)}")
    return importlib.import_module(KINDS[kind].page)


def write_report(run_dir, out_html=None) -> list[Path]:
    """Write the HTML report of the folder saved in ``run_dir`` to ``out_html`` (default
    ``run_dir/report.html``) and its PNG and CSV files to ``<name>_files/`` beside it.

    Returns the paths written, the page first. ``ValueError`` if ``run_dir`` is not a
    finished saved folder (see :func:`sim.studies.saved.load`), or of an unknown kind."""
    import matplotlib
    from jinja2 import Environment, FileSystemLoader, select_autoescape
    from markupsafe import Markup

    run = load(run_dir)
    kind = run.manifest.get("kind", "run")
    if kind == "swap-study" and run.study is None and run.summary.get("partial"):
        kind = "run"          # interrupted: the values stage's games so far, as a run's page
    module = page_module(kind)
    out_html = Path(out_html if out_html is not None else run.path / "report.html").expanduser()
    if out_html.is_dir():
        raise ValueError(f"{out_html} is a folder: give the name of the HTML file to write")
    page = common.Page(out_html)
    from sim.runs.kinds import KINDS

    result = run.path / KINDS[kind].result
    warnings = []
    # Names come from users (strategy files, parameters): a "$" in them is not mathtext.
    with matplotlib.rc_context({"text.parse_math": False}):
        # The answer first (a tournament: the leader's differences), then the charts and
        # tables, and last how it was run (the options, versions, date).
        if hasattr(module, "answer"):
            with common.shape_of(result):
                module.answer(page, run)
        if hasattr(module, "build"):
            with common.shape_of(result):
                warnings = module.build(page, run)
        with common.shape_of(run.path / "summary.json"):
            common.run_section(page, run)
    partial = run.summary.get("partial")
    if partial:                   # saved by an interrupted command: said first, and in the title
        warnings = [f"PARTIAL result ({partial})"] + warnings
    cfg = run.config
    title = (("PARTIAL " if partial else "") +
             (module.title(run) if hasattr(module, "title") else
              f"Shithead {module.TITLE}: {common.int_text(cfg.get('games'))} games, "
              f"{cfg.get('players')} players"))
    names = cfg.get("strategies") or ([cfg["strategy"]] if cfg.get("strategy") else [])
    lead = (f"{common.rules_caption(cfg)}, seed {cfg.get('seed')}"
            + (f"; {'strategies' if len(set(names)) > 1 else 'strategy'} "
               f"{', '.join(dict.fromkeys(names))}" if names else "") + ".")
    env = Environment(loader=FileSystemLoader(str(HERE)), autoescape=select_autoescape(
        ["html", "j2"]))
    html = env.get_template("page.html.j2").render(
        title=title, lead=lead, css=Markup((HERE / "page.css").read_text(encoding="utf-8")),
        sections=page.sections, warnings=warnings, run_dir=str(run.path),
        version=run.manifest.get("versions", {}).get("shithead-sim", ""),
        written=_dt.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z"))
    out_html.parent.mkdir(parents=True, exist_ok=True)
    out_html.write_text(html, encoding="utf-8")
    return [out_html] + page.written


__all__ = ["write_report", "page_module"]
