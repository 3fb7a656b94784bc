"""`irexec check` never computes big data, never folds a random op, checks
each sub-graph body a bounded number of times and holds computed shapes to
the limits of declared ones (SECURITY.md, "Check-time budgets").

Memory is bounded from the outside: the real command line runs in a child
whose address space is capped (RLIMIT_AS), where the attacks used to need
gigabytes.  Work is counted, not timed: the timeouts below are only a safety
net against a hang."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import check_budget_files as files
import numpy as np
import pytest

import irexec
import irexec.checker.model_checker
from irexec.base.shapes import Dim
from irexec.ops.framework import base, body_checks
from irexec.ops.framework.base import TensorInfo
from irexec.ops.matmul.einsum import Einsum7

ROOT = Path(__file__).resolve().parents[2]
ADDRESS_SPACE = 768 << 20  # irexec check on a small model needs about 250 MiB of it
SAFETY_TIMEOUT = 600


def _cap() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    """`python -m irexec ARGS` with its address space capped."""
    return subprocess.run([sys.executable, "-m", "irexec", *args], capture_output=True, text=True, preexec_fn=_cap,
                          timeout=SAFETY_TIMEOUT, env=dict(os.environ, PYTHONPATH=str(ROOT)), check=False)


def _clean(p: subprocess.CompletedProcess[str]) -> str:
    out = p.stdout + p.stderr
    assert "internal error" not in out and "Traceback" not in out, out
    return out


def test_the_cap_stops_a_big_allocation() -> None:
    """Control: under the same cap, a child that allocates 1 GiB fails."""
    p = subprocess.run([sys.executable, "-c", "import numpy as np; np.ones(1 << 27)"], capture_output=True, text=True,
                       preexec_fn=_cap, timeout=SAFETY_TIMEOUT, check=False)
    assert p.returncode != 0 and "MemoryError" in p.stderr


def _tensor(xml: Path, layer_name: str) -> TensorInfo:
    """The inferred tensor of a layer's first output (of a Result: its input)."""
    model = irexec.load(str(xml))
    result = irexec.checker.model_checker.check_model(model)
    lid = next(layer.id for layer in model.layers.values() if layer.name == layer_name)
    if model.layers[lid].type == "Result":
        return result.tensors[model.graph.producer[(lid, 0)]]
    return result.tensors[(lid, model.layers[lid].outputs[0].index)]


# ------------------------------------------------- folding and bounds budget

BIG_FOLDS: dict[str, Callable[[Path], Path]] = {
    "tile-of-shape-bounds": files.tile_of_shape_bounds,  # two 1 GiB bound arrays
    "outer-sum-of-shape-bounds": files.outer_sum_of_shape_bounds,  # 2^30-element bounds
    "convolution-pads-10000": files.padded_convolution,  # 1.6 GB of padded copy
    "convolution-pads-200000": lambda d: files.padded_convolution(d, 200_000),
    "max-pool-pads-200000": lambda d: files.padded_convolution(d, 200_000, "MaxPool"),
    "interpolate-pads-200000": files.padded_interpolate,
    "einsum-of-five-256": files.einsum_of_five,  # 2^40 steps
}


@pytest.mark.parametrize("build", BIG_FOLDS.values(), ids=BIG_FOLDS.keys())
def test_check_of_a_big_fold_stays_small(build: Callable[[Path], Path], tmp_path: Path) -> None:
    xml = build(tmp_path)
    assert xml.stat().st_size < 8000
    p = cli("check", str(xml))
    _clean(p)
    assert p.returncode == 0, p.stdout + p.stderr


def test_folding_past_the_budget_leaves_the_value_unknown(tmp_path: Path) -> None:
    tiled = _tensor(files.padded_convolution(tmp_path), "tiled")
    assert tiled.shape.dims is not None and all(not d.is_static for d in tiled.shape.dims)


def test_interpolate_within_the_budget_still_folds(tmp_path: Path) -> None:
    tiled = _tensor(files.padded_interpolate(tmp_path, 1), "tiled")  # nearest of a padded 4x4 to 2x2: folded
    assert tiled.shape.is_static and set(tiled.shape.to_tuple()) <= {0, 1}


def test_folding_within_the_budget_still_folds(tmp_path: Path) -> None:
    """Control: the same convolution with pads 1 is folded and its value read
    (the strides pick four corners of the pads: zeros, so zero repeats)."""
    tiled = _tensor(files.padded_convolution(tmp_path, 1), "tiled")
    assert tiled.shape.is_static and tiled.shape.to_tuple() == (0, 0, 0, 0)


def test_bounds_within_the_budget_still_propagate(tmp_path: Path) -> None:
    """Control: with small repeats the bounds of the 2..5 dim go through the
    Tile (and the Add) and bound the Broadcast."""
    assert _tensor(files.tile_of_shape_bounds(tmp_path, repeats=1000), "y").shape.dims == (Dim(2, 5),)
    (tmp_path / "sum").mkdir()
    assert _tensor(files.outer_sum_of_shape_bounds(tmp_path / "sum", side=100), "y").shape.dims == (Dim(4, 10),)


