"""``python -m sim``: the ``sim`` command (where the script is not on PATH: a user install, a
virtual environment not activated, Windows)."""
from sim.cli.app import main

main()
