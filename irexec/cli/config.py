"""Project defaults from the ``[tool.irexec]`` table of the nearest
``pyproject.toml``, searched upward from the working directory as ruff does
(a ``pyproject.toml`` without the table is passed over).  The values become
click defaults, so an option given on the command line always wins.

    [tool.irexec]
    select = ["shape-mismatch", "type-mismatch"]   # check: only these codes
    ignore = ["unsupported-op"]                     # check: never these codes
    format = "sarif"                                # check --format
    include-notes = false                           # check --include-notes
    strict = true                                   # check --strict
    jobs = 4                                        # check -j
    skip-non-ir = true                              # check --skip-non-ir
    allow-empty = false                             # check --allow-empty
    follow-symlinks = false                         # check, run, inspect
    max-memory = "8GiB"                             # run, generate, diff --max-memory

The file is found in the tree being checked, so nobody vouches for it: it may
tighten a rule but never relax one.  ``follow-symlinks = true`` is refused
(only ``--follow-symlinks`` or ``IREXEC_FOLLOW_SYMLINKS=1`` allow links out of
a folder), ``max-memory`` can only lower the limit (a larger value leaves the
default), ``jobs`` is capped at the number of CPUs, and ``select``/``ignore``
never hide the findings of a file irexec refused to read (ALWAYS_REPORTED).

An unknown key, a value of the wrong type, TOML that does not parse, or a file
of any other shape (nested past what the parser can hold, larger than any
project file) is a usage error (exit 2) naming the file and line.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..base.errors import ERROR, Diagnostic, UsageError
from ..model.naming import did_you_mean

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

FILE = "pyproject.toml"
MAX_FILE_BYTES = 4 << 20  # far more than any project file; larger is refused unread
FORMATS = ("auto", "text", "json", "github", "gitlab", "junit", "sarif")  # of `irexec check --format`
TABLE = "tool.irexec"


# The findings of a file irexec refused to read: a project file can neither ignore
# them nor select them away (the command line can), so a check stays red on them.
ALWAYS_REPORTED = ("symlink-escape", "not-regular-file", "unsafe-xml", "file-too-large", "xml-limit")


def _codes(value: Any) -> tuple[str, ...]:
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, list) or not all(isinstance(v, str) for v in items):
        raise TypeError("a list of diagnostic codes (or one comma-separated string)")
    try:
        parse_codes(tuple(items))
    except ValueError as e:
        raise TypeError(f"known codes only: {e}") from None
    return tuple(items)


def _selected(value: Any) -> tuple[str, ...]:
    return _codes(value) + ALWAYS_REPORTED


def _ignored(value: Any) -> tuple[str, ...]:
    codes = _codes(value)
    kept = sorted(parse_codes(codes) & set(ALWAYS_REPORTED))
    if kept:
        raise TypeError(f"codes other than {', '.join(kept)}: a project file cannot hide a file irexec refused "
                        "to read (use --ignore)")
    return codes


def parse_codes(values: tuple[str, ...]) -> frozenset[str]:
    """``("a,b", "c")`` -> {a, b, c}; ValueError naming an unknown code and the known ones."""
    from ..report.rules import RULES

    codes = frozenset(c.strip() for v in values for c in v.split(",") if c.strip())
    unknown = sorted(codes - set(RULES))
    if unknown:
        hints = "; ".join(f"{c!r} is no diagnostic code{did_you_mean(c, RULES)}" for c in unknown)
        raise ValueError(f"{hints} (known codes: {', '.join(sorted(RULES))})")
    return codes


def _bool(value: Any) -> bool:
    if not isinstance(value, bool):
        raise TypeError("true or false")
    return value


def _jobs(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise TypeError("an integer >= 0 (0: one per CPU)")
    cpus = os.cpu_count() or 1
    return cpus if value == 0 else min(value, cpus)


def _no_follow(value: Any) -> bool:
    if _bool(value):
        raise TypeError("false: a project file cannot allow links out of a folder "
                        "(use --follow-symlinks or IREXEC_FOLLOW_SYMLINKS=1)")
    return False


def _format(value: Any) -> str:

    if value not in FORMATS:
        raise TypeError(f"one of {', '.join(FORMATS)}")
    return str(value)


def _size(value: Any) -> str:
    from ..base.limits import parse_size

    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise TypeError("a size such as \"8GiB\" or a number of bytes")
    from ..base.limits import resolve

    try:
        limit = parse_size(str(value))
    except ValueError as e:
        raise TypeError(str(e)) from None
    return str(min(limit, resolve(None)))  # lowers the limit, never raises it


@dataclass(frozen=True)
class Key:
    convert: Callable[[Any], Any]
    commands: dict[str, str]  # command -> its parameter name


KEYS: dict[str, Key] = {
    "select": Key(_selected, {"check": "select"}),
    "ignore": Key(_ignored, {"check": "ignore"}),
    "format": Key(_format, {"check": "fmt"}),
    "include-notes": Key(_bool, {"check": "include_notes"}),
    "strict": Key(_bool, {"check": "strict"}),
    "jobs": Key(_jobs, {"check": "jobs"}),
    "skip-non-ir": Key(_bool, {"check": "skip_non_ir"}),
    "allow-empty": Key(_bool, {"check": "allow_empty"}),
    "follow-symlinks": Key(_no_follow, {"check": "follow_symlinks", "run": "follow_symlinks", "inspect": "follow_symlinks"}),
    "max-memory": Key(_size, {"run": "max_memory", "generate": "max_memory", "diff": "max_memory"}),
}


def find(start: str | None = None) -> str | None:
    """The nearest pyproject.toml at or above ``start`` with a [tool.irexec] table."""
    directory = os.path.abspath(start or os.getcwd())
    while True:
        path = os.path.join(directory, FILE)
        if os.path.isfile(path) and _has_table(path):
            return path
        parent = os.path.dirname(directory)
        if parent == directory:
            return None
        directory = parent


def _has_table(path: str) -> bool:
    """Whether ``path`` has a [tool.irexec] table, or is a file the rules refuse (then ``load`` says why)."""
    from ..system.files import read_small_file

    try:
        text = read_small_file(path, "project file", MAX_FILE_BYTES, None, UsageError, "bad-config")
    except UsageError:
        return True
    return re.search(rb"tool\s*\.\s*irexec\b", text) is not None  # [tool.irexec] and [tool.irexec.*]


def _line_of(text: str, key: str) -> int | None:
    m = re.search(rf"^\s*\"?{re.escape(key)}\"?\s*=", text, re.MULTILINE)
    return text.count("\n", 0, m.start()) + 1 if m else None


def load(path: str) -> dict[str, dict[str, Any]]:
    """The click default_map of ``path``'s [tool.irexec] table."""
    from ..system.files import read_small_file

    raw = read_small_file(path, "project file", MAX_FILE_BYTES, None, UsageError, "bad-config")
    try:
        text = raw.decode("utf-8")
        data = tomllib.loads(text)
    except (OSError, UnicodeDecodeError) as e:
        raise UsageError(f"cannot read {path}: {e}", code="bad-config", file=path) from None
    except tomllib.TOMLDecodeError as e:
        m = re.search(r"at line (\d+)", str(e))
        raise UsageError(f"{path} is not valid TOML: {e}", code="bad-config", file=path,
                         line=int(m.group(1)) if m else None) from None
    except (RecursionError, MemoryError):
        raise UsageError(f"{path} is nested too deeply to read", code="bad-config", file=path) from None
    tool = data.get("tool", {})
    table = tool.get("irexec", {}) if isinstance(tool, dict) else None
    if not isinstance(table, dict):
        raise UsageError("[tool.irexec] must be a table", code="bad-config", file=path)
    problems = []
    defaults: dict[str, dict[str, Any]] = {}
    for key, value in table.items():
        spec = KEYS.get(key)
        if spec is None:
            problems.append(Diagnostic("bad-config", f"[tool.irexec] has no key {key!r}{did_you_mean(key, KEYS)}; "
                                       f"known: {', '.join(KEYS)}", ERROR, file=path, line=_line_of(text, key)))
            continue
        try:
            converted = spec.convert(value)
        except TypeError as e:
            problems.append(Diagnostic("bad-config", f"[tool.irexec] {key} = {value!r}: expected {e}", ERROR,
                                       file=path, line=_line_of(text, key)))
            continue
        for command, param in spec.commands.items():
            defaults.setdefault(command, {})[param] = converted
    if problems:
        raise UsageError(problems)
    return defaults
