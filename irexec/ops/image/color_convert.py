"""NV12toRGB-8, NV12toBGR-8, I420toRGB-8 and I420toBGR-8: YUV 4:2:0 images
in NHWC to 3-channel RGB/BGR, from one plane [N, H*3/2, W, 1] (Y above the
chroma) or from separate planes: NV12's Y [N, H, W, 1] and interleaved UV
[N, H/2, W/2, 2], I420's Y, U [N, H/2, W/2, 1] and V.

Each pixel is OpenVINO's reference conversion (the spec's formula) in f32:
R = 1.164(Y-16) + 1.596(V-128), G = 1.164(Y-16) - 0.391(U-128) -
0.813(V-128), B = 1.164(Y-16) + 2.018(U-128), clipped to [0, 255]; u8
rounds half away from zero, float types keep the fraction."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...base.shapes import DYNAMIC, Dim, PartialShape
from ..framework.base import In, Inference, Op, TensorInfo, op_error, same_as
from ..framework.registry import register

_F = np.float32


def _yuv_to_rgb(y: np.ndarray, u: np.ndarray, v: np.ndarray, dtype: np.dtype, bgr: bool) -> np.ndarray:
    """[N, H, W, 3] from planes of one size, in OpenVINO's f32 order of operations."""
    c = y.astype(_F) - _F(16)
    d = u.astype(_F) - _F(128)
    e = v.astype(_F) - _F(128)
    yc = _F(1.164) * c
    r = yc + _F(1.596) * e
    g = yc - _F(0.391) * d - _F(0.813) * e
    b = yc + _F(2.018) * d
    out = np.stack((b, g, r) if bgr else (r, g, b), axis=-1)
    if dtype == np.uint8:
        wide = out.astype(np.float64)  # |x| + 0.5 is exact in f64: std::round, half away from zero
        return np.clip(np.copysign(np.floor(np.abs(wide) + 0.5), wide), 0, 255).astype(dtype)
    return np.clip(out, _F(0), _F(255)).astype(dtype)


def _upsample(plane: np.ndarray) -> np.ndarray:
    """A chroma plane [N, H/2, W/2] repeated to [N, H, W]."""
    return plane.repeat(2, axis=1).repeat(2, axis=2)


def _check_type(info: TensorInfo, port: int) -> None:
    if info.known_type and not (info.etype.is_real or info.etype.name == "u8"):
        raise op_error(f"a YUV plane must have element type u8 or a floating-point type, got {info.etype.name}",
                       "bad-input-type", port)


def _channels(info: TensorInfo, n: int, what: str, port: int) -> None:
    if info.shape.rank is not None and not info.shape[3].contains(n):
        raise op_error(f"{what} {info.shape} must have {n} channel{'s' if n > 1 else ''} (its last dim)",
                       "incompatible-inputs", port)


