"""SSD post-processing: DetectionOutput-1 and DetectionOutput-8 (which takes
the number of classes from the input shapes).

As OpenVINO's reference, in f32 (f16/bf16 inputs are widened, the output
rounded back): priors (with variances, or variance_encoded_in_target) decode
the box logits, CORNER or CENTER_SIZE; with five inputs (RefineDet) the ARM
box predictions decode the priors first and priors whose ARM objectness is
below objectness_score score 1 for the background and 0 elsewhere.  Caffe
style NMS runs per class (candidates scoring above confidence_threshold,
best top_k, a box kept while its IoU with every kept box is <= nms_threshold);
MXNet style (decrease_label_id) gives each prior its best class first.
keep_top_k[0] keeps the best detections of each image.  The output
[1, 1, N, 7] holds [image, label, score, xmin, ymin, xmax, ymax] rows, per
image by label then score; the row after the last detection starts with -1
and the rest are 0.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...base.shapes import DYNAMIC, Dim, PartialShape
from ..framework.base import REAL, Attr, Enum, In, Inference, Op, TensorInfo, op_error, same_as
from ..framework.registry import register

f32 = np.float32
CORNER, CENTER = "caffe.priorboxparameter.corner", "caffe.priorboxparameter.center_size"
LOC, CONF, PRIORS, ARM_CONF, ARM_LOC = range(5)


class _DetectionOutput(Op):
    family = "detection"
    inputs = (In("box_logits", REAL, rank=2), In("class_preds", same_as("box_logits"), rank=2),
              In("proposals", REAL, rank=3), In("aux_class_preds", same_as("box_logits"), rank=2, optional=True),
              In("aux_box_preds", same_as("box_logits"), rank=2, optional=True))
    base_attributes = {
        "background_label_id": Attr("int", 0, doc="the background class (-1: none)"),
        "top_k": Attr("int", -1, doc="candidates per class before NMS (-1: all)"),
        "variance_encoded_in_target": Attr("bool", False, doc="the logits already hold the variances"),
        "keep_top_k": Attr("ints", required=True, doc="detections kept per image (the first value; -1: all)"),
        "code_type": Enum(CORNER, CENTER, doc="box encoding of the logits"),
        "share_location": Attr("bool", True, doc="one box per prior for every class"),
        "nms_threshold": Attr("float", required=True, doc="IoU above which a box is suppressed"),
        "confidence_threshold": Attr("float", 0.0, doc="scores at or below it are no candidates"),
        "clip_after_nms": Attr("bool", False, doc="clip output boxes to [0, 1]"),
        "clip_before_nms": Attr("bool", False, doc="clip decoded boxes to [0, 1]"),
        "decrease_label_id": Attr("bool", False, doc="MXNet style: one class per prior, labels minus 1"),
        "normalized": Attr("bool", False, doc="priors in [0, 1] (else 5 values per prior in pixels)"),
        "input_height": Attr("uint", 1, doc="image height for unnormalised priors"),
        "input_width": Attr("uint", 1, doc="image width for unnormalised priors"),
        "objectness_score": Attr("float", 0.0, doc="ARM objectness below which a prior is background"),
    }
    attributes = base_attributes

    def attribute_classes(self) -> int:
        return -1  # DetectionOutput-8: from the shapes

    def validate(self) -> list:
        errors = []
        if not self.keep_top_k:
            errors.append(op_error("keep_top_k must hold a value", "bad-attribute"))
        if self.attribute_classes() == 0 or self.attribute_classes() < -1:
            errors.append(op_error(f"num_classes={self.attribute_classes()} must be positive", "bad-attribute"))
        return errors

    def infer(self, loc: TensorInfo, conf: TensorInfo, priors: TensorInfo, *aux: TensorInfo) -> Inference:
        if len(aux) == 1:
            raise op_error("DetectionOutput takes 3 or 5 inputs, got 4", "incompatible-inputs", ARM_CONF)
        classes, n_priors = self.attribute_classes(), 0
        if classes == -1:
            classes, n_priors = self._classes_from_shapes(loc, conf, priors, aux)
        loc_classes = 1 if self.share_location else classes
        size = 4 if self.normalized else 5
        images, images_set = DYNAMIC, False
        b, c, p = loc.shape, conf.shape, priors.shape
        if b.dims is not None:
            images, images_set = b[0], True
            if not n_priors and b[1].is_static:
                if not loc_classes or b[1].value % (loc_classes * 4):
                    raise op_error(f"box_logits {b}: dim 1 must be a multiple of {loc_classes * 4} "
                                   "(4 per location class)", "incompatible-inputs", LOC)
                n_priors = b[1].value // (loc_classes * 4)
            if n_priors and loc_classes and not b[1].contains(n_priors * loc_classes * 4):
                raise op_error(f"box_logits {b}: dim 1 must be {n_priors * loc_classes * 4}", "incompatible-inputs", LOC)
        if c.dims is not None:
            if (not images_set or not images.is_static) and c[0].is_static:
                images, images_set = c[0], True
            elif not c[0].compatible(images):
                raise op_error(f"class_preds {c} and box_logits {b} differ in batch", "incompatible-inputs", CONF)
            if c[1].is_static and classes:
                if not n_priors:
                    if c[1].value % classes:
                        raise op_error(f"class_preds {c}: dim 1 must be a multiple of num_classes {classes}",
                                       "incompatible-inputs", CONF)
                    n_priors = c[1].value // classes
                elif c[1].value != n_priors * classes:
                    raise op_error(f"class_preds {c}: dim 1 must be {n_priors} priors x {classes} classes",
                                   "incompatible-inputs", CONF)
        if p.dims is not None:
            if not (p[0].contains(1) or p[0].compatible(images)):
                raise op_error(f"proposals {p}: dim 0 must be 1 or the batch {images}", "incompatible-inputs", PRIORS)
            rows = 1 if self.variance_encoded_in_target else 2
            if not p[1].contains(rows):
                raise op_error(f"proposals {p}: dim 1 must be {rows}", "incompatible-inputs", PRIORS)
            if p[2].is_static:
                if not n_priors:
                    if p[2].value % size:
                        raise op_error(f"proposals {p}: dim 2 must be a multiple of {size} values per prior",
                                       "incompatible-inputs", PRIORS)
                    n_priors = p[2].value // size
                elif p[2].value != n_priors * size:
                    raise op_error(f"proposals {p}: dim 2 must be {n_priors} priors x {size}", "incompatible-inputs",
                                   PRIORS)
        if aux:
            ac, ab = aux[0].shape, aux[1].shape
            if ac.dims is not None:
                if not ac[0].compatible(images):
                    raise op_error(f"aux_class_preds {ac} and the batch {images} differ", "incompatible-inputs",
                                   ARM_CONF)
                if n_priors and not ac[1].contains(n_priors * 2):
                    raise op_error(f"aux_class_preds {ac}: dim 1 must be {n_priors * 2}", "incompatible-inputs",
                                   ARM_CONF)
                if ac[1].is_static:
                    n_priors = ac[1].value // 2
            if ab.dims is not None and b.dims is not None and not all(x.compatible(y) for x, y in zip(ab.dims, b.dims)):
                raise op_error(f"aux_box_preds {ab} and box_logits {b} differ", "incompatible-inputs", ARM_LOC)
        for k, shape, per in ((LOC, b, loc_classes * 4), (CONF, c, classes)):
            if n_priors and per and shape.dims is not None and shape[1].is_static and shape[1].value != n_priors * per:
                raise op_error(f"input {k} {shape}: dim 1 must be {n_priors} priors x {per}", "incompatible-inputs", k)
        prior_dim = Dim(n_priors, n_priors) if n_priors else DYNAMIC
        class_dim = Dim(classes, classes) if classes else DYNAMIC
        keep = self.keep_top_k[0]
        if keep > 0:
            rows_dim = images * keep
        elif keep == -1 and self.top_k > 0:
            rows_dim = images * self.top_k * class_dim
        else:
            rows_dim = images * prior_dim * class_dim
        out = PartialShape((Dim(1, 1), Dim(1, 1), rows_dim, Dim(7, 7)))
        return Inference([TensorInfo(out, loc.etype)], (n_priors, classes))

    def _classes_from_shapes(self, loc: TensorInfo, conf: TensorInfo, priors: TensorInfo,
                             aux: Sequence[TensorInfo]) -> tuple[int, int]:
        """OpenVINO's compute_num_classes: (classes, priors), 0 where unknown."""
        size = 4 if self.normalized else 5
        c, p = conf.shape, priors.shape
        n_priors = classes = 0
        if p.dims is not None and p[2].is_static:
            if p[2].value % size:
                raise op_error(f"proposals {p}: dim 2 must be a multiple of {size} values per prior",
                               "incompatible-inputs", PRIORS)
            n_priors = p[2].value // size
            if not n_priors:
                raise op_error(f"proposals {p} hold no prior", "incompatible-inputs", PRIORS)
        if not n_priors and aux and aux[0].shape.dims is not None and aux[0].shape[1].is_static:
            v = aux[0].shape[1].value
            if v % 2 or not v:
                raise op_error(f"aux_class_preds {aux[0].shape}: dim 1 must be a positive multiple of 2",
                               "incompatible-inputs", ARM_CONF)
            n_priors = v // 2
        if n_priors and c.dims is not None and c[1].is_static:
            if c[1].value % n_priors:
                raise op_error(f"class_preds {c}: dim 1 must be a multiple of {n_priors} priors", "incompatible-inputs",
                               CONF)
            classes = c[1].value // n_priors
        for k, info in ((LOC, loc), (ARM_LOC, aux[1] if aux else None)):
            s = info.shape if info is not None else None
            if not classes and n_priors and not self.share_location and s is not None and s.dims is not None \
                    and s[1].is_static:
                if s[1].value % (n_priors * 4):
                    raise op_error(f"input {k} {s}: dim 1 must be a multiple of {n_priors * 4}",
                                   "incompatible-inputs", k)
                classes = s[1].value // (n_priors * 4)
        return classes, n_priors

    def compute(self, plan: tuple[int, int], loc: np.ndarray, conf: np.ndarray, priors: np.ndarray,
                *aux: np.ndarray) -> Sequence[np.ndarray]:
        size = 4 if self.normalized else 5
        n_priors = priors.shape[2] // size
        classes = conf.shape[1] // n_priors if n_priors else 0
        images = loc.shape[0]
        rows = _rows(self, images, n_priors, classes)
        out = np.zeros((rows, 7), np.float32)
        count = 0
        for i in range(images):
            for label, score, box in self._image(i, loc, conf, priors, aux, n_priors, classes):
                if count >= rows:
                    break
                out[count] = [i, label - 1 if self.decrease_label_id else label, score, *box]
                count += 1
        if count < rows:
            out[count, 0] = -1
        return [out.reshape(1, 1, rows, 7).astype(loc.dtype)]

    def _image(self, i: int, loc: np.ndarray, conf: np.ndarray, priors: np.ndarray, aux: Sequence[np.ndarray],
               n_priors: int, classes: int) -> list[tuple[int, np.float32, np.ndarray]]:
        size = 4 if self.normalized else 5
        loc_classes = 1 if self.share_location else classes
        flat = priors[i if priors.shape[0] > 1 else 0].reshape(-1).astype(np.float32)
        prior = flat[: n_priors * size].reshape(n_priors, size)[:, size - 4:]
        if not self.normalized:
            prior = prior / np.array([self.input_width, self.input_height] * 2, np.float32)
        var = None if self.variance_encoded_in_target else \
            flat[n_priors * size: n_priors * size + n_priors * 4].reshape(n_priors, 4)
        preds = loc[i].astype(np.float32).reshape(n_priors, loc_classes, 4)
        scores = conf[i].astype(np.float32).reshape(n_priors, classes)
        if aux:
            arm = aux[0][i].astype(np.float32).reshape(n_priors, 2)[:, 1]
            low = arm < f32(self.objectness_score)
            scores = np.where(low[:, None], (np.arange(classes) == self.background_label_id).astype(np.float32), scores)
            arm_loc = aux[1][i].astype(np.float32).reshape(n_priors, loc_classes, 4)
        boxes = {}
        for c in range(loc_classes):
            label = -1 if self.share_location else c
            if self.background_label_id > -1 and label == self.background_label_id:
                continue
            base = self._decode(prior, var, arm_loc[:, c]) if aux else prior
            boxes[label] = self._decode(base, var, preds[:, c])
        kept = self._mxnet(boxes, scores, classes) if self.decrease_label_id else self._caffe(boxes, scores, classes)
        total = sum(len(v) for v in kept.values())
        keep = self.keep_top_k[0]
        if keep > -1 and total > keep:
            pairs = [(scores[idx, label], label, idx) for label in sorted(kept) for idx in kept[label]]
            order = sorted(range(len(pairs)), key=lambda k: (-float(pairs[k][0]), pairs[k][2], k))[:keep]
            kept = {}
            for k in order:
                kept.setdefault(pairs[k][1], []).append(pairs[k][2])
        found = []
        for label in sorted(kept):
            chosen = boxes[-1 if self.share_location else label]
            for idx in kept[label]:
                box = chosen[idx]
                if self.clip_after_nms:
                    box = np.clip(box, f32(0), f32(1))
                found.append((label, scores[idx, label], box))
        return found

    def _decode(self, prior: np.ndarray, var: np.ndarray | None, pred: np.ndarray) -> np.ndarray:
        v = var if var is not None else np.ones_like(prior)
        if self.code_type == CORNER:
            box = prior + (v * pred if var is not None else pred)
        else:
            w, h = prior[:, 2] - prior[:, 0], prior[:, 3] - prior[:, 1]
            cx, cy = (prior[:, 0] + prior[:, 2]) / f32(2), (prior[:, 1] + prior[:, 3]) / f32(2)
            scaled = v * pred if var is not None else pred
            dcx, dcy = scaled[:, 0] * w + cx, scaled[:, 1] * h + cy
            with np.errstate(over="ignore"):
                dw = np.exp(scaled[:, 2].astype(np.float64)).astype(np.float32) * w
                dh = np.exp(scaled[:, 3].astype(np.float64)).astype(np.float32) * h
            box = np.stack([dcx - dw / f32(2), dcy - dh / f32(2), dcx + dw / f32(2), dcy + dh / f32(2)], -1)
        box = box.astype(np.float32)
        return np.clip(box, f32(0), f32(1)) if self.clip_before_nms else box

    def _caffe(self, boxes: dict, scores: np.ndarray, classes: int) -> dict[int, list[int]]:
        kept: dict[int, list[int]] = {}
        for c in range(classes):
            if c == self.background_label_id:
                continue
            chosen = boxes.get(-1 if self.share_location else c)
            if chosen is None:
                continue
            s = scores[:, c]
            cand = np.flatnonzero(s > f32(self.confidence_threshold))
            cand = cand[np.argsort(-s[cand], kind="stable")]
            if self.top_k > -1:
                cand = cand[: self.top_k]
            kept[c] = _greedy(chosen, cand, f32(self.nms_threshold))
        return kept

    def _mxnet(self, boxes: dict, scores: np.ndarray, classes: int) -> dict[int, list[int]]:
        # each prior's best class but the background (the first of equal ones), if it beats -1 and the threshold
        others = scores[:, 1:].copy()
        if self.background_label_id > 0:
            others[:, self.background_label_id - 1] = -np.inf
        if others.shape[1] == 0:
            return {}
        best_c = others.argmax(axis=1)
        best = others[np.arange(len(others)), best_c]
        chosen = np.flatnonzero((best > f32(-1)) & (best >= f32(self.confidence_threshold)))
        pairs = [(best[p], int(best_c[p]) + 1, int(p)) for p in chosen.tolist()]
        pairs.sort(key=lambda t: (-float(t[0]), t[2]))
        if self.top_k != -1:
            pairs = pairs[: self.top_k]
        kept: dict[int, list[int]] = {}
        for _, c, p in pairs:
            chosen = boxes[-1 if self.share_location else c]
            mine = kept.setdefault(c, [])
            if not mine or (_iou(chosen[p], chosen[np.array(mine)]) <= f32(self.nms_threshold)).all():
                mine.append(p)
        return kept