def test_einsum_is_counted_not_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The work budget decides before the kernel runs: 256^5 steps never start,
    8^5 are folded to the exact value (wrapping i32 as the kernel does)."""
    calls: list[int] = []
    compute = Einsum7.compute

    def counted(self, plan, *arrays):  # type: ignore[no-untyped-def]
        calls.append(len(arrays))
        return compute(self, plan, *arrays)

    monkeypatch.setattr(Einsum7, "compute", counted)
    big = _tensor(files.einsum_of_five(tmp_path), "tiled")
    assert calls == [] and not big.shape.is_static
    (tmp_path / "small").mkdir()
    small = _tensor(files.einsum_of_five(tmp_path / "small", 8), "tiled")
    assert calls == [5] and small.shape.to_tuple() == (8**5,)


def test_the_budgets_are_what_security_md_says() -> None:
    text = (ROOT / "SECURITY.md").read_text()
    assert f"{base.FOLD_LIMIT_ELEMENTS:,}" in text and f"{base.FOLD_WORK_LIMIT:,}" in text


# ------------------------------------------------------ nondeterministic ops

RANDOM = {"random-uniform-seeds-0": files.random_repeats,
          "random-uniform-seeded": lambda d: files.random_repeats(d, op_seed=7),
          "multinomial": files.multinomial_repeats}


@pytest.mark.parametrize("build", RANDOM.values(), ids=RANDOM.keys())
def test_random_ops_are_never_folded(build: Callable[[Path], Path], tmp_path: Path) -> None:
    xml = build(tmp_path)
    assert _tensor(xml, "tiled").shape.dims == (Dim(0, None),)
    reports = [cli("check", str(xml), "--format", "sarif") for _ in range(2)]
    for p in reports:
        _clean(p)
        assert p.returncode == 0
    assert json.loads(reports[0].stdout)["runs"][0]["results"] == json.loads(reports[1].stdout)["runs"][0]["results"]
    shapes = [cli("inspect", "--shapes", str(xml)) for _ in range(2)]
    assert shapes[0].stdout == shapes[1].stdout and shapes[0].returncode == 0
    run = cli("run", str(xml), "-o", str(tmp_path / "out.npz"))
    _clean(run)
    assert run.returncode == 0, run.stdout + run.stderr


# ------------------------------------------------------------ nested bodies


def _body_checks(xml: Path, monkeypatch: pytest.MonkeyPatch) -> int:
    calls = [0]
    check_model = irexec.checker.model_checker.check_model

    def counted(*args, **kwargs):  # type: ignore[no-untyped-def]
        calls[0] += 1
        return check_model(*args, **kwargs)

    monkeypatch.setattr(irexec.checker.model_checker, "check_model", counted)
    assert irexec.check(str(xml)).errors == []
    monkeypatch.setattr(irexec.checker.model_checker, "check_model", check_model)
    return calls[0]


def test_nested_bodies_are_checked_a_bounded_number_of_times(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    counts = {}
    for depth in (2, 4, 8, 16, 40):
        (tmp_path / str(depth)).mkdir()
        counts[depth] = _body_checks(files.nested_loops(tmp_path / str(depth), depth), monkeypatch)
    # every level needs more than one round; each body is checked a few times in all, not 4^depth
    assert all(count <= 1 + 4 * depth for depth, count in counts.items()), counts
    assert counts[40] - counts[16] <= 4 * (40 - 16), counts


def test_past_the_body_budget_outputs_are_unknown_not_errors(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With a budget of one check per body, the second round of each level
    finds its inner body spent: a note, unknown outputs, no error."""
    monkeypatch.setattr(body_checks, "BODY_CHECKS", 1)
    xml = files.nested_loops(tmp_path, 3)
    found = irexec.check(str(xml))
    assert found.errors == []
    notes = [d for d in found.diagnostics if d.code == "skipped"]
    assert notes and all(d.severity == "note" and "checked 1 times" in d.message for d in notes), notes
    assert _tensor(xml, "loop1").shape.dims == (Dim(0, None),)  # unknown, but for the declared rank ([2..] when checked)


def test_thirteen_nested_loops_check_from_the_command_line(tmp_path: Path) -> None:
    xml = files.nested_loops(tmp_path, 13)
    p = cli("check", str(xml))
    _clean(p)
    assert p.returncode == 0, p.stdout


@pytest.mark.parametrize("depth,length", [(1, 4), (2, 64), (3, 16384)])
def test_nested_loops_still_run_right(depth: int, length: int, tmp_path: Path) -> None:
    """Each level runs twice and doubles, then runs the level below."""
    xml = files.nested_loops(tmp_path, depth)
    (y,) = irexec.run(str(xml), {"x": np.array([1.5], np.float32)}).values()
    assert y.shape == (length,) and (y == 1.5).all()
    inferred = _tensor(xml, "loop1")
    assert inferred.shape.dims is not None and inferred.shape.dims[0].contains(length)


# ------------------------------------------------------------ computed shapes

