"""Col2Im-15: sliding blocks (columns) summed back into an image, the inverse of
im2col (PyTorch's fold).  data [N, C·kh·kw, L] (or without N) holds for each of
the L = Lh·Lw block positions the kh·kw values of every channel; each goes to
pixel (bh·sh - pb + ki·dh, bw·sw - pw + kj·dw) of an output [N, C, H, W], and
overlapping values add up.  Floats accumulate in f32 (f64 for f64; f16/bf16
rounded once at the end), integers wrap as in C."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...base.shapes import DYNAMIC, Dim, PartialShape
from ...kernels.windows import accumulator
from ..framework.base import INDEX, NUMERIC, Attr, In, Inference, Op, TensorInfo, op_error, same_as
from ..framework.helpers import const_ints
from ..framework.registry import register

DATA, OUTPUT_SIZE, KERNEL_SIZE = 0, 1, 2


def _blocks(size: int, kernel: int, stride: int, dilation: int, pads: int) -> int:
    return (size + pads - dilation * (kernel - 1) - 1) // stride + 1


@register
class Col2Im15(Op):
    type, version, family = "Col2Im", 15, "convolution"
    summary = "sliding blocks summed back into an image (the inverse of im2col)"
    inputs = (In("data", NUMERIC, rank=(2, 3)), In("output_size", INDEX, rank=1, value=True),
              In("kernel_size", same_as("output_size"), rank=1, value=True))
    attributes = {"strides": Attr("ints", (1, 1), required=True, doc="step between blocks (h, w)"),
                  "dilations": Attr("ints", (1, 1), required=True, doc="spacing of a block's values (h, w)"),
                  "pads_begin": Attr("ints", (0, 0), required=True, doc="padding removed at the top and left"),
                  "pads_end": Attr("ints", (0, 0), required=True, doc="padding removed at the bottom and right")}

    def validate(self) -> list:
        errors = []
        for name in ("strides", "dilations", "pads_begin", "pads_end"):
            v = getattr(self, name)
            if len(v) != 2 or min(v) < (1 if name in ("strides", "dilations") else 0):
                errors.append(op_error(f"{name} {list(v)} must hold two values "
                                       f"{'>= 1' if name in ('strides', 'dilations') else '>= 0'}", "bad-attribute"))
        return errors

    def infer(self, data: TensorInfo, output_size: TensorInfo, kernel_size: TensorInfo) -> Inference:
        for info, port, what in ((output_size, OUTPUT_SIZE, "output_size"), (kernel_size, KERNEL_SIZE, "kernel_size")):
            d = info.shape.dims
            if d is not None and not (d[0].is_static and d[0].value == 2):  # OpenVINO wants it known to be [2]
                raise op_error(f"{what} must hold 2 values, got shape {info.shape}", "bad-input-rank", port)
        size = const_ints(output_size, "output_size", OUTPUT_SIZE)
        kernel = const_ints(kernel_size, "kernel_size", KERNEL_SIZE)
        dims = data.shape.dims
        if dims is None:
            return Inference([TensorInfo(PartialShape(None), data.etype)])
        batched = len(dims) == 3
        cols, length = dims[-2], dims[-1]
        channels: Dim = DYNAMIC
        if kernel is not None:
            if min(kernel) < 1:
                raise op_error(f"kernel_size {kernel} must be positive", "bad-value", KERNEL_SIZE)
            k = kernel[0] * kernel[1]
            if cols.is_static:
                if cols.value % k:
                    raise op_error(f"data's dim {len(dims) - 2} ({cols.value}) must be a multiple of kernel_size "
                                   f"{kernel[0]}x{kernel[1]} = {k}", "incompatible-inputs", DATA)
                channels = Dim.of(cols.value // k)
        if size is not None:
            if min(size) < 0:
                raise op_error(f"output_size {size} must not be negative", "bad-value", OUTPUT_SIZE)
            if kernel is not None:
                counts = [_blocks(size[i], kernel[i], self.strides[i], self.dilations[i],
                                  self.pads_begin[i] + self.pads_end[i]) for i in (0, 1)]
                # a block count of unknown or interval size is not compared, as OpenVINO does
                if min(counts) < 1 or (length.is_static and length.value != counts[0] * counts[1]):
                    raise op_error(f"data holds {length} blocks; output_size {size}, kernel_size {kernel} and the "
                                   f"attributes give {max(counts[0], 0) * max(counts[1], 0)}", "incompatible-inputs", DATA)
        spatial = tuple(Dim.of(s) for s in size) if size is not None else (DYNAMIC, DYNAMIC)
        out = ((dims[0],) if batched else ()) + (channels, *spatial)
        plan = (tuple(size), tuple(kernel)) if size is not None and kernel is not None else None
        return Inference([TensorInfo(PartialShape(out), data.etype)], plan)

    def compute(self, plan: tuple[tuple[int, int], tuple[int, int]], data: np.ndarray, *rest: np.ndarray) -> Sequence[np.ndarray]:
        (oh, ow), (kh, kw) = plan
        (sh, sw), (dh, dw) = self.strides, self.dilations
        (pbh, pbw), (peh, pew) = self.pads_begin, self.pads_end
        batched = data.ndim == 3
        x = data if batched else data[None]
        n, c = x.shape[0], x.shape[1] // (kh * kw)
        lh = _blocks(oh, kh, sh, dh, pbh + peh)
        lw = _blocks(ow, kw, sw, dw, pbw + pew)
        acc = accumulator(data.dtype)
        blocks = x.astype(acc, copy=False).reshape(n, c, kh, kw, lh, lw)
        padded = np.zeros((n, c, oh + pbh + peh, ow + pbw + pew), acc)
        for i in range(kh):
            for j in range(kw):
                h0, w0 = i * dh, j * dw
                padded[:, :, h0:h0 + sh * (lh - 1) + 1:sh, w0:w0 + sw * (lw - 1) + 1:sw] += blocks[:, :, i, j]
        out = padded[:, :, pbh:pbh + oh, pbw:pbw + ow].astype(data.dtype)
        return [out if batched else out[0]]
