"""Small model files that make a naive `irexec check` compute big data, loop
for ever or overflow: each is a few KB and checks clean (or with one coded
finding) within the check-time budgets of SECURITY.md.

Every builder writes ``model.xml`` and ``model.bin`` into a directory and
returns the XML's path.  Output dims are given explicitly: the writer would
otherwise infer them with the very folding these files attack.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from irexec.model.builder import IRBuilder, Out


def _write(b: IRBuilder, directory: Path) -> Path:
    return Path(b.write(directory / "model.xml")[0])


def _read_as_repeats(b: IRBuilder, value: Out, n: int) -> None:
    """A Tile whose repeats are ``value`` (an integer tensor of shape [n]): the
    check needs that value, so it folds whatever computes it."""
    if value.etype != "i64":
        value = b.layer("Convert", "opset1", [value], {"destination_type": "i64"}, outputs=[([n], "i64")])
    b.result(b.layer("Tile", "opset1", [b.const(np.ones([1] * n, np.float32)), value], outputs=[([-1] * n, "f32")]),
             name="tiled")


# ---------------------------------------------------------------- finding 1


def _first(b: IRBuilder, value: Out) -> Out:
    """Element 0 of a 1-D integer tensor, as a [1] tensor (Gather keeps bounds)."""
    return b.layer("Gather", "opset8", [value, b.const(np.array([0], np.int64)), b.const(np.array(0, np.int64))],
                   {"batch_dims": "0"}, outputs=[([1], value.etype)])


def tile_of_shape_bounds(directory: Path, repeats: int = 1 << 27) -> Path:
    """ShapeOf of a 2..5 dim carries value bounds; a Tile of them by 2^27
    asked a check for two 1 GiB bound arrays."""
    b = IRBuilder()
    x = b.parameter("x", "2..5", "f32")
    s = b.layer("ShapeOf", "opset3", [x], {"output_type": "i64"}, outputs=[([1], "i64")])
    t = b.layer("Tile", "opset1", [s, b.const(np.array([repeats], np.int64))], outputs=[([repeats], "i64")])
    b.result(b.layer("Broadcast", "opset3", [x, _first(b, t)], {"mode": "numpy"}, outputs=[([-1], "f32")]), name="y")
    return _write(b, directory)


def outer_sum_of_shape_bounds(directory: Path, side: int = 1 << 15) -> Path:
    """Bounds of [side,1] + [1,side]: each input is within the fold budget,
    the broadcast sum (2^30 elements) is not."""
    b = IRBuilder()
    x = b.parameter("x", "2..5", "f32")
    s = b.layer("ShapeOf", "opset3", [x], {"output_type": "i64"}, outputs=[([1], "i64")])
    col = b.layer("Tile", "opset1", [s, b.const(np.array([side], np.int64))], outputs=[([side], "i64")])
    a = b.layer("Reshape", "opset1", [col, b.const(np.array([side, 1], np.int64))], {"special_zero": "false"},
                outputs=[([side, 1], "i64")])
    c = b.layer("Reshape", "opset1", [col, b.const(np.array([1, side], np.int64))], {"special_zero": "false"},
                outputs=[([1, side], "i64")])
    total = b.layer("Add", "opset1", [a, c], outputs=[([side, side], "i64")])
    flat = b.layer("Reshape", "opset1", [total, b.const(np.array([side * side], np.int64))], {"special_zero": "false"},
                   outputs=[([side * side], "i64")])
    b.result(b.layer("Broadcast", "opset3", [b.const(np.float32(0)), _first(b, flat)], {"mode": "numpy"},
                     outputs=[([-1], "f32")]), name="y")
    return _write(b, directory)


# ---------------------------------------------------------------- finding 2


def padded_convolution(directory: Path, pads: int = 10_000, op: str = "Convolution") -> Path:
    """A Const 2x2 map convolved (or max-pooled) with pads ``pads`` and strides
    that leave a 2x2 output: the padded copy alone is (2*pads+2)^2 elements."""
    b = IRBuilder()
    x = b.const(np.ones((1, 1, 2, 2), np.float32))
    stride = f"{2 * pads + 1},{2 * pads + 1}"
    spatial = {"strides": stride, "pads_begin": f"{pads},{pads}", "pads_end": f"{pads},{pads}", "auto_pad": "explicit"}
    if op == "Convolution":
        y = b.layer("Convolution", "opset1", [x, b.const(np.ones((1, 1, 1, 1), np.float32))],
                    {**spatial, "dilations": "1,1"}, outputs=[([1, 1, 2, 2], "f32")])
    else:
        y = b.layer("MaxPool", "opset1", [x], {**spatial, "kernel": "1,1", "rounding_type": "floor"},
                    outputs=[([1, 1, 2, 2], "f32")])
    flat = b.layer("Reshape", "opset1", [y, b.const(np.array([4], np.int64))], {"special_zero": "false"},
                   outputs=[([4], "f32")])
    _read_as_repeats(b, flat, 4)
    return _write(b, directory)


def padded_interpolate(directory: Path, pads: int = 200_000) -> Path:
    """A Const 2x2 map padded by ``pads`` on every side and resized to 2x2."""
    b = IRBuilder()
    x = b.const(np.ones((1, 1, 2, 2), np.float32))
    y = b.layer("Interpolate", "opset11", [x, b.const(np.array([1, 1, 2, 2], np.int64))],
                {"mode": "nearest", "shape_calculation_mode": "sizes", "pads_begin": f"0,0,{pads},{pads}",
                 "pads_end": f"0,0,{pads},{pads}"}, outputs=[([1, 1, 2, 2], "f32")])
    flat = b.layer("Reshape", "opset1", [y, b.const(np.array([4], np.int64))], {"special_zero": "false"},
                   outputs=[([4], "f32")])
    _read_as_repeats(b, flat, 4)
    return _write(b, directory)


# ---------------------------------------------------------------- finding 3


def einsum_of_five(directory: Path, length: int = 256) -> Path:
    """``a,b,c,d,e->`` over five integer vectors: 256^5 = 2^40 steps."""
    b = IRBuilder()
    vectors = [b.const(np.ones(length, np.int32)) for _ in range(5)]
    e = b.layer("Einsum", "opset7", vectors, {"equation": "a,b,c,d,e->"}, outputs=[([], "i32")])
    one = b.layer("Unsqueeze", "opset1", [e, b.const(np.array([0], np.int64))], outputs=[([1], "i32")])
    _read_as_repeats(b, one, 1)
    return _write(b, directory)


# ---------------------------------------------------------------- finding 4


def _loop(lid: int, level: int, depth: int, data_dims: str) -> str:
    return (f'<layer id="{lid}" name="loop{level}" type="Loop" version="opset5">'
            '<port_map><input external_port_id="2" internal_layer_id="0"/>'
            '<output external_port_id="3" internal_layer_id="5"/></port_map>'
            '<back_edges><edge from-layer="5" to-layer="0"/></back_edges>'
            f'<input><port id="0" precision="I64"/><port id="1" precision="BOOL"/>'
            f'<port id="2" precision="FP32">{data_dims}</port></input>'
            '<output><port id="3" precision="FP32"><dim>-1</dim></port></output>'
            f'<body>{_loop_body(level, depth)}</body></layer>')


def _consts(a: int, b: int, level: int) -> str:
    return (f'<layer id="{a}" name="trip{level}" type="Const" version="opset1"><data element_type="i64" shape="" '
            'offset="0" size="8"/><output><port id="0" precision="I64"/></output></layer>'
            f'<layer id="{b}" name="cond{level}" type="Const" version="opset1"><data element_type="boolean" shape="" '
            'offset="8" size="1"/><output><port id="0" precision="BOOL"/></output></layer>')


def _loop_body(level: int, depth: int) -> str:
    """x -> Concat(x, x) -> [the next level's Loop] -> Result, fed back to x:
    the back edge doubles the shape, so every level needs more than one round."""
    dyn = "<dim>-1</dim>"
    layers = [f'<layer id="0" name="x{level}" type="Parameter" version="opset1"><data shape="?" element_type="f32"/>'
              f'<output><port id="0" precision="FP32">{dyn}</port></output></layer>',
              f'<layer id="1" name="twice{level}" type="Concat" version="opset1"><data axis="0"/><input>'
              f'<port id="0" precision="FP32">{dyn}</port><port id="1" precision="FP32">{dyn}</port></input>'
              f'<output><port id="2" precision="FP32">{dyn}</port></output></layer>']
    edges = ['<edge from-layer="0" from-port="0" to-layer="1" to-port="0"/>',
             '<edge from-layer="0" from-port="0" to-layer="1" to-port="1"/>']
    if level < depth:
        layers += [_loop(2, level + 1, depth, dyn), _consts(3, 4, level)]
        edges += ['<edge from-layer="3" from-port="0" to-layer="2" to-port="0"/>',
                  '<edge from-layer="4" from-port="0" to-layer="2" to-port="1"/>',
                  '<edge from-layer="1" from-port="2" to-layer="2" to-port="2"/>',
                  '<edge from-layer="2" from-port="3" to-layer="5" to-port="0"/>']
    else:
        edges.append('<edge from-layer="1" from-port="2" to-layer="5" to-port="0"/>')
    layers.append(f'<layer id="5" name="out{level}" type="Result" version="opset1"><input>'
                  f'<port id="0" precision="FP32">{dyn}</port></input></layer>')
    return "<layers>" + "".join(layers) + "</layers><edges>" + "".join(edges) + "</edges>"


def nested_loops(directory: Path, depth: int) -> Path:
    """``depth`` Loops, each in the body of the one before, each doubling its
    loop-carried tensor (trip count 2).  A few hundred bytes per level."""
    xml = ('<?xml version="1.0"?>\n<net name="nested" version="11"><layers>' + _consts(0, 1, 0) +
           '<layer id="5" name="x" type="Parameter" version="opset1"><data shape="1" element_type="f32"/>'
           '<output><port id="0" precision="FP32"><dim>1</dim></port></output></layer>'
           + _loop(2, 1, depth, "<dim>1</dim>") +
           '<layer id="3" name="y" type="Result" version="opset1"><input><port id="0" precision="FP32"><dim>-1</dim>'
           '</port></input></layer></layers><edges>'
           '<edge from-layer="0" from-port="0" to-layer="2" to-port="0"/>'
           '<edge from-layer="1" from-port="0" to-layer="2" to-port="1"/>'
           '<edge from-layer="5" from-port="0" to-layer="2" to-port="2"/>'
           '<edge from-layer="2" from-port="3" to-layer="3" to-port="0"/></edges></net>\n')
    path = directory / "model.xml"
    path.write_text(xml)
    (directory / "model.bin").write_bytes(np.int64(2).tobytes() + b"\1")
    return path


# --------------------------------------------------------------- finding 10


def random_repeats(directory: Path, op_seed: int = 0) -> Path:
    """RandomUniform with constant inputs (seeds 0: fresh values every run) as
    the repeats of a Tile: folding it gave a different shape on every check."""
    b = IRBuilder()
    r = b.layer("RandomUniform", "opset8", [b.const(np.array([1], np.int64)), b.const(np.array(1, np.int64)),
                                            b.const(np.array(1000, np.int64))],
                {"output_type": "i64", "global_seed": "0", "op_seed": str(op_seed)}, outputs=[([1], "i64")])
    _read_as_repeats(b, r, 1)
    return _write(b, directory)


def multinomial_repeats(directory: Path) -> Path:
    b = IRBuilder()
    probs = b.const(np.full((1, 100), 0.01, np.float32))
    m = b.layer("Multinomial", "opset13", [probs, b.const(np.array([1], np.int64))],
                {"convert_type": "i64", "with_replacement": "true", "global_seed": "0", "op_seed": "0"},
                outputs=[([1, 1], "i64")])
    flat = b.layer("Reshape", "opset1", [m, b.const(np.array([1], np.int64))], {"special_zero": "false"},
                   outputs=[([1], "i64")])
    _read_as_repeats(b, flat, 1)
    return _write(b, directory)


# --------------------------------------------------------------- finding 13


def computed_rank(directory: Path, rank: int = 70) -> Path:
    """A Reshape to ``rank`` ones: a rank no declared shape may have."""
    b = IRBuilder()
    x = b.parameter("x", [1], "f32")
    y = b.layer("Reshape", "opset1", [x, b.const(np.ones(rank, np.int64))], {"special_zero": "false"},
                outputs=[([1] * rank, "f32")])
    b.result(y, name="y")
    return _write(b, directory)


def computed_huge_shape(directory: Path, dims: tuple[int, ...] = (0, 1 << 62, 4)) -> Path:
    """A Broadcast to [0, 2^62, 4]: no elements, but NumPy cannot allocate it."""
    b = IRBuilder()
    x = b.parameter("x", [1], "f32")
    y = b.layer("Broadcast", "opset3", [x, b.const(np.array(dims, np.int64))], {"mode": "numpy"},
                outputs=[(list(dims), "f32")])
    b.result(y, name="y")
    return _write(b, directory)


def tiles_chain(directory: Path, count: int = 300, repeats: int = 1 << 62) -> Path:
    """``count`` Tiles of a dynamic-length i8 vector: each multiplies its
    dim's lower bound by ``repeats`` (2^18600 after 300 of 2^62)."""
    b = IRBuilder()
    x = b.parameter("x", "1..2", "i8")
    for _ in range(count):
        x = b.layer("Tile", "opset1", [x, b.const(np.array([repeats], np.int64))], outputs=[([-1], "i8")])
    b.result(x, name="y")
    return _write(b, directory)


# --------------------------------------------------------------- finding 18


def narrowing_convert(directory: Path, etype: str = "u8") -> Path:
    """A 256..300 dim converted to u8 (0..44 at run time) and used as a shape."""
    b = IRBuilder()
    x = b.parameter("x", "256..300", "f32")
    s = b.layer("ShapeOf", "opset3", [x], {"output_type": "i64"}, outputs=[([1], "i64")])
    c = b.layer("Convert", "opset1", [s], {"destination_type": etype}, outputs=[([1], etype)])
    wide = b.layer("Convert", "opset1", [c], {"destination_type": "i64"}, outputs=[([1], "i64")])
    y = b.layer("Broadcast", "opset3", [b.const(np.float32(1)), wide], {"mode": "numpy"}, outputs=[([-1], "f32")])
    b.result(y, name="y")
    return _write(b, directory)


# --------------------------------------------------------------- finding 19


def range_overflow(directory: Path, start: float = -1.7e308, stop: float = 1.7e308, step: float = 1.0) -> Path:
    """Range over finite f64 ends whose difference is inf in f64."""
    b = IRBuilder()
    y = b.layer("Range", "opset4", [b.const(np.float64(start)), b.const(np.float64(stop)), b.const(np.float64(step))],
                {"output_type": "f64"}, outputs=[([-1], "f64")])
    b.result(y, name="y")
    return _write(b, directory)


# --------------------------------------------------------------- finding 20


def many_dims(directory: Path, layers: int, dims_per_port: int = 8) -> Path:
    """A chain of Relu layers whose ports each declare ``dims_per_port`` dims
    of 1: millions of <dim> elements in a few tens of MiB."""
    dims = "".join("<dim>1</dim>" for _ in range(dims_per_port))
    shape = ",".join(["1"] * dims_per_port)
    with open(directory / "model.xml", "w") as f:
        f.write('<?xml version="1.0"?>\n<net name="dims" version="11"><layers>\n')
        f.write(f'<layer id="0" name="x" type="Parameter" version="opset1"><data shape="{shape}" element_type="f32"/>'
                f'<output><port id="0" precision="FP32">{dims}</port></output></layer>\n')
        for i in range(1, layers + 1):
            f.write(f'<layer id="{i}" name="r{i}" type="Relu" version="opset1"><input><port id="0" precision="FP32">'
                    f'{dims}</port></input><output><port id="1" precision="FP32">{dims}</port></output></layer>\n')
        f.write(f'<layer id="{layers + 1}" name="y" type="Result" version="opset1"><input><port id="0" '
                f'precision="FP32">{dims}</port></input></layer>\n</layers><edges>\n')
        f.write('<edge from-layer="0" from-port="0" to-layer="1" to-port="0"/>\n')
        for i in range(1, layers + 1):
            f.write(f'<edge from-layer="{i}" from-port="1" to-layer="{i + 1}" to-port="0"/>\n')
        f.write("</edges></net>\n")
    (directory / "model.bin").write_bytes(b"")
    return directory / "model.xml"


# ----------------------------------------------------- shape-like inputs


def long_shape_input(directory: Path, count: int = 40_000_000, op: str = "Reshape") -> Path:
    """A Reshape's target shape (or a Tile's repeats) that is a Const of
    ``count`` int64 values, read from a sparse .bin (320 MB that cost nothing
    on disk)."""
    b = IRBuilder()
    x = b.parameter("x", [1], "f32")
    attrs = {"special_zero": "false"} if op == "Reshape" else {}
    y = b.layer(op, "opset1", [x, b.const(np.ones(1, np.int64))], attrs, outputs=[([1], "f32")])
    b.result(y, name="y")
    xml = _write(b, directory)
    text = xml.read_text()
    assert text.count('offset="0" size="8" shape="1"') == 1
    xml.write_text(text.replace('offset="0" size="8" shape="1"', f'offset="0" size="{8 * count}" shape="{count}"'))
    with open(directory / "model.bin", "r+b") as f:
        f.truncate(8 * count)
    return xml
