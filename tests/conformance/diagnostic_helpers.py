"""Where a diagnostic should point, read back from the IR file with lxml."""

from __future__ import annotations

from lxml import etree

import irexec


def xml_line(path: str, layer_id: int, input_port: int | None = None) -> int:
    """The line of a layer, or of one of its input ports."""
    layer = etree.parse(path).getroot().find(f"layers/layer[@id='{layer_id}']")
    if input_port is None:
        return layer.sourceline
    return layer.find(f"input/port[@id='{input_port}']").sourceline


def only_error(path: str):
    """The single error ``irexec check`` reports for ``path``."""
    errors = irexec.check(path).errors
    assert len(errors) == 1, [d.format() for d in errors]
    return errors[0]
