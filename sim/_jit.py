"""The one place where the Numba JIT is configured.

Every jitted function of the project is compiled through :func:`jit` (lazy, typed at first
call) or :func:`jit_sig` (eager, for first-class strategy functions), so that ``cache=True``
and the other options are fixed here and nowhere else.

Numba writes its cache beside the sources (``__pycache__``) unless the environment variable
``NUMBA_CACHE_DIR`` names another folder; set it before importing :mod:`sim` (README.md).
"""
from __future__ import annotations

import warnings

import numba
from numba.core.errors import NumbaExperimentalFeatureWarning

# Strategies are passed to the core as first-class functions (NUMBA-NOTES.md: one compile for
# every mix of seats, cacheable). Numba flags the feature as experimental on every use; the
# warning carries no information for our users.
warnings.filterwarnings("ignore", category=NumbaExperimentalFeatureWarning)

_OPTIONS = dict(cache=True, nogil=True, error_model="numpy", boundscheck=False)


def jit(fn=None, **extra):
    """``numba.njit`` with the project's options (cache on disk, no GIL)."""
    opts = {**_OPTIONS, **extra}
    if fn is None:
        return lambda f: numba.njit(**opts)(f)
    return numba.njit(**opts)(fn)


def jit_sig(signature, **extra):
    """Eagerly compile for one signature: what a first-class strategy function needs."""
    opts = {**_OPTIONS, **extra}
    return lambda f: numba.njit(signature, **opts)(f)
