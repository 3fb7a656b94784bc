"""Detection post-processing: NonMaxSuppression-5 and -9; ROIAlign-3 and -9.

Boxes and scores are computed in f32, as OpenVINO's reference does (f16/bf16
inputs are widened); IoU uses the reference's f32 formula, so which boxes
survive is exact.  Corner boxes may give any two opposite corners; center
boxes are [x_center, y_center, width, height].

Selection is greedy per (batch, class): each step picks the highest current
score (ties: the lower box index), then every remaining candidate's IoU with
it is computed at once.  As the specs say, a candidate whose IoU exceeds
iou_threshold is removed (OpenVINO's NMS-5 reference already removes it at
equality); with soft-NMS (sigma > 0) scores decay by exp(-0.5 IoU^2 / sigma)
instead, and NMS-5 still removes boxes above the threshold (weight 0), NMS-9
does not.  As the specs say (OpenVINO's reference uses >), a box stays a
candidate while its score is >= score_threshold.  Outputs hold exactly the selected boxes:
selected_indices [n, 3] (batch, class, box), selected_scores [n, 3] f32
(batch, class, score) and valid_outputs [1] = n.  With
sort_result_descending they are ordered by score across batches and classes
(ties: batch, class, box), otherwise by batch, then class, then selection.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

import numpy as np

from ...base import dtypes, limits
from ...base.shapes import DYNAMIC, Dim, PartialShape
from ..framework.base import INDEX, INTEGRAL, REAL, Attr, Enum, In, IndexType, Inference, Op, TensorInfo, op_error, same_as
from ..framework.registry import register

BOXES, SCORES, MAX_OUT, IOU, SCORE_T, SIGMA = range(6)
_F32 = dtypes.get("f32")


def _scalar(info: TensorInfo | None, what: str, port: int) -> float | int | None:
    """The value of an optional scalar-or-one-element input; None if unknown."""
    if info is None:
        return None
    v = info.value()
    if v is None:
        return None
    flat = np.asarray(v).reshape(-1)
    return flat[0].item() if flat.size == 1 else None


def check_boxes_scores(b: PartialShape, s: PartialShape, limit_input: TensorInfo | None) -> int | None:
    """Refuse boxes and scores that do not go together, or a negative
    max_output_boxes_per_class; its value, when known."""
    if b.rank is not None and not b[2].contains(4):
        raise op_error(f"the last dim of boxes must be 4, got shape {b}", "incompatible-inputs", BOXES)
    if b.rank is not None and s.rank is not None:
        if not b[0].compatible(s[0]):
            raise op_error(f"boxes {b} and scores {s} must have the same batch (first) dim", "incompatible-inputs",
                           SCORES)
        if not b[1].compatible(s[2]):
            raise op_error(f"boxes {b} and scores {s} must have the same number of boxes (boxes dim 1, scores "
                           f"dim 2)", "incompatible-inputs", SCORES)
    limit = _scalar(limit_input, "max_output_boxes_per_class", MAX_OUT)
    if limit is not None and limit < 0:
        raise op_error(f"max_output_boxes_per_class {limit} must not be negative", "bad-value", MAX_OUT)
    return None if limit is None else int(limit)


def thresholds(infos: Sequence[TensorInfo | None]) -> list[float] | None:
    """The values of the threshold inputs (0 when absent); None while one is unknown."""
    values = [_scalar(info, "", 0) for info in infos]
    if any(v is None and info is not None for v, info in zip(values, infos)):
        return None
    return [0.0 if v is None else float(v) for v in values]


class _NMS(Op):
    family = "detection"
    inputs: ClassVar[tuple[In, ...]] = (In("boxes", REAL, rank=3), In("scores", REAL, rank=3),
                                        In("max_output_boxes_per_class", INTEGRAL, rank=(0, 1), elements=1, optional=True, value=True),
                                        In("iou_threshold", REAL, rank=(0, 1), elements=1, optional=True, value=True),
                                        In("score_threshold", REAL, rank=(0, 1), elements=1, optional=True, value=True),
                                        In("soft_nms_sigma", REAL, rank=(0, 1), elements=1, optional=True, value=True))
    outputs = 3
    attributes = {
        "box_encoding": Enum("corner", "center", doc="[y1,x1,y2,x2] corners or [xc,yc,w,h]"),
        "sort_result_descending": Attr("bool", True, doc="order all selected boxes by score across batches and classes"),
        "output_type": IndexType(doc="i32 or i64: selected_indices and valid_outputs"),
    }
    soft_cut = True  # NMS-5: soft-NMS weights are 0 above iou_threshold

    def infer(self, boxes: TensorInfo, scores: TensorInfo, *rest: TensorInfo) -> Inference:
        extra: list[TensorInfo | None] = [*rest, *([None] * (4 - len(rest)))]
        b, s = boxes.shape, scores.shape
        limit = check_boxes_scores(b, s, extra[0])
        # As OpenVINO infers it: at most min(boxes dim 1, limit) boxes per batch (scores dim 0) and
        # class (scores dim 1), from upper bounds; unknown unless the count per class is bounded.
        count = DYNAMIC
        if limit is not None and b.rank is not None and s.rank is not None and b[1].hi is not None:
            per_class = min(b[1].hi, limit)
            if per_class == 0:
                count = Dim(0, 0)
            elif s[0].hi is not None and s[1].hi is not None:
                count = Dim(0, int(per_class * s[0].hi * s[1].hi))
        if extra[0] is None:
            limit = 0  # the spec's default: no boxes
        outs = [TensorInfo(PartialShape((count, Dim(3, 3))), self.output_type),
                TensorInfo(PartialShape((count, Dim(3, 3))), _F32),
                TensorInfo(PartialShape((Dim(1, 1),)), self.output_type)]
        plan = None
        values = thresholds(extra[1:4])
        if limit is not None and values is not None:
            iou, score_t, sigma = values
            plan = (int(limit), np.float32(iou), np.float32(score_t), np.float32(sigma))
        return Inference(outs, plan)

    def compute(self, plan: tuple, boxes: np.ndarray, scores: np.ndarray, *rest: np.ndarray) -> Sequence[np.ndarray]:
        batch_idx, class_idx, box_idx, sel_scores = self.select(plan, boxes, scores)
        total = len(box_idx)
        it = self.output_type.dtype
        indices = np.stack([batch_idx, class_idx, box_idx], axis=1).astype(it).reshape(total, 3)
        out_scores = np.stack([batch_idx.astype(np.float32), class_idx.astype(np.float32), sel_scores.astype(np.float32)],
                              axis=1).reshape(total, 3)
        return [indices, out_scores, np.array([total], it)]

    def select(self, plan: tuple, boxes: np.ndarray, scores: np.ndarray) -> tuple[np.ndarray, ...]:
        """The selected boxes in output order: batch, class and box indices, and scores."""
        limit, iou_t, score_t, sigma = plan[:4]
        corners = _corners(boxes.astype(np.float32), self.box_encoding)
        sc = scores.astype(np.float32)
        found: list[tuple[np.ndarray, np.ndarray]] = []  # (box indices, their scores) per (batch, class)
        n_batch, n_class = sc.shape[:2]
        for bi in range(n_batch):
            # the classes of a batch share its boxes: their pairwise IoU once, while it stays small
            table = _iou_table(corners[bi]) if corners.shape[1] <= _IOU_TABLE_BOXES and n_class > 1 and limit else None
            for ci in range(n_class):
                found.append(self._select(corners[bi], table, sc[bi, ci], limit, iou_t, score_t, sigma))
        counts = [len(f[0]) for f in found]
        total = sum(counts)
        # the selection decides the outputs' size: held to the memory limit
        # (with the index, score and sort arrays they are built from) first
        limits.require(total * 136, f"NonMaxSuppression's {total} selected boxes")
        batch_idx = np.repeat(np.repeat(np.arange(n_batch), n_class), counts)
        class_idx = np.repeat(np.tile(np.arange(n_class), n_batch), counts)
        box_idx = np.concatenate([f[0] for f in found]) if found else np.zeros(0, np.int64)
        sel_scores = np.concatenate([f[1] for f in found]) if found else np.zeros(0, np.float32)
        if self.sort_result_descending and total:
            order = np.lexsort((box_idx, class_idx, batch_idx, -sel_scores.astype(np.float64)))
            batch_idx, class_idx, box_idx, sel_scores = batch_idx[order], class_idx[order], box_idx[order], sel_scores[order]
        return batch_idx, class_idx, box_idx, sel_scores

    def _select(self, box: np.ndarray, table: np.ndarray | None, score: np.ndarray, limit: int, iou_t: np.float32,
                score_t: np.float32, sigma: np.float32) -> tuple[np.ndarray, np.ndarray]:
        """Greedy selection for one (batch, class): box indices and scores."""
        alive = np.flatnonzero(score >= score_t)
        current = score[alive].copy()
        chosen: list[int] = []
        kept: list[np.float32] = []
        soft = sigma > 0
        scale = np.float32(-0.5) / sigma if soft else np.float32(0)
        with np.errstate(all="ignore"):
            while len(alive) and len(chosen) < limit:
                top = int(np.argmax(current))  # first maximum: the lowest box index among equal scores
                if current[top] < score_t:
                    break
                chosen.append(int(alive[top]))
                kept.append(current[top])
                rest = np.ones(len(alive), bool)
                rest[top] = False
                alive, current = alive[rest], current[rest]
                if not len(alive):
                    break
                iou = table[chosen[-1], alive] if table is not None else _iou(box[chosen[-1]], box[alive])
                # hard NMS, and NMS-5's soft-NMS (its weight is 0 there): gone above the threshold
                hard = iou > iou_t if (not soft or self.soft_cut) else np.zeros(len(alive), bool)
                if soft:
                    # exp correctly rounded to f32 (through f64), then one f32 product
                    weight = np.exp((scale * iou * iou).astype(np.float64)).astype(np.float32)
                    current = (current * weight).astype(np.float32)
                keep = ~hard & (current >= score_t)
                alive, current = alive[keep], current[keep]
        return np.array(chosen, np.int64), np.array(kept, np.float32)


# Up to this many boxes per batch, the pairwise IoU table (4 bytes per pair) is built once.
_IOU_TABLE_BOXES = 4096


def _iou_table(box: np.ndarray) -> np.ndarray:
    """IoU of every pair of boxes, each entry as ``_iou`` computes it."""
    area = (box[:, 2] - box[:, 0]) * (box[:, 3] - box[:, 1])
    ih = np.maximum(np.minimum(box[:, None, 2], box[None, :, 2]) - np.maximum(box[:, None, 0], box[None, :, 0]),
                    np.float32(0))
    iw = np.maximum(np.minimum(box[:, None, 3], box[None, :, 3]) - np.maximum(box[:, None, 1], box[None, :, 1]),
                    np.float32(0))
    inter = ih * iw
    with np.errstate(all="ignore"):
        iou = inter / (area[:, None] + area[None, :] - inter)
    return np.where((area[:, None] <= 0) | (area[None, :] <= 0), np.float32(0), iou).astype(np.float32)


def _corners(boxes: np.ndarray, encoding: str) -> np.ndarray:
    """[..., 4] boxes as [y1, x1, y2, x2] with y1 <= y2 and x1 <= x2, in f32."""
    if encoding == "center":
        xc, yc, w, h = (boxes[..., i] for i in range(4))
        half_w, half_h = w / np.float32(2), h / np.float32(2)
        return np.stack([yc - half_h, xc - half_w, yc + half_h, xc + half_w], axis=-1)
    y1, x1, y2, x2 = (boxes[..., i] for i in range(4))
    return np.stack([np.minimum(y1, y2), np.minimum(x1, x2), np.maximum(y1, y2), np.maximum(x1, x2)], axis=-1)


def _iou(a: np.ndarray, others: np.ndarray) -> np.ndarray:
    """IoU of box ``a`` with each row of ``others`` in f32, as the reference
    computes it (0 when either area is not positive)."""
    area_a = (a[2] - a[0]) * (a[3] - a[1])
    area_o = (others[:, 2] - others[:, 0]) * (others[:, 3] - others[:, 1])
    ih = np.maximum(np.minimum(a[2], others[:, 2]) - np.maximum(a[0], others[:, 0]), np.float32(0))
    iw = np.maximum(np.minimum(a[3], others[:, 3]) - np.maximum(a[1], others[:, 1]), np.float32(0))
    inter = ih * iw
    iou = inter / (area_a + area_o - inter)
    return np.where((area_a <= 0) | (area_o <= 0), np.float32(0), iou).astype(np.float32)


@register
class NonMaxSuppression5(_NMS):
    type, version = "NonMaxSuppression", 5
    summary = "greedy (soft-)NMS per batch and class; soft-NMS also drops boxes above iou_threshold"
    soft_cut = True


@register
class NonMaxSuppression9(_NMS):
    type, version = "NonMaxSuppression", 9
    summary = "greedy (soft-)NMS per batch and class; soft-NMS only decays scores"
    soft_cut = False


ROI_DATA, ROIS, BATCH_INDICES = 0, 1, 2


class _ROIAlign(Op):
    """Bilinear samples on a regular grid in each output bin of each ROI,
    averaged or maxed.  As OpenVINO's reference: a sample more than one pixel
    outside the map contributes 0 (and counts in the average); coordinates
    are clamped to the map; sampling_ratio 0 takes ceil(bin size) samples per
    bin and axis.  As the spec says, max mode is the maximum of the samples
    (OpenVINO's reference starts its maximum at 0).  Computed in f64, one
    rounding to the element type."""

    family = "detection"
    inputs = (In("data", REAL, rank=4), In("rois", same_as("data"), rank=2),
              In("batch_indices", INDEX, rank=1, value=True))
    base_attributes = {
        "pooled_h": Attr("int", required=True, doc="output bins along y, > 0"),
        "pooled_w": Attr("int", required=True, doc="output bins along x, > 0"),
        "sampling_ratio": Attr("int", required=True, doc="samples per bin and axis; 0: ceil(bin size)"),
        "spatial_scale": Attr("float", required=True, doc="multiplies the ROI coordinates, > 0"),
        "mode": Enum("avg", "max", doc="pooling of the samples of a bin"),
    }
    attributes = base_attributes

    def validate(self) -> list:
        return roi_bin_errors(self)

    def infer(self, data: TensorInfo, rois: TensorInfo, indices: TensorInfo) -> Inference:
        d, r, b = data.shape, rois.shape, indices.shape
        if r.rank is not None and not r[1].contains(4):
            raise op_error(f"rois must be [NUM_ROIS, 4] (x1, y1, x2, y2), got shape {r}", "incompatible-inputs", ROIS)
        n = r[0] if r.rank is not None else DYNAMIC
        if b.rank is not None:
            merged = n.intersect(b[0])
            if merged is None:
                raise op_error(f"rois {r} and batch_indices {b} must have the same first dim", "incompatible-inputs",
                               BATCH_INDICES)
            n = merged
        v = indices.value()
        if v is not None and d.rank is not None and d[0].hi is not None and v.size:
            bad = (v < 0) | (v >= d[0].hi)
            if bad.any():
                k = int(np.flatnonzero(bad.reshape(-1))[0])
                raise op_error(f"batch_indices[{k}] = {int(v.reshape(-1)[k])} is outside [0, {d[0].hi - 1}] "
                               f"(data shape {d})", "bad-value", BATCH_INDICES)
        channels = d[1] if d.rank is not None else DYNAMIC
        out = PartialShape((n, channels, Dim(self.pooled_h, self.pooled_h), Dim(self.pooled_w, self.pooled_w)))
        return Inference([TensorInfo(out, data.etype)])

    def offsets(self) -> tuple[float, float, bool]:
        """(added before scaling, added after, whether ROI sizes are at least 1)."""
        return 0.0, 0.0, True

    def fold_work(self, inputs: Sequence[TensorInfo], inference: Inference) -> int | None:
        """sampling_ratio sizes the sample grids (and 0 lets the ROI values
        size them): never estimated from the shapes alone beyond a fixed ratio."""
        base = super().fold_work(inputs, inference)
        if base is None or self.sampling_ratio <= 0:
            return None
        n, c, h, w = inputs[0].shape.to_tuple()
        r = inputs[1].shape.to_tuple()[0]
        samples = r * (self.pooled_h + self.pooled_w) * self.sampling_ratio
        return base + samples * (c + h + w) + r * self.pooled_h * self.pooled_w * self.sampling_ratio ** 2 * c

    def compute(self, plan: None, data: np.ndarray, rois: np.ndarray, indices: np.ndarray) -> Sequence[np.ndarray]:
        n, c, h, w = data.shape
        r = rois.shape[0]
        ph, pw = self.pooled_h, self.pooled_w
        out = np.zeros((r, c, ph, pw), np.float64)
        if r == 0:
            return [out.astype(data.dtype)]
        bad = (indices < 0) | (indices >= n)
        if bad.any():
            k = int(np.flatnonzero(bad)[0])
            raise op_error(f"batch_indices[{k}] = {int(indices[k])} is outside [0, {n - 1}]", "bad-value", BATCH_INDICES)
        if c == 0 or h == 0 or w == 0:
            return [out.astype(data.dtype)]
        before, after, at_least_one = self.offsets()
        box = (rois.astype(np.float64) + before) * float(self.spatial_scale) + after
        x1, y1 = box[:, 0], box[:, 1]
        width, height = box[:, 2] - x1, box[:, 3] - y1
        if at_least_one:
            width, height = np.maximum(width, 1.0), np.maximum(height, 1.0)
        bin_w, bin_h = width / pw, height / ph
        if self.sampling_ratio > 0:
            sx = np.full(r, self.sampling_ratio)
            sy = sx
        else:
            sx, sy = np.ceil(bin_w).astype(np.int64), np.ceil(bin_h).astype(np.int64)
        avg = self.mode == "avg"
        # sampling_ratio sizes the sample grids: held to the memory limit before any is made
        most_y, most_x = int(sy.max()), int(sx.max())
        if avg:
            limits.require(8 * r * (ph * h + pw * w) + 8 * 6 * r * (ph * most_y + pw * most_x),
                           f"ROIAlign's sample grids ({most_y}x{most_x} samples per bin)")
        else:
            limits.require(data.size * 8 + 8 * 4 * r * ph * most_y * pw * most_x * c + 8 * 6 * r * (ph * most_y + pw * most_x),
                           f"ROIAlign's samples ({most_y}x{most_x} per bin, {c} channels)")
        if avg:
            # The average of bilinear samples on a separable grid is separable: out[r] = Wy[r] @ map @ Wx[r]^T
            # with Wy [PH, H] and Wx [PW, W] the per-row and per-column sample weights (invalid samples weigh 0).
            wy_all, wx_all = np.zeros((r, ph, h)), np.zeros((r, pw, w))
        else:
            feat = np.ascontiguousarray(data.transpose(0, 2, 3, 1), np.float64)  # NHWC: a sample's channels together
        # ROIs grouped by their sample counts: one vectorised pass per group
        keys = sx * (int(sy.max()) + 1) + sy
        for key in np.unique(keys).tolist():
            sel = np.flatnonzero(keys == key)
            nx, ny = int(sx[sel[0]]), int(sy[sel[0]])
            if nx == 0 or ny == 0:
                continue  # no samples: the bin stays 0
            ys = (y1[sel, None, None] + np.arange(ph)[None, :, None] * bin_h[sel, None, None]
                  + (bin_h[sel] / ny)[:, None, None] * (np.arange(ny)[None, None, :] + 0.5))  # [R, PH, NY]
            xs = (x1[sel, None, None] + np.arange(pw)[None, :, None] * bin_w[sel, None, None]
                  + (bin_w[sel] / nx)[:, None, None] * (np.arange(nx)[None, None, :] + 0.5))  # [R, PW, NX]
            vy, yl, yh, ly = _axis_samples(ys, h)
            vx, xl, xh, lx = _axis_samples(xs, w)
            if avg:
                _accumulate(wy_all, sel, yl, yh, ly, vy, ny)
                _accumulate(wx_all, sel, xl, xh, lx, vx, nx)
                continue
            b = indices[sel].astype(np.int64)[:, None, None, None, None]
            shape6 = (slice(None), slice(None), slice(None), None, None)  # [R, PH, NY] -> [R, PH, NY, 1, 1]
            shape6x = (slice(None), None, None, slice(None), slice(None))  # [R, PW, NX] -> [R, 1, 1, PW, NX]
            value = np.zeros((len(sel), ph, ny, pw, nx, c))
            for yi, wy in ((yl, 1.0 - ly), (yh, ly)):
                for xi, wx in ((xl, 1.0 - lx), (xh, lx)):
                    weight = (wy[shape6] * wx[shape6x] * (vy[shape6] & vx[shape6x]))[..., None]
                    value += weight * feat[b, yi[shape6], xi[shape6x]]
            out[sel] = value.max(axis=(2, 4)).transpose(0, 3, 1, 2)  # [R, PH, PW, C] -> [R, C, PH, PW]
        if avg:
            for batch in np.unique(indices).tolist():
                rows = np.flatnonzero(indices == batch)
                fmap = data[batch].astype(np.float64).transpose(1, 0, 2).reshape(h, c * w)  # [H, C*W]
                t = (wy_all[rows].reshape(-1, h) @ fmap).reshape(len(rows), ph * c, w)  # one GEMM over the rows
                pooled = t @ np.ascontiguousarray(wx_all[rows].transpose(0, 2, 1))  # [R, PH*C, PW] (BLAS needs contiguous)
                out[rows] = pooled.reshape(len(rows), ph, c, pw).transpose(0, 2, 1, 3)
        return [out.astype(data.dtype)]


def _accumulate(weights: np.ndarray, rois: np.ndarray, low: np.ndarray, high: np.ndarray, frac: np.ndarray,
                valid: np.ndarray, count: int) -> None:
    """Add each sample's two bilinear weights (divided by the samples per
    axis) to weights[roi, bin, pixel]; samples outside the map add nothing."""
    r_idx = np.broadcast_to(rois[:, None, None], low.shape)
    b_idx = np.broadcast_to(np.arange(low.shape[1])[None, :, None], low.shape)
    scale = valid / count
    np.add.at(weights, (r_idx, b_idx, low), (1.0 - frac) * scale)
    np.add.at(weights, (r_idx, b_idx, high), frac * scale)


def _axis_samples(pos: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Along one axis of ``size`` pixels: whether each sample is inside
    [-1, size], its low and high pixel and the weight of the high one."""
    valid = (pos >= -1.0) & (pos <= size)
    p = np.maximum(pos, 0.0)
    low = np.minimum(np.floor(p), size - 1).astype(np.int64)
    at_edge = low >= size - 1
    high = np.where(at_edge, low, low + 1)
    p = np.where(at_edge, low, p)
    frac = np.where(valid, p - low, 0.0)
    return valid, np.where(valid, low, 0), np.where(valid, high, 0), frac


