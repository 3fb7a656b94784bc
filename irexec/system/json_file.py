"""The small JSON files beside a model (config.json, generation_config.json,
preprocessor_config.json): read whole, one coded error for every way they can be unreadable."""

from __future__ import annotations

import json

from ..base.errors import InputError


def read_json_object(path: str, *, strict: bool = False) -> dict[str, object]:
    """The object ``path`` holds: ``bad-input-file`` if it cannot be read or is not JSON, and,
    with ``strict``, if it holds anything but an object (else that reads as an empty one)."""
    try:
        with open(path, encoding="utf-8") as f:
            value = json.load(f)
    except (OSError, ValueError) as e:
        raise InputError(f"{path} is not readable JSON: {e}", code="bad-input-file", file=path) from None
    if isinstance(value, dict):
        return value
    if strict:
        raise InputError(f"{path} holds no JSON object", code="bad-input-file", file=path)
    return {}


__all__ = ["read_json_object"]
