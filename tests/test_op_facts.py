"""One source of truth for op facts: what `irexec ops` lists is what a layer may
name, for every op and every opset, and OpenVINO's reader takes the same."""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner

import irexec
import irexec.ops  # noqa: F401  (registers every op)
from irexec.cli import cli
from irexec.ops.framework.registry import NEWEST_OPSET, all_ops, core_accepts, resolve


@pytest.fixture(scope="module")
def listed() -> dict[str, dict]:
    result = CliRunner().invoke(cli, ["ops", "--format", "json"])
    assert result.exit_code == 0, result.output
    return {entry["op"]: entry for entry in json.loads(result.output)}


def test_every_listed_opset_resolves_to_the_op_and_no_other_does(listed):
    wrong = []
    for cls in all_ops():
        entry = listed[cls.display()]
        named = {n for lo, hi in entry["opsets"] for n in range(lo, hi + 1)}
        for n in range(1, NEWEST_OPSET + 1):
            if (n in named) != (resolve(cls.type, f"opset{n}") is cls):
                wrong.append(f"{cls.display()} opset{n}: listed={n in named}")
            if n in named and core_accepts(cls.type, f"opset{n}") is False:
                wrong.append(f"{cls.display()} opset{n}: listed but OpenVINO refuses it")
        for other in entry["other_versions"]:
            if resolve(cls.type, other) is not cls:
                wrong.append(f"{cls.display()} {other!r}")
    assert wrong == []


@pytest.mark.parametrize("op, absent, present", [("ShuffleChannels-1", 2, 3), ("Reverse-1", 2, 1)])
def test_opsets_openvino_refuses_are_not_listed(listed, write_ir, builder, op, absent, present):
    assert not any(lo <= absent <= hi for lo, hi in listed[op]["opsets"])
    assert any(lo <= present <= hi for lo, hi in listed[op]["opsets"])
    # and check says the same of a layer naming the absent opset
    x = builder.parameter("x", [1, 4, 2, 2], "f32")
    if op.startswith("ShuffleChannels"):
        y = builder.layer("ShuffleChannels", f"opset{absent}", [x], {"axis": "1", "group": "2"}, outputs=[([1, 4, 2, 2], "f32")])
    else:
        axes = builder.const(np.array([1], "int64"))
        y = builder.layer("Reverse", f"opset{absent}", [x, axes], {"mode": "index"}, outputs=[([1, 4, 2, 2], "f32")])
    builder.result(y)
    codes = {d.code for d in irexec.check(write_ir(builder)).errors}
    assert codes & {"unknown-op-version", "unsupported-op"}


def test_every_core_type_openvino_reads_runs_here():
    """core_opsets.py is what OpenVINO's own reader accepts (tests/tools/probe_core_opsets.py asks
    it): every core type and opset there resolves to an irexec op.  A newer OpenVINO installed
    here fails this test until the table is probed again, so a type it gains cannot go unseen."""
    import openvino as ov

    from irexec.ops.framework.core_opsets import CORE_OP_VERSIONS, OPENVINO_VERSION

    installed = ov.__version__.split("-")[0]
    assert installed.split(".")[:2] == OPENVINO_VERSION.split(".")[:2], (
        f"OpenVINO {installed} is installed, the core op table was probed on {OPENVINO_VERSION}: "
        "python tests/tools/probe_core_opsets.py > irexec/ops/framework/core_opsets.py")
    missing = [f"{name} opset{n}" for name, (ranges, _) in CORE_OP_VERSIONS.items()
               for lo, hi in ranges for n in range(lo, hi + 1) if resolve(name, f"opset{n}") is None]
    assert len(CORE_OP_VERSIONS) >= 208 and missing == []
