"""The ``fnaddr`` patch of :mod:`sim.kernel.compiler` (the one seam to Numba's internals, which
checks, switches and applies it): at every call of the batch core, Numba's unboxing of a
first-class function (each strategy and swap policy of the pool: 16 of them) asks
``numba.experimental.function_type`` for the function's two addresses, and for a dispatcher
that looks its compile result up twice and unpickles the signature each time, at every call
of the core however few games the call plays (a tournament's many blocks, a batch's first
chunks; the figures: benchmarks/results/numba-patches.md). Here the answer for a dispatcher is kept once found. Kept apart from compiler.py for
its size; never applied on import."""
from __future__ import annotations

import inspect

_NAMES = ("_get_wrapper_address", "_get_jit_address")
_MOST = 4096      # entries kept: a few per strategy of the process
# (the dispatcher's getter, id(dispatcher), id(signature)) -> (dispatcher, signature, address)
_MEMO: dict = {}


def check() -> bool:
    """The two module functions Numba's generated unboxing code looks up by name at every
    call, taking ``(func, sig)``, and ``Dispatcher.recompile``, which the memo must follow."""
    from numba.core.dispatcher import Dispatcher
    from numba.experimental import function_type
    return (all(tuple(inspect.signature(getattr(function_type, n)).parameters)
                == ("func", "sig") for n in _NAMES)
            and callable(getattr(Dispatcher, "recompile", None)))


def install() -> None:
    """Both functions answer a dispatcher from a memo, keyed by the dispatcher and the
    signature objects, after asking Numba once. A dispatcher never changes the code compiled for a
    signature, except through ``recompile``, which is wrapped to forget its entries; the memo
    keeps the dispatchers it holds alive (the strategies of a process: a few)."""
    from numba.core.dispatcher import Dispatcher
    from numba.experimental import function_type

    memo = _MEMO

    def memoized(numba_get):
        def get(func, sig):
            if not isinstance(func, Dispatcher):
                return numba_get(func, sig)
            # by identity: Numba's generated code unpickles the signature once and hands the
            # same object at every call (hashing it walks its array types: a third of a call)
            key = (numba_get, id(func), id(sig))
            found = memo.get(key)
            if found is None:
                if len(memo) >= _MOST:        # were the signature a new object at every call
                    memo.clear()              # (Numba memoizes it), memory stays bounded
                found = memo[key] = (func, sig, numba_get(func, sig))   # keeps the ids alive
            return found[2]
        get.numba = numba_get
        return get

    numba_recompile = Dispatcher.recompile

    def recompile(self):
        for key in [k for k in memo if k[1] == id(self)]:
            del memo[key]
        return numba_recompile(self)

    recompile.numba = numba_recompile
    Dispatcher.recompile = recompile
    for name in _NAMES:
        setattr(function_type, name, memoized(getattr(function_type, name)))
