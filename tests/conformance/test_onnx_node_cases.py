"""ONNX operator tests converted to IR by OpenVINO's ONNX frontend, where
OpenVINO CPU gives ONNX's expected output: irexec gives it too.

The cases come from ``onnx.backend.test.case`` (the generator of ONNX's node
tests, shipped in the ``onnx`` wheel), are converted with
``ov.convert_model`` and saved as IR; irexec runs the IR and is compared with
ONNX's expected outputs and with OpenVINO CPU.

One case is a documented difference: ``test_div_int32_trunc``.  OpenVINO's
converter writes ONNX's truncating integer Div as ``Divide`` with
``m_pythondiv="true"`` (floor division, the op's default); OpenVINO's CPU
plugin ignores that attribute and truncates, while OpenVINO's reference (its
constant folding) floors, as the attribute says and as irexec does.  The test
holds irexec to the floor of the file as written.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest

import irexec

ov = pytest.importorskip("openvino")
onnx = pytest.importorskip("onnx")

AGREE = [
    "test_averagepool_2d_dilations",
    "test_averagepool_3d_dilations_small",
    "test_averagepool_3d_dilations_large_count_include_pad_is_0_ceil_mode_is_True",
    "test_averagepool_3d_dilations_large_count_include_pad_is_0_ceil_mode_is_False",
    "test_averagepool_3d_dilations_large_count_include_pad_is_1_ceil_mode_is_True",
    "test_averagepool_3d_dilations_large_count_include_pad_is_1_ceil_mode_is_False",
    "test_lppool_2d_dilations",
    "test_reduce_min_empty_set",
    # neighbours of the cases above that agreed already
    "test_lppool_2d_default",
    "test_reduce_prod_empty_set",
    "test_reduce_sum_empty_set",
    "test_reduce_l1_empty_set",
    "test_reduce_l2_empty_set",
    "test_reduce_log_sum_exp_empty_set",
    "test_div_int8",
]
FLOOR_AS_WRITTEN = "test_div_int32_trunc"


# the modules whose classes make the cases (ONNX's case classes run their generators when defined;
# collect_testcases would import all of them, about 30 s)
_MODULES = ("averagepool", "lppool", "reducemin", "reduceprod", "reducesum", "reducel1", "reducel2", "reduce_log_sum_exp",
            "div")


def _cases() -> dict:
    import importlib

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the generators divide by zero on purpose
        from onnx.backend.test.case import node

        for module in _MODULES:
            try:
                importlib.import_module(f"onnx.backend.test.case.node.{module}")
            except ImportError:
                continue  # another onnx release: its cases are skipped by name
        return {c.name: c for c in node._NodeTestCases if c.name in (*AGREE, FLOOR_AS_WRITTEN)}


CASES = _cases()


def _convert(name: str, tmp_path: Path) -> tuple[str, list[np.ndarray], list[np.ndarray], list[str]]:
    case = CASES.get(name)
    if case is None:
        pytest.skip(f"{name} is not in this onnx release")
    src = tmp_path / "model.onnx"
    onnx.save(case.model, str(src))
    xml = str(tmp_path / "model.xml")
    ov.save_model(ov.convert_model(str(src)), xml)
    inputs, expected = case.data_sets[0]
    return xml, list(inputs), list(expected), [i.name for i in case.model.graph.input]


def _close(got: np.ndarray, want: np.ndarray) -> bool:
    return got.shape == want.shape and bool(np.allclose(got, want, rtol=1e-5, atol=1e-6, equal_nan=True))


@pytest.mark.parametrize("name", AGREE)
def test_onnx_case_agrees_with_onnx_and_openvino(name: str, tmp_path: Path) -> None:
    xml, inputs, expected, names = _convert(name, tmp_path)
    check = irexec.check(xml)
    assert check.errors == [], [str(d) for d in check.errors]
    ours = list(irexec.run(irexec.load(xml), dict(zip(names, inputs))).values())
    theirs = list(ov.Core().compile_model(xml, "CPU")(inputs).values())
    assert len(ours) == len(expected) == len(theirs)
    for got, want, cpu in zip(ours, expected, theirs):
        assert _close(cpu, want), "OpenVINO CPU no longer gives ONNX's expected output"
        assert _close(got, want), f"{name}: irexec {got.shape} {got.ravel()[:6]} vs ONNX {want.shape} {want.ravel()[:6]}"


def test_div_int32_trunc_runs_the_file_as_written(tmp_path: Path) -> None:
    xml, inputs, expected, names = _convert(FLOOR_AS_WRITTEN, tmp_path)
    assert 'm_pythondiv="true"' in Path(xml).read_text()
    a, b = inputs
    ours = list(irexec.run(irexec.load(xml), dict(zip(names, inputs))).values())[0]
    np.testing.assert_array_equal(ours, np.floor_divide(a, b))
    # OpenVINO's CPU plugin truncates whatever the attribute says: ONNX's answer
    cpu = list(ov.Core().compile_model(xml, "CPU")(inputs).values())[0]
    np.testing.assert_array_equal(cpu, expected[0])
    # OpenVINO's reference, through constant folding of the same Divide, floors
    import openvino.opset1 as op1
    from openvino import passes

    folded = ov.Model([op1.result(op1.divide(op1.constant(a), op1.constant(b)))], [])
    manager = passes.Manager()
    manager.register_pass(passes.ConstantFolding())
    manager.run_passes(folded)
    const = folded.get_results()[0].input_value(0).get_node()
    assert const.get_type_name() == "Constant"
    np.testing.assert_array_equal(const.get_data(), ours)
