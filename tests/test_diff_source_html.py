"""The HTML page of ``irexec diff SOURCE MODEL.xml``, loaded in real headless Chromium: it opens offline
with no console error, draws the plot, and names the two sides as a source diff has them (the IR run by
irexec, the source model on its framework as the reference), never in a plugin's words.

Chromium is not a Python package; without it the browser test skips (``apt-get install -y chromium``)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from headless_chromium import chromium_dom, needs_browser

pytest.importorskip("onnxruntime")
pytest.importorskip("plotly")

PAIRS = Path(__file__).resolve().parent / "data" / "conversion_pairs"
PLUGIN_WORDS = ("deployed graph", "compilation", "plugin", "runtime precision", "kernel origin", "Unmatched in A",
                "Properties used")



def _visible_text(page: str) -> str:
    """The page's words outside its scripts and styles (plotly.js, inlined, has words of its own)."""
    text = re.sub(r"<(script|style)\b.*?</\1>", " ", page, flags=re.S)
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", text))


def _page(tmp_path: Path, run_cli, source: str, damaged: str, *more: str) -> Path:
    page = tmp_path / "r.html"
    r = run_cli("diff", PAIRS / source, PAIRS / damaged, *more, "--html", page)
    assert r.exit_code == 0, r.output
    return page


@pytest.mark.parametrize(("source", "damaged", "framework"), [
    ("cnn.onnx", "cnn_relu6_bound.xml", "ONNX Runtime"), ("cnn.pt2", "cnn_pt_relu6_bound.xml", "PyTorch")])
def test_the_page_speaks_of_a_source_and_its_ir(tmp_path: Path, run_cli, source: str, damaged: str,
                                                framework: str) -> None:
    if source.endswith(".pt2"):
        pytest.importorskip("torch")
    page = _page(tmp_path, run_cli, source, damaged, "--inputs", str(PAIRS / "cnn_in.npz")) if \
        source.endswith(".pt2") else _page(tmp_path, run_cli, source, damaged)
    html = page.read_text()
    text = _visible_text(html)
    assert f"The IR {PAIRS / damaged} , run by irexec against the reference: its source model, {framework}" in text
    assert "Source settings:" in text and "Tolerance:" in text and "with no counterpart in the source model" in text
    assert "the source model is the reference" in html  # the plot's title
    assert "irexec is the reference" not in html
    for words in PLUGIN_WORDS:
        assert words not in text, words
    assert "<th>runtime</th>" not in html  # a source model has no runtime nodes


@needs_browser
def test_the_page_of_a_source_diff_loads_in_chromium(tmp_path: Path, run_cli) -> None:
    page = _page(tmp_path, run_cli, "cnn.onnx", "cnn_relu6_bound.xml")
    dom, console = chromium_dom(page, tmp_path / "profile")
    assert console == []  # no error, no warning, nothing logged
    assert 'class="main-svg"' in dom and len(re.findall(r'class="scatterlayer', dom)) >= 1  # plotly drew it
    assert "the source model is the reference" in dom  # its title, drawn
    rows = re.findall(r'<tr class="(match|origin|inherited|beyond)">(?:<td[^>]*>[^<]*</td>){2}', dom)
    assert rows.count("origin") == 1 and len(rows) == 8
    assert re.search(r'<tr class="origin"><td[^>]*>\d+</td><td>relu6</td>', dom)
    text = _visible_text(dom)
    assert "IR layers without counterpart in the source" in text and "Source tensors without counterpart in the IR" in text
    for words in PLUGIN_WORDS:
        assert words not in text, words
