"""`irexec check`."""

from __future__ import annotations

import sys

import click

from .base import EXIT_FINDINGS, EXIT_OK, cli

@cli.command()
@click.argument("models", nargs=-1, required=True, type=click.Path())
@click.option("--weights", type=click.Path(dir_okay=False), help="The .bin file (only with a single MODEL).")
def check(models: tuple[str, ...], weights: str | None) -> None:
    """Check IR files: structure, types, and every port's declared dims.

    \b
    Example:
      irexec check model.xml other/*.xml
    """
    from .. import check as check_api

    errors = warnings = 0
    for path in models:
        result = check_api(path, weights=weights)
        for d in result.diagnostics:
            click.echo(d.format())
        errors += sum(d.severity == "error" for d in result.diagnostics)
        warnings += sum(d.severity == "warning" for d in result.diagnostics)
    click.echo(f"{len(models)} file{'s' if len(models) != 1 else ''}, {errors} error{'s' if errors != 1 else ''}, "
               f"{warnings} warning{'s' if warnings != 1 else ''}")
    sys.exit(EXIT_FINDINGS if errors else EXIT_OK)
