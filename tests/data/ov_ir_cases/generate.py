"""Write the corpus of IR files in this folder: each reproduces, with files of
our own, a class of document that OpenVINO's IR-reader tests
(src/frontends/ir/tests/*.cpp, src/core/tests/models/ir/) feed to its reader,
where irexec and OpenVINO 2026.4 once disagreed.  ``cases.json`` says what
OpenVINO does with each file, which irexec findings it gets, and which OpenVINO
test it stands for.  tests/test_openvino_ir_agreement.py checks all three,
with OpenVINO as the oracle.

    python tests/data/ov_ir_cases/generate.py   # rewrites the files
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
CASES: dict[str, dict] = {}


def dims(shape) -> str:  # type: ignore[no-untyped-def]
    return "".join(f"<dim>{d}</dim>" for d in shape)


def net(body: str, version: int = 11, pre: str = "", head: str = '<?xml version="1.0" ?>\n', tail: str = "",
        extra: str = "") -> str:
    return f'{pre}{head}<net name="case" version="{version}">\n{extra}{body}</net>{tail}'


def identity(shape=(1, 3, 22, 22), pversion: str = "opset1", pname: str = "input", names: str = "",  # type: ignore[no-untyped-def]
             rname: str = "output") -> str:
    names_attr = f' names="{names}"' if names else ""
    return f"""    <layers>
        <layer name="{pname}" type="Parameter" id="0" version="{pversion}">
            <data element_type="f32" shape="{','.join(map(str, shape))}"/>
            <output>
                <port id="0" precision="FP32"{names_attr}>{dims(shape)}</port>
            </output>
        </layer>
        <layer name="{rname}" type="Result" id="1" version="opset1">
            <input>
                <port id="0" precision="FP32">{dims(shape)}</port>
            </input>
        </layer>
    </layers>
    <edges>
        <edge from-layer="0" from-port="0" to-layer="1" to-port="0"/>
    </edges>
"""


def unary(op: str, version: str, name: str = "op", pname: str = "input", out_names: str = "",  # type: ignore[no-untyped-def]
          in_names: str = "", shape=(2, 3)) -> str:
    o = f' names="{out_names}"' if out_names else ""
    i = f' names="{in_names}"' if in_names else ""
    return f"""    <layers>
        <layer name="{pname}" type="Parameter" id="0" version="opset1">
            <data element_type="f32" shape="{','.join(map(str, shape))}"/>
            <output><port id="0" precision="FP32"{i}>{dims(shape)}</port></output>
        </layer>
        <layer name="{name}" type="{op}" id="1" version="{version}">
            <input><port id="0" precision="FP32">{dims(shape)}</port></input>
            <output><port id="1" precision="FP32"{o}>{dims(shape)}</port></output>
        </layer>
        <layer name="output" type="Result" id="2" version="opset1">
            <input><port id="0" precision="FP32">{dims(shape)}</port></input>
        </layer>
    </layers>
    <edges>
        <edge from-layer="0" from-port="0" to-layer="1" to-port="0"/>
        <edge from-layer="1" from-port="1" to-layer="2" to-port="0"/>
    </edges>
