"""The Numba seam: the one module that touches Numba's internals, as named patches.

Each patch is named in :data:`ALL_PATCHES`, checked against the shape of the internal it uses
(:data:`_CHECKS`) and replaced by Numba's public behaviour when that shape is absent or when
``SHITHEAD_NUMBA_PATCHES`` switches it off (``0`` for none, else the names to keep; unset:
all). Each is kept for what it buys on the commands users run
(benchmarks/results/numba-patches.md); none is needed for a correct result. ``cache``, ``lazy``
and ``borrow`` apply to the project's own functions as :mod:`sim.kernel.compiler` decorates or
seats them; ``load``, ``inline`` and ``fnaddr`` are process-wide, applied only when an entry
point calls :func:`install`. Importing this module patches nothing.
"""
from __future__ import annotations

import copy
import inspect
import os
from functools import lru_cache

import numba
from numba.core import types
from numba.extending import intrinsic, models, register_model

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
    """The dispatcher methods :func:`lazy` overrides on its own dispatchers."""
    from numba.core.dispatcher import Dispatcher
    return (_params(Dispatcher.get_call_template) == ("self", "args", "kws")
            and _params(Dispatcher._compile_for_args) == ("self", "args", "kws")
            and hasattr(Dispatcher, "disable_compile"))


def _check_borrow() -> bool:
    """The array data model and struct helpers :data:`borrow`'s codegen uses."""
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


def _check_inline() -> bool:
    """``InlineWorker.inline_ir``, whose copy of a callee's IR deep-copies it block by block
    through the module ``copy``, and blocks copied without a ``__deepcopy__`` of their own."""
    from numba.core import inline_closurecall, ir
    return (_params(inline_closurecall.InlineWorker.inline_ir)
            == ("self", "caller_ir", "block", "i", "callee_ir", "callee_freevars", "arg_typs")
            and getattr(inline_closurecall, "copy", None) is copy
            and "__deepcopy__" not in vars(ir.Block) and "__deepcopy__" in vars(ir.Var))


_ADDRESSES = ("_get_wrapper_address", "_get_jit_address")


def _check_fnaddr() -> bool:
    """The two module functions Numba's generated unboxing code looks up by name at every
    call, taking ``(func, sig)``, and ``Dispatcher.recompile``, which the memo must follow."""
    from numba.core.dispatcher import Dispatcher
    from numba.experimental import function_type
    return (all(_params(getattr(function_type, n)) == ("func", "sig") for n in _ADDRESSES)
            and callable(getattr(Dispatcher, "recompile", None)))


_CHECKS = {"cache": _check_cache, "lazy": _check_lazy, "borrow": _check_borrow,
           "load": _check_load, "inline": _check_inline, "fnaddr": _check_fnaddr}


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


# --- cache: the project's functions cached in a folder of their own ---------------------------

def use_hashed_cache(d, folder) -> None:
    """Cache the dispatcher ``d`` under ``folder()`` (``RuntimeError``: no source file)."""
    d._cache = _hashed_cache_class(folder)(d.py_func)


def cached(d) -> bool:
    """Has the jitted function ``d`` an index in the compile cache (then its first call loads
    it, else compiles)? True when unknown (uncompiled, no cache): nothing to announce."""
    index = getattr(getattr(getattr(d, "_cache", None), "_cache_file", None), "_index_path",
                    None)
    return index is None or os.path.exists(index)


@lru_cache(maxsize=None)
def _hashed_cache_class(folder):
    """A ``FunctionCache`` whose first locator puts files under ``folder()`` (the compile
    cache of this code, :func:`sim.kernel.compiler.cache_dir`); built when first needed, so
    that importing this module imports nothing of Numba's caching."""
    from numba.core import caching

    class Locator(caching._SourceFileBackedLocatorMixin, caching._CacheLocator):
        def __init__(self, py_func, py_file):
            self._py_file = py_file
            self._lineno = py_func.__code__.co_firstlineno
            self._cache_path = os.path.join(str(folder()),
                                            self.get_suitable_cache_subpath(py_file))

        def get_cache_path(self):
            return self._cache_path

    class Impl(caching.CompileResultCacheImpl):
        # ours for every function in a file; Numba's own for the others (a notebook's cell)
        _locator_classes = [Locator] + list(caching.CompileResultCacheImpl._locator_classes)

    class HashedCache(caching.FunctionCache):
        _impl_class = Impl

    return HashedCache


# --- lazy: one signature, compiled when first seated or called --------------------------------

def lazy(d, signature):
    """Make the dispatcher ``d`` compile for ``signature`` alone when first needed: typed from
    jitted code or called from Python, :func:`ready` compiles it (and closes it to others)."""
    d._shithead_signature = signature
    template = d.get_call_template

    def get_call_template(args, kws):         # typing a call from jitted code
        ready(d)
        return template(args, kws)

    def first_call(*args, **kws):             # a call from Python: Numba calls what this
        return ready(d)                       # returns with the arguments

    d.get_call_template, d._compile_for_args = get_call_template, first_call
    return d


def ready(d):
    """Compile a :func:`lazy` function for its one signature (from the disk cache when
    there) and close it to other signatures, which makes it a first-class function; return
    it. Other functions (and everything under :data:`DEBUG`) are returned as they are."""
    if DEBUG:
        return d
    sig = getattr(d, "_shithead_signature", None)
    if sig is not None and d._can_compile:
        d.compile(sig.args)
        d.disable_compile()
    return d


# --- borrow: views without reference counts ---------------------------------------------------

