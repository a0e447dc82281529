"""The rules kernel: the game state, the rules of Shithead, the referee and the Numba seam.

It owns everything a game is made of (cards, the flat state's layout, rulesets, the jitted
rules in :mod:`~sim.kernel.engine`, move ids, random streams, cycle detection, the record
fields, the batch referee, the strategy interface, world sampling and playouts, and the
single-position API) and is the only place the rules live. It imports NumPy and Numba only, never another layer of the project
(``tests/test_layers.py`` checks every import, lazy ones included).
"""
