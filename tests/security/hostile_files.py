"""Hostile and broken model files, each paired with the code irexec must refuse it with.

Every attack starts from one small valid model (``write_base``) and changes as
little as possible, so the finding is due to the attack and nothing else.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from irexec.model.builder import IRBuilder

# A DOCTYPE this far into the file is past the prefilter's look-ahead, so the
# parser's own handling is what gets tested.
LATE_PADDING = b"<!--" + b" " * (2 << 20) + b"-->\n"


@dataclass(frozen=True)
class Env:
    """What an attack may point at: a file that must never be read, a URL that must never be fetched."""

    secret: Path
    url: str


@dataclass(frozen=True)
class Attack:
    name: str
    build: Callable[[Path, Env], Path]  # writes the files into a fresh directory, returns model.xml
    code: str  # what `irexec check` and `irexec run` report


def base_builder() -> IRBuilder:
    """x: f32[2,3] -> Result;  Const i32[2,3] -> Convert(f32) -> Result."""
    b = IRBuilder()
    x = b.parameter("x", [2, 3], "f32")
    c = b.const(np.arange(6, dtype=np.int32).reshape(2, 3))
    y = b.layer("Convert", "opset1", [c], {"destination_type": "f32"})
    b.result(x)
    b.result(y)
    return b


def write_base(directory: Path) -> Path:
    xml, _ = base_builder().write(directory / "model.xml")
    np.savez(directory / "inputs.npz", x=np.ones((2, 3), np.float32))
    return Path(xml)


def _body(xml: Path) -> bytes:
    """The document without its XML declaration, so a DOCTYPE can go first."""
    return xml.read_bytes().split(b"\n", 1)[1]


def _rewrite(edit: Callable[[bytes], bytes]) -> Callable[[Path, Env], Path]:
    def build(directory: Path, env: Env) -> Path:
        xml = write_base(directory)
        xml.write_bytes(edit(xml.read_bytes()))
        return xml

    return build


def _with_prolog(prolog: Callable[[Env], bytes], edit: Callable[[bytes], bytes] = lambda b: b, late: bool = False):
    def build(directory: Path, env: Env) -> Path:
        xml = write_base(directory)
        xml.write_bytes((LATE_PADDING if late else b"") + prolog(env) + edit(_body(xml)))
        return xml

    return build


def _name(value: bytes) -> Callable[[bytes], bytes]:
    """Put ``value`` in the Parameter's name attribute."""
    return lambda doc: doc.replace(b'name="x"', b'name="' + value + b'"', 1)


def _text(value: bytes) -> Callable[[bytes], bytes]:
    """Put ``value`` in the text of an element inside <layers>."""
    return lambda doc: doc.replace(b"<layers>", b"<layers><note>" + value + b"</note>", 1)


def _sub(pattern: bytes, repl: bytes) -> Callable[[bytes], bytes]:
    def edit(doc: bytes) -> bytes:
        out, n = re.subn(pattern, repl, doc, count=1)
        assert n == 1, pattern
        return out

    return edit


def _xxe(env: Env) -> bytes:
    return b'<!DOCTYPE net [<!ENTITY xxe SYSTEM "file://' + str(env.secret).encode() + b'">]>\n'


def _xxe_url(env: Env) -> bytes:
    return b'<!DOCTYPE net [<!ENTITY xxe SYSTEM "' + env.url.encode() + b'/entity">]>\n'


def _parameter_entity(env: Env) -> bytes:
    return b'<!DOCTYPE net [<!ENTITY % remote SYSTEM "' + env.url.encode() + b'/pe.dtd"> %remote;]>\n'


def _external_dtd_url(env: Env) -> bytes:
    return b'<!DOCTYPE net SYSTEM "' + env.url.encode() + b'/net.dtd">\n'


def _external_dtd_file(env: Env) -> bytes:
    return b'<!DOCTYPE net SYSTEM "file://' + str(env.secret).encode() + b'">\n'


def _laughs(env: Env) -> bytes:
    ents = [b'<!ENTITY lol0 "lol">']
    ents += [b"<!ENTITY lol%d \"%s\">" % (i, b"&lol%d;" % (i - 1) * 10) for i in range(1, 10)]
    return b"<!DOCTYPE net [" + b"".join(ents) + b"]>\n"


def _quadratic(env: Env) -> bytes:
    return b'<!DOCTYPE net [<!ENTITY big "' + b"x" * 100_000 + b'">]>\n'


QUADRATIC_REFS = b"&big;" * 100_000


def _deep(doc: bytes) -> bytes:
    return doc.replace(b"<layers>", b"<layers>" + b"<a>" * 100_000 + b"</a>" * 100_000, 1)


def _truncate_bin(directory: Path, env: Env) -> Path:
    xml = write_base(directory)
    binf = xml.with_suffix(".bin")
    binf.write_bytes(binf.read_bytes()[:10])
    return xml


