"""Writes two small detection models with OpenVINO's Python API (opset graph
construction, small random weights, ov.save_model): an SSD-style head
(convolutions, PriorBox and PriorBoxClustered from ShapeOf, DetectionOutput)
and a YOLO-v3-style head (RegionYolo on two scales, ReorgYolo).  Run from this
folder: python generate.py
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import openvino as ov
import openvino.opset1 as o1
import openvino.opset2 as o2
import openvino.opset8 as o8

HERE = Path(__file__).resolve().parent
rng = np.random.default_rng(20261127)


def conv(x: ov.Node, out_ch: int, in_ch: int, stride: int = 1) -> ov.Node:
    w = (rng.standard_normal((out_ch, in_ch, 3, 3)) * 0.2).astype(np.float32)
    return o1.convolution(x, o1.constant(w), [stride, stride], [1, 1], [1, 1], [1, 1])


def flat(x: ov.Node) -> ov.Node:
    """NCHW -> [N, H * W * C], as SSD heads flatten their predictions."""
    t = o1.transpose(x, o1.constant(np.array([0, 2, 3, 1], np.int64)))
    return o1.reshape(t, o1.constant(np.array([0, -1], np.int64)), True)


def spatial(x: ov.Node) -> ov.Node:
    """The [H, W] of an NCHW tensor, as SSD IR computes it for PriorBox."""
    return o1.strided_slice(o1.shape_of(x), o1.constant(np.array([2], np.int64)), o1.constant(np.array([4], np.int64)),
                            o1.constant(np.array([1], np.int64)), [0], [0])


def ssd() -> ov.Model:
    image = o1.parameter([1, 3, 32, 32], np.float32, name="image")
    f1 = o1.relu(conv(image, 8, 3, 4))  # [1, 8, 8, 8]
    f2 = o1.relu(conv(f1, 8, 8, 2))  # [1, 8, 4, 4]
    classes = 3
    priors1 = o8.prior_box(spatial(f1), spatial(image), {"min_size": [6.0], "max_size": [12.0], "aspect_ratio": [2.0],
                                                          "flip": True, "clip": False, "step": 4.0, "offset": 0.5,
                                                          "variance": [0.1, 0.1, 0.2, 0.2]})  # 4 priors per cell
    priors2 = o1.prior_box_clustered(spatial(f2), spatial(image), {"width": [10.0, 20.0], "height": [14.0, 8.0],
                                                                    "clip": True, "offset": 0.5,
                                                                    "variance": [0.1, 0.1, 0.2, 0.2]})
    locs, confs = [], []
    for f, n in ((f1, 4), (f2, 2)):
        locs.append(flat(conv(f, n * 4, 8)))
        confs.append(flat(conv(f, n * classes, 8)))
    loc = o1.concat(locs, 1)
    conf = o1.concat(confs, 1)
    scores = o1.reshape(o1.softmax(o1.reshape(conf, o1.constant(np.array([0, -1, classes], np.int64)), True), 2),
                        o1.constant(np.array([0, -1], np.int64)), True)
    priors = o1.unsqueeze(o1.concat([priors1, priors2], 1), o1.constant(np.array([0], np.int64)))
    det = o1.detection_output(loc, scores, priors, {"num_classes": classes, "keep_top_k": [20], "nms_threshold": 0.45,
                                                    "top_k": 50, "confidence_threshold": 0.2,
                                                    "code_type": "caffe.PriorBoxParameter.CENTER_SIZE",
                                                    "share_location": True, "background_label_id": 0,
                                                    "normalized": True, "clip_after_nms": True})
    return ov.Model([det], [image], "ssd_tiny")


def yolo() -> ov.Model:
    image = o1.parameter([1, 3, 32, 32], np.float32, name="image")
    f1 = o1.relu(conv(image, 16, 3, 4))  # [1, 16, 8, 8]
    f2 = o2.reorg_yolo(f1, [2])  # [1, 64, 4, 4]
    heads = []
    for f, ch, mask in ((f1, 16, [0, 1, 2]), (f2, 64, [3, 4, 5])):
        raw = conv(f, 3 * (4 + 1 + 2), ch)
        heads.append(o1.region_yolo(raw, 4, 2, 6, False, mask, 1, 3,
                                    [10.0, 13.0, 16.0, 30.0, 33.0, 23.0, 30.0, 61.0, 62.0, 45.0, 59.0, 119.0]))
    return ov.Model(heads, [image], "yolo_tiny")


if __name__ == "__main__":
    ov.save_model(ssd(), HERE / "ssd_tiny.xml", compress_to_fp16=False)
    ov.save_model(yolo(), HERE / "yolo_tiny.xml", compress_to_fp16=False)
