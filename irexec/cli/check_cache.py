"""The content-hash cache of `irexec check`: a file whose bytes, weights, options and
irexec are unchanged gets the findings of its last check without being read again
(as ruff and mypy keep theirs), so CI re-checks only what changed.

The key is a hash of the XML's and the .bin's bytes, the path as given (findings
name it), every option that changes one file's findings (``--weights``,
``--input-shape``, whether links may be followed), the ``IREXEC_*`` environment,
and irexec itself (its version, the size and time of each of its source files, the
versions of lxml, libxml2 and NumPy).  Only a file that was read and checked is
stored; a file irexec refused, or one that changed while it was checked, is not.
An entry is trusted only when it decodes to exactly the findings types a check
makes: anything else is a miss and the file is checked again."""

from __future__ import annotations

import hashlib
import json
import os
import sys
import time
from collections.abc import Callable
from dataclasses import fields
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from ..base.errors import SEVERITIES, Diagnostic, IRExecError
from ..system.files import check_readable, follow_symlinks, open_regular
from ..system.user_cache import UserCache

if TYPE_CHECKING:
    from ..base.shapes import PartialShape
    from ..report.check_report import FileReport

# _check_file of check_cmd: (path, weights, pins, used, parameter_names, follow_symlinks) -> (report, bug)
CheckFile = Callable[[str, "str | None", "dict[str, PartialShape]", "set[str]", "set[str]", "bool | None"],
                     "tuple[FileReport, bool]"]

FORMAT = 1
KIND = "check"
_CHUNK = 1 << 20
_FIELDS = tuple(f.name for f in fields(Diagnostic))
_OPTIONAL_STR = ("file", "layer_name", "op", "port_kind")
_OPTIONAL_INT = ("line", "layer_id", "port")


@lru_cache(maxsize=1)
def _irexec_fingerprint() -> str:
    """irexec as it is installed: its version and each source file's size and time,
    so an edited checkout never serves the findings of the code before the edit."""
    import lxml.etree

    from .. import __version__

    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    h = hashlib.blake2b(digest_size=16)
    h.update(repr((__version__, lxml.etree.LXML_VERSION, lxml.etree.LIBXML_VERSION, _numpy_version(),
                   sys.version_info[:2])).encode())
    for folder, dirs, names in os.walk(package):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(names):
            if name.endswith((".py", ".xsd", ".json")):
                try:
                    st = os.stat(os.path.join(folder, name))
                except OSError:
                    continue
                h.update(f"{os.path.relpath(os.path.join(folder, name), package)}:{st.st_size}:{st.st_mtime_ns}\n".encode())
    return h.hexdigest()


def _numpy_version() -> str:
    """NumPy's version, without importing NumPy when nothing has yet (a cached check need not)."""
    numpy = sys.modules.get("numpy")
    if numpy is not None:
        return str(numpy.__version__)
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("numpy")
    except PackageNotFoundError:
        return ""


def default_weights(xml_path: str) -> str:
    """The .bin beside the .xml, as ``api.load.default_weights_path`` finds it (not
    imported from there: a cached check need not import the checker)."""
    return os.path.splitext(xml_path)[0] + ".bin"


def _stamp(path: str) -> tuple[int, int, int, int] | None:
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    return st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns


def _digest(path: str) -> str | None:
    """A hash of a regular file's bytes; None when it is missing or not a regular file."""
    try:
        h = hashlib.blake2b(digest_size=32)
        with open_regular(path, "file") as f:
            while chunk := f.read(_CHUNK):
                h.update(chunk)
        return h.hexdigest()
    except Exception:  # noqa: BLE001 - not hashable is not cacheable: the check reports why
        return None


class CheckKey:
    """One file's key, and the stamps of its files when the key was made."""

    def __init__(self, path: str, weights: str | None, pins: dict[str, PartialShape], follow: bool):
        self.path = path
        wpath = weights if weights is not None else default_weights(path)
        self.files = (path, wpath)
        self.stamps = tuple(_stamp(p) for p in self.files)
        xml = _digest(path)
        self.hex: str | None = None
        if xml is None:
            return
        parts = {
            "format": FORMAT, "irexec": _irexec_fingerprint(), "path": path, "xml": xml,
            "weights": weights, "bin": _digest(wpath) if self.stamps[1] is not None else None,
            "pins": sorted((name, str(shape)) for name, shape in pins.items()), "follow": follow,
            "env": sorted((k, v) for k, v in os.environ.items() if k.startswith("IREXEC_")),
        }
        self.hex = hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()

    def unchanged(self) -> bool:
        """Whether the files are still the ones hashed (not rewritten during the check)."""
        return tuple(_stamp(p) for p in self.files) == self.stamps


