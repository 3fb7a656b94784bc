"""`irexec run` without --inputs makes up inputs that fit the graph: dynamic
dims tied by the graph get sizes shape inference accepts, indices stay in
range, a mask is ones and a beam index picks rows of the batch."""

from __future__ import annotations

import numpy as np

from irexec.model.builder import IRBuilder


def _gather_reverse_model(write_ir) -> str:
    """data [?,?,4] and indices [?,2] joined by Gather batch_dims=1, then a
    ReverseSequence whose seq_lengths Const has 2 elements: the batch must be 2."""
    b = IRBuilder()
    data = b.parameter("data", "?,?,4", "f32")
    idx = b.parameter("indices", "?,2", "i64")
    g = b.layer("Gather", "opset8", [data, idx, b.const(np.array(1, np.int64))], {"batch_dims": "1"}, name="gather")
    r = b.layer("ReverseSequence", "opset1", [g, b.const(np.array([2, 1], np.int32))],
                {"batch_axis": "0", "seq_axis": "1"}, name="rev")
    b.result(r, name="out")
    return write_ir(b)


def test_tied_dims_get_sizes_that_fit_and_indices_stay_in_range(write_ir, run_cli, tmp_path):
    path = _gather_reverse_model(write_ir)
    for seed in (0, 1, 2):
        saved = tmp_path / f"in{seed}.npz"
        r = run_cli("run", path, "--seed", str(seed), "--save-inputs", saved)
        assert r.exit_code == 0, r.output
        assert "sizes that fit the graph" in r.output
        with np.load(saved) as feeds:
            assert feeds["data"].shape[0] == feeds["indices"].shape[0] == 2
            assert 0 <= feeds["indices"].min() and feeds["indices"].max() < feeds["data"].shape[1]


def test_matmul_inner_dims_are_found(write_ir, run_cli):
    b = IRBuilder()
    x = b.parameter("x", "?,?", "f32")
    b.result(b.layer("MatMul", "opset1", [x, b.const(np.ones((24, 3), np.float32))],
                     {"transpose_a": "false", "transpose_b": "false"}, names=["y"]))
    r = run_cli("run", write_ir(b))
    assert r.exit_code == 0, r.output
    assert "[1,24] (dim 0 ? -> 1, dim 1 ? -> 24 (sizes that fit the graph))" in r.output


def test_a_mask_is_ones_and_a_beam_index_picks_batch_rows(write_ir, run_cli, tmp_path):
    """mask -> Convert(boolean) -> Select; beam_idx indexes axis 0 of a tensor
    whose batch dim comes from another input."""
    b = IRBuilder()
    x = b.parameter("x", "?,3", "f32")
    mask = b.parameter("attention_mask", "?,3", "i64")
    beam = b.parameter("beam_idx", "?", "i32")
    keep = b.layer("Convert", "opset1", [mask], {"destination_type": "boolean"})
    sel = b.layer("Select", "opset1", [keep, x, b.const(np.zeros((1, 3), np.float32))], {})
    rows = b.layer("Gather", "opset8", [sel, beam, b.const(np.array(0, np.int64))], {"batch_dims": "0"}, names=["y"])
    b.result(rows)
    saved = tmp_path / "in.npz"
    r = run_cli("run", write_ir(b), "--input-shape", "x:3,3", "--input-shape", "attention_mask:3,3",
                "--input-shape", "beam_idx:3", "--save-inputs", saved, "--seed", "4")
    assert r.exit_code == 0, r.output
    assert "a mask (Convert to boolean" in r.output
    with np.load(saved) as feeds:
        assert (feeds["attention_mask"] == 1).all()
        assert feeds["beam_idx"].min() >= 0 and feeds["beam_idx"].max() <= 2
