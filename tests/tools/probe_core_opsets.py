"""Regenerate irexec/ops/framework/core_opsets.py: which opsets of the installed
OpenVINO hold each core op type, found by asking OpenVINO's IR reader to
create a one-layer model for every (type, version) pair.

    python tests/tools/probe_core_opsets.py > irexec/ops/framework/core_opsets.py

The candidate type names are OpenVINO's opset tables (opset1_tbl.hpp ...
opset17_tbl.hpp) plus irexec's own ops; the reader's answer decides."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile

import openvino as ov

import irexec.api.load  # noqa: F401  (registers every op)
from irexec.ops.framework.registry import all_ops

# every name in OpenVINO's opset tables (src/core/include/openvino/opsets/opset*_tbl.hpp)
TABLE_NAMES = """
Abs Acos Acosh AdaptiveAvgPool AdaptiveMaxPool Add Asin Asinh Assign Atan Atanh AvgPool BatchNormInference
BatchToSpace BGRtoNV12 BinaryConvolution BitwiseAnd BitwiseLeftShift BitwiseNot BitwiseOr BitwiseRightShift BitwiseXor
Broadcast Bucketize CTCGreedyDecoder CTCGreedyDecoderSeqLen CTCLoss Ceiling Clamp Col2Im Concat Constant Convert
ConvertLike ConvertPromoteTypes Convolution ConvolutionBackpropData Cos Cosh CumSum DFT DeformableConvolution
DeformablePSROIPooling DepthToSpace DetectionOutput Divide Einsum Elu EmbeddingBagOffsets EmbeddingBagOffsetsSum
EmbeddingBagPacked EmbeddingBagPackedSum EmbeddingSegmentsSum Equal Erf ErfInv Exp ExperimentalDetectronDetectionOutput
ExperimentalDetectronGenerateProposalsSingleImage ExperimentalDetectronPriorGridGenerator
ExperimentalDetectronROIFeatureExtractor ExperimentalDetectronTopKROIs ExtractImagePatches Eye FakeConvert FakeQuantize
Floor FloorMod GRN GRUCell GRUSequence Gather GatherElements GatherND GatherTree Gelu GenerateProposals Greater
GreaterEqual GridSample GroupConvolution GroupConvolutionBackpropData GroupedMatMul GroupNormalization HSigmoid HSwish HardSigmoid
I420toBGR I420toRGB IDFT IRDFT ISTFT Identity If Interpolate Inverse IsFinite IsInf IsNaN LRN LSTMCell LSTMSequence
Less LessEqual Log LogSoftmax LogicalAnd LogicalNot LogicalOr LogicalXor Loop MOE MVN MatMul MatrixNms MaxPool Maximum
Minimum Mish Mod MulticlassNms Multinomial Multiply NMSRotated NV12toBGR NV12toRGB Negative NonMaxSuppression NonZero
NormalizeL2 NotEqual OneHot PRelu PSROIPooling Pad Parameter Power PriorBox PriorBoxClustered Proposal RDFT RGBtoNV12
RNNCell RNNSequence ROIAlign ROIAlignRotated ROIPooling RandomUniform Range ReadValue ReduceL1 ReduceL2
ReduceLogicalAnd ReduceLogicalOr ReduceMax ReduceMean ReduceMin ReduceProd ReduceSum RegionYolo Relu ReorgYolo Reshape
Result Reverse ReverseSequence Roll Round STFT ScaledDotProductAttention ScatterElementsUpdate ScatterNDUpdate
ScatterUpdate SearchSorted SegmentMax Select Selu ShapeOf ShuffleChannels Sigmoid Sign Sin Sinh Slice SliceScatter
Softmax SoftPlus SoftSign SpaceToBatch SpaceToDepth SparseConv SparseFillEmptyRows Split Sqrt SquaredDifference
Squeeze StridedSlice StringTensorPack StringTensorUnpack Subtract Swish Tan Tanh TensorIterator Tile TopK Transpose
Unique Unsqueeze VariadicSplit Xor
""".split()

# the IR spellings of OpenVINO's type names (translate_type_name in its IR reader)
IR_SPELLING = {"Constant": "Const", "PRelu": "PReLU", "Relu": "ReLU", "Softmax": "SoftMax"}
VERSIONS = [f"opset{n}" for n in range(0, 25)] + ["experimental", "extension"]
REFUSED = ("doesn't contain the operation", "from unsupported opset")


def reads(op_type: str, version: str, scratch: str) -> bool:
    # the layer feeds a Result, or OpenVINO's reader never creates it
    xml = (f'<net name="n" version="11"><layers><layer id="0" name="x" type="{op_type}" version="{version}">'
           '<output><port id="0" precision="FP32"/></output></layer>'
           '<layer id="1" name="r" type="Result" version="opset1"><input><port id="0"/></input></layer></layers>'
           '<edges><edge from-layer="0" from-port="0" to-layer="1" to-port="0"/></edges></net>')
    with open(scratch, "w") as f:
        f.write(xml)
    try:
        ov.Core().read_model(scratch)
    except Exception as e:  # anything but "no such op in that opset" means the reader created it
        return not any(r in str(e) for r in REFUSED)
    return True


def probe(name: str, scratch: str) -> list[str]:
    """The versions ``name`` is read with, each asked in a child process from
    where the last one stopped: a layer without its inputs crashes some ops'
    constructors, and only a created op gets that far."""
    found: list[str] = []
    start = 0
    while start < len(VERSIONS):
        child = subprocess.run([sys.executable, __file__, "--one", name, str(start), scratch], capture_output=True, text=True)
        lines = child.stdout.split()
        for word in lines:
            if word.startswith("+"):
                found.append(word[1:])
        start += len(lines)
        if child.returncode != 0:  # crashed on VERSIONS[start]: created, so read
            found.append(VERSIONS[start])
            start += 1
    return found


def main() -> None:
    names = {IR_SPELLING.get(n, n) for n in TABLE_NAMES} | {c.type for c in all_ops()}
    table: dict[str, list[str]] = {}
    scratch = os.path.join(tempfile.mkdtemp(), "probe.xml")
    for name in sorted(names, key=str.lower):
        found = probe(name, scratch)
        if found:
            table[name] = found
    write(table, sys.stdout)


def _ranges(numbers: list[int]) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    for n in sorted(numbers):
        if spans and spans[-1][1] == n - 1:
            spans[-1] = (spans[-1][0], n)
        else:
            spans.append((n, n))
    return spans


def write(table: dict[str, list[str]], out) -> None:  # type: ignore[no-untyped-def]
    version = ov.__version__.split("-")[0]
    out.write(f'''"""The versions OpenVINO {version}'s IR reader accepts on each core op type, by lower-case type
name: opset ranges (both ends included) and other version strings.  Generated by
tests/tools/probe_core_opsets.py, which asks OpenVINO itself; do not edit by hand."""

OPENVINO_VERSION = "{version}"

CORE_OP_VERSIONS: dict[str, tuple[tuple[tuple[int, int], ...], tuple[str, ...]]] = {{
''')
    for name, found in table.items():
        nums = [int(v[5:]) for v in found if v.startswith("opset")]
        other = tuple(sorted(v for v in found if not v.startswith("opset")))
        out.write(f'    "{name.lower()}": ({tuple(_ranges(nums))!r}, {other!r}),\n')
    out.write("}\n")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--one"]:
        _, _, one, first, path = sys.argv
        for v in VERSIONS[int(first):]:
            print(("+" if reads(one, v, path) else "-") + v, flush=True)
    else:
        main()