"""


def case(name: str, xml: str, openvino: str, codes: list[str], source: str, bin: bytes | None = None,
         difference: str | None = None, run: bool = False) -> None:
    (HERE / f"{name}.xml").write_text(xml)
    if bin is not None:
        (HERE / f"{name}.bin").write_bytes(bin)
    CASES[name] = {"openvino": openvino, "irexec_codes": codes, "source": source, "run": run,
                   **({"documented_difference": difference} if difference else {})}


def main() -> None:
    for old in HERE.glob("*.xml"):
        old.unlink()
    for old in HERE.glob("*.bin"):
        old.unlink()
    basic = "frontend_test_basic.cpp"
    pre = "pre_processing_deserialization.cpp"
    # -- around the root element (pugixml reads what libxml2 refuses)
    case("leading_newline", net(identity(), pre="\n"), "ok", ["xml-leading-content"], f"{basic}: R\"V0G0N(\\n<?xml ...", run=True)
    case("leading_spaces_and_tabs", net(identity(), pre="  \t\n \n"), "ok", ["xml-leading-content"], basic)
    case("trailing_slashes", net(identity(), tail="\n// "), "ok", ["xml-trailing-content"],
         f"{pre}: check_tensor_names_after_read_and_pre_post_processing ends '</net>\\n// '")
    case("trailing_balanced_element", net(identity(), tail="\n<extra><x a='1'/>text</extra>\n"), "ok",
         ["xml-trailing-content"], "pugixml skips balanced markup after the root")
    case("trailing_unpaired_close_tag", net(identity(), tail="\n</net>\n"), "error", ["xml-syntax"],
         "pugixml: Start-end tags mismatch")
    case("trailing_unclosed_element", net(identity(), tail="\n<extra>\n"), "error", ["xml-syntax"],
         "pugixml: Start-end tags mismatch")
    # -- IR v10 <pre-process>
    blob = np.arange(3 * 22 * 22, dtype=np.float32) / 100
    channels = "".join(f'        <channel id="{c}">\n            <mean offset="{c * 1936}" size="1936"/>\n        </channel>\n'
                       for c in range(3))
    section = f'    <pre-process mean-precision="FP32" reference-layer-name="input">\n{channels}    </pre-process>\n'
    case("pre_process_v10_mean_blobs", net(identity(), 10, extra=section), "ok", [], f"{pre}: pre_processing",
         bin=blob.tobytes(), run=True)
    values = "".join(f'        <channel id="{c}"><mean value="{v}"/></channel>\n' for c, v in enumerate((0.5, -1.25, 3)))
    case("pre_process_v10_mean_values", net(identity(), 10, extra=f'    <pre-process reference-layer-name="input">\n{values}'
                                             "    </pre-process>\n"), "ok", [], pre, bin=b"", run=True)
    case("pre_process_too_few_channels", net(identity(), 10, extra=section.replace(channels.split("</channel>\n")[2] +
                                                                                  "</channel>\n", "")),
         "error", ["bad-pre-process"], "input_model.cpp: Number of mean values (2) is not equal to number of channels (3)",
         bin=blob.tobytes())
    case("pre_process_unknown_input", net(identity(), 10, extra=section.replace('"input"', '"nope"')), "error",
         ["bad-pre-process"], "input_model.cpp: pre-process name ref refers to un-existing input", bin=blob.tobytes())
    # -- opset names
    case("wrong_opset_parameter", net(identity(pversion="wrongOpset")), "error", ["unknown-op-version"],
         f"{basic}: WrongOpset")
    case("shapeof_opset3", net(unary("ShapeOf", "opset3").replace('<port id="1" precision="FP32"><dim>2</dim><dim>3</dim>',
                                                                   '<port id="1" precision="I64"><dim>2</dim>')
                                .replace('version="opset3">', 'version="opset3">\n            <data output_type="i64"/>')
                                .replace('<layer name="output" type="Result" id="2" version="opset1">\n'
                                         '            <input><port id="0" precision="FP32"><dim>2</dim><dim>3</dim>',
                                         '<layer name="output" type="Result" id="2" version="opset1">\n'
                                         '            <input><port id="0" precision="I64"><dim>2</dim>')),
         "ok", [], f"{basic}: NotOpset1")
    case("relu_opset0", net(unary("ReLU", "opset0")), "error", ["unknown-op-version"], "no opset0")
    case("relu_opset17", net(unary("ReLU", "opset17")), "error", ["unknown-op-version"],
         "opset17 of OpenVINO 2026.4 holds Parameter, Convert, ShapeOf and its new ops only")
    case("parameter_opset17", net(identity(pversion="opset17")), "ok", [], "Parameter is in opset17")
    case("custom_op_extension", net(unary("MyCustomOp", "extension")), "error", ["unsupported-op"],
         "frontend_test_with_extensions.cpp: without its extension OpenVINO cannot create the op",
         difference="an extension op: irexec trusts its declared ports (warning unsupported-op); OpenVINO reads it "
                    "only with the extension loaded")
    # -- IR v10 names
    case("v10_operation_name_collides", net(unary("ReLU", "opset1", name="input"), 10), "error",
         ["v10-name-collision"], "model_reader.cpp update_v10_model: operation names collide with tensor names")
    case("v10_tensor_name_collides", net(identity(names="t"), 10), "error", ["v10-name-collision"],
         "model_reader.cpp update_v10_model: tensor names collide")
    case("v10_names_distinct", net(unary("ReLU", "opset1", name="relu", out_names="relu_out"), 10), "ok", [],
         f"{basic}: ElementaryNetworkReadV10", run=True)
    case("v11_same_names_fine", net(unary("ReLU", "opset1", name="input"), 11), "ok", [], "IR v11 has no such rule")
    write_sub_graph_cases()
    (HERE / "cases.json").write_text(json.dumps(CASES, indent=1, sort_keys=True) + "\n")


def tensor_iterator(sliced: bool, back_edge: bool, shape=(1, 2, 4)) -> str:  # type: ignore[no-untyped-def]
    """x -> TensorIterator(body: Negative) -> y; sliced along axis 2 or whole."""
    d = dims(shape)
    bshape = (1, 2, 1) if sliced else shape
    bd = dims(bshape)
    slicing = ' axis="2" part_size="1" stride="1"' if sliced else ""
    back = '<back_edges><edge from-layer="1" to-layer="0"/></back_edges>' if back_edge else ""
    text = ",".join(map(str, shape))
    return f"""    <layers>
        <layer id="0" name="x" type="Parameter" version="opset1">
            <data element_type="f32" shape="{text}"/><output><port id="0" precision="FP32">{d}</port></output>
        </layer>
        <layer id="1" name="ti" type="TensorIterator" version="opset1">
            <input><port id="0">{d}</port></input>
            <output><port id="1" precision="FP32">{d}</port></output>
            <port_map>
                <input external_port_id="0" internal_layer_id="0"{slicing}/>
                <output external_port_id="1" internal_layer_id="1"{slicing}/>
            </port_map>
            {back}
            <body>
                <layers>
                    <layer id="0" name="b_in" type="Parameter" version="opset1">
                        <data element_type="f32" shape="{",".join(map(str, bshape))}"/>
                        <output><port id="0" precision="FP32">{bd}</port></output>
                    </layer>
                    <layer id="2" name="b_neg" type="Negative" version="opset1">
                        <input><port id="0">{bd}</port></input><output><port id="1" precision="FP32">{bd}</port></output>
                    </layer>
                    <layer id="1" name="b_out" type="Result" version="opset1"><input><port id="0">{bd}</port></input></layer>
                </layers>
                <edges>
                    <edge from-layer="0" from-port="0" to-layer="2" to-port="0"/>
                    <edge from-layer="2" from-port="1" to-layer="1" to-port="0"/>
                </edges>
            </body>
        </layer>
        <layer id="2" name="y" type="Result" version="opset1"><input><port id="0">{d}</port></input></layer>
    </layers>
    <edges>
        <edge from-layer="0" from-port="0" to-layer="1" to-port="0"/>
        <edge from-layer="1" from-port="1" to-layer="2" to-port="0"/>
    </edges>