ATTACKS: list[Attack] = [
    # entities and DTDs: never expanded, never fetched
    Attack("xxe-local-file", _with_prolog(_xxe, _name(b"&xxe;")), "unsafe-xml"),
    Attack("xxe-local-file-in-text", _with_prolog(_xxe, _text(b"&xxe;")), "unsafe-xml"),
    Attack("xxe-local-file-late-doctype", _with_prolog(_xxe, _name(b"&xxe;"), late=True), "unsafe-xml"),
    Attack("xxe-url", _with_prolog(_xxe_url, _text(b"&xxe;")), "unsafe-xml"),
    Attack("xxe-url-late-doctype", _with_prolog(_xxe_url, _text(b"&xxe;"), late=True), "unsafe-xml"),
    Attack("parameter-entity-url", _with_prolog(_parameter_entity), "unsafe-xml"),
    Attack("parameter-entity-url-late-doctype", _with_prolog(_parameter_entity, late=True), "unsafe-xml"),
    Attack("external-dtd-url", _with_prolog(_external_dtd_url), "unsafe-xml"),
    Attack("external-dtd-url-late-doctype", _with_prolog(_external_dtd_url, late=True), "unsafe-xml"),
    Attack("external-dtd-file", _with_prolog(_external_dtd_file), "unsafe-xml"),
    Attack("billion-laughs", _with_prolog(_laughs, _name(b"&lol9;")), "unsafe-xml"),
    Attack("billion-laughs-in-text", _with_prolog(_laughs, _text(b"&lol9;")), "unsafe-xml"),
    Attack("billion-laughs-late-doctype", _with_prolog(_laughs, _name(b"&lol9;"), late=True), "unsafe-xml"),
    Attack("quadratic-blowup", _with_prolog(_quadratic, _name(QUADRATIC_REFS)), "unsafe-xml"),
    Attack("quadratic-blowup-late-doctype", _with_prolog(_quadratic, _text(QUADRATIC_REFS), late=True), "unsafe-xml"),
    Attack("undeclared-entity", _rewrite(_name(b"&undeclared;")), "unsafe-xml"),
    # libxml2's resource limits, never lifted (huge_tree=False)
    Attack("deep-nesting-100k", _rewrite(_deep), "xml-limit"),
    Attack("attribute-100mb", _rewrite(_name(b"A" * 100_000_000)), "xml-limit"),
    Attack("text-20mb", _rewrite(_text(b"A" * 20_000_000)), "xml-limit"),
    # bytes that are not an XML document
    Attack("non-utf8-bytes", _rewrite(_name(b"\xff\xfe\xc3")), "xml-encoding"),
    Attack("truncated-xml", _rewrite(lambda d: d[: len(d) // 2]), "xml-syntax"),
    Attack("empty-xml", _rewrite(lambda d: b""), "xml-syntax"),
    Attack("binary-garbage-xml", _rewrite(lambda d: bytes(range(256)) * 64), "xml-encoding"),
    # weights
    Attack("truncated-bin", _truncate_bin, "weights-out-of-bounds"),
    Attack("const-offset-near-2^63", _rewrite(_sub(rb'offset="0"', b'offset="9223372036854775800"')), "weights-out-of-bounds"),
    Attack("const-offset-past-2^64", _rewrite(_sub(rb'offset="0"', b'offset="36893488147419103232"')), "weights-out-of-bounds"),
    Attack("const-size-near-2^63", _rewrite(_sub(rb'size="24"', b'size="9223372036854775807"')), "weights-out-of-bounds"),
    Attack("const-shape-2^96-elements", _rewrite(_sub(rb'shape="2, 3"', b'shape="4294967296, 4294967296, 4294967296"')),
           "shape-too-large"),
    Attack("const-shape-5000-digits", _rewrite(_sub(rb'shape="2, 3"', b'shape="' + b"9" * 5000 + b'"')), "bad-shape"),
    # dims
    Attack("dim-negative", _rewrite(_sub(rb"<dim>2</dim>", b"<dim>-5</dim>")), "bad-dim"),
    Attack("dim-10^30", _rewrite(_sub(rb"<dim>2</dim>", b"<dim>1000000000000000000000000000000</dim>")), "bad-dim"),
    Attack("dim-5000-digits", _rewrite(_sub(rb"<dim>2</dim>", b"<dim>" + b"7" * 5000 + b"</dim>")), "bad-dim"),
    Attack("parameter-shape-10^12x10^12",
           _rewrite(_sub(rb'shape="2,3"', b'shape="1000000000000,1000000000000"')), "shape-too-large"),
    Attack("parameter-shape-10^30", _rewrite(_sub(rb'shape="2,3"', b'shape="1000000000000000000000000000000,3"')), "bad-shape"),
    Attack("parameter-shape-negative", _rewrite(_sub(rb'shape="2,3"', b'shape="-5,3"')), "bad-shape"),
    Attack("layer-id-5000-digits", _rewrite(_sub(rb'<layer id="0"', b'<layer id="' + b"1" * 5000 + b'"')), "bad-attribute"),
]

BY_NAME = {a.name: a for a in ATTACKS}
