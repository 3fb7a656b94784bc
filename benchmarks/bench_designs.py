#!/usr/bin/env python
"""The design changes tried against the speed floors of bench_targets.py, each
measured against its floor in one run.

    python benchmarks/bench_designs.py                  # every section, a minute or two
    python benchmarks/bench_designs.py --only decode,check

Sections (``--only`` picks some):

decode       A decode step reads every weight once.  An LLM's output projection
             [49152, 576] as irexec keeps it (f32), against a half-size f16 copy
             widened by NumPy in cache-sized blocks, the u8 weight read by the
             compressed product (the jit extra; skipped without Numba), and
             ``np.copyto`` of the f32 weight.  Then the 28 layer products of smollm's decode step
             (1 row each) on one thread, and each cut in two over irexec's threads.
prefill      The products of a 32-token prefill as ``a @ w.T`` (a few rows by a
             wide matrix: the weight is stored [N, K]) and as ``(w @ a.T).T``.
elementwise  HSwish (computed in f64 for its 1-ulp bound) and ReLU on MobileNet's
             shapes: irexec's kernels against numexpr's fused, threaded evaluation
             of the same expression in f64 (skipped when numexpr is not installed:
             it is not a dependency).
depthwise    MobileNet-v3-small's 11 depthwise layers as irexec runs them (one
             thread), each cut into two channel halves on two threads, and a
             compiled kernel channels last (Numba; skipped without it).
check        Reading a 26,667-layer IR: lxml's parse alone, irexec's reader (parse
             and element walk), a bulk extraction (one XSLT pass writing the facts
             as text, split in Python, with the layers' and ports' lines from
             XPath), and OpenVINO's ``read_model`` of the same file.

Times are medians of rounds in which every contender runs once, so they share
the machine's load; compare within one run.  Each section prints the host's CPU.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
_spec = importlib.util.spec_from_file_location("bench_targets", Path(__file__).with_name("bench_targets.py"))
assert _spec is not None and _spec.loader is not None
bench_targets = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench_targets)

SECTIONS = ("decode", "prefill", "elementwise", "depthwise", "check")
# smollm_int4_stateful's products per layer (weights [N, K]), four layers
LAYER_WEIGHTS = [(576, 576), (192, 576), (192, 576), (576, 576), (1536, 576), (1536, 576), (576, 1536)] * 4
VOCAB, HIDDEN = 49152, 576
# MobileNet-v3-small's depthwise layers: channels, input size, kernel, stride
DEPTHWISE = [(16, 112, 3, 2), (72, 56, 3, 2), (88, 28, 3, 1), (96, 28, 5, 2), (240, 14, 5, 1), (240, 14, 5, 1),
             (120, 14, 5, 1), (144, 14, 5, 1), (288, 14, 5, 2), (576, 7, 5, 1), (576, 7, 5, 1)]


def medians(contenders: dict[str, Callable[[], object]], repeat: int, warm: int = 2) -> dict[str, float]:
    """Seconds per call of each contender, medians of rounds that call every one once."""
    times: dict[str, list[float]] = {k: [] for k in contenders}
    for i in range(warm + repeat):
        for name, call in contenders.items():
            t = time.perf_counter()
            call()
            if i >= warm:
                times[name].append(time.perf_counter() - t)
    return {k: statistics.median(v) for k, v in times.items()}


def report(title: str, got: dict[str, float], floor: str, current: str) -> None:
    """Each contender's time, as a ratio to the floor (np.copyto or OpenVINO) and to irexec's way now."""
    print(f"\n== {title}")
    print(f"  {'':<54} {'ms':>9} {'/ floor':>8} {'/ irexec':>9}")
    for name, seconds in got.items():
        print(f"  {name:<54} {seconds * 1e3:9.3f} {seconds / got[floor]:8.2f} {seconds / got[current]:9.2f}")


def section_decode(repeat: int) -> None:
    from irexec.kernels import compressed_linear
    from irexec.kernels.compressed_linear import CompressedWeight
    from irexec.ops.matmul.matmul import product
    from irexec.system import blas, parallel

    rng = np.random.default_rng(0)
    w16 = rng.standard_normal((VOCAB, HIDDEN)).astype(np.float16)
    w32 = w16.astype(np.float32)  # exactly the f16 values, as the decompression chain gives them
    x = rng.standard_normal((1, HIDDEN)).astype(np.float32)
    dst = np.empty_like(w32)
    block = np.empty((512, HIDDEN), np.float32)
    out = np.empty((1, VOCAB), np.float32)

    def from_f16() -> None:
        for lo in range(0, VOCAB, len(block)):
            np.copyto(block, w16[lo:lo + len(block)])
            np.matmul(x, block.T, out=out[:, lo:lo + len(block)])

    contenders = {"np.copyto of the f32 weight (113 MB)": lambda: np.copyto(dst, w32),
                  "x @ w.T, f32 weight, irexec's product (2 threads)": lambda: product(x, w32.T),
                  "x @ w.T, f16 weight widened in blocks of 512 rows": from_f16}
    q = rng.integers(0, 256, (VOCAB, HIDDEN), dtype=np.uint8)
    packed = CompressedWeight.of(q, np.full((VOCAB, 1), 128, np.float32), np.full((VOCAB, 1), 0.01, np.float32))
    if compressed_linear.available() and packed is not None:
        contenders["x @ w.T, u8 weight, the compressed product (jit extra)"] = lambda: packed.product(x)
    else:
        print("(the compressed product is not measured: Numba is not installed, pip install -e '.[jit]')")
    with blas.limited():
        got = medians(contenders, repeat)
    report("decode: the output projection, 1 row", got, "np.copyto of the f32 weight (113 MB)",
           "x @ w.T, f32 weight, irexec's product (2 threads)")

    weights = [rng.standard_normal(s).astype(np.float32) for s in LAYER_WEIGHTS]
    rows = {k: rng.standard_normal((1, k)).astype(np.float32) for k in {s[1] for s in LAYER_WEIGHTS}}
    total = sum(w.nbytes for w in weights)
    src, copy_dst = np.empty(total // 4, np.float32), np.empty(total // 4, np.float32)

    def halves(a: np.ndarray, w: np.ndarray) -> None:
        o = np.empty((1, w.shape[0]), np.float32)
        h = w.shape[0] // 2
        parallel.run([lambda: np.matmul(a, w[:h].T, out=o[:, :h]), lambda: np.matmul(a, w[h:].T, out=o[:, h:])], 1 << 30)

    with blas.limited():
        got = medians({f"np.copyto of as many bytes ({total >> 20} MB)": lambda: np.copyto(copy_dst, src),
                       "28 products on one thread": lambda: [np.matmul(rows[w.shape[1]], w.T) for w in weights],
                       "28 products, each cut in two over 2 threads": lambda: [halves(rows[w.shape[1]], w) for w in weights]},
                      repeat)
    report("decode: the 28 layer products of one step, 1 row", got, f"np.copyto of as many bytes ({total >> 20} MB)",
           "28 products on one thread")


def section_prefill(repeat: int) -> None:
    rng = np.random.default_rng(1)
    for n, k in ((576, 576), (1536, 576), (576, 1536), (VOCAB, HIDDEN)):
        _prefill_case(rng.standard_normal((n, k)).astype(np.float32), rng.standard_normal((32, k)).astype(np.float32),
                      repeat if n < VOCAB else max(3, repeat // 4))


def _prefill_case(w: np.ndarray, a: np.ndarray, repeat: int) -> None:
    from irexec.system import blas

    (n, k), rows = w.shape, a.shape[0]
    dst, src = np.empty((rows, n), np.float32), np.ones((rows, n), np.float32)
    with blas.limited():
        got = medians({"np.copyto of the output": lambda: np.copyto(dst, src),
                       "a @ w.T (few rows by a wide matrix)": lambda: np.matmul(a, w.T),
                       "(w @ a.T).T into a row-major output": lambda: np.copyto(dst, np.matmul(w, a.T).T)}, repeat)
    report(f"prefill: [{rows}, {k}] x [{k}, {n}] on one BLAS thread", got, "np.copyto of the output",
           "a @ w.T (few rows by a wide matrix)")


def section_elementwise(repeat: int) -> None:
    try:
        import numexpr  # type: ignore[import-untyped]
    except ImportError:
        print("\n== elementwise: skipped, numexpr is not installed (pip install numexpr)")
        return
    rng = np.random.default_rng(2)
    for shape in ((1, 16, 112, 112), (1, 96, 14, 14), (1, 576, 7, 7)):
        _elementwise_case(numexpr, (rng.standard_normal(shape) * 3).astype(np.float32), repeat)


def _elementwise_case(numexpr: Any, x: np.ndarray, repeat: int) -> None:
    from irexec.kernels.elementwise import apply_f64
    from irexec.ops.elementwise.activations import _hswish

    f32 = np.dtype(np.float32)
    out = np.empty_like(x)
    expr = "where(x < -3.0, 0.0, where(x > 3.0, 6.0, x + 3.0)) * x * (1.0 / 6.0)"
    numexpr.evaluate(expr, local_dict={"x": x}, out=out, casting="unsafe")
    assert np.array_equal(out, apply_f64(_hswish, [x], f32)), "numexpr's HSwish differs"
    got = medians({"np.copyto": lambda: np.copyto(out, x),
                   "HSwish, irexec (f64 in cache-sized chunks)": lambda: apply_f64(_hswish, [x], f32),
                   "HSwish, numexpr (f64, fused, threaded)": lambda: numexpr.evaluate(
                       expr, local_dict={"x": x}, out=out, casting="unsafe"),
                   "ReLU, np.maximum": lambda: np.maximum(x, 0),
                   "ReLU, numexpr": lambda: numexpr.evaluate("where(x < 0, 0, x)", local_dict={"x": x}, out=out)},
                  repeat)
    report(f"elementwise on {list(x.shape)} f32", got, "np.copyto", "HSwish, irexec (f64 in cache-sized chunks)")


def section_depthwise(repeat: int) -> None:
    from irexec.kernels import windows
    from irexec.system import parallel

    rng = np.random.default_rng(3)
    one = windows._depthwise_channels_last

    def two(x, w, strides, dilations, begin, out, acc):  # type: ignore[no-untyped-def]
        h = x.shape[1] // 2
        parallel.run([lambda: one(x[:, :h], w[:h], strides, dilations, begin, out[:, :h], acc),
                      lambda: one(x[:, h:], w[h:], strides, dilations, begin, out[:, h:], acc)], 1 << 30)

    calls = []
    for c, size, k, s in DEPTHWISE:
        x = rng.standard_normal((1, c, size, size)).astype(np.float32)
        w = rng.standard_normal((c, 1, 1, k, k)).astype(np.float32)
        o, p = (size + 2 * (k // 2) - k) // s + 1, k // 2
        calls.append(lambda x=x, w=w, c=c, s=s, o=o, p=p: windows.conv_nd(
            x, w, c, (s, s), (1, 1), (o, o), np.dtype(np.float32), pads=((p, p), (p, p))))
    inputs = [rng.standard_normal((1, c, size, size)).astype(np.float32) for c, size, _, _ in DEPTHWISE]
    copies = [np.empty_like(a) for a in inputs]

    def all_layers(split: bool) -> None:
        windows._depthwise_channels_last = two if split else one
        try:
            for call in calls:
                call()
        finally:
            windows._depthwise_channels_last = one

    contenders = {"np.copyto of the 11 inputs": lambda: [np.copyto(d, a) for d, a in zip(copies, inputs)],
                  "11 layers, one thread (irexec)": lambda: all_layers(False),
                  "11 layers, two channel halves on two threads": lambda: all_layers(True)}
    kernel = _depthwise_jit()
    if kernel is not None:
        one_layer = _depthwise_compiled(kernel)
        layers = [(rng.standard_normal((1, c, size, size)).astype(np.float32),
                   rng.standard_normal((c, k, k)).astype(np.float32), s, k // 2) for c, size, k, s in DEPTHWISE]
        contenders["11 layers, a Numba kernel channels last (with copies)"] = \
            lambda: [one_layer(x, w, s, p) for x, w, s, p in layers]
    else:
        print("(the compiled depthwise kernel is not measured: Numba is not installed, pip install -e '.[jit]')")
    got = medians(contenders, repeat)
    report("depthwise: MobileNet-v3-small's 11 layers", got, "np.copyto of the 11 inputs", "11 layers, one thread (irexec)")


def _depthwise_jit() -> Callable[..., None] | None:
    """A depthwise 2-D kernel channels last, compiled by Numba: per output pixel, the taps
    in order, each a multiply-add over the channels (contiguous, in vector lanes)."""
    try:
        import numba
    except ImportError:
        return None

    def kernel(xc, wc, stride, out):  # type: ignore[no-untyped-def]  # [N, H, W, C], [KH, KW, C], [N, OH, OW, C]
        n_, oh, ow, c = out.shape
        acc = np.empty(c, np.float32)
        for n in range(n_):
            for oy in range(oh):
                for ox in range(ow):
                    acc[:] = 0
                    for ky in range(wc.shape[0]):
                        for kx in range(wc.shape[1]):
                            px, wv = xc[n, oy * stride + ky, ox * stride + kx], wc[ky, kx]
                            for i in range(c):
                                acc[i] += wv[i] * px[i]
                    out[n, oy, ox, :] = acc

    return numba.njit(nogil=True, fastmath={"contract"})(kernel)  # type: ignore[no-any-return]


def _depthwise_compiled(kernel: Callable[..., None]) -> Callable[..., np.ndarray]:
    """A layer through ``kernel``: the input copied channels last with its padding, the output back."""

    def layer(x: np.ndarray, w: np.ndarray, stride: int, pad: int) -> np.ndarray:
        c, size, k = x.shape[1], x.shape[2], w.shape[-1]
        o = (size + 2 * pad - k) // stride + 1
        reach = (o - 1) * stride + k
        xc = np.zeros((1, reach, reach, c), np.float32)
        take = min(size, reach - pad)
        xc[:, pad:pad + take, pad:pad + take] = np.moveaxis(x[:, :, :take, :take], 1, -1)
        out = np.empty((1, o, o, c), np.float32)
        kernel(xc, np.ascontiguousarray(np.moveaxis(w, 0, -1)), stride, out)
        return np.ascontiguousarray(np.moveaxis(out, -1, 1))

    return layer


_XSLT = b"""<xsl:stylesheet version="1.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform">
<xsl:output method="text" encoding="utf-8"/>
<xsl:template match="/"><xsl:for-each select="net/layers/layer">
<xsl:text>L&#9;</xsl:text><xsl:value-of select="@id"/><xsl:text>&#9;</xsl:text><xsl:value-of select="@name"/>
<xsl:text>&#9;</xsl:text><xsl:value-of select="@type"/><xsl:text>&#9;</xsl:text><xsl:value-of select="@version"/>
<xsl:for-each select="data/@*"><xsl:text>&#9;</xsl:text><xsl:value-of select="name()"/>=<xsl:value-of select="."/></xsl:for-each>
<xsl:for-each select="input/port|output/port"><xsl:text>&#10;P&#9;</xsl:text><xsl:value-of select="@id"/>
<xsl:text>&#9;</xsl:text><xsl:value-of select="@precision"/>
<xsl:for-each select="dim"><xsl:text>&#9;</xsl:text><xsl:value-of select="."/></xsl:for-each></xsl:for-each>
<xsl:text>&#10;</xsl:text></xsl:for-each>
<xsl:for-each select="net/edges/edge"><xsl:value-of select="@from-layer"/>,<xsl:value-of select="@from-port"/>,<xsl:value-of
select="@to-layer"/>,<xsl:value-of select="@to-port"/><xsl:text>&#10;</xsl:text></xsl:for-each>
</xsl:template></xsl:stylesheet>"""


def section_check(repeat: int) -> None:
    import openvino as ov
    from lxml import etree

    from irexec.ir.reader import read_document
    from irexec.ir.safe_xml import parse_xml_tolerant
    from irexec.system.gc_pause import gc_paused

    transform = etree.XSLT(etree.fromstring(_XSLT), access_control=etree.XSLTAccessControl.DENY_ALL)
    ports = etree.XPath("layers/layer/*/port")

    def bulk(path: str) -> int:
        tree, _ = parse_xml_tolerant(path)
        records = [line.split("\t") for line in str(transform(tree)).split("\n")]
        root = tree.getroot()
        lines = [el.sourceline for el in root.find("layers")] + [p.sourceline for p in ports(root)]
        return len(records) + len(lines)

    core = ov.Core()
    with tempfile.TemporaryDirectory() as tmp:
        path = str(Path(tmp) / "long.xml")
        layers = bench_targets.write_long_ir(Path(path), 5333)
        with gc_paused():
            got = medians({"OpenVINO read_model": lambda: core.read_model(path),
                           "lxml parse (irexec's locked-down parser)": lambda: parse_xml_tolerant(path),
                           "irexec read_document (parse + element walk)": lambda: read_document(path),
                           "bulk: parse + XSLT text + split + XPath lines": lambda: bulk(path)},
                          max(3, repeat // 3), warm=1)
    report(f"check: reading a {layers}-layer IR", got, "OpenVINO read_model", "irexec read_document (parse + element walk)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--only", help=f"comma-separated sections of: {', '.join(SECTIONS)}")
    ap.add_argument("--repeat", type=int, default=15)
    args = ap.parse_args()
    chosen = [s for s in SECTIONS if not args.only or s in args.only.split(",")]
    import irexec

    irexec.retain_freed_memory()  # as `irexec run` does
    print(f"host: {bench_targets.host()}; load average {' '.join(f'{v:.1f}' for v in os.getloadavg())}")
    for name in chosen:
        globals()[f"section_{name}"](args.repeat)


if __name__ == "__main__":
    main()
