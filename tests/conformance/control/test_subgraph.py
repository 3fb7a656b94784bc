"""Conformance tables of the control family: If-8, Loop-5 and TensorIterator-1,
with bodies, written by OpenVINO's Python API (see graphs.py)."""

from __future__ import annotations

import numpy as np
import pytest

ov = pytest.importorskip("openvino")
from openvino import opset8 as ops  # noqa: E402

from conformance.control.references import if_reference, loop_reference, ti_reference  # noqa: E402
from conformance.graphs import BrokenFile, GraphTable, graph_conformance, partial  # noqa: E402


def _param(name: str, shape: list[int], etype: ov.Type, variant: str = "static") -> ov.Node:
    return ops.parameter(partial(shape, variant), etype, name=name)


def _drop(tag: str):
    def edit(tree) -> None:
        el = tree.getroot().find(f"layers/layer[@name='op0']/{tag}")
        el.getparent().remove(el)
    return edit


# ------------------------------------------------------------------------ If-8


def if_model(variant: str) -> ov.Model:
    cond = _param("cond", [], ov.Type.boolean)
    x = _param("x", [2, 3], ov.Type.f32, variant)
    tx, ex = ops.parameter([2, 3], ov.Type.f32, name="tx"), ops.parameter([2, 3], ov.Type.f32, name="ex")
    then_body = ov.Model([ops.result(ops.multiply(tx, ops.constant(np.float32(2))))], [tx], "then")
    else_body = ov.Model([ops.result(ops.subtract(ex, ops.constant(np.float32(1))))], [ex], "else")
    node = ops.if_op(cond)
    node.set_friendly_name("op0")
    node.set_then_body(then_body)
    node.set_else_body(else_body)
    node.set_input(x.output(0), tx, ex)
    out = node.set_output(then_body.get_results()[0], else_body.get_results()[0])
    return ov.Model([out], [cond, x], "if")


def if_feeds(taken: bool):
    return lambda rng: {"cond": np.array(taken), "x": (rng.standard_normal((2, 3)) * 10).astype(np.float32)}


IF_ERRORS = [BrokenFile("no-else-body", _drop("else_body"), "missing-element"),
             BrokenFile("no-then-port-map", _drop("then_port_map"), "bad-port-map")]


# ---------------------------------------------------------------------- Loop-5


def loop_model(variant: str) -> ov.Model:
    """Three iterations: acc += x + iteration, and every iteration's acc concatenated."""
    x = _param("x", [2, 3], ov.Type.f32, variant)
    acc0 = _param("acc0", [2, 3], ov.Type.f32, variant)
    it = ops.parameter([], ov.Type.i64, name="it")
    bx, bacc = ops.parameter([2, 3], ov.Type.f32, name="bx"), ops.parameter([2, 3], ov.Type.f32, name="bacc")
    nxt = ops.add(ops.add(bacc, bx), ops.convert(it, "f32"))
    body = ov.Model([ops.result(ops.constant(True)), ops.result(nxt), ops.result(ops.unsqueeze(nxt, ops.constant(0)))],
                    [it, bx, bacc], "body")
    node = ops.loop(ops.constant(np.int64(3)), ops.constant(True))
    node.set_friendly_name("op0")
    node.set_function(body)
    node.set_special_body_ports([0, 0])
    node.set_invariant_input(bx, x.output(0))
    node.set_merged_input(bacc, acc0.output(0), body.get_results()[1].output(0))
    last = node.get_iter_value(body.get_results()[1].output(0), -1)
    every = node.get_concatenated_slices(body.get_results()[2].output(0), 0, 1, 1, -1, 0)
    return ov.Model([last, every], [x, acc0], "loop")


def loop_feeds(rng: np.random.Generator) -> dict[str, np.ndarray]:
    return {k: (rng.standard_normal((2, 3)) * 10).astype(np.float32) for k in ("x", "acc0")}


# ------------------------------------------------------------ TensorIterator-1


def ti_model(variant: str) -> ov.Model:
    """h = h * w + x_t over the 4 steps of axis 1 of seq; the last h and every h."""
    seq = _param("seq", [2, 4, 3], ov.Type.f32, variant)
    h0 = _param("h0", [2, 1, 3], ov.Type.f32, variant)
    w = _param("w", [1, 3], ov.Type.f32, variant)
    bx, bh, bw = (ops.parameter(s, ov.Type.f32, name=n) for n, s in (("bx", [2, 1, 3]), ("bh", [2, 1, 3]), ("bw", [1, 3])))
    h = ops.add(ops.multiply(bh, bw), bx)
    body = ov.Model([ops.result(h)], [bx, bh, bw], "body")
    node = ops.tensor_iterator()
    node.set_friendly_name("op0")
    node.set_body(body)
    node.set_sliced_input(bx, seq.output(0), 0, 1, 1, -1, 1)
    node.set_merged_input(bh, h0.output(0), body.get_results()[0].output(0))
    node.set_invariant_input(bw, w.output(0))
    last = node.get_iter_value(body.get_results()[0].output(0), -1)
    every = node.get_concatenated_slices(body.get_results()[0].output(0), 0, 1, 1, -1, 1)
    return ov.Model([last, every], [seq, h0, w], "ti")


def ti_feeds(rng: np.random.Generator) -> dict[str, np.ndarray]:
    shapes = {"seq": (2, 4, 3), "h0": (2, 1, 3), "w": (1, 3)}
    return {k: rng.standard_normal(s).astype(np.float32) for k, s in shapes.items()}


TABLES = [
    GraphTable("If-8-then", "If", "opset8", if_model, if_feeds(True), if_reference, errors=IF_ERRORS),
    GraphTable("If-8-else", "If", "opset8", if_model, if_feeds(False), if_reference),
    GraphTable("Loop-5", "Loop", "opset5", loop_model, loop_feeds, loop_reference,
               errors=[BrokenFile("no-port-map", _drop("port_map"), "bad-port-map")]),
    GraphTable("TensorIterator-1", "TensorIterator", "opset1", ti_model, ti_feeds, ti_reference,
               errors=[BrokenFile("no-body", _drop("body"), "missing-element")]),
]

test_conformance = graph_conformance(TABLES)
