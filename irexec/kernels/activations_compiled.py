"""Large f32 activations through compiled kernels (the ``jit`` extra).

The NumPy kernels of the f64-computed activations (Swish, Sigmoid, HSwish,
HSigmoid, Gelu) make a dozen passes over each chunk, one per step, and the f64
``exp`` is libm's; their compiled forms (activations_jit.py) make one pass
with an exp that vectorizes: Swish on EfficientNet's [1, 144, 56, 56] in about
a fifth of the time (benchmarks/README.md).  Same f64 steps, each rounding as
NumPy's; only the exp differs, by about 1e-16 relative, far inside what the
rounding to f32 allows, so the promise of docs/accuracy.md (within 1 ulp)
stands.  ReLU runs compiled too: one select per element, at the speed of a
copy, where NumPy's maximum against a scalar zero takes 4x as long (and its
exact result is the same bits); but it never imports Numba itself (a fraction of a
millisecond a layer does not pay for the import in a one-off run of a plain CNN):
it runs compiled once another layer has loaded the kernels.  Tensors below ``MIN_SIZE`` elements stay on the NumPy kernels until a larger
one has loaded the compiled ones, so a small model never imports Numba for
them; IREXEC_JIT=0 turns the kernels off.
"""

from __future__ import annotations

from types import ModuleType

import numpy as np

from ..system import parallel
from .elementwise import MIN_SPLIT, TASK
from .jit_modules import jit_module

# Elements from which an activation runs compiled: where the NumPy kernel starts
# cutting the data into chunks (and Numba's import, 0.2-0.4 s once, pays off)
MIN_SIZE = MIN_SPLIT
# ... and once the kernels are loaded (a CNN's first large activation did it), any size: a
# call costs 1-2 microseconds, the NumPy kernel's half-dozen passes 7-50 even on the few
# values of a squeeze-and-excite block's [1, C, 1, 1] (benchmarks/README.md, "MobileNet and
# EfficientNet, round 4")
MIN_SIZE_LOADED = 1

_module: ModuleType | None | bool = False  # activations_jit, None without Numba; False: not asked yet


def _kernels() -> ModuleType | None:
    global _module
    if _module is False:
        _module = jit_module("activations_jit")
    return _module  # type: ignore[return-value]


def run(name: str, x: np.ndarray, *params: float, loads: bool = True) -> np.ndarray | None:
    """activations_jit's kernel ``name`` on ``x`` (with its scalar ``params``),
    or None where it does not apply: not f32, small, or no compiled kernels
    (and, with ``loads`` False, none loaded yet)."""
    if x.dtype != np.float32 or x.size < (MIN_SIZE if _module is False else MIN_SIZE_LOADED):
        return None
    if _module is False and not loads:
        return None
    module = _kernels()
    if module is None:
        return None
    kernel = getattr(module, name)
    flat = np.ascontiguousarray(x).reshape(-1)
    out = np.empty(flat.size, np.float32)
    if flat.size <= TASK:  # one piece: called here, without the pool's tasks
        kernel(flat, out, *params)
        return out.reshape(x.shape)
    tasks = [lambda lo=lo: kernel(flat[lo:lo + TASK], out[lo:lo + TASK], *params) for lo in range(0, flat.size, TASK)]
    parallel.run(tasks, flat.size * 8)  # weighed as the f64 NumPy kernel's work
    return out.reshape(x.shape)


def relu_in_place(x: np.ndarray) -> bool:
    """ReLU of C-contiguous f32 ``x`` in place through the compiled kernel, once
    another layer has loaded it (as ``run(..., loads=False)``); False: not done."""
    if x.dtype != np.float32 or x.size < MIN_SIZE_LOADED or not x.flags.c_contiguous \
            or not isinstance(_module, ModuleType):
        return False
    flat = x.reshape(-1)
    kernel = _module.relu
    tasks = [lambda lo=lo: kernel(flat[lo:lo + TASK], flat[lo:lo + TASK]) for lo in range(0, flat.size, TASK)]
    parallel.run(tasks, flat.size * 8)
    return True


def load() -> bool:
    """Load the compiled kernels now (a program that will call small activations
    many times: executor/compiled_steps.py); whether they are there."""
    return _kernels() is not None
