"""`irexec diff A.xml B.xml --inputs-dir DIR`: bert_tiny against its NNCF INT8 copy over a few
samples.  Origins counted exactly where each sample's own diff names them (a cached model keeps
its quantization steps), aggregates made from the samples' figures, weights ranked by their
measured effect on the outputs, the keep-K curve, and the data-set HTML page."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from bert_tiny_pairs import BERT, DAMAGED, DATA, damaged_copy, write_samples
from lxml import etree

SCHEMA = Path(__file__).resolve().parent.parent / "schemas" / "diff-dataset.schema.json"
BROWSER = next((b for b in ("chromium", "chromium-browser", "google-chrome") if shutil.which(b)), None)

pytestmark = pytest.mark.skipif(not BERT.is_dir(), reason="the shared models are not here")


def _samples(folder: Path, n: int = 3) -> Path:
    return write_samples(folder, n, seed=1)


def _dataset(run_cli, b: Path, folder: Path, out: Path, *args: object, a: Path = BERT / "model.xml") -> dict:
    r = run_cli("diff", a, b, "--inputs-dir", folder, "--json", out, *args)
    assert r.exit_code == 0, r.output
    doc = json.loads(out.read_text())
    jsonschema = pytest.importorskip("jsonschema")
    jsonschema.Draft202012Validator(json.loads(SCHEMA.read_text())).validate(doc)
    return doc["dataset"]


def test_a_planted_damage_is_an_origin_exactly_where_each_sample_says(tmp_path: Path, run_cli) -> None:
    folder, b = _samples(tmp_path / "in"), damaged_copy(tmp_path, "int8", 7, 1.5)
    doc = _dataset(run_cli, b, folder, tmp_path / "ds.json", "--ablate", "0")
    named: dict[str, int] = {}
    for sample in sorted(folder.iterdir()):
        out = tmp_path / f"{sample.stem}.json"
        r = run_cli("diff", BERT / "model.xml", b, "--inputs", sample, "--json", out, "--ablate", "0")
        assert r.exit_code == 0, r.output
        for name in json.loads(out.read_text())["origins"]:
            named[name] = named.get(name, 0) + 1
    assert named == {DAMAGED: 3}
    # the same count for every layer, the undamaged ones at 0 in every sample (a cached model kept its steps)
    counts = {re.sub(r":\d+$", "", name): s["origin_count"] for name, s in doc["layers"].items() if s["origin_count"]}
    assert counts == named
    damaged = doc["weights"][DAMAGED]
    assert damaged["beyond_rounding_in"] == 3 and damaged["max_steps"] > 1 and damaged["rank"] == 1
    assert all(w["beyond_rounding_in"] == 0 and w["max_steps"] <= 1 for k, w in doc["weights"].items() if k != DAMAGED)


def test_aggregates_come_from_the_samples_figures(tmp_path: Path, run_cli) -> None:
    doc = _dataset(run_cli, DATA / "bert_tiny_int8.xml", _samples(tmp_path / "in"), tmp_path / "ds.json", "--ablate", "0")
    assert [s["sample"] for s in doc["per_sample"]] == doc["samples"] == ["s0.npz", "s1.npz", "s2.npz"]
    for name, stat in doc["outputs"].items():
        figures = [s["outputs"][name] for s in doc["per_sample"]]
        rel = [f["rel_l2"] for f in figures]
        assert stat["max_abs_error"] == max(f["max_abs_error"] for f in figures) > 0
        assert stat["max_units"] == max(f["max_units"] for f in figures) > 0
        assert stat["max_rel_l2"] == max(rel) and min(rel) <= stat["mean_rel_l2"] <= max(rel)
        assert stat["origin_count"] == sum(f["origin"] for f in figures)
    assert doc["keep_curve"] == []  # --ablate 0: nothing measured, no curve


def test_ranking_by_measured_effect_and_the_keep_k_curve(tmp_path: Path, run_cli) -> None:
    out = tmp_path / "ds.json"
    r = run_cli("diff", BERT / "model.xml", DATA / "bert_tiny_int4.xml", "--inputs-dir", _samples(tmp_path / "in"),
                "--json", out, "--html", tmp_path / "ds.html")
    assert r.exit_code == 0, r.output
    doc = json.loads(out.read_text())["dataset"]
    weights = list(doc["weights"].items())
    assert len(weights) == 15 and [w["rank"] for _, w in weights] == list(range(1, 16))
    alone = [w["outputs_alone"]["mean_rel_l2"] for _, w in weights]
    assert alone == sorted(alone, reverse=True)  # by the outputs' error, not the layer's own (flat across layers)
    own = [w["mean_rel_l2"] for _, w in weights]
    assert own != sorted(own, reverse=True)
    # INT4 embeddings cost the outputs tens of times more than any MatMul: they lead the scope
    assert all(name.endswith("embedding/Gather") for name, _ in weights[:3])
    assert doc["ignored_scope"] == [name for name, _ in weights[:5]]
    assert "nncf.IgnoredScope(names=[" in r.output and "keep-K curve" in r.output
    curve = doc["keep_curve"]
    assert [c["keep"] for c in curve] == list(range(16)) and [c["kept"] for c in curve[1:]] == [n for n, _ in weights]
    # K = 0 replaces every weight: B's own outputs' error; K = N keeps them all: A itself
    output = next(iter(doc["outputs"].values()))
    assert curve[0]["mean_rel_l2"] == pytest.approx(output["mean_rel_l2"], rel=0.02)
    assert curve[-1]["mean_rel_l2"] == 0.0
    assert curve[3]["mean_rel_l2"] < 0.2 * curve[0]["mean_rel_l2"]  # keeping the three embeddings
    for c in curve:
        assert len(c["per_sample"]) == 3 and c["max_rel_l2"] == max(c["per_sample"])
    # each weight alone is what the single-sample mode's ablation measures on that sample's inputs
    one = tmp_path / "one"
    one.mkdir()
    shutil.copy(tmp_path / "in" / "s0.npz", one / "s0.npz")
    single = tmp_path / "single.json"
    r = run_cli("diff", BERT / "model.xml", DATA / "bert_tiny_int4.xml", "--inputs", one / "s0.npz", "--json", single)
    assert r.exit_code == 0, r.output
    measured = {w["layer"]: w["output_rel_l2"] for w in json.loads(single.read_text())["weights"]}
    over_one = _dataset(run_cli, DATA / "bert_tiny_int4.xml", one, tmp_path / "one.json")
    assert {k: w["outputs_alone"]["mean_rel_l2"] for k, w in over_one["weights"].items()} == pytest.approx(measured,
                                                                                                      rel=1e-9)
    _check_page(tmp_path / "ds.html", tmp_path, [name for name, _ in weights])


def _check_page(page: Path, tmp_path: Path, ranked: list[str]) -> None:
    text = page.read_text()
    assert not re.search(r"<script[^>]+src=", text)  # plotly.js inline: opens offline
    tree = etree.HTML(text)
    rows = tree.xpath("//table[@id='weights']/tbody/tr")
    assert [row.xpath("td")[1].text for row in rows] == ranked
    assert len(tree.xpath("//table[@id='layers']/tbody/tr")) > 80
    assert tree.xpath("//div[@id='layer-plot']") and tree.xpath("//div[@id='keep-curve']")
    if BROWSER is None:
        return
    r = subprocess.run([BROWSER, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                        "--disable-component-update", "--disable-sync", "--no-first-run",
                        f"--user-data-dir={tmp_path / 'profile'}", "--enable-logging=stderr", "--v=0",
                        "--virtual-time-budget=5000", "--dump-dom", page.as_uri()],
                       capture_output=True, text=True, timeout=180)
    assert [line for line in r.stderr.splitlines() if ":CONSOLE" in line] == []
    assert r.stdout.count('class="main-svg"') >= 2  # both plots drawn


def test_html_needs_no_single_input(tmp_path: Path, run_cli) -> None:
    """--html with --inputs-dir writes the data-set page and says so."""
    page = tmp_path / "p.html"
    r = run_cli("diff", BERT / "model.xml", DATA / "bert_tiny_int8.xml", "--inputs-dir", _samples(tmp_path / "in", 1),
                "--html", page, "--ablate", "2")
    assert r.exit_code == 0, r.output
    assert f"wrote the HTML report to {page}" in r.output and page.stat().st_size > 0


LLM = DATA.parent / "diff_dataset"  # a tiny stateful LLM and its NNCF copies (make_llm_dataset.py)


def test_nf4_steps_are_the_gap_between_its_levels(tmp_path: Path, run_cli) -> None:
    """NF4's levels are not evenly spaced: one step is the gap where the value lies, times the scale.
    Rounding to the nearest level gives at most half a step; one group's scale x1.5 is beyond one."""
    doc = _dataset(run_cli, LLM / "nf4_g32.xml", LLM / "samples", tmp_path / "nf4.json", "--ablate", "0",
                   a=LLM / "f32.xml")
    nf4 = [w for w in doc["weights"].values() if w["b_layer"].startswith("MatMul") and w["max_steps"] < 0.52]
    assert len(nf4) >= 6 and all(0.45 < w["max_steps"] <= 0.501 for w in nf4)  # by the scale alone: about 0.15
    assert not any(s["origin_count"] for s in doc["layers"].values())
    xml, binary = tmp_path / "damaged.xml", tmp_path / "damaged.bin"
    shutil.copy(LLM / "nf4_g32.xml", xml)
    data = bytearray((LLM / "nf4_g32.bin").read_bytes())
    attrs = etree.parse(str(xml)).find(".//layer[@name='Constant_111/scale']").find("data").attrib
    offset, size = int(attrs["offset"]), int(attrs["size"])
    scale = np.frombuffer(bytes(data[offset:offset + size]), np.float16).copy()
    scale[3] *= 1.5
    data[offset:offset + size] = scale.tobytes()
    binary.write_bytes(bytes(data))
    doc = _dataset(run_cli, xml, LLM / "samples", tmp_path / "damaged.json", "--ablate", "0", a=LLM / "f32.xml")
    damaged = next(iter(doc["weights"].items()))
    assert damaged[0] == "MatMul_112" and damaged[1]["max_steps"] > 1.2 and damaged[1]["beyond_rounding_in"] == 6
    assert {k: s["origin_count"] for k, s in doc["layers"].items() if s["origin_count"]} == {"MatMul_112": 6}


