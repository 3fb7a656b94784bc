"""Make an f32 / INT4 pair of a stateful LLM for docs/diff.md's ``--steps`` example.

A (f32): the shared smollm_int4_stateful with every weight decompressed to an f32 Const
(its values are those the INT4 model computes with). B: A compressed again by NNCF,
INT4 asymmetric in groups of 32 (the source used groups of 64), every layer. Needs NNCF,
which irexec does not depend on:

    python3 -m venv /tmp/nncf && /tmp/nncf/bin/pip install nncf openvino
    /tmp/nncf/bin/python tests/data/diff_ab/make_llm_pair.py /work/shared/models/smollm_int4_stateful/model.xml OUT
"""

import sys
from pathlib import Path

import nncf
import numpy as np
import openvino as ov
import openvino.opset13 as ops

core = ov.Core()
source, out = sys.argv[1], Path(sys.argv[2])
out.mkdir(parents=True, exist_ok=True)
model = core.read_model(source)
for node in model.get_ordered_ops():
    if node.get_type_name() not in ("MatMul", "Gather"):
        continue
    weight = node.input_value(0 if node.get_type_name() == "Gather" else 1)
    if weight.get_node().get_type_name() not in ("Convert", "Multiply", "Reshape"):
        continue
    try:
        chain = ov.Model([ops.result(weight)], [], "weight")
    except RuntimeError:  # not a constant: it reads a Parameter
        continue
    value = core.compile_model(chain, "CPU", {"INFERENCE_PRECISION_HINT": "f32"}).create_infer_request()
    value.infer({})
    data = np.array(value.get_output_tensor(0).data, np.float32)
    node.input(0 if node.get_type_name() == "Gather" else 1).replace_source_output(ops.constant(data).output(0))
model.validate_nodes_and_infer_types()
ov.save_model(model, str(out / "f32.xml"), compress_to_fp16=False)
compressed = nncf.compress_weights(core.read_model(str(out / "f32.xml")), mode=nncf.CompressWeightsMode.INT4_ASYM,
                                   group_size=32, ratio=1.0, all_layers=True)
ov.save_model(compressed, str(out / "int4_g32.xml"), compress_to_fp16=False)
print(nncf.__version__, ov.__version__)
