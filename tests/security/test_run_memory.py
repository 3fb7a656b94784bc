"""Every allocation of a run is under --max-memory: sub-graph bodies run under
their caller's accounting, a Loop's concatenated outputs and carried values
are held to the limit after every iteration (a trip count of -1 included),
data-sized outputs (NonZero, Unique) are counted before they are made,
temporaries that an attribute sizes (pads, strides, ROIAlign's
sampling_ratio) are checked before they are allocated, and the fold cache
gives way to the run.

Each case runs the real command line in a child process whose address space
is capped (RLIMIT_AS): a model that used to take gigabytes can only pass by
being refused with ``memory-limit`` before allocating, or by running within
the cap."""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import pytest
from capped_child import run_capped

ov = pytest.importorskip("openvino")
pytest.importorskip("resource")
from openvino import opset8 as ops  # noqa: E402
from openvino import opset9  # noqa: E402

MiB = 1 << 20
# The child's address space: the interpreter, NumPy and one BLAS thread take
# about 300 MiB of it; the models below used to need 0.3 to 1.6 GiB more.
CAP = 900 * MiB


def irexec(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return run_capped(CAP, *args)


def refused(proc: subprocess.CompletedProcess[str], what: str) -> None:
    """Exit 1 with a memory-limit finding naming ``what``, no traceback."""
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "error[memory-limit]" in proc.stderr, proc.stderr
    assert what in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr + proc.stdout


def save(tmp_path: Path, model: ov.Model, **feeds: np.ndarray) -> tuple[Path, Path]:
    xml = tmp_path / "model.xml"
    ov.save_model(model, str(xml), compress_to_fp16=False)
    inputs = tmp_path / "inputs.npz"
    np.savez(inputs, **feeds)
    return xml, inputs


# ------------------------------------------------------------------ bodies


def _if_model(elements: int, live_elements: int) -> ov.Model:
    """max(live + (cond ? sum(broadcast(x, [elements])) : x)) with live a
    tensor of ``live_elements`` floats made before the If and read after it."""
    c = ops.parameter([], ov.Type.boolean, name="c")
    x = ops.parameter([1], ov.Type.f32, name="x")
    live = ops.broadcast(x, ops.constant(np.array([live_elements], np.int64)))
    tx = ops.parameter([1], ov.Type.f32, name="tx")
    big = ops.broadcast(tx, ops.constant(np.array([elements], np.int64)))
    big.set_friendly_name("inside_then")
    then_body = ov.Model([ops.result(ops.reduce_sum(big, ops.constant(np.array([0], np.int64)), True))], [tx], "then")
    ex = ops.parameter([1], ov.Type.f32, name="ex")
    else_body = ov.Model([ops.result(ex)], [ex], "else")
    iff = ops.if_op(c)
    iff.set_then_body(then_body)
    iff.set_else_body(else_body)
    iff.set_input(x.output(0), tx, ex)
    out = iff.set_output(then_body.get_results()[0], else_body.get_results()[0])
    both = ops.reduce_max(ops.add(live, out), ops.constant(np.array([0], np.int64)), True)
    return ov.Model([both], [c, x], "if")


def test_an_if_body_runs_under_max_memory(tmp_path: Path) -> None:
    """The body's 1 GiB Broadcast used to run under the default limit, counted from zero."""
    xml, inputs = save(tmp_path, _if_model(1 << 28, 1), c=np.array(True), x=np.ones(1, np.float32))
    refused(irexec("run", xml, "--inputs", inputs, "--max-memory", "64MiB"), '"inside_then"')


def test_a_body_counts_from_what_its_caller_holds(tmp_path: Path) -> None:
    """40 MiB in the body next to 40 MiB alive outside: over 64 MiB, within 128 MiB."""
    n = 10 * MiB
    xml, inputs = save(tmp_path, _if_model(n, n), c=np.array(True), x=np.full(1, 0.5, np.float32))
    refused(irexec("run", xml, "--inputs", inputs, "--max-memory", "64MiB"), '"inside_then" (Broadcast-3): output f32[10485760] '
            'plus 40.0 MiB')
    out = tmp_path / "out.npz"
    ok = irexec("run", xml, "--inputs", inputs, "--max-memory", "128MiB", "-o", out)
    assert ok.returncode == 0, ok.stderr
    (value,) = np.load(out).values()
    np.testing.assert_array_equal(value, np.array([n / 2 + 0.5], np.float32))


def _loop_model(cond_from_data: bool) -> ov.Model:
    """Each iteration gives a [1, 1 Mi] f32 part (4 MiB) of a concatenated output.
    The trip count is an input; with ``cond_from_data`` the body goes on while
    its iteration number is below the input ``n``."""
    trip = ops.parameter([], ov.Type.i64, name="trip")
    x = ops.parameter([1], ov.Type.f32, name="x")
    n = ops.parameter([], ov.Type.i64, name="n")
    it = ops.parameter([], ov.Type.i64, name="it")
    bx = ops.parameter([1], ov.Type.f32, name="bx")
    bn = ops.parameter([], ov.Type.i64, name="bn")
    big = ops.broadcast(bx, ops.constant(np.array([1, 1 << 20], np.int64)))
    go_on = ops.less(ops.add(it, ops.constant(np.int64(1))), bn) if cond_from_data else ops.constant(True)
    body = ov.Model([ops.result(go_on), ops.result(big)], [it, bx, bn], "body")
    loop = ops.loop(trip, ops.constant(True))
    loop.set_function(body)
    loop.set_special_body_ports([0, 0])
    loop.set_invariant_input(bx, x.output(0))
    loop.set_invariant_input(bn, n.output(0))
    out = loop.get_concatenated_slices(body.get_results()[1].output(0), 0, 1, 1, -1, 0)
    return ov.Model([out], [trip, x, n], "loop")


@pytest.mark.parametrize("trip, n, cond_from_data", [(-1, 0, False), (-1, 100, True), (1000, 100, True), (100, 0, False)])
def test_a_loop_output_is_held_to_max_memory(tmp_path: Path, trip: int, n: int, cond_from_data: bool) -> None:
    """No constant iteration count: -1 used to grow until the host ran out of
    memory, a data condition stopping at 100 gave 400 MiB under 64 MiB."""
    xml, inputs = save(tmp_path, _loop_model(cond_from_data), trip=np.array(trip, np.int64), x=np.ones(1, np.float32),
                       n=np.array(n, np.int64))
    refused(irexec("run", xml, "--inputs", inputs, "--max-memory", "64MiB"), "memory limit of 64.0 MiB")


def test_a_loop_within_the_limit_runs(tmp_path: Path) -> None:
    xml, inputs = save(tmp_path, _loop_model(True), trip=np.array(-1, np.int64), x=np.full(1, 2, np.float32),
                       n=np.array(5, np.int64))
    out = tmp_path / "out.npz"
    proc = irexec("run", xml, "--inputs", inputs, "--max-memory", "64MiB", "-o", out)
    assert proc.returncode == 0, proc.stderr
    (value,) = np.load(out).values()
    assert value.shape == (5, 1 << 20) and (value == 2).all()


# ------------------------------------------------------------------ data-sized outputs


def test_nonzero_counts_before_it_allocates(tmp_path: Path) -> None:
    """16 MiB of true booleans in 3-D: 768 MiB of indices, refused before they are made."""
    x = ops.parameter([256, 256, 256], ov.Type.boolean, name="x")
    model = ov.Model([ops.non_zero(x, "i64")], [x], "nz")
    xml, inputs = save(tmp_path, model, x=np.ones((256, 256, 256), bool))
    refused(irexec("run", xml, "--inputs", inputs, "--max-memory", "64MiB"), "NonZero's output of 16777216 indices")


def test_unique_is_held_to_the_limit_before_sorting(tmp_path: Path) -> None:
    x = ops.parameter([16 * MiB], ov.Type.u8, name="x")
    from openvino import opset10

    model = ov.Model(opset10.unique(x).outputs(), [x], "unique")
    xml, inputs = save(tmp_path, model, x=np.arange(16 * MiB, dtype=np.uint8))
    refused(irexec("run", xml, "--inputs", inputs, "--max-memory", "64MiB"), "Unique's working arrays")


# ------------------------------------------------------------------ attribute-sized temporaries


def _windowed(kind: str) -> ov.Model:
    """A 2x2 input padded by 10000 on every side (1.6 GB padded) for a 2x2 output."""
    x = ops.parameter([1, 1, 2, 2], ov.Type.f32, name="x")
    p, s = [10000, 10000], [20000, 20000]
    if kind == "conv":
        y = ops.convolution(x, ops.constant(np.ones((1, 1, 1, 1), np.float32)), s, p, p, [1, 1])
    elif kind == "conv3x3":
        y = ops.convolution(x, ops.constant(np.ones((1, 1, 3, 3), np.float32)), s, p, p, [1, 1])
    elif kind == "group":
        y = ops.group_convolution(x, ops.constant(np.ones((1, 1, 1, 3, 3), np.float32)), s, p, p, [1, 1])
    elif kind == "maxpool":
        y = ops.max_pool(x, s, [1, 1], p, p, [2, 2]).output(0)
    else:
        y = ops.avg_pool(x, s, p, p, [2, 2], False)
    return ov.Model([y], [x], kind)


@pytest.mark.parametrize("kind", ["conv", "conv3x3", "group", "maxpool", "avgpool"])
def test_pads_cannot_size_a_temporary_past_the_limit(tmp_path: Path, kind: str) -> None:
    xml, inputs = save(tmp_path, _windowed(kind), x=np.ones((1, 1, 2, 2), np.float32))
    refused(irexec("run", xml, "--inputs", inputs, "--max-memory", "64MiB"), "padded to [20002, 20002]")


@pytest.mark.parametrize("mode, ratio", [("avg", 5_000_000), ("max", 1500)])
def test_roi_align_sampling_ratio_is_held_to_the_limit(tmp_path: Path, mode: str, ratio: int) -> None:
    """0.9 GB (avg) and 0.3 GB (max) of sample grids for a 2x2 output."""
    data = opset9.parameter([1, 1, 4, 4], ov.Type.f32, name="data")
    rois = opset9.constant(np.array([[0, 0, 3, 3]], np.float32))
    y = opset9.roi_align(data, rois, opset9.constant(np.array([0], np.int32)), 2, 2, ratio, 1.0, mode)
    xml, inputs = save(tmp_path, ov.Model([y], [data], "roi"), data=np.ones((1, 1, 4, 4), np.float32))
    refused(irexec("run", xml, "--inputs", inputs, "--max-memory", "64MiB"), "ROIAlign's sample")


# ------------------------------------------------------------------ the fold cache


def test_the_fold_cache_gives_way_to_the_run(tmp_path: Path) -> None:
    """Ten Const-only branches of 100 MiB each: their outputs used to stay
    cached (1.07 GB) after the run let them go; under 128 MiB the run now
    holds one at a time, and fits the capped address space."""
    x = ops.parameter([1], ov.Type.f32, name="x")
    acc = x
    for i in range(10):
        big = ops.broadcast(ops.constant(np.float32(i)), ops.constant(np.array([25 * MiB], np.int64)))
        acc = ops.add(acc, ops.reduce_sum(big, ops.constant(np.array([0], np.int64)), True))
    xml, inputs = save(tmp_path, ov.Model([acc], [x], "fold"), x=np.ones(1, np.float32))
    out = tmp_path / "out.npz"
    proc = irexec("run", xml, "--inputs", inputs, "--max-memory", "128MiB", "-o", out)
    assert proc.returncode == 0, proc.stderr
    (value,) = np.load(out).values()
    np.testing.assert_allclose(value, [1 + 45 * 25 * MiB], rtol=1e-6)


def test_the_fold_cache_counts_in_the_accounting(tmp_path: Path) -> None:
    """In process: what the cache keeps after a run stays within the run's limit."""
    from irexec.api.load import load
    from irexec.executor.cache import run_cache
    from irexec.executor.engine import run_model

    x = ops.parameter([1], ov.Type.f32, name="x")
    acc = x
    for i in range(3):
        big = ops.broadcast(ops.constant(np.float32(i)), ops.constant(np.array([MiB], np.int64)))
        acc = ops.add(acc, ops.reduce_sum(big, ops.constant(np.array([0], np.int64)), True))
    xml, _ = save(tmp_path, ov.Model([acc], [x], "fold"), x=np.ones(1, np.float32))
    model = load(str(xml))
    feeds = {"x": np.ones(1, np.float32)}
    run_model(model, feeds, max_memory=128 * MiB)  # 4 MiB a branch: all three kept (the cache takes up to an eighth)
    assert 3 * 4 * MiB <= run_cache(model).nbytes < 13 * MiB
    again = run_model(model, feeds, max_memory=10 * MiB)  # the cache gives way instead of refusing
    assert run_cache(model).nbytes <= 4 * MiB
    assert list(again.outputs.values())[0].tolist() == [1 + 3 * MiB]
