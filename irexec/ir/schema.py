"""The structure of an IR document, validated with schemas/ir.xsd.

The reader looks elements up by name, so a misspelt or misplaced element
(``<dims>``, a second ``<input>``, an ``<edge>`` inside ``<layers>``) would
otherwise vanish without a word.  The XML Schema catches those, with the line
of each; findings on a line the reader already reported are left to the
reader, whose messages are more specific.
"""

from __future__ import annotations

from collections.abc import Collection
from functools import lru_cache
from pathlib import Path

from lxml import etree

from ..base.errors import ERROR, Diagnostic

CODE = "bad-structure"


@lru_cache(maxsize=1)
def ir_schema() -> etree.XMLSchema:
    # found beside this file, not through importlib.resources: a folder named
    # irexec in the working directory can make the package a namespace package,
    # whose resources are a MultiplexedPath that cannot join a nested path
    data = (Path(__file__).resolve().parents[1] / "schemas" / "ir.xsd").read_bytes()
    parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False)
    return etree.XMLSchema(etree.fromstring(data, parser))


def structure_diagnostics(tree: etree._ElementTree, path: str, reported_lines: Collection[int | None] = ()) -> list[Diagnostic]:
    """One ``bad-structure`` error per schema violation, except on lines in
    ``reported_lines``."""
    if tree.getroot().tag != "net":
        return []  # <NET>: OpenVINO matches the root case-insensitively; the reader checked it
    schema = ir_schema()
    if schema.validate(tree):
        return []
    found: list[Diagnostic] = []
    seen: set[tuple[int, str]] = set()
    for entry in schema.error_log:
        line = entry.line or None
        if line in reported_lines or (entry.line, entry.message) in seen:
            continue
        seen.add((entry.line, entry.message))
        found.append(Diagnostic(CODE, _wording(entry.message), ERROR, file=path, line=line))
    return found


def _wording(message: str) -> str:
    """libxml2 says "Element 'dims': This element is not expected. Expected is
    one of ( dim, rt_info )."; keep it, minus the trailing dot."""
    return message.rstrip(".").replace("  ", " ")
