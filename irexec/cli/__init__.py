"""The ``irexec`` command: run, check, inspect, ops.

Exit codes: 0 clean, 1 findings (check errors, bad model or input, compare
mismatch), 2 usage or internal error.  Each command lives in its own module.
"""

from __future__ import annotations

import os
import sys

import click

from ..errors import InternalError, IRExecError
from . import check_cmd, inspect_cmd, ops_cmd, run_cmd  # noqa: F401  (register the commands)
from .base import EXIT_USAGE, cli, fail

__all__ = ["cli", "main"]


def main(argv: list[str] | None = None) -> None:
    """Entry point: user errors exit 1 without a traceback, bugs exit 2."""
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
