"""What only the command line knows: how its options are spelled and parsed.

The library names the Python API's parameters in its messages (```stop_at```,
```max_memory```); :func:`use_option_names` makes those messages name the
options instead, so one message serves both."""

from __future__ import annotations

import json
from collections.abc import Iterable
from contextvars import Token
from typing import TYPE_CHECKING

from ..base import errors
from ..base.errors import UsageError
from ..system.json_file import read_json

if TYPE_CHECKING:
    from ..base.shapes import PartialShape


# API parameter -> the option that sets it
OPTION_NAMES = {
    "stop_at": "--stop-at",
    "max_memory": "--max-memory",
    "weights": "--weights",
    "input_shapes": "--input-shape",
    "val_ranges": "--val-range",
    "follow_symlinks": "--follow-symlinks",
    "atol": "--atol",
    "rtol": "--rtol",
    "seed": "--seed",
    "state": "--state-in",
    "check_finite": "--check-finite",
    "top": "--top",
    "compare": "--compare",
    "eos_token_id": "--eos-token-id",
    "ignore_eos": "--ignore-eos",
    "max_new_tokens": "--max-new-tokens",
    "layers": "--layers",
    "steps": "--steps",
    "inputs_dir": "--inputs-dir",
    "scheduler": "--scheduler",
    "json": "--json",
}


def use_option_names() -> Token:
    """From now on (until the token is given to ``errors.unspell_parameters``),
    messages name the options, not the parameters."""
    return errors.spell_parameters(OPTION_NAMES)


def _split(spec: str, option: str, form: str, example: str, code: str) -> tuple[str, str]:
    name, sep, rest = spec.rpartition(":")
    if not sep or not name:
        raise UsageError(f"{option} {spec!r} is not {form} (e.g. {example})", code=code)
    text = rest.strip()
    return name, text[1:-1] if text.startswith("[") and text.endswith("]") else text


def parse_input_shapes(specs: Iterable[str]) -> dict[str, tuple[int, ...]]:
    """``NAME:1,3,224,224`` (brackets optional, ``NAME:`` or ``NAME:[]`` for a
    scalar) -> {name: static shape}.  The shape follows the last colon."""
    from ..base.shapes import ShapeSyntaxError, parse_static_shape

    shapes: dict[str, tuple[int, ...]] = {}
    for spec in specs:
        name, text = _split(spec, "--input-shape", "NAME:DIMS", "x:1,3,224,224", "bad-input-shape")
        try:
            shapes[name] = parse_static_shape(text)
        except ShapeSyntaxError as e:
            raise UsageError(f"--input-shape {spec!r}: {e} (give every dim as a non-negative integer)",
                             code="bad-input-shape") from None
    return shapes


def parse_input_pins(specs: Iterable[str]) -> dict[str, PartialShape]:
    """``NAME:1,3,-1`` -> {name: partial shape} for ``check``: a dim may stay dynamic."""
    from ..base.shapes import ShapeSyntaxError, parse_partial_shape

    pins: dict[str, PartialShape] = {}
    for spec in specs:
        name, text = _split(spec, "--input-shape", "NAME:DIMS", "x:1,3,224,224", "bad-input-shape")
        try:
            shape = parse_partial_shape(text)
        except ShapeSyntaxError as e:
            raise UsageError(f"--input-shape {spec!r}: {e}", code="bad-input-shape") from None
        if shape.dims is None:
            raise UsageError(f"--input-shape {spec!r}: give the dims (a dynamic rank pins nothing)", code="bad-input-shape")
        pins[name] = shape
    return pins


def parse_val_ranges(specs: Iterable[str]) -> dict[str | None, tuple[float, float]]:
    """``NAME:LOW,HIGH`` or ``LOW,HIGH`` (every input; brackets optional) -> {name or None: (low, high)}."""
    import math

    ranges: dict[str | None, tuple[float, float]] = {}
    for spec in specs:
        name, sep, values = spec.rpartition(":")
        text = values.strip()
        if text.startswith("[") and text.endswith("]"):
            text = text[1:-1]
        parts = text.split(",")
        try:
            if len(parts) != 2:
                raise ValueError
            low, high = (float(v) for v in parts)
            if not (math.isfinite(low) and math.isfinite(high)) or low > high:
                raise ValueError
        except ValueError:
            raise UsageError(f"--val-range {spec!r} is not [NAME:]LOW,HIGH with finite LOW <= HIGH (e.g. input_ids:0,30521)",
                             code="bad-val-range") from None
        ranges[name if sep else None] = (low, high)
    return ranges


def parse_tolerance(specs: Iterable[str], option: str):  # -> comparison.Tolerance (imported late: NumPy)
    """Repeated ``VALUE`` or ``NAME:VALUE`` specs of ``--atol``/``--rtol``.  The
    value follows the last colon, so output names that contain colons still work."""
    from ..api.comparison import Tolerance, check_tolerance

    default: float | None = None
    per: dict[str, float] = {}
    for spec in specs:
        name, sep, text = spec.rpartition(":")
        try:
            value = float(text)
        except ValueError:
            raise UsageError(f"{option} {spec!r}: {text!r} is not a number (use VALUE or OUTPUT:VALUE)",
                             code="bad-tolerance") from None
        check_tolerance(value, f"{option} {spec!r}")
        if sep and name:
            per[name] = value
        elif default is not None and default != value:
            raise UsageError(f"{option} is given twice without an output name ({default!r} and {value!r})",
                             code="bad-tolerance")
        else:
            default = value
    return Tolerance(default, per)


def parse_device_config(specs: Iterable[str]) -> dict[str, str]:
    """``--config KEY=VALUE`` (repeatable) or ``--config FILE.json`` (an object of properties)."""
    config: dict[str, str] = {}
    for spec in specs:
        if "=" not in spec and spec.lower().endswith(".json"):
            data = read_json(spec, "device config file", error=UsageError, code="bad-device-config")
            if not isinstance(data, dict):
                raise UsageError(f"--config {spec}: the file must hold a JSON object of properties",
                                 code="bad-device-config", file=spec)
            config.update({str(k): v if isinstance(v, str) else json.dumps(v) for k, v in data.items()})
            continue
        key, sep, value = spec.partition("=")
        if not sep or not key.strip():
            raise UsageError(f"--config {spec!r}: give KEY=VALUE (e.g. INFERENCE_PRECISION_HINT=f32) or a .json file",
                             code="bad-device-config")
        config[key.strip()] = value.strip()
    return config
