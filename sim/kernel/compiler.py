"""The one place where the Numba JIT is configured.

Every jitted function of the project is compiled through :func:`jit` (lazy, typed at first
call) or :func:`jit_sig` (eager, for first-class strategy functions), so that ``cache=True``
and the other options are fixed here and nowhere else.

The compiled code is cached on disk in a folder named after a hash of the project's own
sources (``sim/`` and ``strategies/``) and the Numba version, under ``SHITHEAD_CACHE_DIR``,
else ``NUMBA_CACHE_DIR``, else ``~/.cache/shithead-sim``. Numba checks only the timestamp
of a cached function's own file, so a function that inlines a helper from another file would
otherwise keep running the old helper after that file changed (NUMBA-NOTES.md, gotcha 1):
with the hash, any change to the project's code starts a fresh cache.
"""
from __future__ import annotations

import hashlib
import importlib.util
import os
import sys
import warnings
from pathlib import Path


def _preload_blas_check() -> None:
    """Let Numba's BLAS check pass without importing all of ``scipy.linalg``.

    On the first compile or cache load, ``numba.np.arraymath`` runs ``import
    scipy.linalg.cython_blas`` only to learn whether BLAS exists; importing the package
    ``scipy.linalg`` for it cost a short ``sim run`` 0.27 s (0.19 s more than this).
    So the extension module ``cython_blas`` is loaded here by itself, under its own name; the
    import then finds it in ``sys.modules``, and Numba's C helpers read the same module. A
    later ``import scipy.linalg`` runs as usual. Nothing here is needed for correctness:
    when anything differs (no SciPy, another layout), Numba's own import runs instead.
    """
    if "scipy.linalg" in sys.modules or "scipy.linalg.cython_blas" in sys.modules:
        return
    try:
        scipy = importlib.util.find_spec("scipy")
        folder = Path(scipy.origin).parent / "linalg"
        paths = sorted(folder.glob("cython_blas.*.so")) + sorted(folder.glob("cython_blas.*.pyd"))
        if not paths:
            return
        spec = importlib.util.spec_from_file_location("scipy.linalg.cython_blas", paths[0])
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        sys.modules["scipy.linalg.cython_blas"] = module
    except Exception:      # Numba's own import decides, as without this
        sys.modules.pop("scipy.linalg.cython_blas", None)


_preload_blas_check()

import numba  # noqa: E402  (after the preload)
import numpy as np  # noqa: E402
from numba.core import caching, cgutils, types  # noqa: E402
from numba.core.errors import NumbaExperimentalFeatureWarning  # noqa: E402
from numba.core.dispatcher import Dispatcher  # noqa: E402
from numba.core.typing.typeof import typeof_impl  # noqa: E402
from numba.core.datamodel.models import ArrayModel  # noqa: E402
from numba.core.runtime import rtsys  # noqa: E402
from numba.experimental import function_type  # noqa: E402
from numba.extending import intrinsic, register_model  # noqa: E402


def cache_dir(root: Path | None = None) -> Path:
    """The cache folder for this exact version of the project's code and of Numba."""
    root = root or Path(__file__).resolve().parents[2]
    digest = hashlib.sha256(numba.__version__.encode())
    for folder in ("sim", "strategies"):
        for path in sorted((root / folder).rglob("*.py")):
            digest.update(path.relative_to(root).as_posix().encode())
            digest.update(path.read_bytes())
    base = Path(os.environ.get("SHITHEAD_CACHE_DIR") or os.environ.get("NUMBA_CACHE_DIR")
                or Path.home() / ".cache" / "shithead-sim")
    name = digest.hexdigest()[:16]
    return base if base.name == name else base / name   # inherited from a parent process


# Before any function is decorated: Numba reads it when it sets up each function's cache.
# The environment variable too: Numba re-reads its configuration from the environment when a
# NUMBA_* variable changes after import (pytest's conftest sets NUMBA_NUM_THREADS), and that
# silently put the cache back beside the sources, where a changed rule could run stale code.
os.environ["NUMBA_CACHE_DIR"] = numba.config.CACHE_DIR = str(cache_dir())

# Strategies are passed to the core as first-class functions (NUMBA-NOTES.md: one compile for
# every mix of seats, cacheable). Numba flags the feature as experimental on every use; the
# warning carries no information for our users.
warnings.filterwarnings("ignore", category=NumbaExperimentalFeatureWarning)

