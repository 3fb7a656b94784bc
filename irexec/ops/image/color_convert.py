"""NV12toRGB-8, NV12toBGR-8, I420toRGB-8 and I420toBGR-8: YUV 4:2:0 images
in NHWC to 3-channel RGB/BGR, from one plane [N, H*3/2, W, 1] (Y above the
chroma) or from separate planes: NV12's Y [N, H, W, 1] and interleaved UV
[N, H/2, W/2, 2], I420's Y, U [N, H/2, W/2, 1] and V.  RGBtoNV12-17 and
BGRtoNV12-17 go the other way (see their classes).

Each pixel is OpenVINO's reference conversion (the spec's formula) in f32:
R = 1.164(Y-16) + 1.596(V-128), G = 1.164(Y-16) - 0.391(U-128) -
0.813(V-128), B = 1.164(Y-16) + 2.018(U-128), clipped to [0, 255]; u8
rounds half away from zero, float types keep the fraction."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...base.shapes import DYNAMIC, Dim, PartialShape
from ..framework.base import Attr, In, Inference, Op, TensorInfo, op_error, same_as
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
    return _clip_to(np.stack((b, g, r) if bgr else (r, g, b), axis=-1), dtype)


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


def _half(d: Dim) -> Dim:
    """``d / 2`` as OpenVINO divides a dimension: the bounds rounded inwards."""
    return Dim(-(-d.lo // 2), None if d.hi is None else d.hi // 2)


class _ToNV12(Op):
    """RGB or BGR [N, H, W, 3] to NV12, as one plane [N, H*3/2, W, 1] or as Y [N, H, W, 1]
    and interleaved UV [N, H/2, W/2, 2].  Each pixel's Y, U and V are OpenVINO's reference
    formula in f32, clipped to [0, 255] (u8: rounded half away from zero first); a 2x2
    block's U and V are the mean of its four pixels' (after that rounding)."""

    family = "image"
    since_opset = 17
    inputs = (In("image", rank=4),)
    attributes = {"single_plane": Attr("bool", True, doc="one plane [N, H*3/2, W, 1] (else Y and UV planes)")}
    bgr = False

    def num_outputs(self, n_inputs: int) -> int:
        return 1 if self.single_plane else 2

    def infer(self, image: TensorInfo) -> Inference:
        et = image.etype
        if image.known_type and not (et.name == "u8" or et.is_real and et.bits > 8):
            raise op_error(f"the image must have element type u8 or a floating-point type of 16 bits or more, got {et.name}",
                           "bad-input-type", 0)
        if image.shape.rank is None:
            n = h = w = DYNAMIC
        else:
            n, h, w, c = image.shape.dims or ()
            if not c.contains(3):
                raise op_error(f"the image {image.shape} must have 3 channels (its last dim)", "incompatible-inputs", 0)
            _halves(h, "height", image.shape)
            _halves(w, "width", image.shape)
        if self.single_plane:
            rows = Dim(-(-3 * h.lo // 2), None if h.hi is None else 3 * h.hi // 2) if image.shape.rank is not None else DYNAMIC
            return Inference([TensorInfo(PartialShape((n, rows, w, Dim(1, 1))), et)])
        y = PartialShape((n, h, w, Dim(1, 1)))
        uv = PartialShape((n, _half(h), _half(w), Dim(2, 2))) if image.shape.rank is not None else \
            PartialShape((DYNAMIC, DYNAMIC, DYNAMIC, Dim(2, 2)))
        return Inference([TensorInfo(y, et), TensorInfo(uv, et)])

    def compute(self, plan: None, image: np.ndarray) -> Sequence[np.ndarray]:
        dtype = image.dtype
        x = image.astype(_F)
        r, g, b = x[..., 2 if self.bgr else 0], x[..., 1], x[..., 0 if self.bgr else 2]
        y = _clip_to(((_F(0.257) * r + _F(0.504) * g) + _F(0.098) * b) + _F(16), dtype)
        u = _clip_to(((_F(-0.148) * r - _F(0.291) * g) + _F(0.439) * b) + _F(128), dtype).astype(_F)
        v = _clip_to(((_F(0.439) * r - _F(0.368) * g) - _F(0.071) * b) + _F(128), dtype).astype(_F)
        n, h, w = y.shape
        # the four pixels of each 2x2 block summed in OpenVINO's order: row by row, left to right
        def block_mean(p: np.ndarray) -> np.ndarray:
            q = p.reshape(n, h // 2, 2, w // 2, 2)
            total = ((q[:, :, 0, :, 0] + q[:, :, 0, :, 1]) + q[:, :, 1, :, 0]) + q[:, :, 1, :, 1]
            return _round_to(total / _F(4), dtype)
        uv = np.stack((block_mean(u), block_mean(v)), axis=-1)  # [N, H/2, W/2, 2]
        if not self.single_plane:
            return [y[..., None], uv]
        return [np.concatenate((y, uv.reshape(n, h // 2, w)), axis=1)[..., None]]


def _round_to(x: np.ndarray, dtype: np.dtype) -> np.ndarray:
    if dtype == np.uint8:
        wide = x.astype(np.float64)  # std::round: half away from zero (the values are >= 0)
        return np.floor(wide + 0.5).astype(dtype)
    return x.astype(dtype)


def _clip_to(x: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """``x`` clipped to [0, 255] in ``dtype``; u8 rounded half away from zero first (std::round)."""
    if dtype == np.uint8:
        wide = x.astype(np.float64)  # |x| + 0.5 is exact in f64
        return np.clip(np.copysign(np.floor(np.abs(wide) + 0.5), wide), 0, 255).astype(dtype)
    return np.clip(x, _F(0), _F(255)).astype(dtype)


@register
class RGBtoNV1217(_ToNV12):
    type, version = "RGBtoNV12", 17
    summary = "RGB to NV12 (one plane, or Y and interleaved UV planes), NHWC"


@register
class BGRtoNV1217(_ToNV12):
    type, version = "BGRtoNV12", 17
    summary = "BGR to NV12 (one plane, or Y and interleaved UV planes), NHWC"
    bgr = True
