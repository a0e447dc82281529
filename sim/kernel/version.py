"""The package's one version number: ``pyproject.toml`` reads it, ``sim --version`` prints it
and every saved manifest records it. It sits in the lowest layer so any layer may cite it."""

VERSION = "0.2.0.dev0"
