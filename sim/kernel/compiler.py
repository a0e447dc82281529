"""How the project's code is compiled: the JIT's options, its compile cache, and the typing of
tuples of first-class functions; the one place where Numba is configured.

Every jitted function of the project is compiled through :func:`jit` (lazy, typed at first
call), :func:`jit_sig` (eager) or :func:`jit_lazy` (one signature, compiled when first
seated), so that the options are fixed here and nowhere else. Importing this module changes
nothing that other code in the process sees (no environment variable, no ``numba.config``
setting, no warnings filter, no ``sys.modules`` entry, no patched Numba function). What
touches Numba's internals is one module, :mod:`sim.kernel.patches` (``cache``, ``lazy``,
``borrow``, and the process-wide ``load``, ``inline``, ``fnaddr`` that :func:`install`
applies), each patch checked and with Numba's public behaviour as its fallback.

**The compile cache** of the project's functions goes to a folder named after a hash of the
code that shapes results (:mod:`sim.kernel.identity`) and the Numba version, under
``SHITHEAD_CACHE_DIR``, else ``NUMBA_CACHE_DIR``, else ``~/.cache/shithead-sim``. Numba checks
only the timestamp of a cached function's own file, so a function that inlines a helper from
another file would otherwise keep running the old helper after that file changed
(tests/test_cache.py). Without the ``cache`` patch, functions are cached by Numba's public
mechanism only if ``NUMBA_CACHE_DIR`` is set, else not at all.

**Debugging** (``NUMBA_DISABLE_JIT=1``, ``sim run --debug``): everything here has a plain
Python meaning (:data:`DEBUG`), so a strategy runs as Python and a breakpoint in it stops.
"""
from __future__ import annotations

import os
import warnings
from contextlib import contextmanager
from pathlib import Path

import numba
import numpy as np
from numba.extending import typeof_impl

from sim.kernel import identity
from sim.kernel.patches import (  # noqa: F401 (the kernel's names for the seam's own)
    DEBUG, active, borrow, cached, install, lazy, ready, use_hashed_cache,
)

# R26 needs a jitted caller to receive a first-class strategy's exception (an index past its
# observation), which Numba does through ``function_type._get_jit_address`` from 0.61 on;
# before, the exception is printed as "ignored" and the run goes on.
if tuple(int(x) for x in numba.__version__.split(".")[:2]) < (0, 61):
    raise ImportError(f"shithead-sim needs numba >= 0.61 (R26), found {numba.__version__}")

# --- the compile cache ------------------------------------------------------------------------

def cache_dir(root: Path | None = None) -> Path:
    """The cache folder for this exact version of the project's code (:mod:`identity`, of
    ``root``, by default this checkout) and of Numba (a saved folder's "code" is
    :func:`results_code`)."""
    salt = _salt()          # what changes compiled code beyond the sources names its own cache
    name = identity.own(salt) if root is None else identity.digest(root, salt)
    base = Path(os.environ.get("SHITHEAD_CACHE_DIR") or os.environ.get("NUMBA_CACHE_DIR")
                or Path.home() / ".cache" / "shithead-sim")
    return base if base.name == name else base / name   # inherited from a parent process


def _salt() -> str:
    # what changes compiled code beyond the sources: Numba's version, borrow's type, and
    # NUMBA_BOUNDSCHECK (forced bounds checks, tests/boundscheck_paths.py)
    return (f"{numba.__version__} borrow={active('borrow')} "
            f"boundscheck={numba.config.BOUNDSCHECK}")


def results_code(root: Path | None = None) -> str:
    """A saved folder's "code", which ``--resume`` requires unchanged: the compile identity's
    files and the studies' modules that decide the games (:data:`identity.GAMES`)."""
    if root is None:
        return identity.own(_salt(), identity.GAMES)
    return identity.digest(root, _salt(), identity.GAMES)


# --- decorators -------------------------------------------------------------------------------

_OPTIONS = dict(nogil=True, error_model="numpy", boundscheck=False)

