"""Run-time rules of the embedding ops: indices, offsets and segment ids
only known when the model runs are coded errors from `irexec run`."""

from __future__ import annotations

import numpy as np

from irexec.model.builder import IRBuilder


def one_layer(write_ir, op: str, opset: str, inputs: list[tuple[str, str, str]], consts: list[np.ndarray] = ()) -> str:
    b = IRBuilder()
    ports = [b.parameter(name, shape, etype) for name, shape, etype in inputs] + [b.const(c) for c in consts]
    (out, *_) = b.outputs_of(b.layer(op, opset, ports, {}, name="bag"))
    b.result(out, name="out")
    return write_ir(b)


def test_offsets_going_back_are_bad_value(write_ir, save_npz, run_cli):
    path = one_layer(write_ir, "EmbeddingBagOffsetsSum", "opset3",
                     [("table", "4,2", "f32"), ("indices", "3", "i32"), ("offsets", "2", "i32")])
    assert run_cli("check", path).exit_code == 0
    inputs = save_npz(table=np.zeros((4, 2), np.float32), indices=np.array([0, 1, 2], np.int32),
                      offsets=np.array([2, 1], np.int32))
    result = run_cli("run", path, "--inputs", inputs)
    assert result.exit_code == 1 and "error[bad-value]" in result.output and "non-decreasing" in result.output
    past = save_npz("past", table=np.zeros((4, 2), np.float32), indices=np.array([0, 1, 2], np.int32),
                    offsets=np.array([0, 3], np.int32))
    result = run_cli("run", path, "--inputs", past)
    assert result.exit_code == 1 and "in [0, 3), num_indices" in result.output


def test_index_past_the_table_is_bad_value(write_ir, save_npz, run_cli):
    path = one_layer(write_ir, "EmbeddingBagPackedSum", "opset3", [("table", "4,2", "f32"), ("indices", "1,2", "i64")])
    inputs = save_npz(table=np.zeros((4, 2), np.float32), indices=np.array([[0, 4]], np.int64))
    result = run_cli("run", path, "--inputs", inputs)
    assert result.exit_code == 1 and "indices[1] = 4 is outside [0, 4)" in result.output


def test_segment_id_past_num_segments_is_bad_value(write_ir, save_npz, run_cli):
    path = one_layer(write_ir, "EmbeddingSegmentsSum", "opset3",
                     [("table", "4,2", "f32"), ("indices", "2", "i32"), ("segment_ids", "2", "i32")],
                     [np.array(2, np.int32)])
    inputs = save_npz(table=np.zeros((4, 2), np.float32), indices=np.array([0, 1], np.int32),
                      segment_ids=np.array([0, 2], np.int32))
    result = run_cli("run", path, "--inputs", inputs)
    assert result.exit_code == 1 and "segment_ids[1] = 2 is outside [0, 2)" in result.output
