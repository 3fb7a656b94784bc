"""Ops by (type, version), and what a layer's ``version="opsetN"`` resolves to.

Opsets are cumulative: ``version="opset10"`` on a Gather layer means the newest
Gather introduced in opset10 or earlier, i.e. Gather-8, exactly as OpenVINO's
IR reader resolves it.  Types match case-insensitively, ``Const`` and
``Constant`` are one op.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
from functools import lru_cache

from .base import Op
from .core_opsets import CORE_OP_VERSIONS, OPENVINO_VERSION

# The newest opset OpenVINO 2026 writes; layers may name any opset up to it.
NEWEST_OPSET = 16

# The newest opset any core type is read from (OpenVINO reads a few from opset17).
_TOP_OPSET = max([NEWEST_OPSET] + [hi for ranges, _ in CORE_OP_VERSIONS.values() for _, hi in ranges])

_ALIASES = {"constant": "const"}
_REGISTRY: dict[str, dict[int, type[Op]]] = {}
# the modules that make up the ops (the rest of irexec/ops/ is what they share)
_INFRASTRUCTURE = {"base", "registry", "helpers", "spatial", "declare", "tensor", "op_index", "core_opsets",
                   "shape_limits"}
_loaded_all = False
_loaded_types: set[str] = set()  # keys whose module has been imported
_OPSET_RE = re.compile(r"^opset([0-9]{1,9})$")


def _key(op_type: str) -> str:
    low = op_type.lower()
    return _ALIASES.get(low, low)


def register(cls: type[Op]) -> type[Op]:
    """Add an op; one defined in irexec must live in the subpackage of its
    family (``irexec.ops.<family>.<module>``)."""
    if not getattr(cls, "family", None):
        raise RuntimeError(f"{cls.display()} declares no family")
    parts = cls.__module__.split(".")
    if parts[:2] == ["irexec", "ops"] and (len(parts) < 4 or parts[2] != cls.family):
        raise RuntimeError(f"{cls.display()} declares family {cls.family!r} but is defined in {cls.__module__}: "
                           f"it belongs in irexec/ops/{cls.family}/")
    versions = _REGISTRY.setdefault(_key(cls.type), {})
    if cls.version in versions:
        raise RuntimeError(f"{cls.display()} registered twice")
    versions[cls.version] = cls
    resolve.cache_clear()
    return cls


def defined_in(cls: type[Op]) -> str:
    """The module that defines the op (for a factory-made op, the one with its line)."""
    return cls.__module__


def load_all() -> None:
    """Import every op module (each registers its ops)."""
    global _loaded_all
    if _loaded_all:
        return
    from ... import ops

    for info in sorted(pkgutil.walk_packages(ops.__path__, prefix=f"{ops.__name__}."), key=lambda m: m.name):
        leaf = info.name.rpartition(".")[2]
        if leaf not in _INFRASTRUCTURE and not leaf.startswith("_"):
            importlib.import_module(info.name)
    _loaded_all = True


def _load(key: str) -> None:
    """Import the module that registers ``key``'s ops; every op module when no index entry names one."""
    if _loaded_all or key in _loaded_types:
        return
    from .op_index import MODULE_OF_TYPE

    modules = MODULE_OF_TYPE.get(key)
    if modules is None:
        load_all()
    else:
        for module in modules.split():
            importlib.import_module(module)
    _loaded_types.add(key)


def all_ops() -> list[type[Op]]:
    load_all()
    return sorted((c for v in _REGISTRY.values() for c in v.values()), key=lambda c: (c.type.lower(), c.version))


def versions_of(op_type: str) -> list[type[Op]]:
    key = _key(op_type)
    _load(key)
    return sorted(_REGISTRY.get(key, {}).values(), key=lambda c: c.version)


