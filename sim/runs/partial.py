"""What interrupted work had finished: Ctrl-C (or a ``stop`` event) raises :class:`Interrupted`,
whose ``partial`` is one :class:`Partial`, built once by the code that stops, never changed
on the way up.

``Partial.result`` has one type per producer, whatever the moment of the interrupt (an empty
one when nothing was finished):

- :func:`sim.runs.batch.play_batch` and the backends (:mod:`sim.runs.backends`): a
  :class:`~sim.runs.batch.Batch`, the games played from the first (of the batches not yet
  whole);
- :meth:`sim.studies.match.Match.play`: a Batch of the first whole deals, rotation by
  rotation (``done`` deals);
- ``sim run`` (:func:`sim.runs.runner.run`): the :class:`~sim.runs.tally.Tally` of every game
  played or loaded;
- ``sim compare``: a :class:`~sim.studies.compare.Comparison` (the tournament and its info),
  as :func:`sim.studies.compare.compare` returns;
- ``sim study swap``: a :class:`~sim.studies.swapstudy.values.SwapStudyPartial` (the values
  stage's Tally and the head-to-heads finished);
- ``sim study rules``: a :class:`~sim.studies.ruleslab.study.LabPartial` (the lab's result
  so far, as saved, and the rulesets measured);
- ``sim tune``: a :class:`~sim.studies.tune.TunePartial` (the trials finished, the best so
  far, tune.json as saved);
- ``sim review``: the :class:`~sim.studies.review.Review` of the decisions made so far.

A command that catches an :class:`Interrupted` from below and stops raises its own, from its
own finished work.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Partial:
    """``result``: what was finished (its type is the producer's, above); ``done`` of ``of``
    ``unit`` (games, deals or trials; ``of`` None when not known beforehand); ``stage``: the
    stage under way when it stopped (a study's), or None; ``reason``: why it stopped."""

    result: Any
    done: int
    of: int | None = None
    unit: str = "games"
    stage: str | None = None
    reason: str = "interrupted"

    def describe(self) -> str:
        """``interrupted in the values stage, after 700 of 1,200 games``."""
        where = f" in the {self.stage} stage" if self.stage else ""
        of = f" of {self.of:,}" if self.of is not None else ""
        return f"{self.reason}{where}, after {self.done:,}{of} {self.unit}"


class Interrupted(KeyboardInterrupt):
    """Ctrl-C (or a ``stop`` event) ended the work early; ``partial`` (a :class:`Partial`)
    is what was finished, set when the exception is made."""

    def __init__(self, partial: Partial, message: str = "interrupted"):
        if not isinstance(partial, Partial):
            raise TypeError(f"Interrupted: expected a Partial, got {type(partial).__name__}")
        super().__init__(message)
        self._partial = partial

    @property
    def partial(self) -> Partial:
        return self._partial