def _encode(report: FileReport, used: set[str], parameter_names: set[str], key: str) -> dict[str, Any]:
    diagnostics = [{name: getattr(d, name) for name in _FIELDS} for d in report.diagnostics]
    return {"format": FORMAT, "key": key, "layers": report.layers, "used": sorted(used),
            "parameter_names": sorted(parameter_names), "diagnostics": diagnostics}


def _decode(entry: dict[str, Any], key: str) -> tuple[list[Diagnostic], int, set[str], set[str]] | None:
    """The findings an entry holds, or None unless every part has exactly the type a check gives it."""
    if entry.get("format") != FORMAT or entry.get("key") != key:
        return None
    layers, used, names, items = entry.get("layers"), entry.get("used"), entry.get("parameter_names"), entry.get("diagnostics")
    if not _is_int(layers) or not _strings(used) or not _strings(names) or not isinstance(items, list):
        return None
    if not all(_is_diagnostic(item) for item in items):
        return None
    return [Diagnostic(**item) for item in items], layers, set(used), set(names)  # type: ignore[arg-type, return-value]


def _is_diagnostic(item: object) -> bool:
    """Whether ``item`` has exactly the fields of a Diagnostic, each of its type."""
    if not isinstance(item, dict) or set(item) != set(_FIELDS):
        return False
    if not isinstance(item["code"], str) or not isinstance(item["message"], str) or item["severity"] not in SEVERITIES:
        return False
    return (all(item[k] is None or isinstance(item[k], str) for k in _OPTIONAL_STR)
            and all(item[k] is None or _is_int(item[k]) for k in _OPTIONAL_INT) and isinstance(item["values"], dict))


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _strings(value: object) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def lookup(cache: UserCache, key: CheckKey) -> tuple[list[Diagnostic], int, set[str], set[str]] | None:
    if key.hex is None:
        return None
    entry = cache.get(key.hex)
    return _decode(entry, key.hex) if entry is not None else None


def store(cache: UserCache, key: CheckKey, report: FileReport, used: set[str], parameter_names: set[str]) -> bool:
    """Keep a file's findings, when they survive the trip through JSON unchanged
    (a finding whose values JSON cannot hold exactly is never cached)."""
    if key.hex is None or not key.unchanged():
        return False
    entry = _encode(report, used, parameter_names, key.hex)
    try:
        back = _decode(json.loads(json.dumps(entry, allow_nan=False)), key.hex)
    except (TypeError, ValueError, RecursionError):
        return False
    if back is None or back[0] != report.diagnostics or [d.values for d in back[0]] != [d.values for d in report.diagnostics]:
        return False
    return cache.put(key.hex, entry)


def outside(folder: str, models: tuple[str, ...]) -> bool:
    """Whether ``folder`` lies outside every folder the MODEL arguments name (a
    directory, or the part of a glob pattern before its first wildcard): the
    cache never lands inside the tree being checked."""
    real = os.path.realpath(folder)
    for arg in models:
        cut = min((i for i in (arg.find(c) for c in "*?[") if i >= 0), default=-1)
        base = arg if cut < 0 else os.path.dirname(arg[:cut]) or "."
        if not os.path.isdir(base):
            continue
        top = os.path.realpath(base)
        if real == top or real.startswith(top.rstrip(os.sep) + os.sep):
            return False
    return True


def user_cache(models: tuple[str, ...]) -> UserCache | None:
    """The user's check cache, unless it lies inside a folder being checked."""
    cache = UserCache(KIND)
    return cache if cache.folder is not None and outside(cache.folder, models) else None


def cacheable(path: str, weights: str | None, follow: bool | None) -> bool:
    """Whether the model's files are what the check would read (regular files, no link it
    would refuse): only then are its findings a matter of their bytes alone."""
    from .paths import input_problem

    try:
        check_readable(path, "model file", follow)
        check_readable(weights if weights is not None else default_weights(path), "weights file", follow)
    except IRExecError:
        return False
    return input_problem(path, "model file") is None


def check_through(cache: UserCache, check_file: CheckFile, path: str, weights: str | None, pins: dict[str, PartialShape],
                  used: set[str], parameter_names: set[str], follow: bool | None) -> tuple[FileReport, bool, bool]:
    """``check_file``'s report and bug flag, from the cache when the file is unchanged;
    and whether the findings were stored."""
    from ..report.check_report import FileReport

    if not cacheable(path, weights, follow):
        return (*check_file(path, weights, pins, used, parameter_names, follow), False)
    start = time.perf_counter()
    key = CheckKey(path, weights, pins, follow_symlinks(follow))
    hit = lookup(cache, key)
    if hit is not None:
        found, layers, cached_used, cached_names = hit
        used |= cached_used
        parameter_names |= cached_names
        return FileReport(path, found, layers, time.perf_counter() - start), False, False
    report, bug = check_file(path, weights, pins, used, parameter_names, follow)
    stored = not bug and report.layers > 0 and store(cache, key, report, used, parameter_names)
    return report, bug, stored
