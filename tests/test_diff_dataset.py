"""`irexec diff A.xml B.xml --inputs-dir DIR`: bert_tiny against its NNCF INT8 copy over a few
samples.  Origins counted exactly where each sample's own diff names them (a cached model keeps
its quantization steps), aggregates made from the samples' figures, weights ranked by their
measured effect on the outputs, the keep-K curve, and the data-set HTML page."""

from __future__ import annotations

import json
import math
import re
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from bert_tiny_pairs import BERT, DAMAGED, DATA, damaged_copy, write_samples
from headless_chromium import BROWSER, chromium_dom
from lxml import etree

SCHEMA = Path(__file__).resolve().parent.parent / "schemas" / "diff-dataset.schema.json"

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
    # by the keep-K curve's sets over the outputs' error, not by the layer's own (flat across layers)
    own = [w["mean_rel_l2"] for _, w in weights]
    assert own != sorted(own, reverse=True)
    # INT4 embeddings cost the outputs tens of times more than any MatMul: they lead the scope
    assert all(name.endswith("embedding/Gather") for name, _ in weights[:3])
    assert "nncf.IgnoredScope(names=[" in r.output and "keep-K curve" in r.output
    curve = doc["keep_curve"]
    assert [c["keep"] for c in curve] == list(range(16)) and [c["kept"] for c in curve[1:]] == [n for n, _ in weights]
    assert doc["ignored_scope"] == curve[5]["ignored_scope"]
    # the ranking is the order in which weights first enter the best sets, each set K weights of it
    ranked = [name for name, _ in weights]
    for k, c in enumerate(curve):
        assert len(c["ignored_scope"]) == k and c["ignored_scope"] == [n for n in ranked if n in c["ignored_scope"]]
        entered = {n for p in curve[:k + 1] for n in p["ignored_scope"]}
        assert set(ranked[:len(entered)]) == entered
        assert c["mean_rel_l2"] <= c["forward_mean_rel_l2"] and c["found_by"]
    # each step of the forward path tried the first 8 of the single-weight ranking not kept yet
    assert [c["candidates"] for c in curve] == [1] + [min(8, 15 - k) for k in range(15)]
    # the forward path, backward elimination, the two rankings and the refinement, each set measured once
    from irexec.api.diff.greedy_keep import greedy_runs
    from irexec.api.diff.keep_portfolio import portfolio_runs

    assert greedy_runs(15, 0, 8) < doc["keep_sets_measured"] <= greedy_runs(15, 0, 8) + portfolio_runs(15, 0, 3)
    means = [c["mean_rel_l2"] for c in curve]
    assert means == sorted(means, reverse=True)  # on this model, every weight kept lowers the error
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
    dom, console = chromium_dom(page, tmp_path / "profile")
    assert console == []
    assert dom.count('class="main-svg"') >= 2  # both plots drawn


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
    """stderr a terminal: a bar counting samples, weights and greedy runs; not a terminal: nothing."""
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
    assert "diff [" in text and "8/8" in text  # 2 samples, 2 weights alone, K = 0 and 2 + 1 greedy candidates
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


