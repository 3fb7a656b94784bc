"""Region proposals of Faster R-CNN: Proposal-1 (read as opset1) and
Proposal-4 (which also outputs the proposals' scores).

As OpenVINO's reference, in f32: anchors from base_size, ratio and scale
(Caffe rounds the ratio sizes and counts pixels inclusively; framework
"tensorflow" does neither, clips the anchors first, swaps x and y of the
grid and shifts the anchors by half the base size); each anchor at each cell
is moved by its deltas (box_coordinate_scale, box_size_scale), clipped with
clip_before_nms, and scores 0 when smaller than min_size * the image scale.
The pre_nms_topn best (a stable sort: equal scores keep their anchor order)
go through greedy NMS (a box dies when its IoU with a kept one exceeds
nms_thresh) up to post_nms_topn.  Rows are [image, x0, y0, x1, y1]
(clip_after_nms, normalize); unused rows are 0 and the first of them starts
with -1.  image_shape is [height, width, scale] or [height, width,
scale_h, scale_w].
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from ...base.shapes import DYNAMIC, Dim, PartialShape
from ..framework.base import REAL, Attr, In, Inference, Op, TensorInfo, op_error, same_as
from ..framework.registry import register

f32 = np.float32
PROBS, DELTAS, IMAGE = range(3)


class _Proposal(Op):
    family = "detection"
    inputs = (In("class_probs", REAL, rank=4), In("bbox_deltas", same_as("class_probs"), rank=4),
              In("image_shape", same_as("class_probs"), rank=1))
    attributes = {
        "base_size": Attr("uint", required=True, doc="side of the base anchor"),
        "pre_nms_topn": Attr("uint", required=True, doc="best proposals NMS looks at"),
        "post_nms_topn": Attr("uint", required=True, doc="proposals kept (rows per image)"),
        "nms_thresh": Attr("float", required=True, doc="IoU above which a proposal is suppressed"),
        "feat_stride": Attr("uint", required=True, doc="pixels between feature-map cells"),
        "min_size": Attr("uint", required=True, doc="smallest proposal side, times the image scale"),
        "ratio": Attr("floats", required=True, doc="anchor aspect ratios"),
        "scale": Attr("floats", required=True, doc="anchor scales"),
        "clip_before_nms": Attr("bool", True, doc="clip proposals to the image before NMS"),
        "clip_after_nms": Attr("bool", False, doc="clip the kept proposals to the image"),
        "normalize": Attr("bool", False, doc="divide the coordinates by the image size"),
        "box_size_scale": Attr("float", 1.0, doc="divides the size deltas"),
        "box_coordinate_scale": Attr("float", 1.0, doc="divides the centre deltas"),
        "framework": Attr("str", "", doc="'' (Caffe) or tensorflow"),
    }

    def infer(self, probs: TensorInfo, deltas: TensorInfo, image: TensorInfo) -> Inference:
        p, d, im = probs.shape, deltas.shape, image.shape
        batch = DYNAMIC
        if p.dims is not None and d.dims is not None:
            if not d[1].compatible(p[1] * 2):
                raise op_error(f"bbox_deltas {d} must have 4 values per anchor, twice the channels of class_probs {p}",
                               "incompatible-inputs", DELTAS)
            for axis, what in ((2, "height"), (3, "width")):
                if not d[axis].compatible(p[axis]):
                    raise op_error(f"bbox_deltas {d} and class_probs {p} differ in {what}", "incompatible-inputs",
                                   DELTAS)
            merged = p[0].intersect(d[0])
            if merged is None:
                raise op_error(f"class_probs {p} and bbox_deltas {d} differ in batch", "incompatible-inputs", DELTAS)
            batch = merged
        elif p.dims is not None:
            batch = p[0]
        elif d.dims is not None:
            batch = d[0]
        anchors = len(self.ratio) * len(self.scale)
        if p.dims is not None and not p[1].contains(2 * anchors):
            raise op_error(f"class_probs {p} must have 2 channels per anchor: {2 * anchors} for {len(self.ratio)} "
                           f"ratios x {len(self.scale)} scales", "incompatible-inputs", PROBS)
        if im.dims is not None and im[0].is_static and not 3 <= im[0].value <= 4:
            raise op_error(f"image_shape {im} must hold 3 or 4 values (height, width, scale(s))", "incompatible-inputs",
                           IMAGE)
        rows = batch * self.post_nms_topn
        outs = [TensorInfo(PartialShape((rows, Dim(5, 5))), probs.etype)]
        if self.outputs == 2:
            outs.append(TensorInfo(PartialShape((rows,)), probs.etype))
        return Inference(outs)

    def compute(self, plan: None, probs: np.ndarray, deltas: np.ndarray, image: np.ndarray) -> Sequence[np.ndarray]:
        n, c, h, w = probs.shape
        anchors_n = c // 2
        tf = self.framework == "tensorflow"
        offset = f32(0 if tf else 1)
        im = image.astype(np.float32).reshape(-1)
        img_h, img_w = im[0], im[1]
        scale_h = im[2]
        scale_w = im[3] if im.size > 3 else scale_h
        min_h, min_w = f32(f32(self.min_size) * scale_h), f32(f32(self.min_size) * scale_w)
        anchors = self._anchors(anchors_n)  # [4, A]: x0, y0, x1, y1 offsets
        count = anchors_n * h * w
        pre = min(count, self.pre_nms_topn)
        top = self.post_nms_topn
        rois = np.zeros((n, top, 5), np.float32)
        scores_out = np.zeros((n, top), np.float32)
        for b in range(n):
            boxes, score = self._enumerate(probs[b, anchors_n:].astype(np.float32), deltas[b].astype(np.float32),
                                           anchors, h, w, img_h, img_w, min_h, min_w, offset, tf)
            order = np.argsort(-score, kind="stable")[:pre]
            boxes, score = boxes[order], score[order]
            kept = _nms(boxes, f32(self.nms_thresh), top, offset)
            chosen = boxes[kept]
            if self.clip_after_nms:
                chosen = np.stack([np.clip(chosen[:, 0], 0, img_w), np.clip(chosen[:, 1], 0, img_h),
                                   np.clip(chosen[:, 2], 0, img_w), np.clip(chosen[:, 3], 0, img_h)], 1)
            if self.normalize:
                chosen = chosen / np.array([img_w, img_h, img_w, img_h], np.float32)
            k = len(kept)
            rois[b, :k, 0] = b
            rois[b, :k, 1:] = chosen
            scores_out[b, :k] = score[kept]
            if k < top:
                rois[b, k, 0] = -1
        outs = [rois.reshape(n * top, 5).astype(probs.dtype)]
        if self.outputs == 2:
            outs.append(scores_out.reshape(n * top).astype(probs.dtype))
        return outs

    def _anchors(self, count: int) -> np.ndarray:
        tf = self.framework == "tensorflow"
        offset = f32(0 if tf else 1)
        base = self.base_size
        area = f32(base * base)
        center = f32(f32(0.5) * f32(f32(base) - offset))
        out = []
        for r in self.ratio:
            if tf:
                rw = f32(math.sqrt(f32(area / f32(r))))
                rh = f32(rw * f32(r))
            else:
                rw = f32(_round(f32(math.sqrt(f32(area / f32(r))))))
                rh = f32(_round(f32(rw * f32(r))))
            for s in self.scale:
                sw = f32(f32(0.5) * f32(f32(rw * f32(s)) - offset))
                sh = f32(f32(0.5) * f32(f32(rh * f32(s)) - offset))
                box = [center - sw, center - sh, center + sw, center + sh]
                if tf:
                    box = [v - f32(f32(base) * f32(0.5)) for v in box]
                out.append(box)
        return np.array(out, np.float32).reshape(-1, 4)[:count].T

    def _enumerate(self, score: np.ndarray, delta: np.ndarray, anchors: np.ndarray, h: int, w: int, img_h: np.float32,
                   img_w: np.float32, min_h: np.float32, min_w: np.float32, offset: np.float32,
                   tf: bool) -> tuple[np.ndarray, np.ndarray]:
        a = anchors.shape[1]
        gy, gx = np.meshgrid(np.arange(h), np.arange(w), indexing="ij")
        sx, sy = (gy, gx) if tf else (gx, gy)
        x = (sx * self.feat_stride).astype(np.float32)[:, :, None]
        y = (sy * self.feat_stride).astype(np.float32)[:, :, None]
        d = delta.reshape(a, 4, h, w).transpose(2, 3, 0, 1)  # [h, w, a, 4]
        dx = d[..., 0] / f32(self.box_coordinate_scale)
        dy = d[..., 1] / f32(self.box_coordinate_scale)
        dw = d[..., 2] / f32(self.box_size_scale)
        dh = d[..., 3] / f32(self.box_size_scale)
        x0, y0, x1, y1 = x + anchors[0], y + anchors[1], x + anchors[2], y + anchors[3]
        if tf:
            x0, x1 = (np.clip(v, f32(0), img_w) for v in (x0, x1))
            y0, y1 = (np.clip(v, f32(0), img_h) for v in (y0, y1))
        ww, hh = x1 - x0 + offset, y1 - y0 + offset
        cx, cy = x0 + f32(0.5) * ww, y0 + f32(0.5) * hh
        pcx, pcy = dx * ww + cx, dy * hh + cy
        with np.errstate(over="ignore"):
            pw = np.exp(dw.astype(np.float64)).astype(np.float32) * ww
            ph = np.exp(dh.astype(np.float64)).astype(np.float32) * hh
        x0, y0 = pcx - f32(0.5) * pw, pcy - f32(0.5) * ph
        x1, y1 = pcx + f32(0.5) * pw, pcy + f32(0.5) * ph
        if self.clip_before_nms:
            x0, x1 = (np.maximum(f32(0), np.minimum(v, f32(img_w - offset))) for v in (x0, x1))
            y0, y1 = (np.maximum(f32(0), np.minimum(v, f32(img_h - offset))) for v in (y0, y1))
        bw, bh = x1 - x0 + offset, y1 - y0 + offset
        s = score.transpose(1, 2, 0) * ((min_w <= bw) & (min_h <= bh)).astype(np.float32)
        boxes = np.stack([x0, y0, x1, y1], -1).astype(np.float32).reshape(-1, 4)
        return boxes, s.astype(np.float32).reshape(-1)


def _round(v: np.float32) -> float:
    return math.copysign(math.floor(abs(float(v)) + 0.5), float(v))


def _nms(boxes: np.ndarray, threshold: np.float32, limit: int, offset: np.float32) -> list[int]:
    """The reference's NMS over score-ordered boxes: indices kept, at most ``limit``."""
    dead = np.zeros(len(boxes), bool)
    kept: list[int] = []
    if limit == 0:
        return kept
    x0, y0, x1, y1 = boxes.T
    area = (x1 - x0 + offset) * (y1 - y0 + offset)
    for i in range(len(boxes)):
        if dead[i]:
            continue
        kept.append(i)
        if len(kept) == limit:
            break
        t = slice(i + 1, None)
        overlap = (x0[i] <= x1[t]) & (y0[i] <= y1[t]) & (x0[t] <= x1[i]) & (y0[t] <= y1[i])
        iw = np.maximum(f32(0), np.minimum(x1[i], x1[t]) - np.maximum(x0[i], x0[t]) + offset)
        ih = np.maximum(f32(0), np.minimum(y1[i], y1[t]) - np.maximum(y0[i], y0[t]) + offset)
        inter = iw * ih
        with np.errstate(all="ignore"):
            iou = np.where(overlap, inter / (area[i] + area[t] - inter), f32(0))
        dead[t] |= threshold < iou
    return kept


@register
class Proposal1(_Proposal):
    type, version = "Proposal", 1
    since_opset = 1
    summary = "Faster R-CNN region proposals: anchors moved by deltas, NMS, post_nms_topn rows per image"


@register
class Proposal4(_Proposal):
    type, version = "Proposal", 4
    summary = "Proposal-1 that also outputs the kept proposals' scores"
    outputs = 2