COMPUTED = {"rank-70": files.computed_rank, "shape-0x2^62x4": files.computed_huge_shape,
            "300-tiles": files.tiles_chain, "range-of-finite-f64": files.range_overflow}


@pytest.mark.parametrize("build", COMPUTED.values(), ids=COMPUTED.keys())
def test_computed_shapes_are_held_to_the_declared_limits(build: Callable[[Path], Path], tmp_path: Path) -> None:
    xml = build(tmp_path)
    for args in (["check", str(xml)], ["run", str(xml), "-o", str(tmp_path / "out.npz")]):
        p = cli(*args)
        out = _clean(p)
        assert p.returncode == 1 and "error[shape-too-large]" in out, out
    assert not (tmp_path / "out.npz").exists()
    p = cli("inspect", "--shapes", str(xml))
    _clean(p)
    assert p.returncode in (0, 1)


def test_a_huge_interval_bound_is_unbounded_not_an_error(tmp_path: Path) -> None:
    """One Tile of a 1..2 dim by 2^62 is 2^62..2^63: its upper bound is past
    2^63-1, which only means "no upper bound"."""
    xml = files.tiles_chain(tmp_path, count=1)
    assert irexec.check(str(xml)).errors == []
    assert _tensor(xml, "y").shape.dims == (Dim(1 << 62, None),)


def test_a_range_within_the_limits_still_runs(tmp_path: Path) -> None:
    xml = files.range_overflow(tmp_path, -1.5, 2.0, 0.5)
    assert irexec.check(str(xml)).errors == []
    (y,) = irexec.run(str(xml), {}).values()
    np.testing.assert_array_equal(y, np.arange(-1.5, 2.0, 0.5))


# ------------------------------------------------------ narrowing conversions


def test_bounds_do_not_survive_a_wrapping_convert(tmp_path: Path) -> None:
    xml = files.narrowing_convert(tmp_path, "u8")
    (dim,) = _tensor(xml, "y").shape.dims
    assert dim.contains(0) and dim.contains(44)
    assert irexec.check(str(xml)).errors == []
    (y,) = irexec.run(str(xml), {"x": np.zeros(300, np.float32)}).values()
    assert y.shape == (300 % 256,)


@pytest.mark.parametrize("etype", ["i16", "u16", "i32", "u64"])
def test_bounds_survive_a_convert_that_holds_them(etype: str, tmp_path: Path) -> None:
    (dim,) = _tensor(files.narrowing_convert(tmp_path, etype), "y").shape.dims
    assert dim == Dim(256, 300)


# ------------------------------------------------------- memory of the reader


def test_millions_of_dims_are_read_in_little_memory(tmp_path: Path) -> None:
    """Ports of 700,000 <dim>s each (2.1 million in 25 MB): the whole tree of
    them took about 20x the file (the whole check 2.1 GB for 58 MB); read as
    they stream by, the check fits in the capped address space."""
    xml = files.many_dims(tmp_path, layers=1, dims_per_port=700_000)
    assert xml.stat().st_size > 24 << 20
    p = cli("check", "-q", str(xml))
    out = _clean(p)
    assert p.returncode == 1 and "error[shape-too-large]" in out, out[-2000:]  # rank 700,000 is refused, not built


def test_streamed_dims_keep_their_values_and_lines(tmp_path: Path) -> None:
    """A document large enough to be read while it is parsed: a bad <dim> deep
    inside is reported at its own line, and the good ones reach the check."""
    xml = files.many_dims(tmp_path, layers=50_000, dims_per_port=8)
    lines = xml.read_text().split("\n")
    target = 30_000 + 3  # layer 30000 is on this line (the declaration, <net> and the Parameter come first)
    assert 'id="30000"' in lines[target - 1]
    lines[target - 1] = lines[target - 1].replace("<dim>1</dim></port></input>", "<dim>x</dim></port></input>", 1)
    other = 20_000 + 3  # a good dim that disagrees (before the bad one, whose layer stops the chain)
    lines[other - 1] = lines[other - 1].replace("<dim>1</dim>", "<dim>3</dim>", 1)
    xml.write_text("\n".join(lines))
    assert xml.stat().st_size > 16 << 20
    found = irexec.check(str(xml)).diagnostics
    bad = [d for d in found if d.code == "bad-dim"]
    assert [(d.line, d.layer_id) for d in bad] == [(target, 30000)], bad
    mismatch = [d for d in found if d.code == "shape-mismatch"]
    assert [(d.line, d.layer_id, d.port_kind) for d in mismatch] == [(other, 20000, "input")], mismatch


@pytest.mark.parametrize("op", ["Reshape", "Tile"])
def test_a_shape_input_of_millions_of_values_is_refused_unread(op: str, tmp_path: Path) -> None:
    """A target shape (or repeats) of 40 million values in a sparse .bin: read
    as Python ints it took about 1 GB, and 40 million dynamic dims 320 MB."""
    xml = files.long_shape_input(tmp_path, op=op)
    p = cli("check", str(xml))
    out = _clean(p)
    assert p.returncode == 1 and ("error[shape-too-large]" in out or "error[bad-value]" in out), out[-2000:]
