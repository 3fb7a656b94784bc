"""The Python API: load, Session, state, made-up inputs, comparison, generation,
dumps, NaN hunting, statistics, pictures and layer-by-layer diffs."""

from typing import Any as _Any


def __getattr__(name: str) -> _Any:
    if name == "diff":  # irexec.api.diff(A, B): the diff package, callable (imported on first use: it is large)
        import importlib

        return importlib.import_module(".diff", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
