"""`irexec ops`."""

from __future__ import annotations

import json

import click

from .base import cli, machine_output


@cli.command()
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True,
              help="json: one object per op, with its family and the module that defines it.")
@machine_output(lambda kw: kw.get("fmt") == "json")
def ops(fmt: str) -> None:
    """List the ops irexec implements and the opsets that select them.

    \b
    Example:
      irexec ops
      irexec ops --format json
    """
    from .. import ops as _ops  # noqa: F401
    from ..base.table_text import render_table
    from ..ops.registry import all_ops, defined_in, opset_ranges, opsets_text

    if fmt == "json":
        entries = []
        for cls in all_ops():
            ranges, others = opset_ranges(cls)
            module = defined_in(cls)
            entries.append({"op": cls.display(), "type": cls.type, "version": cls.version, "family": cls.family,
                            "opsets": [list(r) for r in ranges], "other_versions": others, "extension": cls.extension,
                            "attributes": list(cls.attributes), "summary": cls.summary,
                            "module": module, "file": module.replace(".", "/") + ".py"})
        click.echo(json.dumps(entries, indent=2))
        return
    rows = []
    for cls in all_ops():
        rows.append([cls.display(), opsets_text(cls), ", ".join(cls.attributes) or "-", cls.summary])
    click.echo(render_table(["op", "version attribute", "attributes", "summary"], rows))
