"""The built-in strategies and swap policies; importing this package registers them."""
from strategies import basic  # noqa: F401
from strategies import swaps  # noqa: F401
from strategies import heuristics  # noqa: F401
from strategies import montecarlo  # noqa: F401  (uses heuristics)
from strategies import peers  # noqa: F401
