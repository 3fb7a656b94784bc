"""OpenVINO as a test oracle: save models as IR, compile them on the CPU plugin,
run them, and compare results bit for bit.

Import this only after ``pytest.importorskip("openvino")``.  What the CPU plugin
computes exactly and where it is lossy, or differs from host to host, is listed
in docs/openvino-divergences.md; the callers keep those values out of the
comparison.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence

import ml_dtypes
import numpy as np
import openvino as ov
from openvino import opset8

from irexec.base import lowbit

# IR element type name -> OpenVINO type; NumPy dtype per element type.
OV_TYPES: dict[str, ov.Type] = {
    "f64": ov.Type.f64,
    "f32": ov.Type.f32,
    "f16": ov.Type.f16,
    "bf16": ov.Type.bf16,
    "i8": ov.Type.i8,
    "i16": ov.Type.i16,
    "i32": ov.Type.i32,
    "i64": ov.Type.i64,
    "u8": ov.Type.u8,
    "u16": ov.Type.u16,
    "u32": ov.Type.u32,
    "u64": ov.Type.u64,
    "boolean": ov.Type.boolean,
    **{name: getattr(ov.Type, name) for name in lowbit.DTYPES},
    "string": ov.Type.string,
}
DTYPES: dict[str, np.dtype] = {
    "f64": np.dtype(np.float64),
    "f32": np.dtype(np.float32),
    "f16": np.dtype(np.float16),
    "bf16": np.dtype(ml_dtypes.bfloat16),
    "i8": np.dtype(np.int8),
    "i16": np.dtype(np.int16),
    "i32": np.dtype(np.int32),
    "i64": np.dtype(np.int64),
    "u8": np.dtype(np.uint8),
    "u16": np.dtype(np.uint16),
    "u32": np.dtype(np.uint32),
    "u64": np.dtype(np.uint64),
    "boolean": np.dtype(np.bool_),
    **{name: dtype for name, (dtype, _) in lowbit.DTYPES.items()},
    "string": np.dtype(object),  # irexec's strings: object arrays of bytes
}
ALL_TYPES = tuple(name for name in OV_TYPES if name not in lowbit.DTYPES and name != "string")  # the byte-wide types every op test covers

_core: ov.Core | None = None


def core() -> ov.Core:
    global _core
    if _core is None:
        try:  # its ops (tokenizer IR) are read only with the extension, which it adds to every Core made after it
            import openvino_tokenizers  # noqa: F401
        except ImportError:
            pass
        _core = ov.Core()
    return _core


def save(model: ov.Model, xml_path: str | os.PathLike[str], compress_to_fp16: bool = False) -> str:
    """Write ``model`` as IR (model.xml + model.bin) the way users do."""
    ov.save_model(model, os.fspath(xml_path), compress_to_fp16=compress_to_fp16)
    return os.fspath(xml_path)


# How every test compiles for the CPU plugin.  f32 inference keeps f32 layers in
# f32; ``denormals_optimization`` False makes the plugin clear FTZ and DAZ in the
# MXCSR of the thread that runs the graph.  Left unset, the plugin keeps whatever
# that thread inherited, so a denormal's fate (flushed or kept) would depend on
# the process and the host (docs/openvino-divergences.md).
CPU_CONFIG: dict[str, object] = {"INFERENCE_PRECISION_HINT": "f32", "CPU_DENORMALS_OPTIMIZATION": False}


def compile_ir(xml_path: str | os.PathLike[str]) -> ov.CompiledModel:
    """Read the saved IR back and compile it: OpenVINO runs what the file says."""
    model = core().read_model(os.fspath(xml_path))
    return core().compile_model(model, "CPU", CPU_CONFIG)


def to_tensor(arr: np.ndarray, etype: str) -> ov.Tensor:
    """An input tensor holding exactly ``arr``'s bits.

    bf16 goes through a uint16 view (the Python API shows bf16 data as float16
    raw bits); every array is wrapped in ``ov.Tensor`` because a bare 0-d
    ndarray would be sent with shape [1]."""
    arr = np.array(arr, order="C", copy=True)  # (ascontiguousarray would make a 0-d array 1-d)
    if etype == "string":  # NumPy bytes: the Python API takes no object arrays (trailing NULs cannot pass)
        return ov.Tensor(np.array([bytes(x) if not isinstance(x, str) else x.encode() for x in arr.reshape(-1)],
                                  dtype=np.bytes_).reshape(arr.shape))
    if etype == "bf16":
        t = ov.Tensor(ov.Type.bf16, ov.Shape(list(arr.shape)))
        t.data[...] = arr.view(np.uint16).view(np.float16)
        return t
    assert arr.dtype == DTYPES[etype], (arr.dtype, etype)
    if etype in lowbit.DTYPES:  # OpenVINO's packed bytes
        return packed_tensor(lowbit.pack(arr, etype), arr.shape, etype)
    return ov.Tensor(arr, shared_memory=False)


def packed_tensor(raw: bytes | np.ndarray, shape: Sequence[int], etype: str) -> ov.Tensor:
    """A tensor of a low-bit type that owns a copy of the packed bytes ``raw``
    (``ov.Tensor(array, shape, type)`` would only borrow the array's memory)."""
    t = ov.Tensor(OV_TYPES[etype], ov.Shape(list(shape)))
    data = t.data.view(np.uint8).reshape(-1)
    data[...] = np.frombuffer(bytes(raw), np.uint8)[: data.size]
    return t


def from_output(value: np.ndarray, etype: str) -> np.ndarray:
    """An output array in irexec's dtype convention (bf16 as ml_dtypes)."""
    value = np.array(value, copy=True)
    if etype == "bf16":
        return value.view(np.uint16).view(ml_dtypes.bfloat16)
    return value


def from_tensor(tensor: ov.Tensor, etype: str) -> np.ndarray:
    """A tensor's values in irexec's dtype convention (low-bit types unpacked, strings as bytes objects)."""
    if etype == "string":
        if tensor.get_size() == 0:  # bytes_data of an empty string tensor divides by zero (SIGFPE)
            return np.empty(tuple(tensor.shape), dtype=object)
        # bytes_data reads past an empty element when every element is empty (an |S1 array of
        # stale bytes); an element is empty exactly when its text is
        raw, text = tensor.bytes_data, tensor.str_data
        out = np.empty(raw.shape, dtype=object)
        out.reshape(-1)[:] = [bytes(x) if t else b"" for x, t in zip(raw.reshape(-1), text.reshape(-1))]
        return out
    if etype in lowbit.DTYPES:
        shape = tuple(tensor.shape)
        raw = np.frombuffer(bytes(tensor.data.view(np.uint8).reshape(-1)), np.uint8)
        return lowbit.unpack(raw, lowbit.count(shape), etype).reshape(shape)
    return from_output(tensor.data, etype)


def _etype_name(t: ov.Type) -> str:
    for name, ovt in OV_TYPES.items():
        if ovt == t:
            return name
    raise AssertionError(f"no element type for {t}")


def infer(compiled: ov.CompiledModel, feeds: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Run once; outputs keyed by each output's first (sorted) tensor name, or
    by its index as a string when it has none."""
    inputs = {}
    for port in compiled.inputs:
        name = port.get_any_name()
        inputs[name] = to_tensor(feeds[name], _etype_name(port.get_element_type()))
    request = compiled.create_infer_request()
    request.infer(inputs)
    out: dict[str, np.ndarray] = {}
    for i, port in enumerate(compiled.outputs):
        names = sorted(port.get_names())
        key = names[0] if names else str(i)
        out[key] = from_tensor(request.get_output_tensor(i), _etype_name(port.get_element_type()))
    return out


def run_ir(xml_path: str | os.PathLike[str], feeds: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    return infer(compile_ir(xml_path), feeds)


# ---------------------------------------------------------------- comparing

def raw_bits(arr: np.ndarray) -> np.ndarray:
    """The array's bits as unsigned integers, so NaN payloads and -0 compare."""
    arr = np.array(arr, order="C", copy=True)
    if arr.dtype == np.bool_:
        return arr.view(np.uint8)
    return arr.view(f"u{arr.dtype.itemsize}")


def same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    a, b = np.asarray(a), np.asarray(b)
    return a.dtype == b.dtype and a.shape == b.shape and np.array_equal(raw_bits(a), raw_bits(b))


def assert_same_bits(actual: np.ndarray, expected: np.ndarray, what: str = "") -> None:
    actual, expected = np.asarray(actual), np.asarray(expected)
    assert actual.dtype == expected.dtype, f"{what}: dtype {actual.dtype} != {expected.dtype}"
    assert actual.shape == expected.shape, f"{what}: shape {actual.shape} != {expected.shape}"
    a, e = raw_bits(actual), raw_bits(expected)
    if not np.array_equal(a, e):
        where = np.argwhere(a != e)[:5]
        details = ", ".join(f"{tuple(int(i) for i in w)}: {actual[tuple(w)]!r} (0x{int(a[tuple(w)]):x}) != "
                            f"{expected[tuple(w)]!r} (0x{int(e[tuple(w)]):x})" for w in where)
        raise AssertionError(f"{what}: {int((a != e).sum())} of {a.size} elements differ; first: {details}")


# ---------------------------------------------------------------- model building

def parameter(shape: str | Sequence[int], etype: str, name: str) -> ov.Node:
    """A Parameter whose tensor is named like the layer (as converters do);
    ``shape`` in OpenVINO's syntax ("?,3", "1..10") or as a list of dims."""
    pshape = ov.PartialShape(shape) if isinstance(shape, str) else ov.PartialShape(list(shape))
    p = opset8.parameter(pshape, OV_TYPES[etype], name=name)
    p.output(0).get_tensor().set_names({name})
    return p


def constant(value: np.ndarray, etype: str, name: str | None = None) -> ov.Node:
    if etype == "bf16":  # the helper converts f32 data to bf16 correctly
        return opset8.constant(np.asarray(value, np.float32), dtype=ov.Type.bf16, name=name)
    return opset8.constant(np.asarray(value, DTYPES[etype]), dtype=OV_TYPES[etype], name=name)


def reference_convert(arr: np.ndarray, dst: str) -> np.ndarray | None:
    """OpenVINO's Convert of ``arr`` to ``dst``: its reference (Node.evaluate,
    no plugin) where it has one, else the CPU plugin folding a Const (nf4 from
    f32, the small floats from integers); None when OpenVINO has neither."""
    from openvino import opset13

    src = _etype_name_of(arr)
    tensor = to_tensor(arr, src)
    p = opset13.parameter(list(arr.shape), OV_TYPES[src])
    cv = opset13.convert(p, dst)
    out = ov.Tensor(OV_TYPES[dst], ov.Shape(list(arr.shape)))
    if cv.evaluate([out], [tensor]):
        return from_tensor(out, dst)
    try:
        folded = ov.Model([opset13.convert(opset13.constant(tensor), dst)], [])
        request = core().compile_model(folded, "CPU").create_infer_request()
    except RuntimeError:
        return None
    request.infer({})
    return from_tensor(request.get_output_tensor(0), dst)


def _etype_name_of(arr: np.ndarray) -> str:
    for name, dtype in DTYPES.items():
        if dtype == arr.dtype:
            return name
    raise AssertionError(f"no element type for {arr.dtype}")
