"""Run-time rules of the sequence ops: values only known when the model
runs (lengths, labels, parent indices) are coded errors from `irexec run`,
naming the layer and the input port."""

from __future__ import annotations

import numpy as np

from irexec.model.builder import IRBuilder


def one_layer(write_ir, op: str, opset: str, inputs: list[tuple[str, str, str]], attrs: dict[str, str]) -> str:
    b = IRBuilder()
    ports = [b.parameter(name, shape, etype) for name, shape, etype in inputs]
    (out, *_) = b.outputs_of(b.layer(op, opset, ports, attrs, name="seq"))
    b.result(out, name="out")
    return write_ir(b)


def test_ctc_loss_label_longer_than_logits(write_ir, save_npz, run_cli):
    path = one_layer(write_ir, "CTCLoss", "opset4", [("logits", "2,4,3", "f32"), ("logit_length", "2", "i32"),
                                                     ("labels", "2,4", "i32"), ("label_length", "2", "i32")],
                     {"ctc_merge_repeated": "true"})
    assert run_cli("check", path).exit_code == 0
    inputs = save_npz(logits=np.zeros((2, 4, 3), np.float32), logit_length=np.array([4, 2], np.int32),
                      labels=np.zeros((2, 4), np.int32), label_length=np.array([1, 3], np.int32))
    result = run_cli("run", path, "--inputs", inputs)
    assert result.exit_code == 1
    assert "error[bad-value]" in result.output and "batch 1: logit_length 2 and label_length 3" in result.output


def test_ctc_loss_label_outside_the_classes(write_ir, save_npz, run_cli):
    path = one_layer(write_ir, "CTCLoss", "opset4", [("logits", "1,4,3", "f32"), ("logit_length", "1", "i32"),
                                                     ("labels", "1,4", "i32"), ("label_length", "1", "i32")], {})
    inputs = save_npz(logits=np.zeros((1, 4, 3), np.float32), logit_length=np.array([4], np.int32),
                      labels=np.array([[0, 5, 0, 0]], np.int32), label_length=np.array([2], np.int32))
    result = run_cli("run", path, "--inputs", inputs)
    assert result.exit_code == 1 and "label 5 is not a class in [0, 3)" in result.output
    blank = save_npz("blank", logits=np.zeros((1, 4, 3), np.float32), logit_length=np.array([4], np.int32),
                     labels=np.array([[0, 2, 0, 0]], np.int32), label_length=np.array([2], np.int32))
    result = run_cli("run", path, "--inputs", blank)
    assert result.exit_code == 1 and "label 2 is not a class in [0, 3) other than blank_index 2" in result.output


def test_ctc_greedy_decoder_seq_len_longer_than_time(write_ir, save_npz, run_cli):
    path = one_layer(write_ir, "CTCGreedyDecoderSeqLen", "opset6", [("data", "2,4,3", "f32"), ("lengths", "2", "i32")], {})
    inputs = save_npz(data=np.zeros((2, 4, 3), np.float32), lengths=np.array([4, 5], np.int32))
    result = run_cli("run", path, "--inputs", inputs)
    assert result.exit_code == 1 and "sequence_length[1] = 5 is outside [0, 4]" in result.output


def test_gather_tree_parent_outside_the_beams(write_ir, save_npz, run_cli):
    path = one_layer(write_ir, "GatherTree", "opset1", [("step_ids", "3,1,2", "i32"), ("parent_idx", "3,1,2", "i32"),
                                                        ("max_seq_len", "1", "i32"), ("end_token", "", "i32")], {})
    parents = np.zeros((3, 1, 2), np.int32)
    parents[2, 0, 1] = 7
    inputs = save_npz(step_ids=np.ones((3, 1, 2), np.int32), parent_idx=parents, max_seq_len=np.array([3], np.int32),
                      end_token=np.array(0, np.int32))
    result = run_cli("run", path, "--inputs", inputs)
    assert result.exit_code == 1
    assert "error[bad-value]" in result.output and "parent_idx[2, 0, 1] = 7" in result.output
