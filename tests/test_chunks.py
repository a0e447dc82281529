"""Chunks (sim/runs/chunks.py): how a batch's games are grouped into calls of the core."""
from sim.runs import chunks
from sim.runs.chunks import Chunks


def _play(n, key, sizes):
    def block(lo, hi):
        sizes.append(hi - lo)
    c = Chunks(n, 1, block, None, None, key)
    c.play()
    assert c.done == n
    return c


def test_a_batch_starts_at_the_size_the_last_of_its_kind_ended_with():
    key = ("test", object())
    first, second, other = [], [], []
    _play(5000, key, first)
    assert first[0] == Chunks.FIRST and len(first) > 1        # no speed known yet
    assert chunks._SIZES[key] > Chunks.FIRST
    _play(5000, key, second)
    assert second[0] > Chunks.FIRST
    assert len(second) < len(first)
    _play(5000, None, other)                                  # no key: no memory
    assert other[0] == Chunks.FIRST
    assert sum(first) == sum(second) == sum(other) == 5000
