"""The ``inline`` patch of :mod:`sim.kernel.compiler` (the one seam to Numba's internals, which
checks, switches and applies it): Numba's inliner copies a callee's IR block by block with a
deep-copy memo per block, so the function's scope, which every block refers to, is copied once
per block; the batch core inlines its referee, the rules and the built-ins, and that copying was
much of its cold compile (benchmarks/results/numba-patches.md). Kept apart from compiler.py for its size; never applied on
import."""
from __future__ import annotations

import inspect


def check() -> bool:
    """``InlineWorker.inline_ir``, whose copy of a callee's IR deep-copies it block by block
    through the module ``copy``, and blocks copied without a ``__deepcopy__`` of their own."""
    import copy

    from numba.core import inline_closurecall, ir
    return (tuple(inspect.signature(inline_closurecall.InlineWorker.inline_ir).parameters)
            == ("self", "caller_ir", "block", "i", "callee_ir", "callee_freevars", "arg_typs")
            and getattr(inline_closurecall, "copy", None) is copy
            and "__deepcopy__" not in vars(ir.Block) and "__deepcopy__" in vars(ir.Var))


def install() -> None:
    """``InlineWorker.inline_ir`` copying each IR's blocks with one deep-copy memo, as one
    deep copy of them all would, instead of one memo per block. Every block refers to the
    function's scope, which holds all its variables: a memo per block copied the whole scope
    once per block, a cost that grows with the square of the inlined code (the batch core
    inlines its referee, the rules and the built-ins: much of its cold compile). The
    copied IR is the same, except that what the blocks share stays shared, as it is in the
    original; Numba holds its compiler lock throughout, so the swapped ``copy`` is seen by
    this call alone."""
    import copy

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
