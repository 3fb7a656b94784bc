"""Two small detection models written by OpenVINO's own Python API
(tests/data/detection_models/generate.py): an SSD-style head (PriorBox-8 and
PriorBoxClustered from ShapeOf, DetectionOutput) and a YOLO-v3-style head
(RegionYolo on two scales, ReorgYolo).  ``irexec check`` finds them clean and
``irexec run`` gives OpenVINO CPU's outputs."""

from __future__ import annotations

import re
import shutil
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


# The SSD model's detection layers as Model Optimizer wrote them into IR v10 files of the Open Model Zoo: PriorBox-1,
# booleans as 0/1, padded floats, empty lists and attributes OpenVINO no longer reads (eta, visualize, img_h...).
LEGACY_DATA = {
    "PriorBox": 'aspect_ratio="2.0" clip="0" density="" fixed_ratio="" fixed_size="" flip="1" max_size="12.0" '
                'min_size="6.0" offset="0.5" scale_all_sizes="1" step="4.0" '
                'variance="0.100000,0.100000,0.200000,0.200000"',
    "PriorBoxClustered": 'clip="1" flip="0" height="14.0,8.0" img_h="0" img_w="0" offset="0.5" step="0.0" '
                         'step_h="0.0" step_w="0.0" variance="0.1,0.1,0.2,0.2" width="10.0,20.0"',
    "DetectionOutput": 'background_label_id="0" clip_after_nms="1" clip_before_nms="0" '
                       'code_type="caffe.PriorBoxParameter.CENTER_SIZE" confidence_threshold="0.2" '
                       'decrease_label_id="0" eta="1.0" input_height="1" input_width="1" keep_top_k="20" '
                       'nms_threshold="0.45" normalized="1" num_classes="3" objectness_score="0" share_location="1" '
                       'top_k="50" variance_encoded_in_target="0" visualize="False"',
}


def test_legacy_attribute_spellings_read_as_openvino_reads_them(run_cli, save_npz, tmp_path: Path) -> None:
    text = (MODELS / "ssd_tiny.xml").read_text().replace('type="PriorBox" version="opset8"',
                                                           'type="PriorBox" version="opset1"')
    for op_type, data in LEGACY_DATA.items():
        text, n = re.subn(rf'(<layer [^>]*type="{op_type}"[^>]*>\s*<data )[^/]*/>', lambda m, d=data: m.group(1) + d + "/>",
                          text)
        assert n == 1
    xml = tmp_path / "legacy.xml"
    xml.write_text(text)
    shutil.copy(MODELS / "ssd_tiny.bin", tmp_path / "legacy.bin")
    assert run_cli("check", xml).exit_code == 0
    image = np.random.default_rng(8).uniform(0, 1, (1, 3, 32, 32)).astype(np.float32)
    out = tmp_path / "out.npz"
    assert run_cli("run", xml, "--inputs", save_npz(image=image), "--output", out).exit_code == 0
    ours = dict(np.load(out))
    theirs = infer(compile_ir(str(xml)), {"image": image})
    for key, want in theirs.items():
        np.testing.assert_allclose(ours[key], want, rtol=1e-5, atol=1e-5)
