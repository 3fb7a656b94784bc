"""One entry per diagnostic code: a short description and help text, for
report formats that describe their rules (SARIF).  The README's diagnostic
table says the same in more words; a test keeps the two in step."""

from __future__ import annotations

from typing import NamedTuple


class Rule(NamedTuple):
    short: str
    help: str


_FILE = "The file could not be used as an OpenVINO IR document."
RULES: dict[str, Rule] = {
    # files and documents
    "file-not-found": Rule("File not found", "A file to read does not exist, or a pattern matches nothing."),
    "is-a-directory": Rule("Directory where a file is expected",
                           "A path given for a file (model, inputs, output) is a directory."),
    "cannot-read-file": Rule("File cannot be read",
                             "A file exists but cannot be opened for reading (permissions, a device error)."),
    "file-too-large": Rule("File too large", "The model file is larger than any real IR document; it is not parsed."),
    "not-regular-file": Rule("Not a regular file",
                             "A model or weights file is a FIFO, device, socket or directory; irexec reads regular files only."),
    "symlink-escape": Rule("Symbolic link out of its folder",
                           "A file is a symbolic link leading out of the folder it is named in; allowed only with "
                           "--follow-symlinks or IREXEC_FOLLOW_SYMLINKS=1."),
    "more-findings": Rule("More findings", "irexec check reports at most 100 findings per code and 1,000 per file; "
                          "this one counts the rest."),
    "bad-seed": Rule("Bad seed", "--seed (or seed=) is not a non-negative integer."),
    "option-not-applicable": Rule("Option outside its mode", "An option is given in a mode it does not apply to "
                                  "(--seed with --inputs, --atol without --compare); usage error, exit 2."),
    "bad-token-id": Rule("Bad token id", "generate --eos-token-id (or eos_token_id=) is not an int64 token id."),
    "tensor-name-too-long": Rule("Tensor name too long", "An output or input name is longer than an .npz entry name can be."),
    "not-xml": Rule("Not an XML model", "The path given as the model is a weights file or an npz archive; pass the model's .xml."),
    "xml-syntax": Rule("Malformed XML", _FILE + " The XML is not well formed."),
    "xml-leading-content": Rule("Content before the XML declaration",
                                "Whitespace, text or comments come before `<?xml ...?>`. XML forbids it and most XML tools "
                                "refuse the file; OpenVINO reads it, and so does irexec (a warning)."),
    "xml-trailing-content": Rule("Content after </net>",
                                 "Text or elements follow the root element. XML forbids it and most XML tools refuse the file; "
                                 "OpenVINO ignores it as long as its tags pair up, and so does irexec (a warning)."),
    "xml-encoding": Rule("Not UTF-8", _FILE + " Its bytes are not valid UTF-8 (or do not match the declared encoding)."),
    "xml-limit": Rule("XML past parser limits", _FILE + " It goes past libxml2's depth or size limits."),
    "unsafe-xml": Rule("Unsafe DOCTYPE", "A DOCTYPE declares entities or names an external DTD; refused, never expanded or fetched."),
    "not-ir": Rule("Not an IR document", "The root element is not <net>."),
    "unsupported-ir-version": Rule("Unsupported IR version", "The <net> version is not 10 or 11."),
    # structure
    "bad-pre-process": Rule("Invalid <pre-process> section",
                            "The legacy <pre-process> mean values cannot be applied: no such input, a dynamic shape, "
                            "the wrong number of channels or blob size (OpenVINO refuses the file too), or an input of a "
                            "type nothing subtracts from (boolean, which OpenVINO refuses; u3, u6, nf4, which only hold "
                            "values)."),
    "v10-name-collision": Rule("IR v10 operation name collides with a tensor name",
                               "OpenVINO adds each input's and output's operation name to its tensor names when it reads "
                               "IR v10, and refuses the model when such a name is taken by another input or output; convert "
                               "the model again (IR v11)."),
    "bad-structure": Rule("Invalid document structure", "The document does not follow schemas/ir.xsd: a misspelt or misplaced element."),
    "missing-element": Rule("Missing element", "A mandatory element is absent."),
    "missing-attribute": Rule("Missing attribute", "A mandatory attribute is absent (layer id/name/type/version, port id, precision)."),
    "bad-attribute": Rule("Invalid attribute value", "An attribute is not a valid value (not an integer, out of range, inconsistent)."),
    "bad-dim": Rule("Invalid dim", "A <dim> is not an integer >= -1."),
    "bad-shape": Rule("Invalid shape attribute", "A shape attribute does not parse."),
    "shape-too-large": Rule("Shape too large", "A shape's byte size overflows."),
    "bad-element-type": Rule("Invalid element type", "The precision or element type is not an IR element type."),
    "unsupported-element-type": Rule("Element type not executed", "A valid IR element type irexec does not execute."),
    "unknown-op-version": Rule("Core op under a version OpenVINO has not got",
                               "A layer of a core op type (Parameter, Add, ...) names a version OpenVINO's IR reader does "
                               "not know for that type (version=\"wrongOpset\", opset0, an opset the op is not in); OpenVINO "
                               "refuses the file. Ops of other types are extension ops: unsupported-op."),
    "unsupported-op": Rule("Op not implemented",
                           "irexec does not implement this op type and version; its declared output dims are trusted."),
    # graph
    "duplicate-layer-id": Rule("Duplicate layer id", "Two layers share an id (OpenVINO silently keeps the later one)."),
    "duplicate-port": Rule("Duplicate port id", "Two ports of a layer share an id."),
    "unknown-layer": Rule("Edge to an unknown layer", "An edge names a layer id that does not exist."),
    "unknown-port": Rule("Edge to an unknown port", "An edge names a port that does not exist on its layer."),
    "input-fed-twice": Rule("Input port fed twice", "An input port has two producers."),
    "unconnected-input": Rule("Unconnected input port", "An input port has no producer."),
    "result-without-input": Rule("Result without input", "A Result layer has no producer."),
    "cycle": Rule("Cycle in the graph", "The layers named form a cycle."),
    "unreachable-layer": Rule("Unreachable layer", "No Result depends on the layer; OpenVINO drops it."),
    "wrong-port-count": Rule("Wrong number of ports", "The layer declares more or fewer input ports than its op takes, "
                             "or more output ports than it has."),
    # weights
    "const-size-mismatch": Rule("Const size too small", "A Const's size is smaller than its shape and element type need."),
    "bad-string-const": Rule("String Const not packed as OpenVINO packs it",
                             "A string Const's bytes are not an i32 count, count + 1 ascending i32 offsets and the characters."),
    "unsupported-regex": Rule("Pattern PCRE2 does not compile",
                              "A pattern of an openvino_tokenizers op is not one PCRE2 (UTF, UCP) compiles, or not UTF-8."),
    "regex-limit": Rule("Pattern backtracks past PCRE2's limits",
                        "A search of an openvino_tokenizers pattern took more steps, depth or heap than PCRE2's match "
                        "limits allow (OpenVINO's limits; it then finds no match)."),
    "missing-extra": Rule("Optional dependency missing",
                          "The openvino_tokenizers ops need pcre2: pip install -e '.[tokenizers]' in the irexec clone."),
    "missing-weights": Rule("Weights file missing",
                            "Consts need bytes from a .bin that does not exist (one finding for all of them); "
                            "give the model's .bin with --weights."),
    "weights-out-of-bounds": Rule("Const past the end of the weights",
                                  "A Const's offset + size is past the end of the .bin; when several are, the .bin "
                                  "belongs to another model (one finding for all of them)."),
    "weights-mismatch": Rule("Weights of another model",
                             "The check or run failed and the .bin does not look like the model's (larger than its "
                             "Consts' extent, absurd shape Consts): one finding that names --weights, for all the "
                             "errors its values cause."),
    # shapes and types
    "bad-port-map": Rule("Port map does not fit its body",
                         "A TensorIterator/Loop/If port map or back edge names no body Parameter or Result, no input "
                         "or output of the layer, or slices that do not walk inside the sliced dim."),
    "ignored-port-map-entry": Rule("Port map entry ignored",
                                   "A TensorIterator/Loop/If port map names an external_port_id twice; as OpenVINO does, "
                                   "the first entry is used and this one ignored."),
    "legacy-body-dims": Rule("IR v10 body dims disagree with inference (warning)",
                             "Inside a TensorIterator/Loop/If body of an IR v10 model, a port's declared dims disagree with "
                             "shape inference. The old Model Optimizer wrote such dims and OpenVINO ignores them; the "
                             "inferred shape is used. At the top level the same conflict is the error shape-mismatch."),
    "shape-mismatch": Rule("Declared dims disagree with inference", "A port's declared dims disagree with shape inference."),
    "type-mismatch": Rule("Declared precision disagrees with inference", "A port's precision disagrees with type inference."),
    "bad-input-type": Rule("Op input of a wrong element type", "An op input has an element type its op does not allow."),
    "bad-input-rank": Rule("Op input of a wrong rank", "An op input has a rank its op does not allow."),
    "axis-out-of-range": Rule("Axis out of range", "An axis is outside [-rank, rank-1]."),
    "incompatible-inputs": Rule("Incompatible op inputs", "The inputs of an op disagree with each other."),
    "bad-value": Rule("Invalid run-time value", "A value computed at run time is invalid for its op."),
    "skipped": Rule("Not checked", "Layers not checked because an input depends on a layer that failed: one note per "
                    "failing layer, standing for every layer after it."),
    "decompression-as-typed": Rule("Weight decompression computed as its types say (note)",
                                   "A weight read by a MatMul, Convolution, Gather or GroupedMatMul looks decompressed (a "
                                   "low-bit Const, f16 or bf16 arithmetic) by a subgraph the decompression rule does not "
                                   "cover: a run computes it as its element types say, where OpenVINO may compute it in "
                                   "f32 (docs/numerics.md)."),
    # inputs and options
    "input-mismatch": Rule("Input does not fit", "An input is missing or extra, has another dtype, or a shape outside its partial shape."),
    "bad-input-file": Rule("Unreadable npz", "An inputs or reference file is not an .npz of plain arrays."),
    "input-shape-needed": Rule("Input shape needed", "No default shape can be generated for a Parameter; give --input-shape."),
    "input-shape-mismatch": Rule("Input shape outside the declared range", "--input-shape does not fit the Parameter's declared shape."),
    "bad-input-shape": Rule("Malformed --input-shape", "--input-shape does not parse."),
    "bad-val-range": Rule("Malformed --val-range", "--val-range does not parse, or LOW > HIGH."),
    "unknown-name": Rule("Unknown name", "An option names no Parameter, layer or output of the model."),
    "input-shape-with-inputs": Rule("--input-shape with real inputs", "--input-shape and --val-range apply to generated inputs only."),
    "memory-limit": Rule("Memory limit", "A tensor would take the live tensors past --max-memory."),
    "out-of-memory": Rule("Out of memory", "The system ran out of memory."),
    # stateful models and generation
    "variable-without-assign": Rule("Variable never assigned", "A ReadValue's variable has no Assign of the same variable_id."),
    "variable-without-read-value": Rule("Variable never read", "An Assign's variable has no ReadValue of the same variable_id."),
    "variable-read-twice": Rule("Variable read twice", "Two ReadValue layers read one variable; each has exactly one."),
    "variable-assigned-twice": Rule("Variable assigned twice", "Two Assign layers write one variable; each has exactly one."),
    "variable-mismatch": Rule("Value does not fit its variable",
                              "An Assign's value or a ReadValue's init_value lacks the variable's element type or shape."),
    "state-mismatch": Rule("State does not fit the variables",
                           "A state (--state-in, set_state) misses a variable, names an unknown one, or has a wrong dtype or shape."),
    "state-not-set": Rule("Variable without a value", "A state is saved before a run gave a value to a variable that has an init_value."),
    "unknown-variable": Rule("Unknown variable", "A variable_id names no variable of the model."),
    "not-stateful": Rule("Not a stateful model", "--state-in/--state-out need a model with ReadValue/Assign variables."),
    "not-causal-lm": Rule("Not a stateful causal LM",
                          "irexec generate needs variables, input_ids, inputs it can build and a logits output."),
    "tokens-mismatch": Rule("Generated tokens differ", "irexec generate --compare: the tokens differ from the reference."),
    "text-mismatch": Rule("Generated text differs", "irexec generate FOLDER --compare: the text differs from the reference."),
    "not-export-folder": Rule("Not an export folder",
                              "The folder lacks openvino_model.xml or the openvino-tokenizers pair."),
    "bad-prompt": Rule("Prompt options do not fit",
                       "--prompt needs an export folder; a folder needs one of --prompt, --prompt-file, --inputs; "
                       "a VLM folder needs --image, a Whisper folder --audio-features."),
    "not-vlm-export": Rule("Not a VLM export folder",
                           "--image needs a LLaVA-style VLM export: the language, text-embeddings and vision-embeddings "
                           "models and a config.json with image_token_index."),
    "bad-pixel-values": Rule("Pixel values do not fit", "--image holds no floating-point pixel_values "
                             "[images, channels, height, width] of the size the vision model takes."),
    "image-tokens-mismatch": Rule("Image tokens do not match the image",
                                  "The prompt's image tokens or <image> tags do not match the image features."),
    "not-speech-export": Rule("Not a Whisper export folder",
                              "The folder lacks the Whisper encoder, stateful decoder or config.json."),
    "bad-audio": Rule("A waveform that cannot be made into features",
                      "--audio needs real samples and the folder's preprocessor_config.json (a WhisperFeatureExtractor)."),
    "bad-audio-features": Rule("Audio features do not fit the encoder",
                               "--audio-features must be f32 [batch, mel bins, frames] of a shape the encoder takes."),
    "unsupported-generation-config": Rule("Generation setting not handled",
                                          "Timestamps, forced_decoder_ids out of Whisper's pattern, or an unknown "
                                          "language or task."),
    "too-many-new-tokens": Rule("More tokens than the decoder has positions",
                                "The start tokens and --max-new-tokens exceed max_target_positions."),
    "diff-usage": Rule("A second IR or a device", "irexec diff needs either a second IR (B.xml) or --device, not both; "
                       "--inputs-dir, -j and --scheduler need a second IR."),
    "bad-inputs-dir": Rule("Unreadable data set", "irexec diff --inputs-dir names a directory that cannot be read or "
                           "holds no .npz sample."),
    # comparison
    "compare-mismatch": Rule("Output differs from the reference", "Values differ beyond tolerance."),
    "compare-missing-output": Rule("Output missing from the reference", "The reference has no array for this output."),
    "compare-extra-output": Rule("Reference array is no output", "The reference has an array that is not an output of this run."),
    "compare-dtype-mismatch": Rule("Output dtype differs", "The run and the reference have different dtypes."),
    "compare-shape-mismatch": Rule("Output shape differs", "The run and the reference have different shapes."),
    "non-finite": Rule("NaN or infinity in a layer's output",
                       "irexec run --check-finite: the first layer whose output holds NaN or Inf, with its inputs' ranges."),
    "bad-tolerance": Rule("Malformed tolerance", "A tolerance is not a finite number >= 0."),
    "bad-dtype": Rule("Output cannot be compared", "A complex output cannot be compared."),
    # outputs and tools
    "cannot-write-output": Rule("Output cannot be written", "An output, report, dump or picture file cannot be written."),
    "graphviz-not-found": Rule("Graphviz not found", "inspect --svg needs Graphviz's dot on PATH."),
    "graphviz-failed": Rule("Graphviz failed", "Graphviz's dot failed to render the graph."),
    "internal-error": Rule("Internal error", "A bug in irexec while checking this file."),
    "bad-config": Rule("Bad [tool.irexec] settings",
                       "The [tool.irexec] table of pyproject.toml is not valid TOML, has an unknown key or a value of the "
                       "wrong type; usage error, exit 2."),
    "bad-device-config": Rule("Bad device properties",
                              "irexec diff --config is neither KEY=VALUE nor a JSON file holding an object of "
                              "properties; usage error, exit 2."),
    "device-error": Rule("Device plugin refused the model",
                         "irexec diff: the OpenVINO device plugin refuses to compile the model with the properties given."),
    "device-unavailable": Rule("Device absent",
                               "irexec diff --device names a device OpenVINO does not list on this machine; the message "
                               "names the devices it lists and the plugin's own reason."),
    "not-a-copy": Rule("B is not a copy of A",
                       "irexec diff A.xml B.xml: an input of B that no input of A feeds, or an output of A that no "
                       "output of B gives; the message says what share of A's layers has a counterpart in B."),
    "source-error": Rule("The source model's framework refused it",
                         "irexec diff SOURCE MODEL.xml: the source model cannot be read or run by its framework "
                         "(ONNX Runtime refuses the .onnx file, or fails on the inputs given)."),
    "bad-scheduler": Rule("Malformed Dask scheduler address",
                          "irexec diff --scheduler is not an address such as tcp://HOST:PORT; usage error, exit 2."),
    "scheduler-unreachable": Rule("Dask scheduler unreachable",
                                  "irexec diff --scheduler: no scheduler answers within --scheduler-timeout."),
    "scheduler-error": Rule("Dask cluster failed",
                            "irexec diff --scheduler: no worker joins, every worker dies or leaves, or a worker finds "
                            "other model files than the diff hashed, within --scheduler-timeout."),
}


def rule(code: str) -> Rule:
    return RULES.get(code, Rule(code, f"irexec diagnostic {code}."))
