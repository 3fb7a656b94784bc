"""Small models written by OpenVINO's own tools (tests/data/sequence_image_models,
made by its generate.py): a CTC OCR head, TensorFlow's SpaceToBatch ->
Convolution -> BatchToSpace lowering of a dilated convolution followed by
ExtractImagePatches, a ranker averaging and summing embedding bags of
dynamic sizes, and ONNX CNNs given NV12 two-plane and I420
single-plane u8 inputs by PrePostProcessor.  irexec checks each clean and
runs it as OpenVINO's CPU plugin does."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

ov = pytest.importorskip("openvino")
from oracle import compile_ir, infer  # noqa: E402

import irexec  # noqa: E402

DATA = Path(__file__).resolve().parent / "data" / "sequence_image_models"
MODELS = ["ctc_ocr_head", "dilated_conv", "embedding_ranker", "nv12_classifier", "i420_classifier"]
# inputs of dynamic shape: three bags of items (one empty: the default row 0) and their tags
RAGGED = {"items": np.array([3, 7, 7, 49, 0, 12], np.int64), "offsets": np.array([0, 3, 3], np.int64),
          "tags": np.array([[1, 2, 3, 4], [0, 0, 19, 5], [7, 7, 7, 7]], np.int64)}


def feeds_for(xml: Path, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Seeded inputs for every Parameter: u8 pixels, a seq_len, normal floats, the ragged bags above."""
    feeds = {}
    for port in compile_ir(xml).inputs:
        if port.get_any_name() in RAGGED:
            feeds[port.get_any_name()] = RAGGED[port.get_any_name()]
            continue
        shape, etype = tuple(port.get_shape()), port.get_element_type().get_type_name()
        if etype == "u8":
            feeds[port.get_any_name()] = rng.integers(0, 256, shape).astype(np.uint8)
        elif etype == "i32":
            feeds[port.get_any_name()] = np.array([24 - 3], np.int32)  # decode all but the last 3 steps
        else:
            feeds[port.get_any_name()] = rng.standard_normal(shape).astype(np.float32)
    return feeds


@pytest.mark.parametrize("name", MODELS)
def test_checked_clean_and_run_as_openvino_does(name: str, tmp_path: Path) -> None:
    for suffix in (".xml", ".bin"):
        shutil.copy(DATA / f"{name}{suffix}", tmp_path / f"{name}{suffix}")
    xml = tmp_path / f"{name}.xml"
    assert xml.stat().st_size + (tmp_path / f"{name}.bin").stat().st_size < 1 << 20
    result = irexec.check(str(xml))
    assert result.diagnostics == [], "\n".join(map(str, result.diagnostics))
    feeds = feeds_for(xml, np.random.default_rng(sum(map(ord, name))))
    ours = irexec.run(str(xml), feeds)
    theirs = infer(compile_ir(xml), feeds)
    assert sorted(ours) == sorted(theirs)
    for key, want in theirs.items():
        got = ours[key]
        assert got.shape == want.shape and got.dtype == want.dtype, key
        if got.dtype.kind == "f":
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5, err_msg=key)
        else:
            np.testing.assert_array_equal(got, want, err_msg=key)


def test_the_ctc_head_decodes_its_logits_as_the_two_decoders_agree(tmp_path: Path) -> None:
    """Both decoders read the same logits: without a sequence cut, their classes agree."""
    xml = DATA / "ctc_ocr_head.xml"
    rng = np.random.default_rng(7)
    out = irexec.run(str(xml), {"image": rng.standard_normal((1, 1, 16, 48)).astype(np.float32),
                                "seq_len": np.array([24], np.int32)})
    n = int(out["lengths"][0])
    assert n > 0
    legacy = out["classes_legacy"].reshape(-1)
    np.testing.assert_array_equal(out["classes"][0, :n], legacy[:n].astype(np.int32))
    assert (legacy[n:] == -1).all() and (out["classes"][0, n:] == -1).all()
