"""irexec: read, check and execute OpenVINO IR without OpenVINO.

    import irexec
    model = irexec.load("model.xml")
    outputs = irexec.run(model, {"x": x})
    report = irexec.check("model.xml")
"""

from __future__ import annotations

from .errors import (
    CompareError,
    Diagnostic,
    InputError,
    InternalError,
    IRExecError,
    ModelError,
    OpError,
    UsageError,
)
from .model import Model, load, read_model

__version__ = "0.1.0"

__all__ = [
    "CompareError",
    "Diagnostic",
    "InputError",
    "InternalError",
    "IRExecError",
    "Model",
    "ModelError",
    "OpError",
    "UsageError",
    "check",
    "load",
    "read_model",
    "run",
]


def run(model, feeds, **options):  # type: ignore[no-untyped-def]
    """Run a loaded model (or a path) on a dict of NumPy arrays; returns a dict of outputs."""
    from .execute import run_model

    if not isinstance(model, Model):
        model = load(model)
    return run_model(model, feeds, **options).outputs


def check(path, weights=None, input_shapes=None):  # type: ignore[no-untyped-def]
    """Check a model file; returns a CheckResult listing every diagnostic."""
    from .checker import CheckResult, check_model

    try:
        model = read_model(path, weights)
    except IRExecError as e:
        return CheckResult(str(path), e.diagnostics)
    try:
        return check_model(model, input_shapes)
    finally:
        model.close()
