"""TensorIterator and Loop slicing is validated by inference: a stride other
than +-part_size, or a start and end the stride walks away from, used to pass
check and then end the run in an internal error (stride 2, part_size 1) or
silently come back in a wrapped order (stride -1 from start 0: rows
[0,5,4,3,2,1]).  Now both are ``bad-port-map`` at check time and at run time."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from irexec.cli import cli

ov = pytest.importorskip("openvino")
from openvino import opset1  # noqa: E402
from openvino import opset8 as ops  # noqa: E402


def _ti(tmp_path: Path, start: int, stride: int, part: int, end: int) -> tuple[Path, Path]:
    """Six rows of a [6, 2] sequence, one part per iteration, concatenated again."""
    seq = ops.parameter([6, 2], ov.Type.f32, name="seq")
    bx = ops.parameter([part, 2], ov.Type.f32, name="bx")
    body = ov.Model([ops.result(ops.multiply(bx, ops.constant(np.float32(1))))], [bx], "body")
    ti = opset1.tensor_iterator()
    ti.set_body(body)
    ti.set_sliced_input(bx, seq.output(0), start, stride, part, end, 0)
    out = ti.get_concatenated_slices(body.get_results()[0].output(0), 0, abs(stride), part, -1, 0)
    xml = tmp_path / "model.xml"
    ov.save_model(ov.Model([out], [seq], "ti"), str(xml))
    inputs = tmp_path / "inputs.npz"
    np.savez(inputs, seq=np.arange(12, dtype=np.float32).reshape(6, 2))
    return xml, inputs


@pytest.mark.parametrize("start, stride, part, end", [(0, 2, 1, -1), (0, -1, 1, -1), (-1, 1, 1, 0), (0, 1, 1, 9),
                                                      (7, -1, 1, 0), (0, 1, 2, -1)])
def test_bad_slicing_is_refused_at_check_and_run(tmp_path: Path, start: int, stride: int, part: int, end: int) -> None:
    xml, inputs = _ti(tmp_path, start, stride, part, end)
    runner = CliRunner()
    checked = runner.invoke(cli, ["check", str(xml)])
    assert checked.exit_code == 1, checked.output
    assert "error[bad-port-map]" in checked.output and "Traceback" not in checked.output
    ran = runner.invoke(cli, ["run", str(xml), "--inputs", str(inputs), "-o", str(tmp_path / "out.npz")])
    assert ran.exit_code == 1 and "error[bad-port-map]" in ran.output, ran.output
    assert not (tmp_path / "out.npz").exists()


@pytest.mark.parametrize("start, stride, end, rows", [(0, 1, -1, [0, 1, 2, 3, 4, 5]), (-1, -1, 0, [5, 4, 3, 2, 1, 0]),
                                                      (1, 1, 3, [1, 2, 3]), (4, -1, 2, [4, 3, 2])])
def test_good_slicing_runs(tmp_path: Path, start: int, stride: int, end: int, rows: list[int]) -> None:
    xml, inputs = _ti(tmp_path, start, stride, 1, end)
    out = tmp_path / "out.npz"
    r = CliRunner().invoke(cli, ["run", str(xml), "--inputs", str(inputs), "-o", str(out)])
    assert r.exit_code == 0, r.output
    (value,) = np.load(out).values()
    seq = np.arange(12, dtype=np.float32).reshape(6, 2)
    np.testing.assert_array_equal(value, seq[rows])
