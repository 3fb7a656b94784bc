"""A name that matches nothing (`--stop-at`, an option naming a layer or an
output) is answered with close names, at a cost bounded whatever the model's
names are: names longer than a few hundred characters are never compared."""

from __future__ import annotations

from pathlib import Path

from test_check_budget import _clean, cli

from irexec.model import naming
from irexec.model.builder import IRBuilder

LONG = 8_000_000


def _long_names(directory: Path, length: int) -> Path:
    b = IRBuilder()
    x = b.parameter("x", [2], "f32")
    for k in "ab":
        x = b.layer("Relu", "opset1", [x], name=k * length)
    b.result(x, name="y")
    directory.mkdir(parents=True, exist_ok=True)
    xml, _ = b.write(directory / "model.xml")
    return Path(xml)


def test_a_typo_among_very_long_layer_names_is_cheap(tmp_path: Path) -> None:
    xml = _long_names(tmp_path, LONG)
    proc = cli("run", str(xml), "--stop-at", "Relux_typo")
    out = _clean(proc)
    assert proc.returncode == 2 and "error[unknown-name]" in out and "names no layer" in out, out
    assert len(out) < 5000


def test_control_close_names_are_still_offered(tmp_path: Path) -> None:
    xml = _long_names(tmp_path, 8)
    proc = cli("run", str(xml), "--stop-at", "aaaaaaab")
    out = _clean(proc)
    assert proc.returncode == 2 and "did you mean 'aaaaaaaa'" in out, out


def test_close_names_compares_a_bounded_number_of_names() -> None:
    names = [f"layer_{i}" for i in range(naming.MAX_COMPARED_NAMES * 3)] + ["x" * (naming.MAX_COMPARED_CHARS + 1)]
    assert naming.close_names("layer_1", names)[0] == "layer_1"
    last = f"layer_{naming.MAX_COMPARED_NAMES * 3 - 1}"
    assert last not in naming.close_names(last, names)  # past the names compared
    assert naming.close_names("x" * (naming.MAX_COMPARED_CHARS + 1), names) == []
    assert naming.close_names("x" * naming.MAX_COMPARED_CHARS, names) == []
