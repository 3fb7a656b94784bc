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


def _quietly_interruptible(handler: object) -> object:
    try:
        return signal.signal(signal.SIGINT, handler)  # type: ignore[arg-type]
    except ValueError:  # not the main thread: leave signals alone
        return None


_previous = _quietly_interruptible(_interrupted)  # while the imports below run, a Ctrl-C prints no traceback

import click  # noqa: E402

from ..errors import InternalError, IRExecError  # noqa: E402
from . import check_cmd, inspect_cmd, ops_cmd, run_cmd  # noqa: E402,F401  (register the commands)
from .base import EXIT_USAGE, cli, fail  # noqa: E402

if _previous is not None:
    _quietly_interruptible(_previous)

__all__ = ["cli", "main"]


def main(argv: list[str] | None = None) -> None:
    """Entry point: user errors exit 1 without a traceback, bugs exit 2.  SIGTERM
    (``timeout``, a cancelled CI job) cleans up as Ctrl-C does and exits 143."""
    try:
        signal.signal(signal.SIGTERM, _interrupted)
        if signal.getsignal(signal.SIGINT) is not signal.SIG_IGN:
            signal.signal(signal.SIGINT, signal.default_int_handler)  # as it was before the imports
    except ValueError:  # not the main thread
        pass
    try:
        cli.main(args=argv, prog_name="irexec", standalone_mode=True)
    except SystemExit:
        raise
    except IRExecError as e:  # pragma: no cover - commands catch their own
        fail(e)
    except (InternalError, Exception) as e:
        click.echo(f"irexec: internal error: {type(e).__name__}: {e}", err=True)
        click.echo("This is a bug in irexec; set IREXEC_TRACEBACK=1 to see where.", err=True)
        if os.environ.get("IREXEC_TRACEBACK"):
            raise
        sys.exit(EXIT_USAGE)
