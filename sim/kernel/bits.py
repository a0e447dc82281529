"""A 64-bit integer's count of trailing and leading zero bits, as one LLVM instruction each
(``cttz``/``ctlz``) in jitted code, and in plain Python under ``NUMBA_DISABLE_JIT=1``
(:data:`sim.kernel.compiler.DEBUG`)."""
from __future__ import annotations

import numpy as np
from numba import types
from numba.extending import intrinsic

from sim.kernel.compiler import DEBUG


def _py_trailing_zeros(x):
    x = int(x) & 0xFFFFFFFFFFFFFFFF
    return np.int64(64 if x == 0 else (x & -x).bit_length() - 1)


def _py_leading_zeros(x):
    return np.int64(64 - (int(x) & 0xFFFFFFFFFFFFFFFF).bit_length())


def _bit_count(name, op):
    """An intrinsic emitting LLVM's ``op`` (``cttz``/``ctlz``; 64 for zero, not poison)."""
    def count(typingctx, src):
        if not isinstance(src, types.Integer):
            return None

        def codegen(context, builder, sig, args):
            return getattr(builder, op)(args[0], context.get_constant(types.boolean, False))
        return src(src), codegen

    count.__name__ = count.__qualname__ = name
    return intrinsic(count)


# A 64-bit integer's count of trailing (leading) zero bits; 64 for zero (LLVM's cttz/ctlz).
trailing_zeros = _py_trailing_zeros if DEBUG else _bit_count("trailing_zeros", "cttz")
leading_zeros = _py_leading_zeros if DEBUG else _bit_count("leading_zeros", "ctlz")