def _three_branches(tmp_path: Path) -> Callable[[list[str], str], Path]:
    """y = x @ W1 + x @ W2 + x @ W3, A in f32, B with each weight in u8 (zero point 128, a scale per
    column), every weight within its rounding (under half a step).  W1's and W2's errors are opposite
    (0.45 and 0.4 steps along the same signs): compressed together they nearly cancel, so each alone
    costs the outputs more than W3 (0.2 steps), yet W3 is the weight whose restoration lowers B's error most.
    Gives the writer of a model with the named weights as in A (in f32) and the others as in B."""
    from irexec.model.builder import IRBuilder

    rng = np.random.default_rng(5)
    scale = np.full((1, 16), 0.01, np.float32)
    codes = {n: rng.integers(100, 157, (16, 16)).astype(np.uint8) for n in ("W1", "W2", "W3")}
    signs, other = rng.choice([-1.0, 1.0], (16, 16)), rng.choice([-1.0, 1.0], (16, 16))
    shift = {"W1": 0.45 * signs, "W2": -0.4 * signs, "W3": 0.2 * other}
    b_values = {n: (scale * (c.astype(np.float32) - 128)).astype(np.float32) for n, c in codes.items()}
    a_values = {n: (b_values[n] + shift[n] * scale).astype(np.float32) for n in codes}

    def model(kept: list[str], name: str) -> Path:
        floats = {n: a_values[n] for n in kept}
        g = IRBuilder()
        x = g.parameter("x", [4, 16])
        outs = []
        for n in ("W1", "W2", "W3"):
            if n in floats:
                w = g.const(floats[n], name=f"{n}/weight")
            else:
                raw = g.layer("Convert", "opset1", [g.const(codes[n], name=f"{n}/codes")], {"destination_type": "f32"})
                zero = g.layer("Convert", "opset1", [g.const(np.array(128, np.uint8), name=f"{n}/zero")],
                               {"destination_type": "f32"})
                centred = g.layer("Subtract", "opset1", [raw, zero], {"auto_broadcast": "numpy"})
                w = g.layer("Multiply", "opset1", [centred, g.const(scale, name=f"{n}/scale")],
                            {"auto_broadcast": "numpy"})
            outs.append(g.layer("MatMul", "opset1", [x, w], {"transpose_a": "false", "transpose_b": "false"}, name=n))
        s = g.layer("Add", "opset1", [outs[0], outs[1]], {"auto_broadcast": "numpy"}, name="sum12")
        y = g.layer("Add", "opset1", [s, outs[2]], {"auto_broadcast": "numpy"}, name="y")
        g.result(y, "out")
        xml = tmp_path / f"{name}.xml"
        g.write(xml)
        return xml

    return model


def test_keep_sets_chosen_by_their_joint_effect(tmp_path: Path, run_cli) -> None:
    """Alone, W1 and W2 cost the outputs most; together they cancel, so the best single weight to keep is W3, yet
    the best pair is W1 and W2, which the greedy forward path (keeping W3 first) never reaches. Each point of the
    curve is what re-running with its set kept as in A (a model holding them in float) gives."""
    make = _three_branches(tmp_path)
    a, b = make(["W1", "W2", "W3"], "a"), make([], "b")
    folder = tmp_path / "in"
    folder.mkdir()
    for i in range(3):
        np.savez(folder / f"s{i}.npz", x=np.random.default_rng(i).standard_normal((4, 16)).astype(np.float32))
    doc = _dataset(run_cli, b, folder, tmp_path / "ds.json", a=a)
    weights = doc["weights"]
    assert all(w["beyond_rounding_in"] == 0 and w["max_steps"] <= 0.5 for w in weights.values())
    alone = sorted(weights, key=lambda n: -weights[n]["outputs_alone"]["mean_rel_l2"])
    assert alone == ["W1", "W2", "W3"]
    assert list(weights) == doc["ignored_scope"] == ["W3", "W1", "W2"] != alone
    curve = doc["keep_curve"]
    assert [c["kept"] for c in curve] == [None, "W3", "W1", "W2"] and [c["candidates"] for c in curve] == [1, 3, 2, 1]
    assert curve[1]["mean_rel_l2"] < 0.3 * curve[0]["mean_rel_l2"] and curve[-1]["mean_rel_l2"] == 0.0
    assert curve[1]["ignored_scope"] == ["W3"] and curve[1]["found_by"] == "forward"
    # K = 2: the forward path, having kept W3, adds W1 and leaves W2's 0.4 steps; keeping W1 and W2 together
    # (they cancel only when both are compressed) leaves W3's 0.2 steps: a set the forward path cannot reach
    assert curve[2]["ignored_scope"] == ["W1", "W2"] and curve[2]["found_by"] != "forward"
    assert curve[2]["mean_rel_l2"] < 0.7 * curve[2]["forward_mean_rel_l2"]
    assert all(c["mean_rel_l2"] <= c["forward_mean_rel_l2"] for c in curve)
    for k in (1, 2):  # B with the best set of k in float
        kept = make(curve[k]["ignored_scope"], f"keep{k}")
        for i, sample in enumerate(sorted(folder.iterdir())):
            out = tmp_path / f"keep{k}_{i}.json"
            r = run_cli("diff", a, kept, "--inputs", sample, "--json", out, "--ablate", "0")
            assert r.exit_code == 0, r.output
            (output,) = json.loads(out.read_text())["outputs"]
            assert curve[k]["per_sample"][i] == pytest.approx(output["figures"]["rel_l2"], rel=1e-9, abs=1e-12)


