"""irexec: read, check and execute OpenVINO IR without OpenVINO.

    import irexec
    model = irexec.load("model.xml")
    outputs = irexec.run(model, {"x": x})
    report = irexec.check("model.xml")
    differences = irexec.diff("model.xml", device="CPU")   # or a second IR: irexec.diff(A, B)
"""

# No `from __future__ import annotations` here: it loads a module from disk
# before the Ctrl-C handler below is in place, a window for a traceback.
import sys as _sys

if _sys.argv[:1] == ["-m"] or _sys.argv[0].endswith(("/irexec", "\\irexec.exe")):  # the command line is starting
    # the built-in module, not `signal`: importing that (enum classes) takes
    # milliseconds, long enough for a Ctrl-C to land inside it
    import _signal

    def _quiet_exit(signum: int, frame: object) -> None:
        raise SystemExit(128 + signum)  # a Ctrl-C while the imports run: no traceback

    try:
        if _signal.getsignal(_signal.SIGINT) is not _signal.SIG_IGN:  # a job started with Ctrl-C ignored keeps it so
            _signal.signal(_signal.SIGINT, _quiet_exit)
    except ValueError:  # not the main thread
        pass

from typing import TYPE_CHECKING, Any  # noqa: E402

from .base.errors import CompareError, Diagnostic, InputError, InternalError, IRExecError, ModelError, OpError, UsageError

if TYPE_CHECKING:
    from .api.diff.api import diff
    from .api.generate.pipelines import LLMPipeline, PipelineResult, VLMPipeline, WhisperPipeline, open_pipeline
    from .api.load import Model, load, read_model
    from .api.session import RunReport, Session, compare

__version__ = "0.1.0"

# The model layer pulls in networkx and lxml (a third of a second); it is
# imported on first use so that `irexec --help` and `irexec ops` start fast.
_LAZY = {"Model", "load", "read_model"}


_LAZY_SESSION = {"Session", "RunReport", "compare"}

# Generation as GenAI's pipelines offer it: irexec.open_pipeline(folder).generate("text", max_new_tokens=16)
_LAZY_PIPELINES = {"LLMPipeline", "PipelineResult", "VLMPipeline", "WhisperPipeline", "open_pipeline"}


def __getattr__(name: str) -> Any:
    if name == "diff":  # irexec.diff(A, B) returns a DiffReport; imported on first use (it is large)
        from .api.diff.api import diff

        return diff
    if name == "api":  # irexec.api.diff(...) as the docs spell it
        import importlib

        return importlib.import_module(".api", __name__)
    if name in _LAZY:
        from .api import load as model

        return getattr(model, name)
    if name in _LAZY_SESSION:
        from .api import session

        return getattr(session, name)
    if name in _LAZY_PIPELINES:
        from .api.generate import pipelines

        return getattr(pipelines, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def retain_freed_memory() -> bool:
    """Let the C allocator reuse freed tensor memory (see irexec/system/heap.py); process-wide."""
    from .system.heap import retain_freed_memory

    return retain_freed_memory()


__all__ = [
    "CompareError",
    "Diagnostic",
    "InputError",
    "InternalError",
    "LLMPipeline",
    "IRExecError",
    "Model",
    "ModelError",
    "OpError",
    "PipelineResult",
    "RunReport",
    "Session",
    "UsageError",
    "VLMPipeline",
    "WhisperPipeline",
    "check",
    "compare",
    "diff",
    "load",
    "open_pipeline",
    "read_model",
    "retain_freed_memory",
    "run",
]


def run(model, feeds, **options):
    """Run a loaded model (or a path) on a dict of NumPy arrays; returns a dict of outputs."""
    from .api.load import Model, load
    from .executor.engine import run_model

    if not isinstance(model, Model):
        model = load(model)
    return run_model(model, feeds, **options).outputs


def check(path, weights=None, input_shapes=None, *, follow_symlinks=None):
    """Check a model file; returns a CheckResult listing every diagnostic.  A file
    reached through a symbolic link that leaves its folder is refused unless
    ``follow_symlinks`` (default: $IREXEC_FOLLOW_SYMLINKS) allows it."""
    from .api.load import read_model
    from .checker.model_checker import CheckResult, check_model
    from .system.gc_pause import gc_paused

    with gc_paused():
        try:
            model = read_model(path, weights, follow_symlinks=follow_symlinks)
        except IRExecError as e:
            return CheckResult(str(path), e.diagnostics)
        try:
            return check_model(model, input_shapes)
        finally:
            model.close()
