"""Writes the real models of docs/diff.md, "The whole chain on a real model": SqueezeNet 1.1 and a
BERT-like encoder, with random weights, exported to ONNX and converted to OpenVINO IR.

    python docs/examples/make_chain_model.py [FOLDER]     # default: /tmp/irexec-chain

then, in FOLDER, ``irexec diff squeezenet.onnx squeezenet.xml --device CPU --inputs squeezenet_in.npz``.
The files are several MB: they are written where you say, not kept in the repository.

SqueezeNet 1.1 is written out here as torchvision defines it (``squeezenet1_1(weights=None)``: Fire
modules, ceil-mode max pools, a 1x1 convolution classifier and global average pooling, with
torchvision's initialisation), so that only torch is needed.  The encoder is two BERT layers
(token and position embeddings, LayerNorm, multi-head self-attention, a GELU feed-forward, residuals,
a tanh pooler), 4 heads of 32.  Both are exported with ``torch.onnx.export`` (the TorchScript
exporter, ``dynamo=False``: the dynamo exporter needs onnxscript) and converted with
``openvino.convert_model`` and ``openvino.save_model(..., compress_to_fp16=False)``: the default
compression stores the weights in f16, which is a change of the model the converter's link names.

Needs torch, onnx and openvino (``pip install -e '.[torch]'``, ``pip install -e '.[onnx]'``,
``pip install -e '.[openvino]'``).
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import torch
from torch import nn


class Fire(nn.Module):
    def __init__(self, inplanes: int, squeeze: int, expand1x1: int, expand3x3: int):
        super().__init__()
        self.squeeze = nn.Conv2d(inplanes, squeeze, kernel_size=1)
        self.expand1x1 = nn.Conv2d(squeeze, expand1x1, kernel_size=1)
        self.expand3x3 = nn.Conv2d(squeeze, expand3x3, kernel_size=3, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = torch.relu(self.squeeze(x))
        return torch.cat([torch.relu(self.expand1x1(x)), torch.relu(self.expand3x3(x))], 1)


class SqueezeNet11(nn.Module):
    """torchvision.models.squeezenet1_1(weights=None), layer for layer."""

    def __init__(self, num_classes: int = 1000):
        super().__init__()
        pool = nn.MaxPool2d(kernel_size=3, stride=2, ceil_mode=True)
        self.features = nn.Sequential(
            nn.Conv2d(3, 64, kernel_size=3, stride=2), nn.ReLU(), pool,
            Fire(64, 16, 64, 64), Fire(128, 16, 64, 64), pool,
            Fire(128, 32, 128, 128), Fire(256, 32, 128, 128), pool,
            Fire(256, 48, 192, 192), Fire(384, 48, 192, 192), Fire(384, 64, 256, 256), Fire(512, 64, 256, 256))
        final = nn.Conv2d(512, num_classes, kernel_size=1)
        self.classifier = nn.Sequential(nn.Dropout(p=0.5), final, nn.ReLU(), nn.AdaptiveAvgPool2d((1, 1)))
        for m in self.modules():  # torchvision's initialisation
            if isinstance(m, nn.Conv2d):
                if m is final:
                    nn.init.normal_(m.weight, mean=0.0, std=0.01)
                else:
                    nn.init.kaiming_uniform_(m.weight)
                if m.bias is not None:
                    nn.init.constant_(m.bias, 0)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.flatten(self.classifier(self.features(x)), 1)


class EncoderLayer(nn.Module):
    def __init__(self, hidden: int, heads: int, ffn: int):
        super().__init__()
        self.heads = heads
        self.query, self.key, self.value = nn.Linear(hidden, hidden), nn.Linear(hidden, hidden), nn.Linear(hidden, hidden)
        self.attn_out, self.ln1 = nn.Linear(hidden, hidden), nn.LayerNorm(hidden, eps=1e-12)
        self.up, self.down, self.ln2 = nn.Linear(hidden, ffn), nn.Linear(ffn, hidden), nn.LayerNorm(hidden, eps=1e-12)

    def _split(self, x: torch.Tensor) -> torch.Tensor:
        b, s, h = x.shape
        return x.reshape(b, s, self.heads, h // self.heads).transpose(1, 2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        q, k, v = self._split(self.query(x)), self._split(self.key(x)), self._split(self.value(x))
        scores = q @ k.transpose(-1, -2) / math.sqrt(q.shape[-1])
        ctx = (torch.softmax(scores, -1) @ v).transpose(1, 2).reshape(x.shape)
        x = self.ln1(x + self.attn_out(ctx))
        return self.ln2(x + self.down(nn.functional.gelu(self.up(x))))


class BertLike(nn.Module):
    def __init__(self, vocab: int = 1000, hidden: int = 128, heads: int = 4, layers: int = 2, positions: int = 64):
        super().__init__()
        self.tokens, self.positions = nn.Embedding(vocab, hidden), nn.Embedding(positions, hidden)
        self.ln = nn.LayerNorm(hidden, eps=1e-12)
        self.layers = nn.ModuleList(EncoderLayer(hidden, heads, 4 * hidden) for _ in range(layers))
        self.pooler = nn.Linear(hidden, hidden)
        for m in self.modules():  # BERT's initialisation: N(0, 0.02)
            if isinstance(m, (nn.Linear, nn.Embedding)):
                nn.init.normal_(m.weight, std=0.02)

    def forward(self, input_ids: torch.Tensor) -> torch.Tensor:
        position = torch.arange(input_ids.shape[1]).unsqueeze(0)
        x = self.ln(self.tokens(input_ids) + self.positions(position))
        for layer in self.layers:
            x = layer(x)
        return torch.tanh(self.pooler(x[:, 0]))


def write(name: str, model: nn.Module, example: torch.Tensor, input_name: str, out: Path) -> None:
    import openvino as ov

    model.eval()
    onnx_path = out / f"{name}.onnx"
    torch.onnx.export(model, (example,), str(onnx_path), input_names=[input_name], output_names=["output"],
                      opset_version=17, dynamo=False)
    ov.save_model(ov.convert_model(str(onnx_path)), str(out / f"{name}.xml"), compress_to_fp16=False)
    np.savez(out / f"{name}_in.npz", **{input_name: example.numpy()})
    print(f"wrote {onnx_path}, {out / name}.xml/.bin and {out / name}_in.npz")


def main(folder: str) -> None:
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(0)
    image = torch.randn(1, 3, 224, 224)
    write("squeezenet", SqueezeNet11(), image, "image", out)
    ids = torch.randint(0, 1000, (1, 32), generator=torch.Generator().manual_seed(1))
    write("bert", BertLike(), ids, "input_ids", out)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "/tmp/irexec-chain")