class Borrowed(types.Array):
    """The type of :data:`borrow`'s views: an array whose reference count Numba does not keep
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


# ``borrow(arr)``: a view of the array ``arr`` that is not reference-counted (its meminfo is
# NULL, its type :class:`Borrowed`). Every time a jitted function hands an array on (to an
# inlined helper, a called function or a first-class strategy), Numba counts a reference up
# and down again with two *atomic* instructions; in the referee loop that was most of the time
# of a turn. ``arr`` must be a parameter of the function that borrows it (or a slice or field
# of one), never rebound there: its caller holds it for the whole call, so the view cannot
# outlive it (tests/test_compile.py checks every call). Never return the view to Python.
# Without the ``borrow`` patch (and in debug mode) it is the array itself.
borrow = (_same if DEBUG else _borrow if active("borrow")
          else numba.njit(inline="always")(_same))


# --- load, inline, fnaddr: process-wide, applied by the entry points -------------------------

def _install_load() -> None:
    """``Cache.load_overload`` without the refresh of the whole compiler context it runs first
    (it imports and registers every typing and lowering implementation Numba has, none of
    which code loaded from the cache uses); the runtime's own functions, which loaded code
    does need, are still initialised, and a compile still refreshes."""
    from numba.core import caching
    from numba.core.runtime import rtsys

    def load_overload(self, sig, target_context):
        rtsys.initialize(target_context)
        with self._guard_against_spurious_io_errors():
            return self._load_overload(sig, target_context)

    load_overload.numba = caching.Cache.load_overload
    caching.Cache.load_overload = load_overload


def _install_inline() -> None:
    """``InlineWorker.inline_ir`` copying each IR's blocks with one deep-copy memo, as one deep
    copy of them all would, instead of one memo per block: every block refers to the
    function's scope, so a memo per block copied the whole scope once per block, a cost that
    grows with the square of the inlined code (the batch core inlines its referee, the rules
    and the built-ins: much of its cold compile). The copied IR is the same, except that what
    the blocks share stays shared, as in the original; Numba holds its compiler lock
    throughout, so the swapped ``copy`` is seen by this call alone."""
    from numba.core import inline_closurecall, ir

    class OneMemo:
        """The module ``copy`` for one call of ``inline_ir``: a block is deep-copied with the
        memo of the other blocks of its scope (its function's IR)."""

        def __init__(self):
            self.memos = {}

        def deepcopy(self, x, memo=None):
            if memo is None and isinstance(x, ir.Block):
                # the memo keeps x (and so its scope) alive: the key is not reused
                memo = self.memos.setdefault(id(x.scope), {})
            return copy.deepcopy(x, memo)

        def __getattr__(self, name):
            return getattr(copy, name)

    numba_inline_ir = inline_closurecall.InlineWorker.inline_ir

    def inline_ir(self, caller_ir, block, i, callee_ir, callee_freevars, arg_typs=None):
        inline_closurecall.copy = OneMemo()
        try:
            return numba_inline_ir(self, caller_ir, block, i, callee_ir, callee_freevars,
                                   arg_typs)
        finally:
            inline_closurecall.copy = copy

    inline_ir.numba = numba_inline_ir
    inline_closurecall.InlineWorker.inline_ir = inline_ir


_MOST = 4096      # addresses kept: a few per strategy of the process
# (the dispatcher's getter, id(dispatcher), id(signature)) -> (dispatcher, signature, address)
_MEMO: dict = {}


def _install_fnaddr() -> None:
    """At every call of the batch core, Numba's unboxing of a first-class function (each
    strategy and swap policy of the pool) asks ``numba.experimental.function_type`` for its
    two addresses, and for a dispatcher that looks its compile result up twice and unpickles
    the signature each time. Here the answer for a dispatcher is kept once found, keyed by
    the dispatcher and the signature objects (by identity: Numba's generated code hands the
    same signature object at every call, and hashing it walks its array types). A dispatcher
    never changes the code compiled for a signature except through ``recompile``, which is
    wrapped to forget its entries."""
    from numba.core.dispatcher import Dispatcher
    from numba.experimental import function_type

    def memoized(numba_get):
        def get(func, sig):
            if not isinstance(func, Dispatcher):
                return numba_get(func, sig)
            key = (numba_get, id(func), id(sig))
            found = _MEMO.get(key)
            if found is None:
                if len(_MEMO) >= _MOST:       # were the signature a new object at every call
                    _MEMO.clear()             # (Numba memoizes it), memory stays bounded
                found = _MEMO[key] = (func, sig, numba_get(func, sig))  # keeps the ids alive
            return found[2]
        get.numba = numba_get
        return get

    numba_recompile = Dispatcher.recompile

    def recompile(self):
        for key in [k for k in _MEMO if k[1] == id(self)]:
            del _MEMO[key]
        return numba_recompile(self)

    recompile.numba = numba_recompile
    Dispatcher.recompile = recompile
    for name in _ADDRESSES:
        setattr(function_type, name, memoized(getattr(function_type, name)))


_installed = False


def install() -> None:
    """Apply the process-wide patches ``load``, ``inline`` and ``fnaddr`` that are
    :func:`active` (idempotent, cheap to call again). The entry points that load or run the
    core call it first: the strategy lookup (:mod:`sim.runs.registry`, which every command
    goes through), :func:`sim.runs.batch.play_batch` and the analysis."""
    global _installed
    if _installed:
        return
    _installed = True
    for name, apply in (("inline", _install_inline), ("fnaddr", _install_fnaddr),
                        ("load", _install_load)):
        if active(name):
            apply()
