"""Builds the source-to-IR conversion pairs that ``tests/test_diff_sources.py`` reads.

Two small real architectures are written in ONNX with ``onnx.helper`` (a CNN: Conv,
BatchNormalization, Relu, Resize, MaxPool, Clip, GlobalAveragePool, Gemm; a transformer
block: LayerNormalization, MatMul, Softmax, Gelu and residual Adds), converted with
OpenVINO (``ov.convert_model`` + ``ov.save_model``, no fp16 compression), and each IR is
copied with one converter-like edit of its XML (the damage ``irexec diff SOURCE IR``
must name as the first origin).  Run from the repository root:

    python tests/data/make_conversion_pairs.py

Needs onnx and openvino (``pip install -e '.[test]'``).  The files are small (tens of KB).
With torch installed (``pip install -e '.[torch]'``), the same two architectures are also
written in PyTorch, saved as ``torch.export`` programs (``*.pt2``), converted from those
(``*_pt.xml``) and damaged the same way (``damages_torch.json``), with the inputs they are
compared on (``*_in.npz``).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

OUT = Path(__file__).resolve().parent / "conversion_pairs"


def _init(name: str, arr: np.ndarray):
    from onnx import numpy_helper

    return numpy_helper.from_array(np.asarray(arr, dtype=np.float32), name)


def cnn():
    from onnx import TensorProto, helper

    rng = np.random.default_rng(1)
    nodes = [
        helper.make_node("Conv", ["input", "conv.w", "conv.b"], ["conv"], pads=[1, 1, 1, 1], name="conv"),
        helper.make_node("BatchNormalization", ["conv", "bn.s", "bn.b", "bn.m", "bn.v"], ["bn"], epsilon=1e-5,
                         name="bn"),
        helper.make_node("Relu", ["bn"], ["relu"], name="relu"),
        helper.make_node("Resize", ["relu", "", "resize.scales"], ["resize"], mode="linear",
                         coordinate_transformation_mode="half_pixel", name="resize"),
        helper.make_node("MaxPool", ["resize"], ["pool"], kernel_shape=[2, 2], strides=[2, 2], name="pool"),
        helper.make_node("Clip", ["pool", "clip.min", "clip.max"], ["relu6"], name="relu6"),
        helper.make_node("GlobalAveragePool", ["relu6"], ["gap"], name="gap"),
        helper.make_node("Flatten", ["gap"], ["flat"], name="flat"),
        helper.make_node("Gemm", ["flat", "fc.w", "fc.b"], ["logits"], transB=1, name="fc"),
    ]
    inits = [
        _init("conv.w", rng.normal(0, 0.5, (8, 3, 3, 3))), _init("conv.b", rng.normal(0, 0.1, 8)),
        _init("bn.s", rng.uniform(0.5, 1.5, 8)), _init("bn.b", rng.normal(0, 0.2, 8)),
        _init("bn.m", rng.normal(0, 0.1, 8)), _init("bn.v", rng.uniform(0.5, 1.5, 8)),
        _init("resize.scales", np.array([1, 1, 2, 2])),
        _init("clip.min", np.array(0.0)), _init("clip.max", np.array(6.0)),
        _init("fc.w", rng.normal(0, 0.5, (10, 8))), _init("fc.b", rng.normal(0, 0.1, 10)),
    ]
    graph = helper.make_graph(nodes, "cnn", [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 3, 8, 8])],
                              [helper.make_tensor_value_info("logits", TensorProto.FLOAT, [1, 10])], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 20)], producer_name="irexec-tests")


def transformer():
    from onnx import TensorProto, helper

    rng = np.random.default_rng(2)
    d, f = 16, 32
    nodes = [
        helper.make_node("LayerNormalization", ["input", "ln1.g", "ln1.b"], ["ln1"], epsilon=1e-5, axis=-1, name="ln1"),
        helper.make_node("MatMul", ["ln1", "wq"], ["q"], name="q"),
        helper.make_node("MatMul", ["ln1", "wk"], ["k"], name="k"),
        helper.make_node("MatMul", ["ln1", "wv"], ["v"], name="v"),
        helper.make_node("Transpose", ["k"], ["kt"], perm=[0, 2, 1], name="kt"),
        helper.make_node("MatMul", ["q", "kt"], ["scores"], name="scores"),
        helper.make_node("Mul", ["scores", "scale"], ["scaled"], name="scaled"),
        helper.make_node("Softmax", ["scaled"], ["attn"], axis=-1, name="attn"),
        helper.make_node("MatMul", ["attn", "v"], ["ctx"], name="ctx"),
        helper.make_node("MatMul", ["ctx", "wo"], ["proj"], name="proj"),
        helper.make_node("Add", ["input", "proj"], ["res1"], name="res1"),
        helper.make_node("LayerNormalization", ["res1", "ln2.g", "ln2.b"], ["ln2"], epsilon=1e-5, axis=-1, name="ln2"),
        helper.make_node("MatMul", ["ln2", "w1"], ["up"], name="up"),
        helper.make_node("Gelu", ["up"], ["gelu"], approximate="none", name="gelu"),
        helper.make_node("MatMul", ["gelu", "w2"], ["down"], name="down"),
        helper.make_node("Add", ["res1", "down"], ["output"], name="res2"),
    ]
    inits = [
        _init("ln1.g", rng.uniform(0.5, 1.5, d)), _init("ln1.b", rng.normal(0, 0.1, d)),
        _init("wq", rng.normal(0, 0.4, (d, d))), _init("wk", rng.normal(0, 0.4, (d, d))),
        _init("wv", rng.normal(0, 0.4, (d, d))), _init("wo", rng.normal(0, 0.4, (d, d))),
        _init("scale", np.array(1 / np.sqrt(d))),
        _init("ln2.g", rng.uniform(0.5, 1.5, d)), _init("ln2.b", rng.normal(0, 0.1, d)),
        _init("w1", rng.normal(0, 0.4, (d, f))), _init("w2", rng.normal(0, 0.4, (f, d))),
    ]
    graph = helper.make_graph(nodes, "transformer",
                              [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 6, d])],
                              [helper.make_tensor_value_info("output", TensorProto.FLOAT, [1, 6, d])], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 20)], producer_name="irexec-tests")


# (architecture, damage name, the type of the IR layer damaged (its first), the edit of its XML attributes)
DAMAGES = [
    ("transformer", "gelu_tanh", "Gelu", ('approximation_mode="ERF"', 'approximation_mode="TANH"')),
    ("transformer", "layernorm_eps", "MVN", ('eps="9.9999997473787516e-06"', 'eps="0.0099999997764825821"')),
    ("transformer", "transpose_b", "MatMul", ('transpose_b="true"', 'transpose_b="false"')),
    ("cnn", "resize_asymmetric", "Interpolate", ('coordinate_transformation_mode="half_pixel"',
                                                 'coordinate_transformation_mode="asymmetric"')),
    ("cnn", "relu6_bound", "Clamp", ('max="6"', 'max="3"')),
]


# the same edits on the IRs converted from torch.export, whose Interpolate starts from pytorch_half_pixel
TORCH_DAMAGES = [(arch, damage, layer_type, (old.replace('"half_pixel"', '"pytorch_half_pixel"'), new))
                 for arch, damage, layer_type, (old, new) in DAMAGES]


def torch_modules():
    """The CNN and the transformer block as PyTorch modules, with an input each."""
    import torch

    class Cnn(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.conv, self.bn, self.fc = torch.nn.Conv2d(3, 8, 3, padding=1), torch.nn.BatchNorm2d(8), torch.nn.Linear(8, 10)

        def forward(self, x):
            h = torch.relu(self.bn(self.conv(x)))
            h = torch.nn.functional.interpolate(h, scale_factor=2.0, mode="bilinear", align_corners=False)
            h = torch.nn.functional.relu6(torch.nn.functional.max_pool2d(h, 2))
            return self.fc(h.mean((2, 3)))

    class Block(torch.nn.Module):
        def __init__(self, d=16):
            super().__init__()
            self.ln1, self.ln2 = torch.nn.LayerNorm(d), torch.nn.LayerNorm(d)
            self.q, self.k, self.v, self.o = (torch.nn.Linear(d, d, bias=False) for _ in range(4))
            self.up, self.down = torch.nn.Linear(d, 2 * d), torch.nn.Linear(2 * d, d)

        def forward(self, x):
            h = self.ln1(x)
            x = x + self.o(torch.softmax(self.q(h) @ self.k(h).transpose(1, 2) / 4.0, -1) @ self.v(h))
            return x + self.down(torch.nn.functional.gelu(self.up(self.ln2(x))))

    torch.manual_seed(0)
    cnn = Cnn().eval()
    with torch.no_grad():
        cnn.bn.running_mean.normal_()
    return [("cnn", cnn, torch.randn(1, 3, 8, 8)), ("transformer", Block().eval(), torch.randn(1, 6, 16))]


def torch_pairs() -> None:
    import openvino as ov
    import torch

    for name, module, x in torch_modules():
        program = torch.export.export(module, (x,))
        torch.export.save(program, OUT / f"{name}.pt2")
        ov.save_model(ov.convert_model(program), str(OUT / f"{name}_pt.xml"), compress_to_fp16=False)
        np.savez(OUT / f"{name}_in.npz", x=x.numpy())
    where = {}
    for arch, damage, layer_type, edit in TORCH_DAMAGES:
        xml, name = damaged((OUT / f"{arch}_pt.xml").read_text(), layer_type, edit)
        (OUT / f"{arch}_pt_{damage}.xml").write_text(xml)
        (OUT / f"{arch}_pt_{damage}.bin").write_bytes((OUT / f"{arch}_pt.bin").read_bytes())
        where[f"{arch}_pt_{damage}"] = name
    (OUT / "damages_torch.json").write_text(json.dumps(where, indent=1, sort_keys=True) + "\n")


def damaged(xml: str, layer_type: str, edit: tuple[str, str]) -> tuple[str, str]:
    """``xml`` with ``edit`` applied to the first layer of ``layer_type``; and that layer's name."""
    start = xml.index(f'type="{layer_type}"')
    open_tag = xml.rindex("<layer ", 0, start)
    name = xml[open_tag:].split('name="', 1)[1].split('"', 1)[0]
    end = xml.index("</layer>", start)
    body = xml[open_tag:end]
    if edit[0] not in body:
        raise SystemExit(f"{layer_type} {name}: {edit[0]} not found")
    return xml[:open_tag] + body.replace(edit[0], edit[1], 1) + xml[end:], name


def main() -> int:
    import onnx
    import openvino as ov

    OUT.mkdir(exist_ok=True)
    for name, build in (("cnn", cnn), ("transformer", transformer)):
        model = build()
        onnx.checker.check_model(model, full_check=True)
        onnx.save(model, OUT / f"{name}.onnx")
        ov.save_model(ov.convert_model(str(OUT / f"{name}.onnx")), str(OUT / f"{name}.xml"), compress_to_fp16=False)
    where = {}
    for arch, damage, layer_type, edit in DAMAGES:
        xml, name = damaged((OUT / f"{arch}.xml").read_text(), layer_type, edit)
        (OUT / f"{arch}_{damage}.xml").write_text(xml)
        (OUT / f"{arch}_{damage}.bin").write_bytes((OUT / f"{arch}.bin").read_bytes())
        where[f"{arch}_{damage}"] = name
    (OUT / "damages.json").write_text(json.dumps(where, indent=1, sort_keys=True) + "\n")
    try:
        import torch  # noqa: F401
    except ImportError:
        print("torch is not installed: the PyTorch pairs are left as they are")
    else:
        torch_pairs()
    print(json.dumps(sorted(p.name for p in OUT.iterdir())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