def _rows(op: _DetectionOutput, images: int, n_priors: int, classes: int) -> int:
    keep = op.keep_top_k[0]
    if keep > 0:
        return images * keep
    if keep == -1 and op.top_k > 0:
        return images * op.top_k * classes
    return images * n_priors * classes


def _greedy(boxes: np.ndarray, cand: np.ndarray, threshold: np.float32) -> list[int]:
    """Candidates (best first) kept while their IoU with every kept one is <= threshold; each
    kept box suppresses the rest at once (the reference's IoU is symmetric)."""
    if not cand.size:
        return []
    b = boxes[cand]
    suppressed = np.zeros(len(b), bool)
    kept: list[int] = []
    for i in range(len(b)):
        if suppressed[i]:
            continue
        kept.append(int(cand[i]))
        suppressed |= _iou(b[i], b) > threshold
    return kept


def _size(b: np.ndarray) -> np.ndarray:
    w, h = b[..., 2] - b[..., 0], b[..., 3] - b[..., 1]
    return np.where((b[..., 2] < b[..., 0]) | (b[..., 3] < b[..., 1]), f32(0), w * h)


def _iou(a: np.ndarray, others: np.ndarray) -> np.ndarray:
    """The reference's JaccardOverlap of ``a`` with each row of ``others``, in f32."""
    apart = (others[:, 0] > a[2]) | (others[:, 2] < a[0]) | (others[:, 1] > a[3]) | (others[:, 3] < a[1])
    iw = np.minimum(a[2], others[:, 2]) - np.maximum(a[0], others[:, 0])
    ih = np.minimum(a[3], others[:, 3]) - np.maximum(a[1], others[:, 1])
    inter = iw * ih
    with np.errstate(all="ignore"):
        iou = inter / (_size(a) + _size(others) - inter)
    return np.where(apart | ~((iw > 0) & (ih > 0)), f32(0), iou).astype(np.float32)


@register
class DetectionOutput1(_DetectionOutput):
    type, version = "DetectionOutput", 1
    since_opset = 1
    summary = "SSD box decoding, per-class NMS and top-k; rows [image, label, score, box] padded with -1"
    attributes = {"num_classes": Attr("int", required=True, doc="classes, background included"),
                  **_DetectionOutput.base_attributes}

    def attribute_classes(self) -> int:
        return self.num_classes


@register
class DetectionOutput8(_DetectionOutput):
    type, version = "DetectionOutput", 8
    summary = "DetectionOutput-1 with the number of classes taken from the input shapes"
