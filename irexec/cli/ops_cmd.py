"""`irexec ops`."""

from __future__ import annotations

import json
import shutil

import click

from .base import cli, machine_output
from .option_groups import Modes, modes, option, output_options


@cli.command()
@click.argument("names", nargs=-1, metavar="[NAME|FAMILY]...")
@output_options(formats=(("text", "json"), "text", "json: one object per op, with its family and the module that defines it."))
@option("--wide", is_flag=True, modes=["text"], help="Do not shorten the lines to the terminal's width.")
@machine_output(lambda kw: kw.get("fmt") == "json")
@modes(Modes(decide=lambda p: (p["fmt"],), needs={"text": "--format text"}, named={"json": "the format is json"},
             code="option-not-applicable"))
def ops(names: tuple[str, ...], fmt: str, wide: bool) -> None:
    """List the ops irexec implements and the opsets that select them; NAME
    keeps the ops whose type holds it (Gather: Gather, GatherND, ...), FAMILY
    those of a family (movement, matmul, ...), both case-insensitive.

    \b
    Example:
      irexec ops
      irexec ops Gather
      irexec ops movement --format json
    """
    from .. import ops as _ops  # noqa: F401
    from ..base.table_text import render_table
    from ..ops.framework.registry import all_ops, defined_in, opset_ranges, opsets_text

    wanted = [n.lower() for n in names]
    chosen = [cls for cls in all_ops()
              if not wanted or any(w in cls.type.lower() or w == cls.family.lower() for w in wanted)]
    if names and not chosen:
        families = sorted({cls.family for cls in all_ops()})
        click.echo(f"irexec: no op type holds {', '.join(map(repr, names))} and no family is named so "
                   f"(families: {', '.join(families)})", err=True)
        raise SystemExit(1)
    if fmt == "json":
        entries = []
        for cls in chosen:
            ranges, others = opset_ranges(cls)
            module = defined_in(cls)
            entries.append({"op": cls.display(), "type": cls.type, "version": cls.version, "family": cls.family,
                            "opsets": [list(r) for r in ranges], "other_versions": others, "extension": cls.extension,
                            "attributes": list(cls.attributes), "summary": cls.summary,
                            "module": module, "file": module.replace(".", "/") + ".py"})
        click.echo(json.dumps(entries, indent=2))
        return
    rows = []
    for cls in chosen:
        rows.append([cls.display(), opsets_text(cls), ", ".join(cls.attributes) or "-", cls.summary])
    header = ["op", "version attribute", "attributes", "summary"]
    if not wide:
        rows = _fit(header, rows, shutil.get_terminal_size((100, 24)).columns)
    click.echo(render_table(header, rows))


def _fit(header: list[str], rows: list[list[str]], width: int) -> list[list[str]]:
    """Shorten the attributes and summary cells (ending them with "...") so each line fits ``width``."""
    fixed = sum(max([len(header[i])] + [len(r[i]) for r in rows]) for i in (0, 1)) + 3 * 2
    room = max(width - fixed, len(header[2]) + len(header[3]))  # the two shortened columns at their headers' width
    attrs = min(max([len(header[2])] + [len(r[2]) for r in rows]), max(room * 2 // 5, len(header[2])))
    summary = max(room - attrs, len(header[3]))
    return [[r[0], r[1], _cut(r[2], attrs), _cut(r[3], summary)] for r in rows]


def _cut(text: str, n: int) -> str:
    return text if len(text) <= n else text[: max(n - 3, 0)] + "..."