def test_a_progress_bar_on_a_terminal_only(tmp_path: Path) -> None:
    """stderr a terminal: a bar counting samples, weights and curve points; not a terminal: nothing."""
    import os
    import pty
    import sys

    folder = _samples(tmp_path / "in", 2)
    command = [sys.executable, "-m", "irexec", "diff", str(BERT / "model.xml"), str(DATA / "bert_tiny_int8.xml"),
               "--inputs-dir", str(folder), "--ablate", "2"]
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
    master, slave = pty.openpty()
    try:
        proc = subprocess.run(command, stdout=subprocess.PIPE, stderr=slave, env=env, timeout=300)
        os.close(slave)
        seen = b""
        while True:
            try:
                chunk = os.read(master, 1 << 16)
            except OSError:  # the terminal's other end is closed: all read
                break
            if not chunk:
                break
            seen += chunk
    finally:
        os.close(master)
    assert proc.returncode == 0
    text = seen.decode(errors="replace")
    assert "diff [" in text and "7/7" in text  # 2 samples, 2 weights alone, 3 curve points
    plain = subprocess.run(command, capture_output=True, env=env, timeout=300)
    assert plain.returncode == 0 and b"diff [" not in plain.stderr


@pytest.mark.parametrize("fmt", ["int8_asym", "int4_sym_g16", "int4_asym_g16", "int3_sym_g32", "nf4_g32_all_layers",
                                 "fp4", "fp8_e4m3", "mxfp4", "mxfp8_e4m3", "nvfp4", "cb4"])
def test_every_nncf_format_is_within_its_own_rounding_in_every_sample(tmp_path: Path, run_cli, fmt: str) -> None:
    """tests/data/nncf_formats holds the same f32 model compressed to each format NNCF 3.4 writes: undamaged, no
    layer is an origin in any sample, and every weight is within one step of its format (its code book for CB4,
    FP8-quantized scales for NVFP4, e8m0 scales for MX), the first sample and every later one of a cached model."""
    b = DATA.parent / "nncf_formats" / fmt / "model.xml"
    doc = _dataset(run_cli, b, LLM / "samples", tmp_path / "f.json", "--ablate", "0", a=LLM / "f32.xml")
    assert len(doc["weights"]) == 10
    assert all(w["max_steps"] is not None and w["max_steps"] <= 1 and w["beyond_rounding_in"] == 0
               for w in doc["weights"].values()), {k: w["max_steps"] for k, w in doc["weights"].items()}
    assert not any(s["origin_count"] for s in doc["layers"].values())