_OPTIONS = dict(cache=True, nogil=True, error_model="numpy", boundscheck=False)

# ``st[ix(i)]``: an index Numba knows to be unsigned. With a signed index Numba adds the
# negative-index wraparound (a compare and a select) to every access, and LLVM can rarely
# prove it away when the index comes from the state itself (a seat, a rank, a length). The
# rules' hot path therefore indexes through ``ix``: 40.8 -> 35.1 ns a turn (4-player
# ``lowest``, benchmarks/ab.py, same games). Only for indices that are never negative.
ix = np.uint64


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


def jit_lazy(signature, **extra):
    """Like :func:`jit_sig`, but compiled when first needed (:func:`ready`), not now.

    Whatever uses it first, seating it (``ready``), a call from Python or a jitted function
    that calls it, compiles it for ``signature`` alone: a first-class function must have
    exactly one compiled signature, and a caller with other argument types (such as writable
    arrays) gets them converted, as with an eager compile.
    """
    opts = {**_OPTIONS, **extra}

    def wrap(f):
        d = numba.njit(**opts)(f)
        d._shithead_signature = signature
        template = d.get_call_template

        def get_call_template(args, kws):         # typing a call from jitted code
            ready(d)
            return template(args, kws)

        def first_call(*args, **kws):             # a call from Python: Numba calls what
            return ready(d)                       # this returns with the arguments

        d.get_call_template, d._compile_for_args = get_call_template, first_call
        return d
    return wrap


class FnTuple(tuple):
    """A tuple of first-class strategy functions whose Numba type is worked out once.

    Handing a plain tuple of dispatchers to a jitted function makes Numba type it again at
    every call (it unifies the function types): half a millisecond a call of the core, which
    code that calls it often (a tournament's blocks, ``sim tune``'s rotations) pays each
    time. The type only depends on which functions are in it, so it is cached here."""

    __slots__ = ()


_FN_TYPES: dict = {}


@typeof_impl.register(FnTuple)
def _typeof_fn_tuple(val, c):
    key = tuple(id(f) for f in val)
    found = _FN_TYPES.get(key)
    if found is None:
        found = _FN_TYPES[key] = (numba.typeof(tuple(val)), tuple(val))   # keeps ids alive
    return found[0]


_NAMED_TYPES: dict = {}


def _signature_of(v):
    """What an argument's Numba type depends on, cheaply: an array's dtype, dimensions and
    flags (layout, writability); a FnTuple's functions; a bool; whether an int fits int64;
    else the value's own Numba type."""
    if isinstance(v, np.ndarray):
        return v.dtype, v.ndim, v.flags.num       # the flags as one number
    if isinstance(v, FnTuple):
        return tuple(id(f) for f in v)
    if type(v) is bool:
        return bool
    if type(v) is int:
        return int, -2**63 <= v < 2**63
    return numba.typeof(v)


def typed_once(cls):
    """Register a named-tuple class of core arguments (sim.kernel.referee.Games, ...) so that
    Numba works out its type once per kind of contents, as :class:`FnTuple`: Numba types a
    named tuple anew at every call, formatting every field's type into its name (0.1-0.3 ms
    a call of the core). The type is Numba's own (``typeof_impl`` for tuples)."""
    numbas = typeof_impl.dispatch(tuple)

    @typeof_impl.register(cls)
    def _typeof_named(val, c):
        key = (cls,) + tuple(_signature_of(v) for v in val)
        found = _NAMED_TYPES.get(key)
        if found is None:
            found = _NAMED_TYPES[key] = numbas(val, c)
        return found
    return cls


def ready(d):
    """Compile a :func:`jit_lazy` function for its one signature (from the disk cache when
    there) and close it to other signatures, which makes it a first-class function; return
    it. Other functions are returned as they are."""
    sig = getattr(d, "_shithead_signature", None)
    if sig is not None and d._can_compile:
        d.compile(sig.args)
        d.disable_compile()
    if (not hasattr(d, "__wrapper_address__") and isinstance(d, Dispatcher)
            and not d._can_compile and len(d.overloads) == 1):
        # Numba's wrapper-address protocol: handing the function to the core from Python
        # then costs a lookup of this number, not of its compile result and its symbol
        # (half of the 0.49 ms of a core call with 12 strategy functions).
        cres = next(iter(d.overloads.values()))
        addr = cres.library.get_pointer_to_function(cres.fndesc.llvm_cfunc_wrapper_name)
        d.__wrapper_address__ = lambda *sig_: addr
        d._shithead_jit_address = cres.library.get_pointer_to_function(cres.fndesc.llvm_func_name)
    return d


