"""Under GitHub Actions every command frames its human output with
``::stop-commands::`` from its first line to its last (stdout and stderr as the
runner reads them, interleaved), so no layer or file name forges a workflow
command; machine formats are left whole and ``check --format github`` keeps its
annotations."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from test_output_names import workflow_commands

ROOT = Path(__file__).resolve().parents[2]
FORGED = "::error title=forged::"


def _irexec(*args: object, cwd: Path) -> list[str]:
    """The lines of stdout and stderr merged in the order they were written."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), GITHUB_ACTIONS="true")
    proc = subprocess.run([sys.executable, "-m", "irexec", *map(str, args)], stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, timeout=300, env=env, cwd=cwd)
    assert b"Traceback" not in proc.stdout and b"internal error" not in proc.stdout, proc.stdout
    return re.split(r"\r\n|\r|\n", proc.stdout.decode())


@pytest.fixture(scope="module")
def lm(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny causal LM whose layer and Parameter names each start a forged command."""
    pytest.importorskip("openvino")
    import stateful_models

    model = stateful_models.tiny_lm(vocab=8, dim=4)
    for op in model.get_ordered_ops():
        op.set_friendly_name(f"{op.get_friendly_name()}\n{FORGED}layer")
    folder = tmp_path_factory.mktemp("lm")
    xml = Path(stateful_models.save(model, folder))
    np.savez(folder / "prompt.npz", input_ids=np.array([[1, 2, 3]], np.int64))
    np.savez(folder / "bad_prompt.npz", input_ids=np.array([[1, 2, 3]], np.int32))  # an input-mismatch naming a layer
    (folder / f"odd\n{FORGED}file.xml").write_text("<notir/>")
    (folder / f"odd2\n{FORGED}file.xml").write_text("<net><layers>")
    return xml


COMMANDS = {
    "run": ["run", "model.xml", "--seed", "1", "--input-shape", "input_ids:1,2", "--input-shape", "attention_mask:1,2",
            "--input-shape", "position_ids:1,2", "--input-shape", "beam_idx:1"],
    "generate": ["generate", "model.xml", "-i", "prompt.npz", "-n", "2"],
    "generate-error": ["generate", "model.xml", "-i", "bad_prompt.npz", "-n", "2"],
    "check-skip-non-ir": ["check", ".", "-v", "--skip-non-ir", "--format", "text"],
    "check-auto-file": ["check", ".", "-v", "--skip-non-ir", "-o", "report.txt"],
    "inspect": ["inspect", "model.xml", "--shapes"],
    "ops": ["ops"],
}

SHOWS_NAMES = {"generate-error", "check-skip-non-ir", "check-auto-file", "inspect"}


@pytest.mark.parametrize("name", COMMANDS)
def test_every_command_is_framed_from_its_first_line(name: str, lm: Path) -> None:
    lines = _irexec(*COMMANDS[name], cwd=lm.parent)
    assert lines[0].startswith("::stop-commands::"), lines[:3]
    assert workflow_commands("\n".join(lines)) == []
    if name in SHOWS_NAMES:
        assert any(FORGED in line for line in lines), lines  # the names are shown, inside the frame


def test_check_github_skips_and_annotates_without_forgery(lm: Path) -> None:
    """Annotations are meant as commands; a skipped file's name stays on its own line."""
    lines = _irexec("check", ".", "-v", "--skip-non-ir", cwd=lm.parent)
    found = workflow_commands("\n".join(lines))
    assert found and all(c.startswith("::error file=") or c.startswith("::warning file=") or c.startswith("::notice file=")
                         for c in found), found
    assert any("skipped" in line and FORGED in line for line in lines), lines


@pytest.mark.parametrize("args", [["ops", "--format", "json"], ["inspect", "model.xml", "--format", "json"]])
def test_machine_output_is_not_framed(args: list[str], lm: Path) -> None:
    lines = _irexec(*args, cwd=lm.parent)
    assert not any(line.startswith("::") for line in lines)

