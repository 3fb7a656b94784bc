"""The JSON files irexec reads (config.json, generation_config.json, preprocessor_config.json
beside a model, ``diff --config FILE.json``): through the file rules of ``files`` (a regular
file, no link out of its folder, at most ``MAX_JSON_BYTES``), nested at most
``MAX_JSON_DEPTH`` deep, checked before the parser recurses; every way one can be unreadable
or of the wrong shape is one coded error naming the file (and the key)."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping

from ..base.errors import InputError, IRExecError
from .files import read_small_file

MAX_JSON_BYTES = 16 << 20  # a model's config.json is a few KiB
MAX_JSON_DEPTH = 64  # Hugging Face configs nest four or five levels
_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"')
_NOT_BRACKETS = bytes(sorted(set(range(256)) - set(b"[]{}")))
_KINDS: dict[str, type | tuple[type, ...]] = {"an integer": int, "a number": (int, float), "a string": str,
                                              "an object": dict, "a list": list, "a boolean": bool}


def nesting_depth(data: bytes) -> int:
    """How deep the arrays and objects of ``data`` nest (brackets inside strings do not count)."""
    import numpy as np  # here, not at the top: a check served from the cache reads options without NumPy

    brackets = np.frombuffer(_STRING.sub(b'""', data).translate(None, _NOT_BRACKETS), np.uint8)
    if not brackets.size:
        return 0
    steps = np.where(np.isin(brackets, np.frombuffer(b"[{", np.uint8)), 1, -1)
    return int(np.cumsum(steps).max())


def parse_json(data: bytes, path: str, error: type[IRExecError] = InputError, code: str = "bad-input-file") -> object:
    """The value ``data`` (the bytes of ``path``) holds, nested at most ``MAX_JSON_DEPTH`` deep."""
    depth = nesting_depth(data)
    if depth > MAX_JSON_DEPTH:
        raise error(f"{path} nests arrays and objects {depth} deep, more than the {MAX_JSON_DEPTH} any config "
                    "needs", code=code, file=path)
    try:
        return json.loads(data.decode("utf-8"))
    except (ValueError, RecursionError) as e:  # UnicodeDecodeError and JSONDecodeError are ValueErrors
        raise error(f"{path} is not readable JSON: {e}", code=code, file=path) from None


def read_json(path: str, what: str = "JSON file", *, follow_symlinks: bool | None = None,
              error: type[IRExecError] = InputError, code: str = "bad-input-file") -> object:
    """The value of the JSON file ``path``, read under the file rules."""
    return parse_json(read_small_file(path, what, MAX_JSON_BYTES, follow_symlinks, error, code), path, error, code)


def read_json_object(path: str, *, strict: bool = True, follow_symlinks: bool | None = None,
                     what: str = "JSON file") -> dict[str, object]:
    """The object ``path`` holds: ``bad-input-file`` if it cannot be read, is not JSON or holds
    anything but an object (``strict`` is kept for callers; every shape but an object is refused)."""
    value = read_json(path, what, follow_symlinks=follow_symlinks)
    if not isinstance(value, dict):
        raise InputError(f"{path} holds {_kind_of(value)} where a JSON object is expected", code="bad-input-file",
                         file=path)
    return value


def json_field(obj: Mapping[str, object], key: str, kind: str, path: str) -> object:
    """``obj[key]`` when it is of ``kind`` (a key of ``_KINDS``), None when it is absent or
    null, else ``bad-input-file`` naming the file and the key."""
    value = obj.get(key)
    if value is None:
        return None
    wanted = _KINDS[kind]
    if isinstance(value, wanted) and (kind == "a boolean" or not isinstance(value, bool)):
        return value
    raise InputError(f"{path}: {key} must be {kind}, got {_kind_of(value)} {_short(value)}", code="bad-input-file",
                     file=path)


def _kind_of(value: object) -> str:
    for name, kind in _KINDS.items():
        if isinstance(value, kind) and (name == "a boolean" or not isinstance(value, bool)):
            return name
    return "null"


def _short(value: object) -> str:
    text = json.dumps(value)
    return text if len(text) <= 60 else text[:57] + "..."


__all__ = ["MAX_JSON_BYTES", "MAX_JSON_DEPTH", "json_field", "nesting_depth", "parse_json", "read_json",
           "read_json_object"]
