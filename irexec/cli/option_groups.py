"""Options several commands share, declared once per group (as Polygraphy's
argument groups are), and the modes each option applies to.

A group is a function that returns one decorator adding the group's options
to a command; its keyword arguments choose the members and wording a command
needs, never a second spelling of the same option.  The groups:

- model and weights: ``--weights``, ``--follow-symlinks``;
- inputs: ``--inputs``, ``--seed``, ``--input-shape``, ``--val-range``;
- memory and limits: ``--max-memory``;
- output formats and files: ``--output``, ``--report``, ``--format``, ``--json``, ``--html``.

A command whose options do not all apply at once declares its modes with
:func:`modes`: a function that names the modes the given parameters put it
in, and what each mode means in a message.  An option made with
:func:`option` says which modes it applies to; given on the command line
outside them, it is a usage error (exit 2) that names the mode it needs and
the one the command is in.  ``Command.invoke`` (cli/base.py) checks this
before the command runs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import click
from click.core import ParameterSource

from ..base.errors import ERROR, Diagnostic, UsageError

Decorator = Callable[[Callable[..., Any]], Callable[..., Any]]


class ModalOption(click.Option):
    """An option that applies only in some modes of its command (None: in all)."""

    def __init__(self, *args: Any, modes: Iterable[str] | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.modes = frozenset(modes) if modes is not None else None


def option(*decls: str, modes: Iterable[str] | None = None, **kwargs: Any) -> Decorator:
    """``click.option`` for an option that applies only in ``modes`` of its command."""
    return click.option(*decls, cls=ModalOption, modes=modes, **kwargs)


def _stack(*decorators: Decorator) -> Decorator:
    def apply(fn: Callable[..., Any]) -> Callable[..., Any]:
        for d in reversed(decorators):  # the first one listed comes first in --help
            fn = d(fn)
        return fn
    return apply


# ------------------------------------------------------------------ modes

@dataclass(frozen=True)
class Modes:
    """A command's modes.  ``decide`` names the modes the parameters put the
    command in (its first is the main mode, the others are conditions such as
    "a reference is given"; it raises a UsageError for parameters that fit no
    mode); ``needs`` says, per mode, what an option that applies only there
    needs; ``named`` says what the command does in a main mode, ``unless`` what
    it does when a condition does not hold ({model} and the other parameters
    are filled in); ``exactly_one`` lists, per mode, groups of parameters of
    which exactly one must be given."""

    decide: Callable[[Mapping[str, Any]], tuple[str, ...]]
    needs: Mapping[str, str]
    named: Mapping[str, str]
    code: str
    unless: Mapping[str, str] = field(default_factory=dict)
    exactly_one: Mapping[str, tuple[tuple[str, ...], ...]] = field(default_factory=dict)

    def why(self, option_modes: frozenset[str], held: tuple[str, ...], params: Mapping[str, Any]) -> str:
        """What the command is doing instead of what an option of ``option_modes`` needs."""
        text = next((self.unless[m] for m in sorted(option_modes) if m in self.unless), self.named[held[0]])
        return f"; {text.format(**params)}" if text else ""


def modes(spec: Modes) -> Decorator:
    def mark(fn: Callable[..., Any]) -> Callable[..., Any]:
        fn.irexec_modes = spec  # type: ignore[attr-defined]
        return fn
    return mark


def given(ctx: click.Context, name: str) -> bool:
    """Whether the user gave parameter ``name`` (on the command line or in the
    environment; a project file's default is no choice made for this run)."""
    return ctx.get_parameter_source(name) in (ParameterSource.COMMANDLINE, ParameterSource.ENVIRONMENT)


def _spelling(param: click.Parameter) -> str:
    return next((o for o in param.opts if o.startswith("--")), param.opts[0] if param.opts else str(param.name))


def _with_metavar(param: click.Parameter) -> str:
    """An option as its help shows it, e.g. ``--inputs PROMPT.npz``: what to give, not only its name."""
    metavar = param.metavar if isinstance(param, click.Option) and not param.is_flag else None
    return f"{_spelling(param)} {metavar}" if metavar else _spelling(param)


def _listed(words: list[str]) -> str:
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " or " + words[-1]


def misplaced(ctx: click.Context, command: click.Command) -> list[Diagnostic]:
    """The options given outside the modes they apply to, and the parameters
    a mode needs exactly one of that are not so given.  A usage error when
    the parameters fit no mode at all."""
    spec: Modes | None = getattr(command.callback, "irexec_modes", None)
    if spec is None:
        return []
    held = spec.decide(ctx.params)
    problems = []
    for param in command.params:
        if isinstance(param, ModalOption) and param.modes is not None and param.name and not param.modes & set(held) \
                and given(ctx, param.name):
            needs = _listed([spec.needs[m] for m in sorted(param.modes)])
            why = spec.why(param.modes, held, ctx.params)
            problems.append(Diagnostic(spec.code, f"{_spelling(param)} needs {needs}{why}", ERROR))
    options = {p.name: p for p in command.params}
    for mode, names in ((m, names) for m in held for names in spec.exactly_one.get(m, ())):
        chosen = [_spelling(options[n]) for n in names if ctx.params.get(n) is not None]
        if len(chosen) != 1:
            spelt = _listed([_with_metavar(options[n]) for n in names])
            now = spec.named[mode].format(**ctx.params)
            text = (f"{' and '.join(chosen)} together: {now}, which takes one of {spelt}" if chosen else
                    f"{now}: it needs {spelt}")
            problems.append(Diagnostic(spec.code, text, ERROR))
    return problems


def check_modes(ctx: click.Context, command: click.Command) -> None:
    problems = misplaced(ctx, command)
    if problems:
        raise UsageError(problems)


# ------------------------------------------------------------------ model and weights

WEIGHTS_HELP = "The .bin file (default: beside MODEL)."
FOLLOW_HELP = "Read files through symbolic links that lead out of their folder (default: $IREXEC_FOLLOW_SYMLINKS)."


def model_options(*, weights: str | None = WEIGHTS_HELP, weights_modes: Iterable[str] | None = None,
                  follow_symlinks: bool = True) -> Decorator:
    """``--weights FILE.bin`` (``weights`` is its help, None: not taken) and ``--follow-symlinks``."""
    decorators = []
    if weights is not None:
        decorators.append(option("--weights", metavar="FILE.bin", modes=weights_modes, help=weights))
    if follow_symlinks:
        decorators.append(click.option("--follow-symlinks", is_flag=True, default=None, help=FOLLOW_HELP))
    return _stack(*decorators)


# ------------------------------------------------------------------ inputs

INPUTS_HELP = "npz of inputs keyed by Parameter name or tensor name (default: random inputs from --seed)."
GENERATED_SHAPE_HELP = ("Shape of a generated input whose declared dims are not static, e.g. x:1,3,224,224 (repeatable; "
                        "default: each such dim's lower bound, or 1).")
PIN_SHAPE_HELP = ("Pin a Parameter's dynamic dims, e.g. x:1,3,-1,-1 (-1 or ? keeps a dim dynamic; repeatable).")
VAL_RANGE_HELP = ("Range of a generated input's values, e.g. input_ids:0,30521 (integers: both ends included; "
                  "without NAME: every input; repeatable). Default: what the graph implies, else [0,9] or [-1,1).")


def input_options(*, inputs: str | None = INPUTS_HELP, inputs_metavar: str = "IN.npz", inputs_aliases: tuple[str, ...] = (),
                  inputs_modes: Iterable[str] | None = None, seed: bool = True,
                  input_shape: str | None = GENERATED_SHAPE_HELP, val_range: bool = False,
                  generated: Iterable[str] | None = None) -> Decorator:
    """``--inputs`` (``inputs`` is its help, None: not taken), ``--seed``, ``--input-shape``
    (``input_shape`` is its help: generated inputs' static shapes, or ``PIN_SHAPE_HELP``'s
    partial pins) and ``--val-range``.  ``generated`` names the modes in which inputs are
    generated, where --seed, --val-range and a generated --input-shape apply."""
    decorators = []
    if inputs is not None:
        decorators.append(option("--inputs", *inputs_aliases, "-i", "inputs_path", metavar=inputs_metavar,
                                 modes=inputs_modes, help=inputs))
    if seed:
        decorators.append(option("--seed", type=int, default=0, show_default=True, modes=generated,
                                 help="Seed of the random inputs."))
    if input_shape is not None:
        decorators.append(option("--input-shape", "input_shapes", multiple=True, metavar="NAME:DIMS",
                                 modes=None if input_shape == PIN_SHAPE_HELP else generated, help=input_shape))
    if val_range:
        decorators.append(option("--val-range", "val_ranges", multiple=True, metavar="[NAME:]LOW,HIGH", modes=generated,
                                 help=VAL_RANGE_HELP))
    return _stack(*decorators)


def parse_seed(seed: int) -> int:
    if seed < 0:
        raise UsageError(f"--seed {seed} must be a non-negative integer", code="bad-seed")
    return seed


# ------------------------------------------------------------------ memory and limits

MAX_MEMORY_HELP = "Bytes of tensors a run may hold, e.g. 8GiB (default: $IREXEC_MAX_MEMORY or half the RAM)."


def _size(ctx: click.Context, param: click.Parameter, value: str | None) -> int | None:
    from ..base.limits import parse_size

    if value is None:
        return None
    try:
        return parse_size(value)
    except ValueError as e:
        raise click.BadParameter(str(e), param_hint="--max-memory") from None


def memory_options() -> Decorator:
    """``--max-memory SIZE``: every command that runs a model takes it."""
    return click.option("--max-memory", callback=_size, metavar="SIZE", help=MAX_MEMORY_HELP)


# ------------------------------------------------------------------ output formats and files

def output_options(*, output: str | None = None, output_metavar: str = "OUT.npz", output_modes: Iterable[str] | None = None,
                   report: str | None = None, json: str | None = None, html: str | None = None,
                   html_modes: Iterable[str] | None = None,
                   formats: tuple[tuple[str, ...], str, str] | None = None) -> Decorator:
    """The files a command writes and the format it prints; each keyword is its
    option's help (None: not taken).  ``formats``: (choices, default, help) of ``--format``."""
    decorators = []
    if output is not None:
        decorators.append(option("--output", "-o", "output_path", metavar=output_metavar, modes=output_modes, help=output))
    if report is not None:
        decorators.append(click.option("--report", "report_path", metavar="OUT.json", help=report))
    if json is not None:
        decorators.append(click.option("--json", "json_path", metavar="OUT.json", help=json))
    if html is not None:
        decorators.append(option("--html", "html_path", metavar="OUT.html", modes=html_modes, help=html))
    if formats is not None:
        choices, default, text = formats
        decorators.append(click.option("--format", "fmt", type=click.Choice(choices), default=default, show_default=True,
                                       help=text))
    return _stack(*decorators)
