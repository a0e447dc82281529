"""``python -m sim.cli``: the ``sim`` command."""
from sim.cli.app import main

main()
