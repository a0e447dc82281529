"""Everything shown to a person: the terminal summaries (:mod:`reports.text`), plain lines for
the short commands (:mod:`reports.plain`), a game told turn by turn and the table of
``sim play`` (:mod:`reports.game`), ``sim analyze``'s answer (:mod:`reports.analysis`), the
rules explained (:mod:`reports.rules_text`) and the HTML report (:mod:`reports.html`).

It may import every layer below it (:mod:`sim.studies`, :mod:`sim.runs`, :mod:`sim.kernel`,
:mod:`strategies`), never :mod:`sim.cli`; nothing below it imports it.
"""
