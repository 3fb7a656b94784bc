"""Values the openvino_tokenizers ops cannot take fail a run cleanly (a coded error
naming the layer, exit 1), where the extension loops forever, crashes or writes
uninitialised memory: a byte no TrieTokenizer token starts, unsorted or negative
RaggedToRagged row ids, reversed RaggedToSparse rows."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from conformance.tokenizers.ragged_inputs import ragged_strings, strings
from irexec.model.builder import IRBuilder


def _run(tmp_path: Path, run_cli, b: IRBuilder, feeds: dict[str, np.ndarray]):
    xml = tmp_path / "model.xml"
    b.write(xml)
    inputs = tmp_path / "inputs.npz"
    np.savez(inputs, **feeds)
    return run_cli.subprocess("run", xml, "--inputs", inputs)


def test_a_byte_no_token_starts_is_an_error(tmp_path: Path, run_cli) -> None:
    b = IRBuilder()
    text = [b.parameter(n, "-1", "u8" if n == "chars" else "i32") for n in ("rb", "re", "b", "e", "chars")]
    vocab = [b.const(a) for a in strings(["a", "ab"])]
    out = b.layer("TrieTokenizer", "extension", [*text, *vocab, b.const(np.array([1, 2], np.int32))], {})
    for port in b.outputs_of(out):
        b.result(port)
    rb, re_, bb, e, c = ragged_strings([["abxa"]])
    result = _run(tmp_path, run_cli, b, {"rb": rb, "re": re_, "b": bb, "e": e, "chars": c})
    assert result.returncode == 1, result.stderr
    assert "error[bad-value]" in result.stderr and "TrieTokenizer" in result.stderr
    assert "no vocabulary token matches string 0 at byte 2" in result.stderr
    assert "Traceback" not in result.stderr


def _to_ragged(tmp_path: Path, run_cli, ids: list[int]):
    b = IRBuilder()
    row_ids = b.parameter("ids", "-1", "i32")
    out = b.layer("RaggedToRagged", "extension", [row_ids, b.const(np.array([3], np.int32))], {})
    for port in b.outputs_of(out):
        b.result(port)
    return _run(tmp_path, run_cli, b, {"ids": np.array(ids, np.int32)})


def test_unsorted_row_ids_are_an_error(tmp_path: Path, run_cli) -> None:
    result = _to_ragged(tmp_path, run_cli, [1, 0, 2])
    assert result.returncode == 1 and "error[bad-value]" in result.stderr and "not sorted" in result.stderr


def test_a_negative_row_id_is_an_error(tmp_path: Path, run_cli) -> None:
    result = _to_ragged(tmp_path, run_cli, [-1, 0])
    assert result.returncode == 1 and "row id -1 is negative" in result.stderr


def test_a_reversed_row_is_an_error(tmp_path: Path, run_cli) -> None:
    b = IRBuilder()
    begins, ends = b.parameter("begins", "-1", "i32"), b.parameter("ends", "-1", "i32")
    b.result(b.layer("RaggedToSparse", "extension", [begins, ends], {}))
    result = _run(tmp_path, run_cli, b, {"begins": np.array([0, 3], np.int32), "ends": np.array([3, 1], np.int32)})
    assert result.returncode == 1 and "error[bad-value]" in result.stderr and "row 1 spans 3..1" in result.stderr
