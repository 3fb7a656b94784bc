"""ONNX's light CNNs (shipped in the ``onnx`` wheel under
``onnx/backend/test/data/light``), converted by OpenVINO's ONNX frontend and
saved as IR with its defaults (f16 weights + Convert), run by ``irexec`` and
by OpenVINO CPU, compared within the README's whole-model tolerance.  A model
that needs an op irexec does not implement yet is skipped, naming the op.

The light models carry made-up weights that drive the logits to about 1e10,
where f32 summation order alone moves them by about 1e3; their final SoftMax
then amplifies that noise into different probabilities.  So the tensor
compared for an output computed by a SoftMax (possibly through Reshapes) is
that SoftMax's input."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

ov = pytest.importorskip("openvino")
from oracle import CPU_CONFIG  # noqa: E402

MODELS = ["light_squeezenet", "light_inception_v1", "light_resnet50", "light_shufflenet", "light_bvlc_alexnet",
          "light_zfnet512", "light_vgg19", "light_densenet121", "light_inception_v2"]
RTOL, ATOL = 1e-4, 1e-5  # README: whole models against OpenVINO CPU


def _light_dir() -> Path | None:
    spec = importlib.util.find_spec("onnx")  # locates the package without importing it
    if spec is None or not spec.submodule_search_locations:
        return None
    d = Path(list(spec.submodule_search_locations)[0]) / "backend" / "test" / "data" / "light"
    return d if d.is_dir() else None


@pytest.mark.slow
@pytest.mark.parametrize("name", MODELS)
def test_light_onnx_model_matches_openvino(name: str, tmp_path: Path) -> None:
    import irexec
    from irexec.api.load import load

    light = _light_dir()
    if light is None:
        pytest.skip("the onnx package (test extra) with its light models is not installed")
    src = light / f"{name}.onnx"
    if not src.is_file():
        pytest.skip(f"{src.name} is not in this onnx release")
    xml = tmp_path / "model.xml"
    ov.save_model(ov.convert_model(str(src)), str(xml))
    model = load(str(xml))
    missing = sorted({model.layers[lid].display for lid, op in model.ops.items() if op is None})
    if missing:
        pytest.skip(f"{name} needs ops irexec does not implement yet: {', '.join(missing)}")
    core = ov.Core()
    ov_model = core.read_model(str(xml))
    rng = np.random.default_rng(7)
    feeds = {}
    for p in ov_model.inputs:
        shape = [d if d > 0 else 1 for d in (p.get_partial_shape().get_min_shape())]
        feeds[p.get_any_name()] = rng.standard_normal(shape).astype(p.get_element_type().to_dtype())
    # each Result, or the input of the SoftMax it is computed by
    compared = []
    for res in ov_model.get_results():
        node = res.input_value(0).get_node()
        while node.get_type_name() == "Reshape":
            node = node.input_value(0).get_node()
        compared.append(node.input_value(0) if node.get_type_name().lower() == "softmax" else res.input_value(0))
    ov_model.add_outputs(compared)
    compiled = core.compile_model(ov_model, "CPU", CPU_CONFIG)
    got_all = compiled(feeds)
    for out in compared:
        node = out.get_node()
        w = _value(compiled, got_all, node.get_friendly_name())
        g = next(iter(irexec.run(model, feeds, stop_at=node.get_friendly_name()).values()))
        assert g.shape == w.shape and g.dtype == w.dtype, node.get_friendly_name()
        bad = ~np.isclose(g, w, rtol=RTOL, atol=ATOL)
        assert not bad.any(), (f"{name} {node.get_friendly_name()}: {int(bad.sum())} of {bad.size} differ, "
                               f"max |diff| {np.abs(g.astype(np.float64) - w).max()}")


def _value(compiled, results, node_name: str) -> np.ndarray:
    for out in compiled.outputs:
        if out.get_node().get_friendly_name() == node_name or any(
                i.get_source_output().get_node().get_friendly_name() == node_name for i in out.get_node().inputs()):
            return results[out]
    raise KeyError(node_name)
