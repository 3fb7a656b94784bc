"""model.xml -> an IRDocument of records (layers, ports, edges), each with its XML source line.

The parser is locked down: no entity expansion, no DTD loading, no network,
libxml2's default limits on depth and text size.  A document that declares
entities or points at an external DTD is refused outright.  Everything that
is wrong with an individual record is collected as a diagnostic; only a
document that cannot be read at all raises.
"""


from __future__ import annotations

import os

from ..base.errors import WARNING, ModelError
from .elements import SUPPORTED_IR_VERSIONS, UINT_RE, Collector, read_edges, read_layers, read_pre_process
from .records import IRDocument
from .safe_xml import check_file, parse_xml_tolerant
from .schema import structure_diagnostics
from .stream_reader import read_streaming

# a document this large is read while it is parsed (stream_reader.py)
_STREAM_FROM_BYTES = 16 << 20


def read_document(path: str) -> IRDocument:
    check_file(path)
    # a small document is parsed whole (its tree is at most a few hundred MiB, and
    # pulled parsing with streamed validation costs about a fifth more time)
    doc = read_streaming(path) if os.path.getsize(path) >= _STREAM_FROM_BYTES else None
    return doc if doc is not None else _read_tree(path)


def is_ir_root(tag: object) -> bool:
    """Whether a root element's tag (lxml's, ``{uri}name`` when namespaced) makes an IR
    file: ``net`` in any case, as OpenVINO reads it, and in no namespace."""
    return isinstance(tag, str) and tag.lower() == "net"


def _read_tree(path: str) -> IRDocument:
    tree, tolerated = parse_xml_tolerant(path)
    root = tree.getroot()
    if not is_ir_root(root.tag):
        raise ModelError(f"root element is <{root.tag}>, not <net>: not an OpenVINO IR file", code="not-ir", file=path,
                         line=root.sourceline)
    raw_version = root.get("version")
    if raw_version is None or not UINT_RE.match(raw_version.strip()) or int(raw_version) not in SUPPORTED_IR_VERSIONS:
        raise ModelError(
            f"IR version {raw_version!r} is not supported; supported: {', '.join(map(str, SUPPORTED_IR_VERSIONS))}",
            code="unsupported-ir-version",
            file=path,
            line=root.sourceline,
        )
    diag = Collector(path)
    for code, message, line in tolerated:
        diag.add(code, message, line, WARNING)
    layers = read_layers(root, diag)
    edges = read_edges(root, diag)
    diag.items.extend(structure_diagnostics(tree, path, {d.line for d in diag.items}))
    return IRDocument(path, int(raw_version), root.get("name", ""), layers, edges, diag.items,
                      read_pre_process(root.find("pre-process")))
