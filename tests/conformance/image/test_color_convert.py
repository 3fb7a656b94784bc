"""Conformance tables of NV12toRGB-8, NV12toBGR-8, I420toRGB-8 and
I420toBGR-8, one plane and separate planes, and of RGBtoNV12-17 and
BGRtoNV12-17 the other way: exact.  The spec gives the formula but not the
precision; the reference converts pixel by pixel with the f32 scalars and
order of operations of OpenVINO's reference, u8 rounded half away from zero.
OpenVINO 2026.4 reads and shape-infers RGBtoNV12/BGRtoNV12, but its CPU
plugin has no kernel for them (and the op no evaluate): their values are
held to the reference alone."""

from __future__ import annotations

from typing import Any

import numpy as np

from conformance.harness import Case, ErrorCase, OpTable, Tol, conformance, table_rng
from conformance.image.references import color_convert_reference, to_nv12_reference


def planes(rng: np.random.Generator, kind: str, n: int, h: int, w: int, dtype: Any, single: bool) -> list[np.ndarray]:
    """Random Y, U, V values in [0, 255] as the op's inputs."""
    def draw(shape: tuple[int, ...]) -> np.ndarray:
        values = rng.integers(0, 256, shape) if np.dtype(dtype) == np.uint8 else rng.uniform(0, 255, shape)
        return values.astype(dtype)

    if single:
        return [draw((n, h * 3 // 2, w, 1))]
    if kind == "NV12":
        return [draw((n, h, w, 1)), draw((n, h // 2, w // 2, 2))]
    return [draw((n, h, w, 1)), draw((n, h // 2, w // 2, 1)), draw((n, h // 2, w // 2, 1))]


def table(kind: str, bgr: bool) -> OpTable:
    op = f"{kind}to{'BGR' if bgr else 'RGB'}"
    rng = table_rng(f"{op}-8")  # the table's own generator
    cases = [
        Case("single-u8", planes(rng, kind, 1, 4, 6, np.uint8, True)),
        Case("planes-u8", planes(rng, kind, 2, 6, 4, np.uint8, False)),
        Case("single-f32", planes(rng, kind, 2, 2, 4, np.float32, True)),
        Case("planes-f32", planes(rng, kind, 1, 4, 8, np.float32, False)),
        Case("planes-f16", planes(rng, kind, 1, 2, 2, np.float16, False)),
    ]
    y, *chroma = planes(rng, kind, 1, 4, 4, np.uint8, False)
    errors = [
        ErrorCase("odd-height", planes(rng, kind, 1, 3, 4, np.uint8, False)[:1] + [c[:, :1] for c in chroma],
                  code="incompatible-inputs"),
        ErrorCase("single-height", [np.zeros((1, 5, 4, 1), np.uint8)], code="incompatible-inputs"),
        ErrorCase("odd-width", [np.zeros((1, 6, 3, 1), np.uint8)], code="incompatible-inputs"),
        ErrorCase("y-channels", [np.zeros((1, 6, 4, 2), np.uint8)], code="incompatible-inputs"),
        ErrorCase("chroma-size", [y] + [c[:, :1] for c in chroma], code="incompatible-inputs"),
        ErrorCase("rank", [np.zeros((6, 4, 1), np.uint8)], code="bad-input-rank"),
        ErrorCase("type", [np.zeros((1, 6, 4, 1), np.int32)], code="bad-input-type"),
        ErrorCase("mixed-types", [y] + [c.astype(np.float32) for c in chroma], code="bad-input-type"),
    ]
    if kind == "NV12":
        errors.append(ErrorCase("uv-channels", [y, np.zeros((1, 2, 2, 1), np.uint8)], code="incompatible-inputs"))
    else:
        errors.append(ErrorCase("two-planes", [y, chroma[0]], code="wrong-port-count"))
    return OpTable(op, "opset8", reference=color_convert_reference(kind, bgr), tol=Tol.EXACT, cases=cases, errors=errors)


NO_CPU_KERNEL = "OpenVINO 2026.4's CPU plugin has no RGBtoNV12/BGRtoNV12 kernel"


def to_nv12_table(bgr: bool) -> OpTable:
    op = f"{'BGR' if bgr else 'RGB'}toNV12"
    rng = table_rng(f"{op}-17")

    def image(n: int, h: int, w: int, dtype: Any) -> np.ndarray:
        values = rng.integers(0, 256, (n, h, w, 3)) if np.dtype(dtype) == np.uint8 else rng.uniform(-20, 275, (n, h, w, 3))
        return values.astype(dtype)

    two = {"single_plane": False}
    cases = [
        Case("single-u8", [image(1, 4, 6, np.uint8)], ov=NO_CPU_KERNEL),
        Case("planes-u8", [image(2, 6, 4, np.uint8)], two, ov=NO_CPU_KERNEL),
        Case("single-f32", [image(2, 2, 4, np.float32)], ov=NO_CPU_KERNEL),  # values outside [0, 255] clip
        Case("planes-f32", [image(1, 4, 8, np.float32)], two, ov=NO_CPU_KERNEL),
        Case("planes-f16", [image(1, 2, 2, np.float16)], two, ov=NO_CPU_KERNEL),
        Case("extremes-u8", [np.array([[[[0, 0, 0], [255, 255, 255]], [[255, 0, 0], [0, 0, 255]]]], np.uint8)],
             ov=NO_CPU_KERNEL),
    ]
    errors = [
        ErrorCase("odd-height", [np.zeros((1, 3, 4, 3), np.uint8)], code="incompatible-inputs"),
        ErrorCase("odd-width", [np.zeros((1, 4, 5, 3), np.uint8)], two, code="incompatible-inputs"),
        ErrorCase("channels", [np.zeros((1, 4, 4, 4), np.uint8)], code="incompatible-inputs"),
        ErrorCase("rank", [np.zeros((4, 4, 3), np.uint8)], code="bad-input-rank"),
        ErrorCase("type", [np.zeros((1, 4, 4, 3), np.int32)], code="bad-input-type"),
    ]
    return OpTable(op, "opset17", reference=to_nv12_reference(bgr), tol=Tol.EXACT, cases=cases, errors=errors)


TABLES = [table("NV12", False), table("NV12", True), table("I420", False), table("I420", True),
          to_nv12_table(False), to_nv12_table(True)]
test_conformance = conformance(TABLES)