def opset_ranges(cls: type[Op]) -> tuple[list[tuple[int, int]], list[str]]:
    """The ``version="opsetN"`` ranges (both ends included) and the other version
    strings that select ``cls``, read from :func:`resolve` itself, so that what
    ``irexec ops`` lists is exactly what a layer may name."""
    ranges: list[tuple[int, int]] = []
    if cls.extension:  # an extension's op is read from version="extension" alone
        return ranges, ["extension"]
    for n in range(1, _TOP_OPSET + 1):
        if resolve(cls.type, f"opset{n}") is cls:
            if ranges and ranges[-1][1] == n - 1:
                ranges[-1] = (ranges[-1][0], n)
            else:
                ranges.append((n, n))
    entry = CORE_OP_VERSIONS.get(_key(cls.type))
    others = [v for v in (entry[1] if entry else ()) if resolve(cls.type, v) is cls]
    return ranges, others


def opsets_text(cls: type[Op], sep: str = "..") -> str:
    """``opset1..opset16``, ``opset1, opset3..opset16``, ``'experimental'``, ``extension
    (openvino_tokenizers)``; ``-`` when nothing selects it."""
    if cls.extension:
        return f"extension ({cls.extension})"
    ranges, others = opset_ranges(cls)
    parts = [f"opset{lo}" if lo == hi else f"opset{lo}{sep}opset{hi}" for lo, hi in ranges]
    return ", ".join(parts + [repr(o) for o in others]) or "-"


def describe_versions(op_type: str) -> str:
    return ", ".join(f"{cls.display()} ({opsets_text(cls)})" for cls in versions_of(op_type))


def core_accepts(op_type: str, version: str) -> bool | None:
    """Whether OpenVINO's IR reader creates a core op of ``op_type`` from a layer
    of this ``version``; None when ``op_type`` is no core op (an extension's op,
    which OpenVINO reads only with that extension loaded)."""
    entry = CORE_OP_VERSIONS.get(_key(op_type))
    if entry is None:
        return None
    ranges, others = entry
    if version in others:
        return True
    m = _OPSET_RE.match(version)
    return m is not None and any(lo <= int(m.group(1)) <= hi for lo, hi in ranges)


def core_versions_text(op_type: str) -> str:
    ranges, others = CORE_OP_VERSIONS[_key(op_type)]
    parts = [f"opset{lo}" if lo == hi else f"opset{lo}..opset{hi}" for lo, hi in ranges]
    return ", ".join(parts + [repr(o) for o in others])


def unknown_version_reason(op_type: str, version: str) -> str:
    return (f"{op_type} has no version {version!r}: OpenVINO {OPENVINO_VERSION} refuses the file (it reads {op_type} "
            f"from {core_versions_text(op_type)})")


@lru_cache(maxsize=1024)  # a model repeats a few (type, version) pairs on thousands of layers
def resolve(op_type: str, version: str) -> type[Op] | None:
    """The op class a layer's type and version attribute name, or None.  A
    core op type takes the versions OpenVINO's reader takes (``opsetN`` as far
    as the type is in that opset; ``experimental``/``extension`` for the few
    ops OpenVINO reads as opset6); another type takes ``opset1``..``opset16``, and
    an extension's op (openvino_tokenizers) only ``extension``."""
    candidates = versions_of(op_type)
    if not candidates:
        return None
    extension = [c for c in candidates if c.extension]
    if extension and version == "extension":  # an extension's op, as its package writes it (even of a core type)
        return extension[-1]
    core = core_accepts(op_type, version)
    if core is False:
        return None
    candidates = [c for c in candidates if not c.extension]
    if not candidates or core is None and extension:
        return None
    m = _OPSET_RE.match(version)
    if m:
        opset = int(m.group(1))
        if not 1 <= opset <= NEWEST_OPSET and core is None:
            return None
    elif core:
        opset = 6  # "experimental" / "extension": OpenVINO reads these from opset6
    else:
        return None
    eligible = [c for c in candidates if c.since_opset <= opset]
    return eligible[-1] if eligible else None


def unsupported_reason(op_type: str, version: str) -> str:
    known = describe_versions(op_type)
    if not known:
        return f"op type {op_type!r} is not implemented (see `irexec ops`)"
    return f"{op_type} version {version!r} is not implemented; implemented: {known}"