def _halves(d: Dim, what: str, shape: PartialShape) -> None:
    """The image's height or width must be even: a static odd one, or an interval without an even value, is refused."""
    if (d.is_static and d.value % 2) or (d.hi is not None and -(-d.lo // 2) > d.hi // 2):
        raise op_error(f"the image {what} {d} must be even (input {shape})", "incompatible-inputs", 0)


def _infer(planes: Sequence[TensorInfo], chroma_channels: int) -> Inference:
    y = planes[0]
    for port, info in enumerate(planes):
        _check_type(info, port)
    if y.shape.rank is None:
        dims = [DYNAMIC] * 4
    else:
        _channels(y, 1, "the Y plane", 0)
        dims = list(y.shape.dims or ())
    if len(planes) == 1:
        doubled = dims[1] * 2
        height = Dim(-(-doubled.lo // 3), None if doubled.hi is None else doubled.hi // 3)
        if height.hi is not None and height.lo > height.hi or (dims[1].is_static and dims[1].value % 3):
            raise op_error(f"the height {dims[1]} of the single-plane image must be a multiple of 3 (H * 3/2 rows)",
                           "incompatible-inputs", 0)
        dims[1] = height
    else:
        chroma = planes[1:]
        shape: list[Dim] | None = None
        for port, info in enumerate(chroma, start=1):
            _channels(info, chroma_channels, "a chroma plane" if chroma_channels == 1 else "the UV plane", port)
            if info.shape.rank is None:
                continue
            scaled = [info.shape[0], info.shape[1] * 2, info.shape[2] * 2]
            if shape is None:
                shape = scaled
                continue
            merged = [a.intersect(b) for a, b in zip(shape, scaled)]
            if any(m is None for m in merged):
                raise op_error(f"the U plane {chroma[0].shape} and the V plane {chroma[1].shape} differ",
                               "incompatible-inputs", port)
            shape = merged  # type: ignore[assignment]
        if shape is not None:
            merged = [a.intersect(b) for a, b in zip(dims[:3], shape)]
            if any(m is None for m in merged):
                raise op_error(f"the Y plane {y.shape} is not twice the height and width of the chroma "
                               f"{', '.join(str(c.shape) for c in chroma)} in one batch", "incompatible-inputs", 1)
            dims[:3] = merged  # type: ignore[assignment]
    _halves(dims[1], "height", y.shape)
    _halves(dims[2], "width", y.shape)
    etype = next((p.etype for p in planes if p.known_type), y.etype)
    return Inference([TensorInfo(PartialShape((dims[0], dims[1], dims[2], Dim(3, 3))), etype)])


class _NV12(Op):
    family = "image"
    since_opset = 8
    inputs = (In("y"), In("uv", same_as("y"), rank=4, optional=True))
    bgr = False

    def infer(self, *planes: TensorInfo) -> Inference:
        if planes[0].shape.rank not in (None, 4):
            raise op_error(f"the Y plane must have rank 4 (N, H, W, C), got {planes[0].shape}", "bad-input-rank", 0)
        return _infer(planes, 2)

    def compute(self, plan: None, y: np.ndarray, uv: np.ndarray | None = None) -> Sequence[np.ndarray]:
        if uv is None:
            h = y.shape[1] * 2 // 3
            uv = y[:, h:].reshape(y.shape[0], h // 2, y.shape[2] // 2, 2)
            y = y[:, :h]
        return [_yuv_to_rgb(y[..., 0], _upsample(uv[..., 0]), _upsample(uv[..., 1]), y.dtype, self.bgr)]


class _I420(Op):
    family = "image"
    since_opset = 8
    inputs = (In("y"), In("u", same_as("y"), rank=4, optional=True), In("v", same_as("y"), rank=4, optional=True))
    bgr = False

    def infer(self, *planes: TensorInfo) -> Inference:
        if planes[0].shape.rank not in (None, 4):
            raise op_error(f"the Y plane must have rank 4 (N, H, W, C), got {planes[0].shape}", "bad-input-rank", 0)
        if len(planes) == 2:
            raise op_error("I420 takes one plane (Y, U, V stacked) or three (Y, U, V), got two", "wrong-port-count", 1)
        return _infer(planes, 1)

    def compute(self, plan: None, y: np.ndarray, u: np.ndarray | None = None, v: np.ndarray | None = None) -> Sequence[np.ndarray]:
        if u is None or v is None:
            n, rows, w = y.shape[0], y.shape[1], y.shape[2]
            h = rows * 2 // 3
            chroma = y[:, h:].reshape(n, 2, h // 2, w // 2)  # the U plane, then the V plane
            return [_yuv_to_rgb(y[:, :h, :, 0], _upsample(chroma[:, 0]), _upsample(chroma[:, 1]), y.dtype, self.bgr)]
        return [_yuv_to_rgb(y[..., 0], _upsample(u[..., 0]), _upsample(v[..., 0]), y.dtype, self.bgr)]


@register
class NV12toRGB8(_NV12):
    type, version = "NV12toRGB", 8
    summary = "NV12 (Y plane, interleaved UV plane) to RGB, NHWC"


@register
class NV12toBGR8(_NV12):
    type, version = "NV12toBGR", 8
    summary = "NV12 (Y plane, interleaved UV plane) to BGR, NHWC"
    bgr = True


@register
class I420toRGB8(_I420):
    type, version = "I420toRGB", 8
    summary = "I420 (Y, U and V planes) to RGB, NHWC"


@register
class I420toBGR8(_I420):
    type, version = "I420toBGR", 8
    summary = "I420 (Y, U and V planes) to BGR, NHWC"
    bgr = True
