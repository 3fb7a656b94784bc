"""The HTML page of irexec diff, loaded in real headless Chromium: it opens offline
with no console error, draws the plot and holds the table, and the table sorts.

Chromium is not a Python package; without it these tests skip.  To run them:
``apt-get install -y chromium`` (the command tried is ``chromium``, then
``chromium-browser``, then ``google-chrome``)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from headless_chromium import chromium_dom, needs_browser

from irexec.model.builder import IRBuilder

pytest.importorskip("openvino")
pytest.importorskip("plotly")



def _page(tmp_path: Path, run_cli) -> Path:
    b = IRBuilder()
    x, y = b.parameter("x", [2, 4], "i32"), b.parameter("y", [2, 4], "i32")
    d = b.layer("Divide", "opset1", [b.layer("Add", "opset1", [x, y], name="pre_add"), y], {"m_pythondiv": "true"},
                name="planted_div")
    b.result(b.layer("Multiply", "opset1", [d, y], name="after_mul"), "out")
    xml, _ = b.write(tmp_path / "model.xml")
    np.savez(tmp_path / "in.npz", x=np.array([[-7, 7, -9, 5], [3, -3, -11, 11]], np.int32),
             y=np.array([[2, 2, -4, -3], [5, 2, 3, -4]], np.int32))
    page = tmp_path / "report.html"
    r = run_cli("diff", xml, "--device", "CPU", "--inputs", tmp_path / "in.npz", "--layers", "all", "--html", page)
    assert r.exit_code == 0, r.output
    return page



def test_page_is_self_contained(tmp_path: Path, run_cli) -> None:
    text = _page(tmp_path, run_cli).read_text()
    assert not re.search(r"<script[^>]+src=", text)  # plotly.js is inline: the page opens offline
    assert "planted_div" in text and 'id="layers"' in text


@needs_browser
def test_page_loads_in_chromium(tmp_path: Path, run_cli) -> None:
    page = _page(tmp_path, run_cli)
    dom, console = chromium_dom(page, tmp_path / "profile")
    assert console == []  # no error, no warning, nothing logged
    assert 'class="main-svg"' in dom  # plotly drew the figure
    assert len(re.findall(r'class="scatterlayer', dom)) >= 1
    rows = re.findall(r'<tr class="(match|origin|inherited|beyond)"', dom)
    assert rows.count("origin") == 1 and len(rows) == 3


@needs_browser
def test_table_sorts_on_a_header_click(tmp_path: Path, run_cli) -> None:
    page = _page(tmp_path, run_cli)
    text = page.read_text()
    # a copy of the page that clicks the "layer" header twice and logs the first row each time
    probe = ("<script>var th = document.querySelectorAll('#layers th')[1];"
             "th.click(); console.log('FIRST ' + document.querySelector('#layers tbody tr').cells[1].textContent);"
             "th.click(); console.log('FIRST ' + document.querySelector('#layers tbody tr').cells[1].textContent);"
             "</script></body>")
    clicked = tmp_path / "clicked.html"
    clicked.write_text(text.replace("</body>", probe))
    _, console = chromium_dom(clicked, tmp_path / "profile")
    firsts = [re.search(r'"FIRST (\S+)"', line).group(1) for line in console if "FIRST" in line]  # type: ignore[union-attr]
    assert firsts == ["after_mul", "pre_add"], console


def test_html_without_plotly_is_one_coded_error(tmp_path: Path, run_cli) -> None:
    import subprocess as sp
    import sys

    page = _page(tmp_path, run_cli)  # the model and inputs beside it
    script = ("import sys; sys.modules['plotly'] = None; sys.modules['plotly.graph_objects'] = None; "
              "from irexec.cli import main; "
              f"main(['diff', {str(tmp_path / 'model.xml')!r}, '--device', 'CPU', '--inputs', "
              f"{str(tmp_path / 'in.npz')!r}, '--html', {str(tmp_path / 'again.html')!r}])")
    r = sp.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert r.returncode == 1 and "error[missing-extra]" in r.stderr and "irexec[html]" in r.stderr, r.stderr
    assert not (tmp_path / "again.html").exists() and page.exists()


@needs_browser
def test_a_stateful_report_shows_its_steps(tmp_path: Path, run_cli) -> None:
    llm = Path(__file__).resolve().parent.parent / "examples" / "tiny-llm"
    page = tmp_path / "llm.html"
    r = run_cli("diff", llm / "model.xml", "--device", "CPU", "--inputs", llm / "inputs_step0.npz", "--steps", "2",
                "--html", page)
    assert r.exit_code == 0, r.output
    dom, console = chromium_dom(page, tmp_path / "profile")
    assert console == [] and 'class="main-svg"' in dom
    steps = re.search(r'<table id="steps">.*?</table>', dom, flags=re.S)
    assert steps is not None and len(re.findall(r"<tr class=", steps.group(0))) == 3
