"""`irexec diff A.xml B.xml --device CPU`: B on the plugin at its defaults against A by irexec, and the
split of that error into compression (B by irexec against A) and the plugin (B on CPU against B by irexec)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

pytest.importorskip("openvino")

BERT = Path("/work/shared/models/bert_tiny")
DATA = Path(__file__).resolve().parent / "data" / "diff_ab"

pytestmark = pytest.mark.skipif(not BERT.is_dir(), reason="the shared models are not here")
SPLIT = re.compile(r"B on CPU against A by irexec: rel L2 ([0-9.e+-]+); compression \(B by irexec against A\): "
                   r"([0-9.e+-]+); the plugin \(B on CPU against B by irexec\): ([0-9.e+-]+)")


@pytest.mark.parametrize("given", [True, False])
def test_b_on_the_device_split_into_compression_and_plugin(tmp_path: Path, run_cli, given: bool) -> None:
    out = tmp_path / "r.json"
    inputs = ["--inputs", BERT / "inputs.npz"] if given else []
    r = run_cli("diff", BERT / "model.xml", DATA / "bert_tiny_int4.xml", "--device", "CPU", *inputs, "--json", out)
    assert r.exit_code == 0, r.output
    doc = json.loads(out.read_text())
    found = SPLIT.search(doc["notes"][0])
    assert found, doc["notes"]
    total, compression, plugin = map(float, found.groups())
    assert 0.05 < compression < 0.15 and 0 < plugin < 0.05  # INT4 costs far more than the plugin's defaults
    assert compression - plugin <= total * (1 + 1e-9) and total <= (compression + plugin) * (1 + 1e-9)
    assert doc["other"].startswith("OpenVINO")  # the report is B's device diff


def test_steps_with_both_is_a_usage_error(run_cli) -> None:
    r = run_cli("diff", BERT / "model.xml", DATA / "bert_tiny_int4.xml", "--device", "CPU", "--steps", "2")
    assert r.exit_code == 2 and "error[diff-usage]" in r.output and "Traceback" not in r.output
