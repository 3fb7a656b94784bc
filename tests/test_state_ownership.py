"""A run's new state is the session's own: the KV cache a run made is kept without a
copy, and no array the caller holds (an output, a feed, a tensor a hook saw) is ever the
state, so that changing it in place changes no variable."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("openvino")
import openvino as ov  # noqa: E402
import openvino.opset8 as o8  # noqa: E402
from stateful_models import accumulator, save, variable  # noqa: E402

from irexec.api.session import Session  # noqa: E402


def _cache(tmp_path: Path) -> str:
    """state = concat(state, x) on a growing dim; the output is the state times two (so
    the tensor assigned is not one handed out)."""
    x = o8.parameter([-1, 3], np.float32, name="x")
    var = variable("cache", [-1, 3])
    grown = o8.concat([o8.read_value(var), x], 0)
    out = o8.multiply(grown, o8.constant(np.float32(2)))
    return save(ov.Model([o8.result(out)], [o8.assign(grown, var)], [x], "cache"), tmp_path)


def _passthrough(tmp_path: Path) -> str:
    """state = x, the feed itself; the output reads the state before."""
    x = o8.parameter([2, 3], np.float32, name="x")
    var = variable("last", [2, 3])
    before = o8.read_value(var)
    return save(ov.Model([o8.result(o8.add(before, o8.constant(np.float32(0))))], [o8.assign(x, var)], [x], "pass"),
                tmp_path)


def _row(v: float) -> np.ndarray:
    return np.full((1, 3), v, np.float32)


def test_a_cache_the_run_made_is_kept_read_only_and_grows_right(tmp_path: Path) -> None:
    with Session(_cache(tmp_path)) as s:
        for v in (1, 2, 3):
            out = s.run({"x": _row(v)}).outputs
        state = s.get_state("cache")
        assert not state.flags.writeable
        np.testing.assert_array_equal(state, np.repeat([[1], [2], [3]], 3, 1).astype(np.float32))
        np.testing.assert_array_equal(next(iter(out.values())), 2 * state)
        with pytest.raises(ValueError):
            state[0, 0] = 9


def test_changing_an_output_that_is_the_assigned_tensor_leaves_the_state(tmp_path: Path) -> None:
    with Session(save(accumulator("v6-zeros"), tmp_path)) as s:
        out = next(iter(s.run({"x": np.ones((2, 3), np.float32)}).outputs.values()))
        out += 100  # the output handed out is the tensor the Assign received
        np.testing.assert_array_equal(s.get_state("acc"), np.ones((2, 3), np.float32))
        second = next(iter(s.run({"x": np.ones((2, 3), np.float32)}).outputs.values()))
        np.testing.assert_array_equal(second, np.full((2, 3), 2, np.float32))


def test_changing_a_feed_that_is_the_assigned_tensor_leaves_the_state(tmp_path: Path) -> None:
    with Session(_passthrough(tmp_path)) as s:
        x = np.full((2, 3), 4, np.float32)
        s.run({"x": x})
        x[:] = -1
        np.testing.assert_array_equal(s.get_state("last"), np.full((2, 3), 4, np.float32))
        assert x.flags.writeable  # the caller's array is left as it was given


def test_a_tensor_a_hook_kept_is_not_the_state(tmp_path: Path) -> None:
    seen: list[np.ndarray] = []
    with Session(_cache(tmp_path)) as s:
        s.run({"x": _row(1)}, on_layer=lambda layer, outs, seconds: seen.extend(outs))
        state = s.get_state("cache")
        assert not any(np.may_share_memory(state, a) for a in seen)
        assert all(a.flags.writeable for a in seen if a.base is None and a.size)  # the hook's tensors left as they were
        for a in seen:
            if a.flags.writeable:
                a[...] = 7
        np.testing.assert_array_equal(s.get_state("cache"), _row(1))
