"""Two small detection models written by OpenVINO's own Python API
(tests/data/detection_models/generate.py): an SSD-style head (PriorBox-8 and
PriorBoxClustered from ShapeOf, DetectionOutput) and a YOLO-v3-style head
(RegionYolo on two scales, ReorgYolo).  ``irexec check`` finds them clean and
``irexec run`` gives OpenVINO CPU's outputs."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

ov = pytest.importorskip("openvino")
from oracle import compile_ir, infer  # noqa: E402

MODELS = Path(__file__).resolve().parent / "data" / "detection_models"


@pytest.mark.parametrize("name", ["ssd_tiny", "yolo_tiny"])
def test_checks_clean_and_runs_as_openvino(name: str, run_cli, save_npz, tmp_path: Path) -> None:
    xml = MODELS / f"{name}.xml"
    checked = run_cli("check", xml)
    assert checked.exit_code == 0, checked.output
    assert "0 errors, 0 warnings" in checked.output
    image = np.random.default_rng(7).uniform(0, 1, (1, 3, 32, 32)).astype(np.float32)
    out = tmp_path / "out.npz"
    ran = run_cli("run", xml, "--inputs", save_npz(image=image), "--output", out)
    assert ran.exit_code == 0, ran.output
    ours = dict(np.load(out))
    theirs = infer(compile_ir(str(xml)), {"image": image})
    assert sorted(ours) == sorted(theirs)
    for key, want in theirs.items():
        np.testing.assert_allclose(ours[key], want, rtol=1e-5, atol=1e-5, err_msg=f"{name} {key}")


def test_the_ssd_model_detects_something(save_npz, run_cli, tmp_path: Path) -> None:
    """Rows before the -1 marker are detections: [image 0, a class >= 1, a score above 0.2, a clipped box]."""
    image = np.random.default_rng(7).uniform(0, 1, (1, 3, 32, 32)).astype(np.float32)
    out = tmp_path / "out.npz"
    assert run_cli("run", MODELS / "ssd_tiny.xml", "--inputs", save_npz(image=image), "--output", out).exit_code == 0
    rows = next(iter(np.load(out).values()))[0, 0]
    found = rows[: int(np.argmax(rows[:, 0] == -1))] if (rows[:, 0] == -1).any() else rows
    assert len(found) > 0
    assert (found[:, 0] == 0).all() and (found[:, 1] >= 1).all() and (found[:, 2] > 0.2).all()
    assert ((found[:, 3:] >= 0) & (found[:, 3:] <= 1)).all()