def _jit_address(func, sig):
    """Numba's ``_get_jit_address`` (the native entry of a first-class function, through
    which a jitted caller gets its exceptions: R26's bounds errors), answered from the number
    :func:`ready` kept for a dispatcher closed to one signature. Numba looks it up again for
    each function at every call from Python: two thirds of the 0.30 ms of a core call with
    12 strategy functions."""
    addr = getattr(func, "_shithead_jit_address", None)
    return addr if addr is not None else _numba_jit_address(func, sig)


# Numba's unboxing of a first-class function calls this module attribute by name, at run time.
_numba_jit_address = function_type._get_jit_address
function_type._get_jit_address = _jit_address


def _load_overload(self, sig, target_context):
    """Numba's ``Cache.load_overload`` (load a function from the disk cache) without the
    refresh of the whole compiler context that it runs first.

    That refresh imports and registers every typing and lowering implementation Numba has
    (``numba.cpython.*``, ``numba.np.*``, cffi): 0.1 s of a warm ``sim run``'s 0.7 s of
    start-up, and none of it is used to run code loaded from the cache, which is machine
    code already linked with everything it calls. What loaded code does need is the
    runtime's own functions (reference counts, allocation): ``rtsys.initialize``, which the
    refresh would also have run, is kept. A compile still refreshes the context first (the
    compiler does so itself), so code compiled later in the same process is unaffected.
    tests/test_compile.py plays the same games with and without this, in fresh processes,
    and compiles new code after a load.
    """
    rtsys.initialize(target_context)
    with self._guard_against_spurious_io_errors():
        return self._load_overload(sig, target_context)


_numba_load_overload = caching.Cache.load_overload
caching.Cache.load_overload = _load_overload


class Borrowed(types.Array):
    """The type of :func:`borrow`'s views: an array whose reference count Numba does not keep
    (its data model lists no meminfo, so no ``NRT_incref``/``NRT_decref`` call is emitted).
    Its slices and copies are ordinary arrays (``copy`` is :class:`types.Array`'s), and it
    converts to an ordinary array wherever one is expected (a first-class strategy)."""

    def __init__(self, dtype, ndim, layout, readonly=False, aligned=True):
        super().__init__(dtype, ndim, layout, readonly=readonly, aligned=aligned,
                         name=f"borrowed({dtype}, {ndim}d, {layout})")


@register_model(Borrowed)
class _BorrowedModel(ArrayModel):
    def traverse(self, builder):
        return []          # no member holds a reference (the meminfo is NULL)


@intrinsic
def borrow(typingctx, arr):
    """A view of the array ``arr`` that is not reference-counted (its meminfo is NULL, its
    type :class:`Borrowed`).

    Every time a jitted function hands an array on (to an inlined helper, a called function
    or a first-class strategy), Numba counts a reference up and down again with two *atomic*
    instructions. In the referee loop that was two thirds of the time of a turn (perf on a
    4-player table of ``lowest``: 62% of samples in ``NRT_incref``/``NRT_decref``); on a
    NULL meminfo they return at once (85.4 -> 43.8 ns a turn). The calls themselves still
    cost 7% of a turn and the registers they clobber; with the :class:`Borrowed` type Numba
    emits none: 36.1 -> 29.2 ns a turn, ``random`` 68.0 -> 49.5 (benchmarks/ab.py).

    The caller must keep ``arr`` itself alive, and used, for as long as the view is used
    (Numba frees an array after its last use), and must not return the view to Python.
    """
    if not isinstance(arr, types.Array):
        return None

    def codegen(context, builder, sig, args):
        src = context.make_array(arr)(context, builder, value=args[0])
        out = context.make_array(arr)(context, builder)
        for field in ("nitems", "itemsize", "data", "shape", "strides"):
            setattr(out, field, getattr(src, field))
        out.meminfo = cgutils.get_null_value(out.meminfo.type)
        out.parent = cgutils.get_null_value(out.parent.type)
        return out._getvalue()

    out_type = Borrowed(arr.dtype, arr.ndim, arr.layout, readonly=not arr.mutable,
                        aligned=arr.aligned)
    return out_type(arr), codegen
