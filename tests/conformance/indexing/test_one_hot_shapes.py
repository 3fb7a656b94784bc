"""OneHot: a depth known only at run time."""

from __future__ import annotations

import numpy as np

import irexec
from conformance.shape_helpers import out_shape
from irexec.model.builder import IRBuilder


def test_onehot_depth_known_only_at_run_time(write_ir):
    b = IRBuilder()
    idx = b.parameter("idx", [3], "i64")
    depth = b.parameter("depth", [], "i32")
    oh = b.layer("OneHot", "opset1", [idx, depth, b.const(np.float32(1)), b.const(np.float32(0))], {"axis": 0},
                 name="oh")
    b.result(oh)
    path = write_ir(b)
    assert out_shape(path, "oh") == "[?,3]"
    for n in (2, 5):
        got = next(iter(irexec.run(path, {"idx": np.array([1, 0, 4], np.int64), "depth": np.array(n, np.int32)}).values()))
        assert got.shape == (n, 3) and got.tolist() == (np.arange(n)[:, None] == [1, 0, 4]).astype(np.float32).tolist()
