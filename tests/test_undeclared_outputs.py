"""A layer may declare fewer output ports than its op has, as OpenVINO's reader
accepts (its own serialization tests hold an ExperimentalDetectronROIFeatureExtractor
that declares only the first of its two outputs): the undeclared trailing outputs
are simply not connected.  An edge that reads one, and more ports than the op has,
stay errors."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import irexec

_PARAM = """<layer id="{id}" name="{name}" type="Parameter" version="opset1">
<data element_type="f32" shape="{shape}"/>
<output><port id="0" precision="FP32">{dims}</port></output></layer>"""


def _dims(shape: tuple[int, ...]) -> str:
    return "".join(f"<dim>{d}</dim>" for d in shape)


def _roi_model(version: str = "opset6", from_port: int = 3, extra_output: bool = False) -> str:
    """ROIs [3,4] and two pyramid levels into one ROIFeatureExtractor that declares
    only output port 3 (the features), read by a Result."""
    params = [("rois", (3, 4)), ("f0", (1, 2, 16, 16)), ("f1", (1, 2, 8, 8))]
    layers = "".join(_PARAM.format(id=i, name=n, shape=",".join(map(str, s)), dims=_dims(s))
                     for i, (n, s) in enumerate(params))
    inputs = "".join(f'<port id="{i}">{_dims(s)}</port>' for i, (_, s) in enumerate(params))
    outputs = f'<port id="3" precision="FP32">{_dims((3, 2, 3, 3))}</port>'
    if extra_output:
        outputs += f'<port id="4" precision="FP32">{_dims((3, 4))}</port><port id="5" precision="FP32"/>'
    edges = "".join(f'<edge from-layer="{i}" from-port="0" to-layer="3" to-port="{i}"/>' for i in range(3))
    return f"""<?xml version="1.0"?>
<net name="roi" version="11">
<layers>
{layers}
<layer id="3" name="roi_feat" type="ExperimentalDetectronROIFeatureExtractor" version="{version}">
<data aligned="0" output_size="3" pyramid_scales="4,8" sampling_ratio="2"/>
<input>{inputs}</input>
<output>{outputs}</output>
</layer>
<layer id="4" name="Y" type="Result" version="opset1">
<input><port id="0" precision="FP32">{_dims((3, 2, 3, 3))}</port></input>
</layer>
</layers>
<edges>{edges}<edge from-layer="3" from-port="{from_port}" to-layer="4" to-port="0"/></edges>
</net>
"""


def _inputs() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(0)
    return {"rois": np.array([[0, 0, 10, 10], [2, 2, 40, 40], [5, 1, 60, 30]], np.float32),
            "f0": rng.standard_normal((1, 2, 16, 16)).astype(np.float32),
            "f1": rng.standard_normal((1, 2, 8, 8)).astype(np.float32)}


@pytest.mark.parametrize("version", ["opset6", "experimental"])
def test_trailing_outputs_left_undeclared_are_accepted_and_run(tmp_path: Path, run_cli, version: str) -> None:
    xml = tmp_path / "model.xml"
    xml.write_text(_roi_model(version))
    checked = run_cli("check", xml)
    assert checked.exit_code == 0, checked.output
    assert "0 errors, 0 warnings" in checked.output
    inputs = tmp_path / "inputs.npz"
    np.savez(inputs, **_inputs())
    out = tmp_path / "out.npz"
    ran = run_cli.subprocess("run", xml, "--inputs", inputs, "-o", out)
    assert ran.returncode == 0, ran.stderr
    assert np.load(out)["Y"].shape == (3, 2, 3, 3)


def test_the_features_agree_with_openvino(tmp_path: Path) -> None:
    ov = pytest.importorskip("openvino")
    xml = tmp_path / "model.xml"
    xml.write_text(_roi_model())
    feeds = _inputs()
    core = ov.Core()
    model = core.read_model(str(xml))
    roi = next(op for op in model.get_ordered_ops() if op.get_type_name() == "ExperimentalDetectronROIFeatureExtractor")
    assert roi.get_output_size() == 2  # OpenVINO keeps both outputs; the second is read by nothing
    want = core.compile_model(model, "CPU")(list(feeds.values()))[0]
    got = irexec.Session(str(xml)).run(feeds)
    np.testing.assert_allclose(got["Y"], want, rtol=1e-5, atol=1e-5)


def test_an_edge_from_an_undeclared_output_is_an_error(tmp_path: Path, run_cli) -> None:
    xml = tmp_path / "model.xml"
    xml.write_text(_roi_model(from_port=4))
    result = run_cli("check", xml)
    assert result.exit_code == 1
    assert "error[unknown-port]" in result.output and "output port 4" in result.output
    assert "wrong-port-count" not in result.output
    ov = pytest.importorskip("openvino")
    with pytest.raises(RuntimeError, match="output port with id 4"):  # OpenVINO's reader refuses it too
        ov.Core().read_model(str(xml))


def test_more_output_ports_than_the_op_has_is_still_an_error(tmp_path: Path, run_cli) -> None:
    xml = tmp_path / "model.xml"
    xml.write_text(_roi_model(extra_output=True))
    result = run_cli("check", xml)
    assert result.exit_code == 1
    assert "error[wrong-port-count]" in result.output
    assert "declares 3 output ports but ExperimentalDetectronROIFeatureExtractor-6 has 2" in result.output
    ov = pytest.importorskip("openvino")
    with pytest.raises(RuntimeError, match="out of range"):  # OpenVINO's reader refuses it too
        ov.Core().read_model(str(xml))
