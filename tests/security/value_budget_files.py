"""Models whose Consts, blobs or chains would cost gigabytes if irexec read or
computed them before asking its budgets: each written small, with sparse .bin
files where a Const must be large."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from irexec.model.builder import IRBuilder


def _grow_const(xml: Path, old_shape: str, shape: tuple[int, ...], nbytes: int) -> None:
    """Give the one Const of shape ``old_shape`` the new shape, its bytes at the end of a sparse .bin."""
    text = xml.read_text()
    pattern = rf'offset="(\d+)" size="(\d+)" shape="{re.escape(old_shape)}"'
    assert len(re.findall(pattern, text)) == 1, text
    binf = xml.with_suffix(".bin")
    offset = binf.stat().st_size
    text = re.sub(pattern, f'offset="{offset}" size="{nbytes}" shape="{",".join(map(str, shape))}"', text)
    text = re.sub(rf"<dim>(7777|{re.escape(old_shape)})</dim>", "".join(f"<dim>{d}</dim>" for d in shape), text)
    xml.write_text(text)
    with open(binf, "r+b") as f:
        f.truncate(offset + nbytes)


def big_lowbit_const(directory: Path, etype: str = "u4", elements: int = 1 << 28) -> Path:
    """A Const of ``elements`` low-bit values (u4: 128 MiB of .bin; u1 at 2^33: 1 GiB) read by a Convert."""
    b = IRBuilder()
    c = b.const(np.ones(3, np.uint8), etype)
    b.result(b.layer("Convert", "opset1", [c], {"destination_type": "f32"}, outputs=[([7777], "f32")]), name="y")
    directory.mkdir(parents=True, exist_ok=True)
    xml = directory / "model.xml"
    b.write(xml)
    bits = {"u1": 1, "u2": 2, "u3": 3, "u4": 4, "i4": 4, "nf4": 4, "u6": 6}[etype]
    _grow_const(xml, "3", (elements,), (elements * bits + 7) // 8)
    return xml


def decompression_chain(directory: Path, scale_rows: int = 65536, zero_point: tuple[int, ...] | None = None,
                        weight_rows: int = 1, f32_end: bool = True) -> Path:
    """u8 weight [1, 4096] -> Convert(f16) -> [Subtract zp] -> Multiply by an f16 scale [scale_rows, 1]
    -> MatMul, every dim of the chain declared -1: the product is [scale_rows, 4096] f32
    (1 GiB at 65536 rows), which only inference can tell."""
    b = IRBuilder()
    x = b.parameter("x", [1, 4096], "f32")
    w = b.layer("Convert", "opset1", [b.const(np.full((weight_rows, 4096), 3, np.uint8))], {"destination_type": "f16"},
                outputs=[([-1, -1], "f16")])
    if zero_point is not None:
        zp = b.const(np.ones(zero_point, np.float16))
        w = b.layer("Subtract", "opset1", [w, zp], outputs=[([-1, -1], "f16")])
    scale = b.const(np.full((scale_rows, 1), 0.5, np.float16))
    m = b.layer("Multiply", "opset1", [w, scale], outputs=[([-1, -1], "f16")])
    if f32_end:
        f = b.layer("Convert", "opset1", [m], {"destination_type": "f32"}, outputs=[([-1, -1], "f32")])
    else:  # the chain ends in f16; the MatMul reads it through a Convert of its own
        f = b.layer("Convert", "opset1", [b.layer("Relu", "opset1", [m], outputs=[([-1, -1], "f16")])],
                    {"destination_type": "f32"}, outputs=[([-1, -1], "f32")])
    b.result(b.layer("MatMul", "opset1", [x, f], {"transpose_a": "false", "transpose_b": "true"},
                     outputs=[([-1, -1], "f32")]), name="y")
    directory.mkdir(parents=True, exist_ok=True)
    b.write(directory / "model.xml")
    return directory / "model.xml"


def shared_mean_blob(directory: Path, channels: int = 768, side: int = 512) -> Path:
    """A ``<pre-process>`` whose ``channels`` channels all name one mean blob of
    side x side f32 (1 MiB at 512): read into one array, 768 MiB."""
    means = "".join(f'<channel id="{c}"><mean offset="0" size="{side * side * 4}"/></channel>' for c in range(channels))
    dims = "".join(f"<dim>{d}</dim>" for d in (1, channels, side, side))
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "model.xml").write_text(f"""<?xml version="1.0" ?>
<net name="means" version="10">
<pre-process mean-precision="FP32" reference-layer-name="input">{means}</pre-process>
<layers>
<layer name="input" type="Parameter" id="0" version="opset1"><data element_type="f32" shape="1,{channels},{side},{side}"/>
<output><port id="0" precision="FP32">{dims}</port></output></layer>
<layer name="output" type="Result" id="1" version="opset1"><input><port id="0" precision="FP32">{dims}</port></input></layer>
</layers>
<edges><edge from-layer="0" from-port="0" to-layer="1" to-port="0"/></edges>
</net>
""")
    with open(directory / "model.bin", "wb") as f:
        f.write(np.arange(side * side, dtype=np.float32).tobytes())
    return directory / "model.xml"


def variable_without_init(directory: Path, shape: tuple[int, ...] = (1 << 30, 2)) -> Path:
    """ReadValue-6 without init_value whose variable_shape is ``shape`` f32 (8 GiB by default)."""
    b = IRBuilder()
    x = b.parameter("x", [1], "f32")
    text = ",".join(map(str, shape))
    rv = b.layer("ReadValue", "opset6", [], {"variable_id": "v", "variable_type": "f32", "variable_shape": text},
                 outputs=[(list(shape), "f32")])
    b.layer("Assign", "opset6", [rv], {"variable_id": "v"}, outputs=[(list(shape), "f32")])
    b.result(b.layer("ShapeOf", "opset3", [rv], {"output_type": "i64"}, outputs=[([len(shape)], "i64")]), name="shape")
    b.result(x, name="x_out")
    directory.mkdir(parents=True, exist_ok=True)
    b.write(directory / "model.xml")
    return directory / "model.xml"
