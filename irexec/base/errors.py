"""Diagnostics and the error hierarchy.

Everything a user can cause (a bad file, a bad input, a failing check) is an
``IRExecError`` carrying one or more ``Diagnostic``s.  A bug in irexec is an
``InternalError``, deliberately *not* a subclass, so the CLI can tell the two
apart (exit 1 versus exit 2).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from contextvars import ContextVar, Token
from dataclasses import dataclass, field, replace
from typing import Any

ERROR = "error"
WARNING = "warning"
NOTE = "note"
SEVERITIES = (ERROR, WARNING, NOTE)

# A finding repeats names and values from the file; a hostile file makes them
# megabytes long.  Past these lengths they are cut, with an ellipsis and the
# full length, so a report stays linear in the file with a small constant.
MAX_NAME_CHARS = 200
MAX_MESSAGE_CHARS = 2000


def shorten(value: object, limit: int = MAX_NAME_CHARS) -> str:
    """``repr(value)`` of a string (or ``str`` of anything else), cut past ``limit`` characters."""
    if isinstance(value, str):
        return repr(value) if len(value) <= limit else f"{value[:limit]!r}… ({len(value)} characters)"
    text = str(value)
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text)} characters)"


# Messages name a parameter of the Python API in backquotes, alone (`stop_at`)
# or with a value (`weights=FILE.bin`); the command line spells them as its
# options instead (``--weights FILE.bin``, cli/options.py).
_SPELLING: ContextVar[Mapping[str, str] | None] = ContextVar("irexec_parameter_spelling", default=None)
_PARAMETER = re.compile(r"`([a-z_]+)(?:=([^`]*))?`")


def spell_parameters(spelling: Mapping[str, str]) -> Token[Mapping[str, str] | None]:
    """Spell each backquoted parameter in messages made from now on (in this
    context) as ``spelling`` says; the token undoes it (``_SPELLING.reset``)."""
    return _SPELLING.set(dict(spelling))


def unspell_parameters(token: Token[Mapping[str, str] | None]) -> None:
    _SPELLING.reset(token)


def spelled(message: str) -> str:
    spelling = _SPELLING.get()
    if not spelling or "`" not in message:
        return message
    def spell(m: re.Match[str]) -> str:
        option = spelling.get(m.group(1))
        if option is None:
            return m.group(0)
        return option if m.group(2) is None else f"{option} {m.group(2)}"

    return _PARAMETER.sub(spell, message)


def _cut(text: str, limit: int) -> str:
    # the slack keeps a text cut once (limit + the suffix) from being cut again
    return text if len(text) <= limit + 40 else f"{text[:limit]}… ({len(text)} characters)"


@dataclass(frozen=True)
class Diagnostic:
    """One finding, located as precisely as the file allows."""

    code: str
    message: str
    severity: str = ERROR
    file: str | None = None
    line: int | None = None
    layer_id: int | None = None
    layer_name: str | None = None
    op: str | None = None  # "Gather-8"
    port: int | None = None
    port_kind: str | None = None  # "input" | "output"
    values: dict[str, Any] = field(default_factory=dict, compare=False)

    def __post_init__(self) -> None:
        if "`" in self.message:
            object.__setattr__(self, "message", spelled(self.message))
        if len(self.message) > MAX_MESSAGE_CHARS + 40:
            object.__setattr__(self, "message", _cut(self.message, MAX_MESSAGE_CHARS))
        if self.layer_name is not None and len(self.layer_name) > MAX_NAME_CHARS + 40:
            object.__setattr__(self, "layer_name", _cut(self.layer_name, MAX_NAME_CHARS))

    def located(self, **where: Any) -> Diagnostic:
        """A copy with missing location fields filled from ``where``."""
        updates = {k: v for k, v in where.items() if getattr(self, k) is None and v is not None}
        return replace(self, **updates) if updates else self

    @property
    def subject(self) -> str:
        """``layer 8 "Gather_7" (Gather-8) output port 3``, or as much as is known."""
        parts: list[str] = []
        if self.layer_id is not None:
            parts.append(f"layer {self.layer_id}")
        if self.layer_name is not None:
            parts.append(_quote(self.layer_name))
        if self.op:
            parts.append(f"({self.op})")
        if self.port is not None:
            parts.append(f"{self.port_kind or 'port'} port {self.port}" if self.port_kind else f"port {self.port}")
        return " ".join(parts)

    def format(self, *, basename: bool = False) -> str:
        where = ""
        if self.file:
            name = self.file.rsplit("/", 1)[-1] if basename else self.file
            where = f"{name}:{self.line}: " if self.line else f"{name}: "
        subject = self.subject
        return f"{where}{self.severity}[{self.code}] {subject + ': ' if subject else ''}{self.message}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "severity": self.severity,
            "message": self.message,
            "file": self.file,
            "line": self.line,
            "layer_id": self.layer_id,
            "layer_name": self.layer_name,
            "op": self.op,
            "port": self.port,
            "port_kind": self.port_kind,
        }

    def __str__(self) -> str:
        return self.format()


def _quote(name: str) -> str:
    return '"' + name.replace("\\", "\\\\").replace('"', '\\"') + '"'


class IRExecError(Exception):
    """Base class of every error a user can cause; carries diagnostics."""

    default_code = "error"

    def __init__(self, diagnostics: Diagnostic | Iterable[Diagnostic] | str, code: str | None = None, **where: Any):
        if isinstance(diagnostics, str):
            diagnostics = [Diagnostic(code or self.default_code, diagnostics, **where)]
        elif isinstance(diagnostics, Diagnostic):
            diagnostics = [diagnostics]
        self.diagnostics: list[Diagnostic] = list(diagnostics)
        super().__init__("\n".join(d.format() for d in self.diagnostics))

    @property
    def code(self) -> str:
        return self.diagnostics[0].code if self.diagnostics else self.default_code

    def located(self, **where: Any) -> IRExecError:
        """Fill in location fields (file, layer, ...) that the raiser did not know."""
        self.diagnostics = [d.located(**where) for d in self.diagnostics]
        self.args = ("\n".join(d.format() for d in self.diagnostics),)
        return self


class ModelError(IRExecError, ValueError):
    """The model files are malformed, unsafe or inconsistent."""

    default_code = "bad-model"


class InputError(IRExecError, ValueError):
    """An input tensor (or input file) does not fit the model."""

    default_code = "input-mismatch"


class OpError(IRExecError, ValueError):
    """An op's inputs violate its rules (raised by ``infer`` and ``compute``)."""

    default_code = "invalid-op"


class CompareError(IRExecError):
    """Outputs differ from a reference beyond tolerance."""

    default_code = "compare-mismatch"


class UsageError(IRExecError):
    """The caller asked for something impossible (unknown layer, bad option value)."""

    default_code = "usage"


class InternalError(Exception):
    """A bug in irexec itself, never caused by user input."""
