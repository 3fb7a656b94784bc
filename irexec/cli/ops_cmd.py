"""`irexec ops`."""

from __future__ import annotations

import click

from .base import cli


@cli.command()
def ops() -> None:
    """List the ops irexec implements and the opsets that select them.

    \b
    Example:
      irexec ops
    """
    from .. import ops as _ops  # noqa: F401
    from ..ops.registry import all_ops, opset_range
    from ..report.tables import render_table

    rows = []
    for cls in all_ops():
        lo, hi = opset_range(cls)
        rows.append([cls.display(), f"opset{lo}" + (f"..opset{hi}" if hi != lo else ""), ", ".join(cls.attributes) or "-", cls.summary])
    click.echo(render_table(["op", "version attribute", "attributes", "summary"], rows))
