"""A shape-mismatch with one wrong dim points at that <dim>'s line."""

from __future__ import annotations

from irexec.model.builder import IRBuilder


def test_one_wrong_dim_points_at_its_line(write_ir, run_cli):
    b = IRBuilder()
    x = b.parameter("x", "2,3,4", "f32")
    b.result(b.layer("Relu", "opset1", [x], {}, outputs=[((2, 3, 5), "f32")], names=["y"]))
    path = write_ir(b)
    lines = open(path).read().splitlines()
    r = run_cli.subprocess("check", path)
    assert r.returncode == 1
    found = [line for line in r.stdout.splitlines() if "error[shape-mismatch]" in line and "output port" in line]
    assert len(found) == 1 and "(dim 2)" in found[0], r.stdout
    line = int(found[0].split(":")[1])
    assert lines[line - 1].strip() == "<dim>5</dim>"


def test_two_wrong_dims_point_at_the_port(write_ir, run_cli):
    b = IRBuilder()
    x = b.parameter("x", "2,3,4", "f32")
    b.result(b.layer("Relu", "opset1", [x], {}, outputs=[((2, 7, 5), "f32")], names=["y"]))
    path = write_ir(b)
    lines = open(path).read().splitlines()
    r = run_cli.subprocess("check", path)
    found = next(line for line in r.stdout.splitlines() if "error[shape-mismatch]" in line and "output port" in line)
    assert "(dim" not in found
    assert lines[int(found.split(":")[1]) - 1].strip().startswith("<port")