# ``st[ix(i)]``: an index Numba knows to be unsigned. With a signed index Numba adds the
# negative-index wraparound (a compare and a select) to every access, and LLVM can rarely
# prove it away when the index comes from the state itself (a seat, a rank, a length). The
# rules' hot path therefore indexes through ``ix``. Only for indices that are never negative.
ix = np.uint64


def _njit(fn, extra, signature=None):
    """``numba.njit`` with the project's options and cache; compiled now for ``signature``."""
    if DEBUG:
        fn.py_func = fn           # as a dispatcher has: the Python function
        return fn
    opts = {**_OPTIONS, **extra}
    wanted = opts.pop("cache", True)
    ours = wanted and active("cache")
    public_cache = wanted and not ours and bool(os.environ.get("NUMBA_CACHE_DIR"))
    d = numba.njit(**opts)(fn)
    try:
        if ours:
            use_hashed_cache(d, cache_dir)
        elif public_cache:
            d.enable_caching()    # what numba.njit(cache=True) does
    except RuntimeError:          # no locator for it (no source file): not cached
        pass
    if signature is not None:
        d.compile(signature.args)
        d.disable_compile()
    return d


@contextmanager
def on_compile(callback):
    """Call ``callback()`` whenever Numba starts compiling a function (not loading it from the
    cache) within the block: the first wait of a cold command, to be said. Numba's event API
    (``numba.core.event``, public since 0.53); without it, nothing is said."""
    try:
        from numba.core import event
    except ImportError:                       # pragma: no cover (numba >= 0.61 has it)
        yield
        return

    class Said(event.Listener):
        def on_start(self, ev):
            callback()

        def on_end(self, ev):
            pass
    with event.install_listener("numba:compile", Said()):
        yield


def jit(fn=None, **extra):
    """``numba.njit`` with the project's options (cache on disk, no GIL)."""
    if fn is None:
        return lambda f: _njit(f, extra)
    return _njit(fn, extra)


def jit_sig(signature, **extra):
    """Eagerly compile for one signature: what a first-class strategy function needs."""
    return lambda f: _njit(f, extra, signature)


def jit_lazy(signature, **extra):
    """Like :func:`jit_sig`, but compiled when first needed (:func:`ready`), not now.

    Whatever uses it first, seating it (``ready``), a call from Python or a jitted function
    that calls it, compiles it for ``signature`` alone: a first-class function must have
    exactly one compiled signature, and a caller with other argument types (such as writable
    arrays) gets them converted, as with an eager compile. Without the ``lazy`` patch it is
    compiled eagerly, as :func:`jit_sig` does (Numba's public way to fix one signature).
    """
    def wrap(f):
        if DEBUG or not active("lazy"):
            return _njit(f, extra, signature)
        return lazy(_njit(f, extra), signature)
    return wrap


# --- first-class function tuples --------------------------------------------------------------

class FnTuple(tuple):
    """A tuple of first-class strategy functions whose Numba type is worked out once.

    Handing a plain tuple of dispatchers to a jitted function makes Numba type it again at
    every call (it unifies the function types): code that calls the core often (a
    tournament's blocks, ``sim tune``'s rotations) pays it each time. The type only depends
    on which functions are in it, so it is cached, and worked out where the tuple is made (the
    caller's thread), with Numba's "experimental feature" warning silenced there alone."""

    __slots__ = ()

    def __new__(cls, items=()):
        self = super().__new__(cls, items)
        if not DEBUG:
            _fn_type(self)
        return self


_FN_TYPES: dict = {}


def _fn_type(val):
    key = tuple(id(f) for f in val)
    found = _FN_TYPES.get(key)
    if found is None:
        with warnings.catch_warnings():     # first-class functions are "experimental"
            warnings.simplefilter("ignore", numba.core.errors.NumbaExperimentalFeatureWarning)
            found = (numba.typeof(tuple(val)), tuple(val))     # keeps the ids alive
        _FN_TYPES[key] = found
    return found[0]


@typeof_impl.register(FnTuple)
def _typeof_fn_tuple(val, c):
    return _fn_type(val)