"""


def write_sub_graph_cases() -> None:
    ti = "tensor_iterator_deserialization.cpp"
    case("ti_merged_input", net(tensor_iterator(False, True)), "ok", [], f"{ti}: TensorIteratorMergedInput", run=True)
    case("ti_sliced_input_with_back_edge", net(tensor_iterator(True, True)), "ok", [],
         f"{ti}: TensorIteratorSlisedInput (an axis wins over the back edge)", run=True)
    import openvino as ov
    import openvino.opset8 as op

    tmp = HERE / "_tmp"
    tmp.mkdir(exist_ok=True)
    try:
        # If-8 with two outputs; the spec's Example 1 numbers output port 4 external_port_id="0"
        c = op.parameter([], np.bool_, name="cond")
        x = op.parameter([2], np.float32, name="x")
        y = op.parameter([2], np.float32, name="y")
        tx, ty = op.parameter([2], np.float32), op.parameter([2], np.float32)
        then = ov.Model([op.result(op.add(tx, ty)), op.result(op.multiply(tx, ty))], [tx, ty], "then")
        ex, ey = op.parameter([2], np.float32), op.parameter([2], np.float32)
        els = ov.Model([op.result(op.subtract(ex, ey)), op.result(ex)], [ex, ey], "else")
        iff = op.if_op(c)
        iff.set_then_body(then)
        iff.set_else_body(els)
        iff.set_input(x.output(0), tx, ex)
        iff.set_input(y.output(0), ty, ey)
        o1 = iff.set_output(then.results[0], els.results[0])
        o2 = iff.set_output(then.results[1], els.results[1])
        ov.save_model(ov.Model([op.result(o1), op.result(o2)], [c, x, y], "if"), str(tmp / "if.xml"))
        text = (tmp / "if.xml").read_text()
        spec = re.sub(r'<output external_port_id="3"', '<output external_port_id="0"', text)
        spec = re.sub(r'<output external_port_id="4"', '<output external_port_id="1"', spec)
        case("if_output_ids_from_zero", spec, "ok", [], "If-8 specification, Example 1 (external_port_id=\"0\" for port 4)",
             bin=(tmp / "if.bin").read_bytes(), run=True)
        swapped = text.replace('<output external_port_id="3" internal_layer_id="4" />',
                               '<output external_port_id="40" internal_layer_id="4" />')
        case("if_output_ids_order_outputs", swapped, "ok", [], "ir_deserializer.cpp: outputs ordered by external_port_id",
             bin=(tmp / "if.bin").read_bytes(), run=True)
        dup = text.replace('<output external_port_id="4" internal_layer_id="5" />',
                           '<output external_port_id="4" internal_layer_id="5" />\n'
                           '\t\t\t\t<output external_port_id="4" internal_layer_id="4" />')
        case("if_output_id_twice", dup, "ok", ["ignored-port-map-entry"],
             "ir_deserializer.cpp: std::map emplace keeps the first entry of an id", bin=(tmp / "if.bin").read_bytes())
        bad = text.replace('<input external_port_id="2" internal_layer_id="1" />',
                           '<input external_port_id="7" internal_layer_id="1" />', 1)
        case("if_input_id_past_the_inputs", bad, "error", ["bad-port-map"],
             "ir_deserializer.cpp: an input's external_port_id is the input's index", bin=(tmp / "if.bin").read_bytes())
        # Loop-5 written as IR v10 with a stale body dim, as the old Model Optimizer wrote them
        xi = op.parameter([1, 2], np.float32, name="x")
        bx = op.parameter([1, 2], np.float32, name="bx")
        unsq = op.unsqueeze(bx, op.constant(np.array([0], np.int64)), name="unsq")
        nxt = op.add(op.squeeze(unsq, op.constant(np.array([0], np.int64))), op.constant(np.ones((1, 2), np.float32)))
        body = ov.Model([op.result(op.constant(np.array(True))), op.result(nxt), op.result(unsq)], [bx], "body")
        loop = op.loop(op.constant(np.array(3, np.int64)), op.constant(np.array(True)))
        loop.set_function(body)
        loop.set_special_body_ports([-1, 0])
        loop.set_merged_input(bx, xi.output(0), body.results[1].output(0))
        last = loop.get_iter_value(body.results[1].output(0), -1)
        cat = loop.get_concatenated_slices(body.results[2].output(0), 0, 1, 1, -1, 0)
        ov.save_model(ov.Model([op.result(last), op.result(cat)], [xi], "loop"), str(tmp / "loop.xml"))
        text = (tmp / "loop.xml").read_text()
        i = text.index('type="Unsqueeze"')
        k = text.index("<dim>1</dim>", text.index("<output>", i))
        stale = text[:k] + "<dim>3</dim>" + text[k + len("<dim>1</dim>"):]
        v10 = stale.replace('version="11">', 'version="10">', 1)
        case("loop_v10_stale_body_dims", v10, "ok", ["legacy-body-dims"],
             "Model Optimizer IR v10 Loop: body Unsqueeze declared [3,1,2], inferred [1,1,2]",
             bin=(tmp / "loop.bin").read_bytes(), run=True)
        case("loop_v11_stale_body_dims", stale, "ok", ["shape-mismatch"], "the same body dims in IR v11",
             bin=(tmp / "loop.bin").read_bytes(),
             difference="declared dims are checked (docs/declared-dims.md); only IR v10 bodies get the warning")
    finally:
        shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
