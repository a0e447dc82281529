"""The Numba seam: the one module that configures the JIT and touches Numba's internals.

Every jitted function of the project is compiled through :func:`jit` (lazy, typed at first
call), :func:`jit_sig` (eager) or :func:`jit_lazy` (one signature, compiled when first
seated), so that the options are fixed here and nowhere else. Importing this module changes
nothing that other code in the process sees (no environment variable, no ``numba.config``
setting, no warnings filter, no ``sys.modules`` entry, no patched Numba function).

**Patches.** Each use of a Numba internal is named in :data:`ALL_PATCHES`, checked against the
shape it expects (:func:`_check_*`) and replaced by Numba's public behaviour when that shape
is absent or when ``SHITHEAD_NUMBA_PATCHES`` switches it off (``0`` for none, else the names
to keep; unset: all). Each one is kept for what it buys on the commands users run
(benchmarks/results/numba-patches.md); none is needed for a correct result. ``cache``,
``lazy`` and ``borrow`` apply to the project's own functions when they are decorated or
seated; ``load``, ``inline`` and ``fnaddr`` are process-wide, applied only when an entry point
calls :func:`install`.

**The compile cache** of the project's functions goes to a folder named after a hash of the
code that shapes results (:mod:`sim.kernel.identity`) and the Numba version, under ``SHITHEAD_CACHE_DIR``,
else ``NUMBA_CACHE_DIR``, else ``~/.cache/shithead-sim``. Numba checks only the timestamp of a
cached function's own file, so a function that inlines a helper from another file would
otherwise keep running the old helper after that file changed (tests/test_cache.py).
Without the ``cache`` patch, functions are cached by Numba's public mechanism only if
``NUMBA_CACHE_DIR`` is set, else not at all.

**Debugging** (``NUMBA_DISABLE_JIT=1``, ``sim run --debug``): everything here has a plain
Python meaning (:data:`DEBUG`), so a strategy runs as Python and a breakpoint in it stops.
"""
from __future__ import annotations

import inspect
import os
import warnings
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path

import numba
import numpy as np
from numba import types
from numba.extending import intrinsic, models, register_model, typeof_impl

from sim.kernel import fnaddr, identity, inlining

# R26 needs a jitted caller to receive a first-class strategy's exception (an index past its
# observation), which Numba does through ``function_type._get_jit_address`` from 0.61 on;
# before, the exception is printed as "ignored" and the run goes on.
if tuple(int(x) for x in numba.__version__.split(".")[:2]) < (0, 61):
    raise ImportError(f"shithead-sim needs numba >= 0.61 (R26), found {numba.__version__}")

# NUMBA_DISABLE_JIT=1: numba.njit returns the Python function itself (read at import).
DEBUG = bool(numba.config.DISABLE_JIT)

ALL_PATCHES = ("cache", "lazy", "borrow", "load", "inline", "fnaddr")


def _switched_on() -> frozenset:
    value = os.environ.get("SHITHEAD_NUMBA_PATCHES", "").strip().lower()
    if value in ("", "1", "all"):
        return frozenset(ALL_PATCHES)
    if value in ("0", "none"):
        return frozenset()
    names = {v.strip() for v in value.split(",") if v.strip()}
    unknown = names - set(ALL_PATCHES)
    if unknown:
        raise ValueError(f"SHITHEAD_NUMBA_PATCHES: unknown patch(es) {sorted(unknown)}; "
                         f"known: {', '.join(ALL_PATCHES)}")
    return frozenset(names)


