"""Shared fixtures: small IR files written with irexec's own builder, and the
OpenVINO oracle (a test dependency)."""

from __future__ import annotations

import os

# Every kernel's outputs are held to its own inference in the tests (set before irexec is imported).
os.environ.setdefault("IREXEC_VERIFY_KERNELS", "1")
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from irexec.cli import cli
from irexec.model.builder import IRBuilder

try:  # a test extra; property tests skip without it
    from hypothesis import HealthCheck, settings
except ImportError:  # pragma: no cover
    pass
else:
    # Pass or fail never depends on the machine's speed or load: no per-example
    # deadline and no "data generation too slow" health check for any test
    # (loaded before the test modules, so their own @settings inherit it).
    settings.register_profile("irexec", deadline=None, suppress_health_check=[HealthCheck.too_slow])
    settings.load_profile("irexec")


@pytest.fixture
def builder() -> IRBuilder:
    return IRBuilder()


@pytest.fixture
def write_ir(tmp_path: Path):
    """write_ir(builder_or_xml_text, name="model", bin=b"") -> path of model.xml."""

    def _write(source, name: str = "model", bin: bytes | None = None) -> str:
        xml = tmp_path / f"{name}.xml"
        if isinstance(source, IRBuilder):
            source.write(xml)
        else:
            xml.write_text(source) if isinstance(source, str) else xml.write_bytes(source)
            if bin is not None:
                (tmp_path / f"{name}.bin").write_bytes(bin)
        return str(xml)

    return _write


@pytest.fixture
def save_npz(tmp_path: Path):
    def _save(name: str = "inputs", **arrays: np.ndarray) -> str:
        path = tmp_path / f"{name}.npz"
        np.savez(path, **arrays)
        return str(path)

    return _save


class Cli:
    """Runs the CLI in-process (click's CliRunner) and as a real subprocess."""

    def __init__(self) -> None:
        self.runner = CliRunner()

    def __call__(self, *args: str, env: dict | None = None):
        return self.runner.invoke(cli, [str(a) for a in args], env=env, catch_exceptions=False)

    @staticmethod
    def subprocess(*args: str, env: dict | None = None, cwd: str | None = None) -> subprocess.CompletedProcess:
        full_env = dict(os.environ, **(env or {}))
        return subprocess.run([sys.executable, "-m", "irexec", *map(str, args)], capture_output=True, text=True,
                              env=full_env, cwd=cwd, timeout=300)


@pytest.fixture
def run_cli() -> Cli:
    return Cli()


@pytest.fixture(autouse=True)
def _outside_github_actions(monkeypatch: pytest.MonkeyPatch) -> None:
    """The suite behaves the same inside and outside GitHub Actions: under it,
    irexec's human output is framed by stop-commands lines (tests that want
    that set GITHUB_ACTIONS themselves)."""
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)


@pytest.fixture(autouse=True)
def _own_user_cache(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> None:
    """`irexec check` keeps the findings of unchanged files in the user's cache
    folder: each test gets its own (subprocesses inherit it), so no test reads
    another's findings (one that replaced part of the checker, say) and none
    touches the real ~/.cache."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("user-cache")))


# The real models the larger tests run (shared/models beside the repository, or $IREXEC_REAL_MODELS).
REAL_MODELS_DIR = Path(os.environ.get("IREXEC_REAL_MODELS") or Path(__file__).resolve().parents[1].parent / "shared" / "models")


def _skips_for_real_models(reports: list) -> int:
    """Skipped tests whose reason is that the real models are not here."""
    n = 0
    for rep in reports:
        reason = rep.longrepr[2] if isinstance(rep.longrepr, tuple) and len(rep.longrepr) == 3 else str(rep.longrepr)
        if str(REAL_MODELS_DIR) in reason or "shared models" in reason:
            n += 1
    return n


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Say at the end of a run how many tests the absent real models skipped, and how to run them."""
    n = _skips_for_real_models(terminalreporter.stats.get("skipped", []))
    if n:
        terminalreporter.write_line(f"{n} real-model test{'s' if n != 1 else ''} skipped: {REAL_MODELS_DIR} is absent; "
                                    "set IREXEC_REAL_MODELS to the folder of the real models to run them")


# `python -m pytest -n 2 -q -m quick`: a check of a clone in under 3 minutes on 2 busy cores (README,
# docs/testing.md): the command line, the Python API, the examples, the docs and the layer rules, and
# the arithmetic conformance tables against OpenVINO.
QUICK = frozenset({"test_cli_basics.py", "test_api.py", "test_examples.py", "test_check_cli.py", "test_docs.py",
                   "test_architecture.py", "conformance/elementwise/test_arithmetic.py"})
TESTS = Path(__file__).resolve().parent


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if item.path.is_relative_to(TESTS) and item.path.relative_to(TESTS).as_posix() in QUICK:
            item.add_marker(pytest.mark.quick)
