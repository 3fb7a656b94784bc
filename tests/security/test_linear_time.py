"""Paths that were quadratic in what a file repeats: each is measured at two
sizes ten times apart.  Linear work costs about 10x as much; the quadratic
versions cost 100x.  The bound (30x) is on the ratio of CPU time this process
spent, not wall time: other processes and pytest-xdist workers that share the
cores cannot inflate it by taking the CPU away.  Small and large runs alternate
and the cheapest of each is kept, so a burst of cache contention hits both."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
from cpu_time import assert_linear

import irexec
from irexec.base.errors import InputError
from irexec.executor.feeds import bind_feeds
from irexec.model.builder import IRBuilder

SCALE = 10
MAX_RATIO = 30


def _assert_linear(make: Callable[[int], Callable[[], object]], small: int) -> None:
    assert_linear(make, small, scale=SCALE, max_ratio=MAX_RATIO, floor=1e-3, what="size")


def _one_layer(tmp_path: Path, name: str) -> Path:
    b = IRBuilder()
    x = b.parameter("x", [2], "f32")
    b.result(b.layer("Convert", "opset1", [x], {"destination_type": "f16"}))
    xml, _ = b.write(tmp_path / f"{name}.xml")
    return Path(xml)


def test_many_data_attributes_are_read_in_linear_time(tmp_path: Path) -> None:
    def make(n: int) -> Callable[[], object]:
        xml = _one_layer(tmp_path, f"attrs{n}")
        extra = " ".join(f'a{i}="{i}"' for i in range(n))
        xml.write_text(xml.read_text().replace('destination_type="f16"', f'destination_type="f16" {extra}', 1))

        def check() -> None:
            found = irexec.check(str(xml))
            assert found.diagnostics == [], found.diagnostics

        return check

    _assert_linear(make, 3_000)


def test_many_input_ports_are_connected_in_linear_time(tmp_path: Path) -> None:
    def make(n: int) -> Callable[[], object]:
        xml = _one_layer(tmp_path, f"ports{n}")
        text = xml.read_text()
        start = text.index('<layer id="1"')
        end = text.index("</input>", start)
        ports = "".join(f'<port id="{k}"><dim>2</dim></port>' for k in range(2, n + 2))
        edges = "".join(f'<edge from-layer="0" from-port="0" to-layer="1" to-port="{k}"/>' for k in range(2, n + 2))
        text = text[:end] + ports + text[end:]
        xml.write_text(text.replace("</edges>", edges + "</edges>", 1))

        def check() -> None:
            found = irexec.check(str(xml))
            assert [d.code for d in found.errors] == ["wrong-port-count"], found.diagnostics[:3]

        return check

    _assert_linear(make, 1_000)


def test_an_unknown_input_among_many_parameters_is_reported_in_linear_time(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    def make(n: int) -> Callable[[], object]:
        b = IRBuilder()
        for i in range(n):
            b.result(b.parameter(f"p{i}", [1], "f32"))
        xml, _ = b.write(tmp_path / f"params{n}.xml")
        model = irexec.load(xml)
        feeds = {"unknown": np.ones(1, np.float32)}

        def bind() -> None:
            try:
                bind_feeds(model, feeds)
            except InputError as e:
                assert len(e.diagnostics) == n + 1
                assert len(e.diagnostics[0].message) < 1000  # the Parameters are not all listed
            else:
                raise AssertionError("no error")

        return bind

    _assert_linear(make, 500)
    # and through the command line, on the small model
    np.savez(tmp_path / "in.npz", unknown=np.ones(1, np.float32))
    result = run_cli("run", tmp_path / "params500.xml", "--inputs", tmp_path / "in.npz")
    assert result.exit_code == 1 and "'unknown' matches no Parameter" in result.output and "and 490 more" in result.output


def test_many_tags_after_the_root_element_are_skipped_in_linear_time(tmp_path: Path) -> None:
    """Content after </net>, which OpenVINO ignores: one line per tag, each on its own line."""
    def make(n: int) -> Callable[[], object]:
        xml = _one_layer(tmp_path, f"tail{n}")
        xml.write_bytes(xml.read_bytes() + b"<a/>\n" * n)

        def check() -> None:
            found = irexec.check(str(xml))
            assert [d.code for d in found.diagnostics] == ["xml-trailing-content"], found.diagnostics
        return check

    _assert_linear(make, 20_000)
