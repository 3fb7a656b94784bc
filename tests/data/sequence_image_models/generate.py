"""Write the small real models of this folder with OpenVINO's own tools, each
as model.xml + model.bin saved by ``ov.save_model`` (f32 weights compressed to
f16, as by default):

* ``ctc_ocr_head``: a text-line recogniser's head (Convolution, MaxPool,
  ReduceMean over the height, MatMul to 10 digits + blank, SoftMax) decoded
  both ways OCR models do: CTCGreedyDecoderSeqLen-6 and CTCGreedyDecoder-1.
* ``dilated_conv``: TensorFlow's lowering of a dilated convolution
  (SpaceToBatch -> Convolution -> BatchToSpace), then ExtractImagePatches.
* ``embedding_ranker``: bags of item ids of any length and number (offsets)
  averaged by EmbeddingBagOffsets-15, fixed-size tag bags summed by
  EmbeddingBagPacked-15, concatenated and scored by MatMul and Sigmoid.
* ``nv12_classifier`` and ``i420_classifier``: an ONNX CNN (built with the
  ``onnx`` package, converted by ``ov.convert_model``) given a u8 NV12
  two-plane input (Y, UV) or a u8 I420 single-plane input by
  ``ov.preprocess.PrePostProcessor``, which inserts NV12toBGR / I420toRGB.

    python tests/data/sequence_image_models/generate.py   # rewrites the files
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
import onnx
import openvino as ov
import openvino.opset1 as op1
import openvino.opset3 as op3
import openvino.opset6 as op6
import openvino.opset8 as op8
import openvino.opset15 as op15
from onnx import TensorProto, helper, numpy_helper
from openvino.preprocess import ColorFormat, PrePostProcessor

HERE = Path(__file__).resolve().parent
RNG = np.random.default_rng(20261127)


def weights(*shape: int) -> ov.Node:
    return op1.constant((RNG.standard_normal(shape) * 0.5).astype(np.float32))


def ctc_ocr_head() -> ov.Model:
    image = op1.parameter([1, 1, 16, 48], np.float32, name="image")
    image.output(0).set_names({"image"})
    seq_len = op1.parameter([1], np.int32, name="seq_len")
    seq_len.output(0).set_names({"seq_len"})
    x = op1.relu(op1.convolution(image, weights(8, 1, 3, 3), [1, 1], [1, 1], [1, 1], [1, 1]))
    x = op8.max_pool(x, [2, 2], [1, 1], [0, 0], [0, 0], [2, 2]).output(0)  # [1, 8, 8, 24]
    x = op1.reduce_mean(x, op1.constant(np.array([2], np.int64)), keep_dims=False)  # [1, 8, 24]
    x = op1.transpose(x, op1.constant(np.array([0, 2, 1], np.int64)))  # [1, T=24, 8]
    logits = op8.softmax(op1.matmul(x, weights(8, 11), False, False), -1)  # [1, 24, 11]: digits and blank (10)
    decoded = op6.ctc_greedy_decoder_seq_len(logits, seq_len, op1.constant(np.array(10, np.int32)), True, "i32", "i32")
    time_major = op1.transpose(logits, op1.constant(np.array([1, 0, 2], np.int64)))  # [T, N, C]: blank is C-1
    mask = op1.constant(np.ones((24, 1), np.float32))
    legacy = op1.ctc_greedy_decoder(time_major, mask, True)
    outputs = [decoded.output(0), decoded.output(1), legacy.output(0)]
    for out, name in zip(outputs, ("classes", "lengths", "classes_legacy")):
        out.set_names({name})
    return ov.Model(outputs, [image, seq_len], "ctc_ocr_head")


def dilated_conv() -> ov.Model:
    image = op1.parameter([1, 3, 16, 16], np.float32, name="image")
    image.output(0).set_names({"image"})
    blocks = np.array([1, 1, 2, 2], np.int64)
    spread = op3.space_to_batch(image, blocks, np.array([0, 0, 2, 2], np.int64), np.array([0, 0, 2, 2], np.int64))
    conv = op1.convolution(spread, weights(4, 3, 3, 3), [1, 1], [0, 0], [0, 0], [1, 1])  # [4, 4, 8, 8]
    back = op3.batch_to_space(conv, blocks, np.zeros(4, np.int64), np.zeros(4, np.int64))  # [1, 4, 16, 16]
    patches = op3.extract_image_patches(op1.relu(back), [3, 3], [2, 2], [1, 1], "same_upper")  # [1, 36, 8, 8]
    patches.output(0).set_names({"patches"})
    return ov.Model([patches.output(0)], [image], "dilated_conv")


def embedding_ranker() -> ov.Model:
    items = op1.parameter([-1], np.int64, name="items")
    offsets = op1.parameter([-1], np.int64, name="offsets")
    tags = op1.parameter([-1, 4], np.int64, name="tags")
    for p, name in ((items, "items"), (offsets, "offsets"), (tags, "tags")):
        p.output(0).set_names({name})
    table = weights(50, 8)
    item_mean = op15.embedding_bag_offsets(table, items, offsets, op1.constant(np.array(0, np.int64)), reduction="mean")
    tag_sum = op15.embedding_bag_packed(weights(20, 8), tags, reduction="sum")
    features = op1.concat([item_mean, tag_sum], 1)  # [batch, 16]
    score = op1.sigmoid(op1.matmul(features, weights(16, 1), False, False))
    score.output(0).set_names({"score"})
    return ov.Model([score.output(0)], [items, offsets, tags], "embedding_ranker")


def onnx_cnn(path: Path) -> None:
    """A 3-channel CNN in ONNX: Conv, Relu, GlobalAveragePool, Flatten, Gemm to 5 classes."""
    w = numpy_helper.from_array((RNG.standard_normal((6, 3, 3, 3)) * 0.05).astype(np.float32), "w")
    fc = numpy_helper.from_array((RNG.standard_normal((6, 5)) * 0.5).astype(np.float32), "fc")
    nodes = [helper.make_node("Conv", ["input", "w"], ["c"], pads=[1, 1, 1, 1]), helper.make_node("Relu", ["c"], ["r"]),
             helper.make_node("GlobalAveragePool", ["r"], ["g"]), helper.make_node("Flatten", ["g"], ["f"]),
             helper.make_node("MatMul", ["f", "fc"], ["scores"])]
    graph = helper.make_graph(nodes, "cnn", [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 3, 8, 12])],
                              [helper.make_tensor_value_info("scores", TensorProto.FLOAT, [1, 5])], [w, fc])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), str(path))


def yuv_classifier(color: ColorFormat, planes: list[str], target: ColorFormat) -> ov.Model:
    with tempfile.TemporaryDirectory() as d:
        onnx_cnn(Path(d) / "cnn.onnx")
        model = ov.convert_model(str(Path(d) / "cnn.onnx"))
    ppp = PrePostProcessor(model)
    ppp.input().tensor().set_element_type(ov.Type.u8).set_color_format(color, planes)
    ppp.input().preprocess().convert_color(target).convert_element_type(ov.Type.f32)
    ppp.input().model().set_layout(ov.Layout("NCHW"))
    return ppp.build()


def main() -> None:
    models = {
        "ctc_ocr_head": ctc_ocr_head(),
        "dilated_conv": dilated_conv(),
        "embedding_ranker": embedding_ranker(),
        "nv12_classifier": yuv_classifier(ColorFormat.NV12_TWO_PLANES, ["y", "uv"], ColorFormat.BGR),
        "i420_classifier": yuv_classifier(ColorFormat.I420_SINGLE_PLANE, [], ColorFormat.RGB),
    }
    for name, model in models.items():
        ov.save_model(model, str(HERE / f"{name}.xml"))


if __name__ == "__main__":
    main()