@register
class ROIAlign3(_ROIAlign):
    type, version = "ROIAlign", 3
    summary = "bilinear-sampled average or maximum over bins of each ROI"


@register
class ROIAlign9(_ROIAlign):
    type, version = "ROIAlign", 9
    summary = "ROIAlign-3 with aligned_mode (asymmetric, half_pixel_for_nn, half_pixel)"
    attributes = {**_ROIAlign.base_attributes,
                  "aligned_mode": Enum("asymmetric", "half_pixel_for_nn", "half_pixel",
                                       doc="pixel-centre convention of the ROI coordinates")}

    def offsets(self) -> tuple[float, float, bool]:
        if self.aligned_mode == "half_pixel_for_nn":
            return 0.0, -0.5, False
        if self.aligned_mode == "half_pixel":
            return 0.5, -0.5, False
        return 0.0, 0.0, True


def roi_bin_errors(op: Op) -> list:
    """The checks of the attributes every ROIAlign-like op shares: bins, samples per bin, scale."""
    errors = []
    for name in ("pooled_h", "pooled_w"):
        if getattr(op, name) <= 0:
            errors.append(op_error(f"{name}={getattr(op, name)} must be positive", "bad-attribute"))
    if op.sampling_ratio < 0:
        errors.append(op_error(f"sampling_ratio={op.sampling_ratio} must not be negative", "bad-attribute"))
    if not op.spatial_scale > 0:
        errors.append(op_error(f"spatial_scale={op.spatial_scale} must be positive", "bad-attribute"))
    return errors
