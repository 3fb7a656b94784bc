"""The ``irexec`` command: run, check, inspect, ops.

Exit codes: 0 clean, 1 findings (check errors, bad model or input, compare
mismatch), 2 usage or internal error.  Each command lives in its own module.
"""

from __future__ import annotations

import os
import signal
import sys


def _interrupted(signum: int, frame: object) -> None:
    """Ctrl-C (or SIGTERM) ends the command quietly: SystemExit unwinds every
    ``finally`` and ``except BaseException``, so temporaries are removed."""
    raise SystemExit(128 + signum)


def _quietly_interruptible(handler: object) -> tuple[object] | None:
    """Make ``handler`` take Ctrl-C; returns the handler it replaced in a
    1-tuple (that handler is None when set outside Python), or None if nothing
    changed: Ctrl-C is ignored (a job started so keeps it that way), or this
    is not the main thread."""
    try:
        if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
            return None
        return (signal.signal(signal.SIGINT, handler),)  # type: ignore[arg-type]
    except ValueError:  # not the main thread: leave signals alone
        return None


def _restore(previous: tuple[object] | None) -> None:
    if previous is not None and previous[0] is not None:  # None: a handler set outside Python, not ours to restore
        signal.signal(signal.SIGINT, previous[0])  # type: ignore[arg-type]


def _real_package() -> None:
    """Make ``irexec`` this package when a folder named irexec in the working
    directory (a clone, run from the folder holding it) made Python import it
    as a namespace package: its ``__init__`` never ran, so ``irexec.Session``
    and the rest would be missing in this process and in ``check -j`` workers."""
    found = sys.modules.get("irexec")
    if found is None or getattr(found, "__file__", None) is not None:
        return
    import importlib.util

    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    spec = importlib.util.spec_from_file_location("irexec", os.path.join(here, "__init__.py"),
                                                  submodule_search_locations=[here])
    if spec is None or spec.loader is None:
        return
    package = importlib.util.module_from_spec(spec)
    package.cli = sys.modules[__name__]  # type: ignore[attr-defined]
    sys.modules["irexec"] = package
    spec.loader.exec_module(package)


_real_package()
_previous = _quietly_interruptible(_interrupted)  # while the imports below run, a Ctrl-C prints no traceback

import click  # noqa: E402

from ..base.errors import InternalError, IRExecError  # noqa: E402
from . import check_cmd, diff_cmd, generate_cmd, inspect_cmd, ops_cmd, run_cmd  # noqa: E402,F401  (register the commands)
from .base import EXIT_USAGE, cli, fail  # noqa: E402

_restore(_previous)  # importing the CLI leaves Ctrl-C as it was

__all__ = ["cli", "main"]


def main(argv: list[str] | None = None) -> None:
    """Entry point: user errors exit 1 without a traceback, bugs exit 2.  Ctrl-C
    and SIGTERM (``timeout``, a cancelled CI job) remove what the command was
    writing and exit 130 and 143, quietly at any moment: a KeyboardInterrupt
    would print a traceback where it lands outside click's own handler."""
    try:
        signal.signal(signal.SIGTERM, _interrupted)
    except ValueError:  # not the main thread
        pass
    previous = _quietly_interruptible(_interrupted)
    try:
        cli.main(args=argv, prog_name="irexec", standalone_mode=True)
    except SystemExit:
        raise
    except IRExecError as e:  # pragma: no cover - commands catch their own
        fail(e)
    except (InternalError, Exception) as e:
        from ..base.table_text import one_line

        # outside any frame of workflow commands: a name in the message stays on this line
        click.echo(one_line(f"irexec: internal error: {type(e).__name__}: {e}"), err=True)
        click.echo("This is a bug in irexec; set IREXEC_TRACEBACK=1 to see where.", err=True)
        if os.environ.get("IREXEC_TRACEBACK"):
            raise
        sys.exit(EXIT_USAGE)
    finally:
        _restore(previous)  # a caller in the same process gets its Ctrl-C back