def test_steps_over_a_data_set_count_every_decode_step(tmp_path: Path, run_cli) -> None:
    """--steps N with --inputs-dir: each sample is its prefill and N greedy decode steps, as the single-sample
    `--steps N` diffs it; each weight's effect alone is the single-sample ablation over those steps."""
    one = tmp_path / "one"
    one.mkdir()
    shutil.copy(LLM / "samples" / "prompt0.npz", one / "prompt0.npz")
    a, b = LLM / "f32.xml", LLM / "int4_g32.xml"
    stepped = _dataset(run_cli, b, one, tmp_path / "steps.json", "--steps", "3", "--ablate", "3", a=a)
    prefill = _dataset(run_cli, b, one, tmp_path / "prefill.json", "--ablate", "3", a=a)
    assert stepped["decode_steps"] == 3 and prefill["decode_steps"] == 0
    single = tmp_path / "single.json"
    r = run_cli("diff", a, b, "--inputs", one / "prompt0.npz", "--steps", "3", "--json", single)
    assert r.exit_code == 0, r.output
    measured = {w["layer"]: w["output_rel_l2"] for w in json.loads(single.read_text())["weights"]
                if w["output_rel_l2"] is not None}
    alone = {k: w["outputs_alone"]["mean_rel_l2"] for k, w in stepped["weights"].items() if w["outputs_alone"]}
    assert len(alone) == 3 and alone == pytest.approx({k: measured[k] for k in alone}, rel=1e-9)
    before = {k: w["outputs_alone"]["mean_rel_l2"] for k, w in prefill["weights"].items() if w["outputs_alone"]}
    assert set(before) == set(alone) and all(before[k] != pytest.approx(alone[k], rel=1e-3) for k in alone)
    # the outputs' figures count every step too: B's own error is the curve's K = 0 (all of B's weights)
    (out,) = stepped["outputs"].values()
    assert out["mean_rel_l2"] == pytest.approx(stepped["keep_curve"][0]["mean_rel_l2"], rel=0.02)
    assert out["mean_rel_l2"] != pytest.approx(next(iter(prefill["outputs"].values()))["mean_rel_l2"], rel=1e-3)
    steps_seen = json.loads(single.read_text())["steps"]
    assert len(steps_seen) == 4 and out["max_abs_error"] == max(s["outputs"][next(iter(s["outputs"]))]["max_abs_error"]
                                                                for s in steps_seen)
    r = run_cli("diff", a, b, "--inputs-dir", one, "--steps", "3", "--ablate", "0")
    assert r.exit_code == 0 and "each a prefill and 3 decode step(s)" in r.output, r.output


def test_steps_over_a_data_set_need_stateful_models(tmp_path: Path, run_cli) -> None:
    r = run_cli("diff", BERT / "model.xml", DATA / "bert_tiny_int8.xml", "--inputs-dir", _samples(tmp_path / "in", 1),
                "--steps", "2")
    assert r.exit_code == 2 and "error[not-stateful]" in r.output and "Traceback" not in r.output, r.output


