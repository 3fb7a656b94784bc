"""A program's fused steps (irexec/executor/fusions.py): a Convolution applies the ReLU
that alone reads its output, and the Convolutions a channel Concat joins write their
parts straight into its output.  Outputs stay bit for bit those of the layer loop (the
first run of a model goes through it), NaN, infinities and -0 included, and the memory
limit still refuses where the layer loop does."""

from __future__ import annotations

import numpy as np
import pytest
from program_runs import memory_limit_held, program_built, repeated_runs_match_the_loop, same_without, special_values

from irexec.executor import fusions
from irexec.executor import program as program_module
from irexec.model.builder import IRBuilder

RNG = np.random.default_rng(7)


def _conv(b: IRBuilder, x, c_in: int, c_out: int, k: int, pad: int = 0, stride: int = 1):
    w = (RNG.standard_normal((c_out, c_in, k, k)) * 0.5).astype(np.float32)
    attrs = {"strides": f"{stride},{stride}", "dilations": "1,1", "pads_begin": f"{pad},{pad}",
             "pads_end": f"{pad},{pad}", "auto_pad": "explicit"}
    return b.layer("Convolution", "opset1", [x, b.const(w)], attrs)


def _relu(b: IRBuilder, x):
    return b.layer("ReLU", "opset1", [x])


def _fire(b: IRBuilder, x, c_in: int, squeeze: int, expand: int, relu_on_1x1: bool = True):
    s = _relu(b, _conv(b, x, c_in, squeeze, 1))
    e1 = _conv(b, s, squeeze, expand, 1)
    if relu_on_1x1:
        e1 = _relu(b, e1)
    e3 = _relu(b, _conv(b, s, squeeze, expand, 3, pad=1))
    return b.layer("Concat", "opset1", [e1, e3], {"axis": "1"})


def _max_pool(b: IRBuilder, x, pad: int = 0):
    attrs = {"strides": "2,2", "dilations": "1,1", "pads_begin": f"{pad},{pad}", "pads_end": f"{pad},{pad}",
             "kernel": "3,3", "rounding_type": "ceil_torch", "auto_pad": "explicit", "index_element_type": "i64",
             "axis": "2"}
    return b.layer("MaxPool", "opset14", [x], attrs)


def _squeezenet_like(batch: int = 1, size: int = 20, pool_pad: int = 0) -> IRBuilder:
    b = IRBuilder()
    x = b.parameter("x", [batch, 3, size, size])
    y = _max_pool(b, _relu(b, _conv(b, x, 3, 16, 3, stride=2)), pool_pad)
    y = _max_pool(b, _fire(b, y, 16, 8, 16))
    y = _fire(b, y, 32, 8, 24, relu_on_1x1=False)
    b.result(b.layer("ReduceMean", "opset1", [y, b.const(np.array([2, 3], np.int64))], {"keep_dims": "false"}), "pooled")
    b.result(y, "features")
    return b


def _special_values(shape) -> np.ndarray:
    return special_values(RNG, shape)


@pytest.mark.parametrize("batch", [1, 2])
def test_fire_modules_bit_for_bit_with_the_layer_loop(builder, write_ir, batch, monkeypatch):
    path = write_ir(_squeezenet_like(batch))
    program = program_built(path, {"x": _special_values((batch, 3, 20, 20))}, monkeypatch)
    kinds = [call[2] for call in program.calls]
    # every ReLU is applied by its Convolution or after the MaxPool; the Concats of batch 1 are written in place
    assert kinds.count(fusions._hand_on) == 6
    assert kinds.count(fusions._hand_on_last) == (2 if batch == 1 else 0)
    # the ReLUs before each MaxPool run after it (a Fire module's: where its Concat is fused)
    assert sum(getattr(kind, "__qualname__", "").startswith("_then_relu") for kind in kinds) == (2 if batch == 1 else 1)


def test_relu_then_max_pool_with_padding_stays_in_order(write_ir):
    """Padded windows may hold padding alone: there the ReLU does not move after the MaxPool."""
    path = write_ir(_squeezenet_like(pool_pad=1))
    repeated_runs_match_the_loop(path, {"x": _special_values((1, 3, 20, 20))})


def test_without_fusion_the_same_bits(write_ir, monkeypatch):
    """The fused program against a program without fusions, on inputs with every special value."""
    path = write_ir(_squeezenet_like())
    same_without(path, {"x": _special_values((1, 3, 20, 20))}, monkeypatch, program_module, "fuse")


def test_a_convolution_read_beside_its_relu_is_not_fused(builder, write_ir):
    """A Convolution's output read by its ReLU and by the Concat too: the raw values must stay."""
    b = builder
    x = b.parameter("x", [1, 4, 9, 9])
    c = _conv(b, x, 4, 6, 3, pad=1)
    r = _relu(b, c)
    b.result(b.layer("Concat", "opset1", [c, r], {"axis": "1"}), "y")
    path = write_ir(b)
    got = repeated_runs_match_the_loop(path, {"x": _special_values((1, 4, 9, 9))})
    assert (got["y"][:, :6] < 0).any()  # the Convolution's own values, negative ones included


def test_concat_in_place_keeps_the_memory_limit(write_ir):
    """The first Convolution of a fused Concat allocates its whole output: a limit the
    layer loop refuses is refused by the program as well, and one it passes still passes."""
    path = write_ir(_squeezenet_like(size=64))
    memory_limit_held(path, {"x": _special_values((1, 3, 64, 64))}, 120 << 10, 300 << 10)
