"""Comparisons, logical and bitwise ops, and the float classifiers (IsNaN,
IsInf, IsFinite): all bit-exact, boolean or integer results.

Bitwise ops take integers and boolean; on boolean they are the logical ops.
Shifts (BitwiseLeftShift/RightShift-15) follow C on the element type with
the shift reduced to the defined range: a shift of at least the bit width
gives 0 (left, and right of a non-negative value) or -1 (right of a negative
value); a negative shift is a run-time error.
"""

from __future__ import annotations

import numpy as np

from ..framework.accuracy import EXACT
from ..framework.base import BOOLEAN, REAL, Attr, Op, op_error
from .factory import binary, compare, logical, unary

# Integer element types and boolean (bitwise ops)
BITS = ("boolean", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64")
INTS = ("i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64")

compare("Equal", 1, np.equal, summary="a == b")
compare("NotEqual", 1, np.not_equal, summary="a != b")
compare("Less", 1, np.less, summary="a < b")
compare("LessEqual", 1, np.less_equal, summary="a <= b")
compare("Greater", 1, np.greater, summary="a > b")
compare("GreaterEqual", 1, np.greater_equal, summary="a >= b")

logical("LogicalAnd", 1, np.logical_and, summary="a and b")
logical("LogicalOr", 1, np.logical_or, summary="a or b")
logical("LogicalXor", 1, np.logical_xor, summary="a xor b")
logical("Xor", 1, np.logical_xor, summary="a xor b (opset1's name of LogicalXor)")
unary("LogicalNot", 1, np.logical_not, types=BOOLEAN, boolean_out=True, summary="not a")

binary("BitwiseAnd", 13, np.bitwise_and, types=BITS, accuracy=EXACT, summary="a & b")
binary("BitwiseOr", 13, np.bitwise_or, types=BITS, accuracy=EXACT, summary="a | b")
binary("BitwiseXor", 13, np.bitwise_xor, types=BITS, accuracy=EXACT, summary="a ^ b")
unary("BitwiseNot", 13, np.invert, types=BITS, accuracy=EXACT, summary="~a (not, on boolean)")


def _shift_amount(b: np.ndarray) -> np.ndarray:
    if b.dtype.kind == "i" and b.size and b.min() < 0:
        raise op_error(f"shift amount {int(b.min())} is negative", "bad-value", 1)
    return b


def _left_shift(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.left_shift(a, _shift_amount(b))  # NumPy defines shifts past the width: 0


def _right_shift(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.right_shift(a, _shift_amount(b))  # past the width: 0 or -1 (sign fill)


binary("BitwiseLeftShift", 15, _left_shift, types=INTS, accuracy=EXACT, summary="a << b")
binary("BitwiseRightShift", 15, _right_shift, types=INTS, accuracy=EXACT, summary="a >> b (arithmetic for signed types)")


def _is_inf(x: np.ndarray, op: Op) -> np.ndarray:
    neg, pos = op.detect_negative, op.detect_positive
    if neg and pos:
        return np.isinf(x)
    if pos:
        return x == np.inf
    if neg:
        return x == -np.inf
    return np.zeros(x.shape, bool)


unary("IsNaN", 10, np.isnan, types=REAL, boolean_out=True, summary="x is NaN")
unary("IsFinite", 10, np.isfinite, types=REAL, boolean_out=True, summary="x is neither inf nor NaN")
unary("IsInf", 10, _is_inf, types=REAL, boolean_out=True, with_op=True, summary="x is +inf or -inf",
      attributes={"detect_negative": Attr("bool", True, doc="-inf counts"),
                  "detect_positive": Attr("bool", True, doc="+inf counts")})