DEEPER = LLM / "deeper"  # a 4-layer LLM (31 weights) and its NNCF INT4_ASYM g32 copy (make_llm_dataset.py --deeper)


def _some_samples(tmp_path: Path, model: Path, names: tuple[str, ...]) -> Path:
    """A data-set folder of those of ``model``'s prompts."""
    folder = tmp_path / "in"
    folder.mkdir()
    for name in names:
        shutil.copy(model / "samples" / name, folder / name)
    return folder


def test_the_curve_is_at_most_the_single_sample_advice_at_every_k(tmp_path: Path, run_cli) -> None:
    """On the deeper LLM's INT4 copy, over two of its prompts: at every K, the curve's set leaves no more error
    on the data set than the first K weights of the single-sample advice (a diff of the first prompt alone,
    ranked by its ablation), measured on the same samples with those K weights kept as in A."""
    from irexec.api.diff.keep_curve import replaced_errors
    from irexec.api.diff.sample_models import content_hash

    folder = _some_samples(tmp_path, DEEPER, ("prompt00.npz", "prompt01.npz"))
    a, b = DEEPER / "f32.xml", DEEPER / "int4_g32.xml"
    doc = _dataset(run_cli, b, folder, tmp_path / "ds.json", a=a)
    single = tmp_path / "single.json"
    r = run_cli("diff", a, b, "--inputs", folder / "prompt00.npz", "--json", single)
    assert r.exit_code == 0, r.output
    advice = [w["layer"] for w in json.loads(single.read_text())["weights"]]
    curve, weights = doc["keep_curve"], doc["weights"]
    assert len(curve) == len(weights) + 1 == 32 and sorted(advice) == sorted(weights)
    every = [(name, w["port"], w["b_layer"]) for name, w in weights.items()]
    key = (str(a), None, str(b), None, content_hash(str(a), None, str(b), None))
    paths = [str(p) for p in sorted(folder.iterdir())]
    worse = 0
    for k in range(1, 31):
        replaced = [i for i, (name, _, _) in enumerate(every) if name not in advice[:k]]
        errors = replaced_errors(key, every, replaced, paths)
        assert curve[k]["mean_rel_l2"] <= math.fsum(errors) / len(errors) * (1 + 1e-12), k
        worse += curve[k]["mean_rel_l2"] < 0.99 * math.fsum(errors) / len(errors)
        assert curve[k]["mean_rel_l2"] <= curve[k]["forward_mean_rel_l2"]
    assert worse >= 5  # the single-sample advice, fitted to one prompt, leaves 1% more at several K


def test_each_samples_effect_alone_is_what_its_own_diff_ranks_by(tmp_path: Path, run_cli) -> None:
    """The per-sample figures the data-set mode orders each sample's weights by are the ones a one-sample diff of
    that sample measures and ranks by (its ablation): over two samples, their mean and max give both."""
    folder = _some_samples(tmp_path, LLM, ("prompt0.npz", "prompt1.npz"))
    a, b = LLM / "f32.xml", LLM / "int4_g32.xml"
    doc = _dataset(run_cli, b, folder, tmp_path / "ds.json", a=a)
    singles = []
    for i, sample in enumerate(sorted(folder.iterdir())):
        out = tmp_path / f"single{i}.json"
        r = run_cli("diff", a, b, "--inputs", sample, "--json", out)
        assert r.exit_code == 0, r.output
        weights = json.loads(out.read_text())["weights"]
        figures = [w["output_rel_l2"] for w in weights]
        assert None not in figures and figures == sorted(figures, reverse=True)  # the advice ranks by them
        singles.append({w["layer"]: w["output_rel_l2"] for w in weights})
    for name, w in doc["weights"].items():
        pair = [s[name] for s in singles]
        assert w["outputs_alone"]["max_rel_l2"] == pytest.approx(max(pair), rel=1e-9)
        assert w["outputs_alone"]["mean_rel_l2"] == pytest.approx(sum(pair) / 2, rel=1e-9)
