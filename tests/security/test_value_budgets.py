"""Values read from files and tensors computed by fused layers are sized by
inference and held to a budget before a byte is read, unpacked or allocated:
low-bit Consts in check, pre-process mean blobs, decompression chains,
variables without an initial value.

Each case runs the real command line in a child whose address space is capped
(RLIMIT_AS), where the attack used to need gigabytes."""

from __future__ import annotations

from pathlib import Path

import pytest
import value_budget_files as files
from test_check_budget import _clean, cli


@pytest.mark.parametrize("etype,elements", [("u4", 1 << 28), ("u1", 1 << 33), ("i4", 1 << 28)])
@pytest.mark.parametrize("command", [["check"], ["inspect", "--shapes"]])
def test_a_big_low_bit_const_is_never_unpacked_by_check(tmp_path: Path, etype: str, elements: int,
                                                        command: list[str]) -> None:
    xml = files.big_lowbit_const(tmp_path, etype, elements)
    proc = cli(*command, str(xml))
    out = _clean(proc)
    assert proc.returncode == 0, out
    assert str(elements) in out or command == ["check"]
