"""The string element type: string Parameters, Consts and Results as OpenVINO
saves and runs them, in .npz files without pickle, in --compare and check."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

ov = pytest.importorskip("openvino")
from openvino import opset15  # noqa: E402
from oracle import compile_ir, infer, save  # noqa: E402

TEXTS = ["", "plain", "  spaces  ", "héllo wörld", "日本語", "👩‍👩‍👧", "e\u0301", "a\x00b", "tab\tnl\n"]


def _model(tmp_path: Path) -> str:
    """A string Parameter through Unpack/Pack, and a string Const, as OpenVINO saves them."""
    p = opset15.parameter([-1], ov.Type.string, name="text")
    p.output(0).get_tensor().set_names({"text"})
    unpacked = opset15.string_tensor_unpack(p)
    packed = opset15.string_tensor_pack(*unpacked.outputs())
    const = opset15.constant(ov.Tensor(np.array(TEXTS)))
    r1, r2 = opset15.result(packed), opset15.result(const)
    r1.output(0).get_tensor().set_names({"echo"})
    r2.output(0).get_tensor().set_names({"table"})
    return save(ov.Model([r1, r2], [p]), tmp_path / "model.xml")


def test_string_const_packing_is_openvino_s(tmp_path):
    """The .bin holds an i32 count, count + 1 i32 offsets from 0, then the characters."""
    xml = _model(tmp_path)
    from irexec.base import strings
    blob = (tmp_path / "model.bin").read_bytes()
    packed = strings.pack(strings.from_numpy(np.array(TEXTS)))
    assert packed in blob
    assert list(strings.unpack(packed, (len(TEXTS),))) == [t.encode() for t in TEXTS]
    assert xml


def test_run_matches_openvino_and_writes_unicode_npz(tmp_path, run_cli, save_npz):
    xml = _model(tmp_path)
    feeds = {"text": np.array(TEXTS[::-1])}
    inputs = save_npz(text=feeds["text"])
    out = tmp_path / "out.npz"
    r = run_cli("run", xml, "--inputs", inputs, "--output", out)
    assert r.exit_code == 0, r.output
    assert "string" in r.output
    theirs = infer(compile_ir(xml), feeds)
    with np.load(out, allow_pickle=False) as got:
        assert got["echo"].dtype.kind == "U" and got["table"].dtype.kind == "U"
        for name in ("echo", "table"):
            assert [x.encode() for x in got[name].tolist()] == list(theirs[name]), name


def test_invalid_utf8_passes_through_as_bytes(tmp_path, run_cli, save_npz):
    xml = _model(tmp_path)
    inputs = save_npz(text=np.array([b"\xff\xfeok", b"fine"]))
    out = tmp_path / "out.npz"
    assert run_cli("run", xml, "--inputs", inputs, "--output", out).exit_code == 0
    with np.load(out, allow_pickle=False) as got:
        assert got["echo"].dtype.kind == "S"
        assert got["echo"].tolist() == [b"\xff\xfeok", b"fine"]


def test_compare_strings_exactly(tmp_path, run_cli, save_npz):
    xml = _model(tmp_path)
    inputs = save_npz(text=np.array(["a", "b"]))
    same = save_npz("same", echo=np.array(["a", "b"]), table=np.array(TEXTS))
    r = run_cli("run", xml, "--inputs", inputs, "--compare", same)
    assert r.exit_code == 0, r.output
    other = save_npz("other", echo=np.array([b"a", b"c"]), table=np.array(TEXTS))
    r = run_cli("run", xml, "--inputs", inputs, "--compare", other)
    assert r.exit_code == 1
    assert "compare-mismatch" in r.output and "1 of 2 strings differ" in r.output and "'b'" in r.output


def test_numbers_for_a_string_input_are_refused(tmp_path, run_cli, save_npz):
    xml = _model(tmp_path)
    r = run_cli("run", xml, "--inputs", save_npz(text=np.zeros(2, np.float32)))
    assert r.exit_code == 1 and "input-mismatch" in r.output and "np.str_" in r.output


def test_dump_and_random_inputs(tmp_path, run_cli):
    xml = _model(tmp_path)
    r = run_cli("run", xml, "--seed", "3", "--input-shape", "text:4", "--dump", tmp_path / "dump")
    assert r.exit_code == 0, r.output
    dumped = sorted((tmp_path / "dump").glob("*.npz"))
    with np.load(dumped[-1], allow_pickle=False) as d:
        assert all(a.dtype.kind in "US" for a in d.values())


def test_check_accepts_string_models(tmp_path, run_cli):
    xml = _model(tmp_path)
    r = run_cli("check", xml)
    assert r.exit_code == 0 and "0 errors, 0 warnings" in r.output


@pytest.mark.parametrize(("offset", "value", "message"), [
    (0, 5, "holds 5 strings but its shape"),
    (8, 99, "not increasing from 0"),
])
def test_corrupt_string_const(tmp_path, run_cli, offset, value, message):
    xml = _model(tmp_path)
    blob = bytearray((tmp_path / "model.bin").read_bytes())
    from irexec.base import strings
    start = blob.find(strings.pack(strings.from_numpy(np.array(TEXTS))))
    blob[start + offset:start + offset + 4] = np.array([value], "<i4").tobytes()
    (tmp_path / "model.bin").write_bytes(bytes(blob))
    r = run_cli("check", xml)
    assert r.exit_code == 1 and "bad-string-const" in r.output and message in r.output, r.output


@pytest.mark.parametrize("name", ["reshape", "concat", "gather", "transpose", "unsqueeze", "shape_of"])
def test_data_movement_on_strings_matches_openvino(name, tmp_path):
    import irexec

    p = opset15.parameter([2, 3], ov.Type.string, name="s")
    node = {
        "reshape": lambda: opset15.reshape(p, opset15.constant(np.array([3, 2])), False),
        "concat": lambda: opset15.concat([p, p], 1),
        "gather": lambda: opset15.gather(p, opset15.constant(np.array([2, 0, 2])), opset15.constant(np.array(1))),
        "transpose": lambda: opset15.transpose(p, opset15.constant(np.array([1, 0]))),
        "unsqueeze": lambda: opset15.unsqueeze(p, opset15.constant(np.array([0]))),
        "shape_of": lambda: opset15.shape_of(p),
    }[name]()
    xml = save(ov.Model([node.output(0)], [p]), tmp_path / "model.xml")
    feeds = {"s": np.array([TEXTS[:3], TEXTS[3:6]])}
    ((_, want),) = infer(compile_ir(xml), feeds).items()
    ((_, got),) = irexec.run(xml, feeds).items()
    assert got.shape == want.shape and [bytes(x) if got.dtype == object else x for x in got.reshape(-1)] == \
        list(want.reshape(-1))
