"""Questions answered with many games: tournaments with their seating designs and
statistics, the swap study, parameter tuning and the analysis of single positions.

It may import :mod:`sim.runs`, :mod:`sim.kernel` and :mod:`strategies`, never :mod:`reports`
or :mod:`sim.cli`: what it finds is returned as data, and shown by :mod:`reports`.
"""
