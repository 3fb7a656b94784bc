"""NonMaxSuppression-1, -3 and -4: NMS-5's greedy selection without soft-NMS,
with one output, selected_indices, of a size fixed by the shapes.

Selection and order are NMS-5's (nms_roi_align.py).  The output's rows are
what OpenVINO's shape inference gives: v1 and v3 min(num_boxes,
max_output_boxes_per_class * num_classes), as their specs say; v4
min(num_boxes, max_output_boxes_per_class) * num_batches * num_classes,
from the upper bounds of the batch and class dims.  As the specs say, the
rows after the selected boxes hold -1; as OpenVINO's earlier reference did,
selected boxes beyond the rows (v1 and v3 with several batches or classes)
are left out.  The thresholds and the limit are scalars (NMS-5 also takes
one-element 1-D tensors).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...base import dtypes
from ...base.shapes import DYNAMIC, Dim, PartialShape
from ..framework.base import INTEGRAL, REAL, Attr, Enum, In, IndexType, Inference, TensorInfo
from ..framework.registry import register
from .nms_roi_align import _NMS, check_boxes_scores, thresholds


class _PaddedNMS(_NMS):
    inputs = (In("boxes", REAL, rank=3), In("scores", REAL, rank=3),
              In("max_output_boxes_per_class", INTEGRAL, rank=0, optional=True, value=True),
              In("iou_threshold", REAL, rank=0, optional=True, value=True),
              In("score_threshold", REAL, rank=0, optional=True, value=True))
    outputs = 1
    attributes = {
        "box_encoding": Enum("corner", "center", doc="[y1,x1,y2,x2] corners or [xc,yc,w,h]"),
        "sort_result_descending": Attr("bool", True, doc="order all selected boxes by score across batches and classes"),
    }
    output_type = dtypes.get("i64")  # v3 and v4 make it an attribute

    def rows(self, b: PartialShape, s: PartialShape, limit: int | None) -> Dim:
        """The output's first dim as OpenVINO's v1 and v3 shape inference gives it."""
        if b.rank is None:
            return DYNAMIC
        per_class = DYNAMIC if limit is None else Dim.of(limit)
        if s.rank is not None:
            per_class = per_class * s[1]
        if b[1].is_static and per_class.is_static:
            return Dim.of(min(b[1].value, per_class.value))
        return DYNAMIC

    def infer(self, boxes: TensorInfo, scores: TensorInfo, *rest: TensorInfo) -> Inference:
        extra: list[TensorInfo | None] = [*rest, *([None] * (3 - len(rest)))]
        limit = check_boxes_scores(boxes.shape, scores.shape, extra[0])
        if extra[0] is None:
            limit = 0  # the spec's default: no boxes
        rows = self.rows(boxes.shape, scores.shape, limit)
        plan = None
        values = thresholds(extra[1:3])
        if limit is not None and values is not None:
            iou, score_t = values
            plan = (limit, np.float32(iou), np.float32(score_t), np.float32(0), rows.value if rows.is_static else None)
        return Inference([TensorInfo(PartialShape((rows, Dim(3, 3))), self.output_type)], plan)

    def compute(self, plan: tuple, boxes: np.ndarray, scores: np.ndarray, *rest: np.ndarray) -> Sequence[np.ndarray]:
        batch_idx, class_idx, box_idx, _ = self.select(plan, boxes, scores)
        picked = np.stack([batch_idx, class_idx, box_idx], axis=1).reshape(-1, 3)
        rows = plan[4]
        if rows is None:
            return [picked.astype(self.output_type.dtype)]
        out = np.full((rows, 3), -1, self.output_type.dtype)
        kept = min(rows, len(picked))
        out[:kept] = picked[:kept]
        return [out]


@register
class NonMaxSuppression1(_PaddedNMS):
    type, version = "NonMaxSuppression", 1
    summary = "greedy NMS per batch and class; i64 indices, rows after the selection -1"


@register
class NonMaxSuppression3(_PaddedNMS):
    type, version = "NonMaxSuppression", 3
    summary = "NonMaxSuppression-1 with output_type (i32 or i64)"
    attributes = {**_PaddedNMS.attributes, "output_type": IndexType(doc="i32 or i64: selected_indices")}


@register
class NonMaxSuppression4(NonMaxSuppression3):
    type, version = "NonMaxSuppression", 4
    summary = "NonMaxSuppression-3 with min(num_boxes, max_output_boxes_per_class) rows per batch and class"

    def rows(self, b: PartialShape, s: PartialShape, limit: int | None) -> Dim:
        """OpenVINO's v4 shape inference: batches and classes by their upper bounds."""
        if b.rank is None or s.rank is None or not b[1].is_static or limit is None:
            return DYNAMIC
        count = Dim.of(min(b[1].value, limit))
        for d in (s[0], s[1]):
            count = count * Dim.of(-1 if d.hi is None else d.hi)
        return count
