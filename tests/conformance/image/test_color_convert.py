"""Conformance tables of NV12toRGB-8, NV12toBGR-8, I420toRGB-8 and
I420toBGR-8, one plane and separate planes: exact.  The spec gives the
formula but not the precision; the reference converts pixel by pixel with
the f32 scalars and order of operations of OpenVINO's reference, u8
rounded half away from zero."""

from __future__ import annotations

from typing import Any

import numpy as np

from conformance.harness import Case, ErrorCase, OpTable, conformance, table_rng
from conformance.image.references import color_convert_reference


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
    return OpTable(op, "opset8", reference=color_convert_reference(kind, bgr), cases=cases, errors=errors)


TABLES = [table("NV12", False), table("NV12", True), table("I420", False), table("I420", True)]
test_conformance = conformance(TABLES)