def _params(fn) -> tuple:
    try:
        return tuple(inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        return ()


def _check_cache() -> bool:
    """Our own locator class for a per-function cache object (``numba.core.caching``)."""
    from numba.core import caching, dispatcher
    return (all(hasattr(caching, n) for n in ("_CacheLocator", "_SourceFileBackedLocatorMixin",
                                              "CompileResultCacheImpl", "FunctionCache"))
            and isinstance(getattr(caching.CompileResultCacheImpl, "_locator_classes", None),
                           list)
            and _params(caching._CacheLocator.get_suitable_cache_subpath) == ("py_file",)
            and hasattr(dispatcher.Dispatcher, "enable_caching"))


def _check_lazy() -> bool:
    """The dispatcher methods :func:`jit_lazy` overrides on its own dispatchers."""
    from numba.core.dispatcher import Dispatcher
    return (_params(Dispatcher.get_call_template) == ("self", "args", "kws")
            and _params(Dispatcher._compile_for_args) == ("self", "args", "kws")
            and hasattr(Dispatcher, "disable_compile"))


def _check_borrow() -> bool:
    """The array data model and struct helpers :func:`borrow`'s codegen uses."""
    from numba.core import cgutils
    return (hasattr(models, "ArrayModel") and hasattr(cgutils, "get_null_value")
            and "traverse" in vars(models.DataModel))


def _check_load() -> bool:
    """``Cache.load_overload`` and the private pieces :func:`install`'s replacement calls."""
    from numba.core import caching
    from numba.core.runtime import rtsys
    c = caching.Cache
    return (_params(c.load_overload) == ("self", "sig", "target_context")
            and _params(getattr(c, "_load_overload", None)) == ("self", "sig",
                                                                   "target_context")
            and hasattr(c, "_guard_against_spurious_io_errors")
            and callable(getattr(rtsys, "initialize", None)))


_CHECKS = {"cache": _check_cache, "lazy": _check_lazy, "borrow": _check_borrow,
           "load": _check_load, "inline": inlining.check, "fnaddr": fnaddr.check}


@lru_cache(maxsize=None)
def active(name: str) -> bool:
    """Whether the patch ``name`` applies: switched on, JIT enabled, and the Numba internal it
    uses found with the expected shape."""
    if DEBUG or name not in _switched_on():
        return False
    try:
        return bool(_CHECKS[name]())
    except Exception:      # anything unexpected: Numba's public behaviour
        return False


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


@lru_cache(maxsize=1)
def _hashed_cache_class():
    """A ``FunctionCache`` whose first locator puts files under :func:`cache_dir` (built when
    first needed, so that importing this module imports nothing of Numba's caching)."""
    from numba.core import caching

    class Locator(caching._SourceFileBackedLocatorMixin, caching._CacheLocator):
        def __init__(self, py_func, py_file):
            self._py_file = py_file
            self._lineno = py_func.__code__.co_firstlineno
            self._cache_path = os.path.join(str(cache_dir()),
                                            self.get_suitable_cache_subpath(py_file))

        def get_cache_path(self):
            return self._cache_path

    class Impl(caching.CompileResultCacheImpl):
        # ours for every function in a file; Numba's own for the others (a notebook's cell)
        _locator_classes = [Locator] + list(caching.CompileResultCacheImpl._locator_classes)

    class HashedCache(caching.FunctionCache):
        _impl_class = Impl

    return HashedCache


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
            d._cache = _hashed_cache_class()(d.py_func)
        elif public_cache:
            d.enable_caching()    # what numba.njit(cache=True) does
    except RuntimeError:          # no locator for it (no source file): not cached
        pass
    if signature is not None:
        d.compile(signature.args)
        d.disable_compile()
    return d


def cached(d) -> bool:
    """Has the jitted function ``d`` an index in the compile cache (then its first call loads
    it, else compiles)? True when unknown (uncompiled, no cache): nothing to announce."""
    index = getattr(getattr(getattr(d, "_cache", None), "_cache_file", None), "_index_path",
                    None)
    return index is None or os.path.exists(index)


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
        d = _njit(f, extra)
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


def ready(d):
    """Compile a :func:`jit_lazy` function for its one signature (from the disk cache when
    there) and close it to other signatures, which makes it a first-class function; return
    it. Other functions (and everything under :data:`DEBUG`) are returned as they are."""
    if DEBUG:
        return d
    sig = getattr(d, "_shithead_signature", None)
    if sig is not None and d._can_compile:
        d.compile(sig.args)
        d.disable_compile()
    return d


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


# --- borrowed views ---------------------------------------------------------------------------

class Borrowed(types.Array):
    """The type of :func:`borrow`'s views: an array whose reference count Numba does not keep
    (its data model lists no meminfo, so no ``NRT_incref``/``NRT_decref`` call is emitted).
    Its slices and copies are ordinary arrays (``copy`` is :class:`types.Array`'s), and it
    converts to an ordinary array wherever one is expected (a first-class strategy)."""

    def __init__(self, dtype, ndim, layout, readonly=False, aligned=True):
        super().__init__(dtype, ndim, layout, readonly=readonly, aligned=aligned,
                         name=f"borrowed({dtype}, {ndim}d, {layout})")


@register_model(Borrowed)
class _BorrowedModel(models.ArrayModel):
    def traverse(self, builder):
        return []          # no member holds a reference (the meminfo is NULL)


@intrinsic
def _borrow(typingctx, arr):
    if not isinstance(arr, types.Array):
        return None

    def codegen(context, builder, sig, args):
        from numba.core import cgutils
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


def _same(arr):
    return arr


def _borrow_function():
    if DEBUG:
        return _same
    if active("borrow"):
        return _borrow
    return numba.njit(inline="always")(_same)


# ``borrow(arr)``: a view of the array ``arr`` that is not reference-counted (its meminfo is
# NULL, its type :class:`Borrowed`). Every time a jitted function hands an array on (to an
# inlined helper, a called function or a first-class strategy), Numba counts a reference up
# and down again with two *atomic* instructions; in the referee loop that was most of the time
# of a turn. ``arr`` must be a parameter of the function that borrows it (or a slice or field
# of one), never rebound there: its caller holds it for the whole call, so the view cannot
# outlive it (tests/test_compile.py checks every call). Never return the view to Python.
# Without the ``borrow`` patch (and in debug mode) it is the array itself.
borrow = _borrow_function()


# --- process-wide patches, applied by the entry points ---------------------------------------

_installed = False


def install() -> None:
    """Apply the process-wide patches ``load``, ``inline`` and ``fnaddr`` if :func:`active` (idempotent,
    cheap to call again). ``load``: ``Cache.load_overload`` without the refresh of the whole
    compiler context it runs first (it imports and registers every typing and lowering
    implementation Numba has, none of which code loaded from the cache uses). The runtime's
    own functions, which loaded code does need, are still initialised; a compile still
    refreshes. ``inline``: :func:`sim.kernel.inlining.install`; ``fnaddr``:
    :func:`sim.kernel.fnaddr.install`. The entry points that load or run the core
    call it first: the strategy lookup (:mod:`sim.runs.registry`, which every command goes
    through), :func:`sim.runs.batch.play_batch` and the analysis."""
    global _installed
    if _installed:
        return
    _installed = True
    if active("inline"):
        inlining.install()
    if active("fnaddr"):
        fnaddr.install()
    if active("load"):
        from numba.core import caching
        from numba.core.runtime import rtsys

        def load_overload(self, sig, target_context):
            rtsys.initialize(target_context)
            with self._guard_against_spurious_io_errors():
                return self._load_overload(sig, target_context)

        load_overload.numba = caching.Cache.load_overload
        caching.Cache.load_overload = load_overload
