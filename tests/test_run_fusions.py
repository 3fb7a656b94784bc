"""A program's fused steps (irexec/executor/fusions.py): a Convolution applies the ReLU
that alone reads its output, and the Convolutions a channel Concat joins write their
parts straight into its output.  Outputs stay bit for bit those of the layer loop (the
first run of a model goes through it), NaN, infinities and -0 included, and the memory
limit still refuses where the layer loop does."""

from __future__ import annotations

import numpy as np
import pytest

import irexec
from irexec.base.errors import IRExecError
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
    x = RNG.standard_normal(shape).astype(np.float32)
    flat = x.reshape(-1)
    flat[::97] = -0.0
    flat[5::211] = np.float32(1e30)  # products overflow to +-inf, and inf - inf is NaN downstream
    return x


def _same(got: dict, want: dict) -> None:
    assert got.keys() == want.keys()
    for name, value in got.items():
        assert value.dtype == want[name].dtype and value.shape == want[name].shape
        assert value.tobytes() == want[name].tobytes(), name  # bit for bit: NaN, inf and -0 alike


@pytest.mark.parametrize("batch", [1, 2])
def test_fire_modules_bit_for_bit_with_the_layer_loop(builder, write_ir, batch, monkeypatch):
    path = write_ir(_squeezenet_like(batch))
    feeds = {"x": _special_values((batch, 3, 20, 20))}
    loop = irexec.run(irexec.load(path), feeds)  # a model's first run goes through the layer loop
    built: list = []
    real_build = program_module.build

    def spy(*args, **kwargs):
        made = real_build(*args, **kwargs)
        built.append(made)
        return made

    monkeypatch.setattr(program_module, "build", spy)
    model = irexec.load(path)
    for _ in range(4):  # replayed, recorded into a program, then run as one
        _same(irexec.run(model, feeds), loop)
    assert len(built) == 1 and built[0] is not None
    kinds = [call[2] for call in built[0].calls]
    # every ReLU is applied by its Convolution or after the MaxPool; the Concats of batch 1 are written in place
    assert kinds.count(fusions._hand_on) == 6
    assert kinds.count(fusions._hand_on_last) == (2 if batch == 1 else 0)
    # the ReLUs before each MaxPool run after it (a Fire module's: where its Concat is fused)
    assert sum(getattr(kind, "__qualname__", "").startswith("_then_relu") for kind in kinds) == (2 if batch == 1 else 1)


def test_relu_then_max_pool_with_padding_stays_in_order(write_ir):
    """Padded windows may hold padding alone: there the ReLU does not move after the MaxPool."""
    path = write_ir(_squeezenet_like(pool_pad=1))
    feeds = {"x": _special_values((1, 3, 20, 20))}
    loop = irexec.run(irexec.load(path), feeds)
    model = irexec.load(path)
    for _ in range(4):
        _same(irexec.run(model, feeds), loop)


def test_without_fusion_the_same_bits(write_ir, monkeypatch):
    """The fused program against a program without fusions, on inputs with every special value."""
    path = write_ir(_squeezenet_like())
    feeds = {"x": _special_values((1, 3, 20, 20))}
    model = irexec.load(path)
    fused = [irexec.run(model, feeds) for _ in range(4)][-1]
    monkeypatch.setattr(program_module, "fuse", lambda calls, *rest: calls)
    plain_model = irexec.load(path)
    plain = [irexec.run(plain_model, feeds) for _ in range(4)][-1]
    _same(fused, plain)


def test_a_convolution_read_beside_its_relu_is_not_fused(builder, write_ir):
    """A Convolution's output read by its ReLU and by the Concat too: the raw values must stay."""
    b = builder
    x = b.parameter("x", [1, 4, 9, 9])
    c = _conv(b, x, 4, 6, 3, pad=1)
    r = _relu(b, c)
    b.result(b.layer("Concat", "opset1", [c, r], {"axis": "1"}), "y")
    path = write_ir(b)
    feeds = {"x": _special_values((1, 4, 9, 9))}
    loop = irexec.run(irexec.load(path), feeds)
    model = irexec.load(path)
    for _ in range(4):
        got = irexec.run(model, feeds)
        _same(got, loop)
    assert (got["y"][:, :6] < 0).any()  # the Convolution's own values, negative ones included


def test_concat_in_place_keeps_the_memory_limit(write_ir):
    """The first Convolution of a fused Concat allocates its whole output: a limit the
    layer loop refuses is refused by the program as well, and one it passes still passes."""
    path = write_ir(_squeezenet_like(size=64))
    feeds = {"x": _special_values((1, 3, 64, 64))}
    model = irexec.load(path)
    for _ in range(3):
        want = irexec.run(model, feeds)
    with pytest.raises(IRExecError) as fresh:
        irexec.run(irexec.load(path), feeds, max_memory=120 << 10)
    with pytest.raises(IRExecError) as reused:
        irexec.run(model, feeds, max_memory=120 << 10)
    assert str(reused.value) == str(fresh.value)
    _same(irexec.run(model, feeds, max_memory=300 << 10), want)
    _same(irexec.run(model, feeds), want)
