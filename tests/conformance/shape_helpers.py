"""Shape-inference helpers shared by the op suites: a TensorInfo from a shape's text, and
the shape `irexec check` infers for a layer's output."""

from __future__ import annotations

import irexec
from irexec.base import dtypes
from irexec.base.shapes import parse_partial_shape
from irexec.ops.framework.base import TensorInfo

F32, I64 = dtypes.get("f32"), dtypes.get("i64")


def info(shape: str, etype=F32, value=None) -> TensorInfo:
    return TensorInfo(parse_partial_shape(shape), etype, value)


def out_shape(model_path: str, layer_name: str, port: int = 0) -> str:
    result = irexec.check(model_path)
    assert result.errors == [], [d.format() for d in result.errors]
    lid = next(layer.id for layer in irexec.read_model(model_path).layers.values() if layer.name == layer_name)
    return str(result.tensors[(lid, port)].shape)
