"""The report formats of `irexec check` (JSON against its schema, GitHub
annotations, JUnit), the IR structure schema, and what a check reads."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from lxml import etree
from test_check_cli import broken_chain, mixed_model

from irexec.base.errors import ERROR, NOTE, WARNING, Diagnostic
from irexec.report.check_report import CheckReport, FileReport, group_repeated
from irexec.report.github import annotation, escape_data, escape_property, render_github
from irexec.report.json_report import report_dict
from irexec.report.junit import render_junit

REPO = Path(__file__).resolve().parent.parent
REPORT_SCHEMA = REPO / "schemas" / "check-report.schema.json"


# ------------------------------------------------------------------ JSON


def _validator():
    import jsonschema

    schema = json.loads(REPORT_SCHEMA.read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def test_json_report_matches_its_schema(write_ir, run_cli, tmp_path):
    good = write_ir(mixed_model(repeats=3), name="good")
    bad = write_ir(broken_chain(), name="bad")
    (tmp_path / "broken.xml").write_text("<net version='11'>")
    r = run_cli("check", good, bad, str(tmp_path / "broken.xml"), str(tmp_path / "missing.xml"), "-f", "json")
    assert r.exit_code == 1
    doc = json.loads(r.stdout)
    errors = sorted(_validator().iter_errors(doc), key=str)
    assert not errors, errors[0]
    by_path = {os.path.basename(f["path"]): f for f in doc["files"]}
    assert by_path["good.xml"]["status"] == "ok" and by_path["bad.xml"]["status"] == "fail"
    assert by_path["missing.xml"]["diagnostics"][0]["code"] == "file-not-found"
    custom = [d for d in by_path["good.xml"]["diagnostics"] if d["op"] == "CustomMatMul/opset1"]
    assert len(custom) == 1 and custom[0]["count"] == 3 and len(custom[0]["occurrences"]) == 3
    assert all(o["layer_name"].startswith("CustomMatMul_") for o in custom[0]["occurrences"])
    skipped = [d for d in by_path["bad.xml"]["diagnostics"] if d["code"] == "skipped"]
    # JSON carries notes; a cascade is one note that keeps every layer it stands for
    assert len(skipped) == 1 and skipped[0]["severity"] == "note" and skipped[0]["count"] == 3
    assert [o["layer_name"] for o in skipped[0]["occurrences"]] == ["Convert_4", "Convert_5", "Result_6"]
    s = doc["summary"]
    assert (s["files"], s["failed_files"], s["ok"]) == (4, 3, False)
    assert s["errors"] == sum(f["errors"] for f in doc["files"])


def test_schema_rejects_what_the_contract_forbids():
    validator = _validator()
    report = report_dict(CheckReport([FileReport("m.xml", [Diagnostic("shape-mismatch", "x", ERROR, "m.xml", 3)])]))
    assert validator.is_valid(report)
    report["files"][0]["diagnostics"][0]["severity"] = "fatal"
    assert not validator.is_valid(report)
    report["files"][0]["diagnostics"][0].update(severity="error", code="Shape Mismatch")
    assert not validator.is_valid(report)


def test_grouping_keeps_other_findings_in_place():
    def warn(line: int, op: str) -> Diagnostic:
        return Diagnostic("unsupported-op", f"op type {op!r} is not implemented", WARNING, "m.xml", line, line, f"L{line}",
                          f"{op}/opset1")

    diags = [warn(3, "MatMul"), Diagnostic("shape-mismatch", "x", ERROR, "m.xml", 5), warn(7, "MatMul"), warn(9, "Relu"),
             warn(11, "MatMul"), warn(13, "MatMul")]
    grouped = group_repeated(diags)
    assert [d.code for d in grouped] == ["unsupported-op", "shape-mismatch", "unsupported-op"]
    assert grouped[0].line == 3 and grouped[0].values["count"] == 4
    assert "4 layers, first at lines 3, 7, 11, ..." in grouped[0].message
    assert [o["layer_id"] for o in grouped[0].values["layers"]] == [3, 7, 11, 13]
    assert grouped[2].message == "op type 'Relu' is not implemented" and grouped[2].layer_id == 9


# ---------------------------------------------------------------- GitHub


def test_github_escaping():
    assert escape_data("100%\r\nnext") == "100%25%0D%0Anext"
    assert escape_property("a:b,c%\n") == "a%3Ab%2Cc%25%0A"
    d = Diagnostic("shape-mismatch", "declared [1,2] but\ninferred 50%", ERROR, "dir:x/m,1.xml", 12, 4, 'odd "name"',
                   "Gather-8", 3, "output")
    line = annotation(d, "dir:x/m,1.xml")
    assert line == ('::error file=dir%3Ax/m%2C1.xml,line=12,title=irexec shape-mismatch::'
                    'layer 4 "odd \\"name\\"" (Gather-8) output port 3: declared [1,2] but%0Ainferred 50%25')
    assert "\n" not in line


def test_github_notes_are_notices_and_quiet_drops_them():
    f = FileReport("m.xml", [Diagnostic("skipped", "not checked", NOTE, "m.xml", 4),
                             Diagnostic("unsupported-op", "op", WARNING, "m.xml", 2),
                             Diagnostic("bad-dim", "no line", ERROR, "m.xml", None)])
    lines = render_github(CheckReport([f])).splitlines()
    assert lines[0].startswith("::notice file=m.xml,line=4,title=irexec skipped::")
    assert lines[1].startswith("::warning file=m.xml,line=2,")
    assert lines[2].startswith("::error file=m.xml,title=irexec bad-dim::")  # no line= when unknown
    assert lines[3] == "1 file, 1 error, 1 warning"
    assert "::notice" not in render_github(CheckReport([f]), quiet=True)
    assert render_github(CheckReport([FileReport("ok.xml")]), quiet=True) == ""


# ----------------------------------------------------------------- JUnit


def test_junit_one_suite_one_case_per_file(write_ir, run_cli, tmp_path):
    good = write_ir(mixed_model(repeats=1), name="good")
    bad = write_ir(broken_chain(), name="bad")
    out = tmp_path / "junit.xml"
    r = run_cli("check", good, bad, "-f", "junit", "-o", out)
    assert r.exit_code == 1
    root = etree.parse(str(out)).getroot()
    suites = root.findall("testsuite")
    assert root.tag == "testsuites" and len(suites) == 1
    cases = {os.path.basename(c.get("name")): c for c in suites[0].findall("testcase")}
    assert set(cases) == {"good.xml", "bad.xml"} and suites[0].get("tests") == "2" and suites[0].get("failures") == "1"
    assert cases["good.xml"].find("failure") is None
    assert "warning[unsupported-op]" in cases["good.xml"].findtext("system-out")
    failure = cases["bad.xml"].find("failure")
    errors = [line for line in failure.text.splitlines() if "error[" in line]
    assert len(errors) >= 2 and "shape-mismatch" in failure.get("type")
    strict = etree.fromstring(render_junit(CheckReport([FileReport("w.xml", [Diagnostic("unsupported-op", "x", WARNING)])],
                                                       strict=True)).encode())
    assert strict.find("testsuite/testcase/failure") is not None


# ------------------------------------------------------- structure schema


def _project_copy(dest: Path) -> Path:
    """What a build needs, away from the working tree (builds write into it)."""
    dest.mkdir()
    for name in ("pyproject.toml", "README.md", ".pre-commit-hooks.yaml"):
        shutil.copy(REPO / name, dest / name)
    shutil.copytree(REPO / "irexec", dest / "irexec", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    return dest


def test_shipped_schema_is_the_contract():
    assert (REPO / "irexec" / "schemas" / "ir.xsd").read_bytes() == (REPO / "schemas" / "ir.xsd").read_bytes()


STRUCTURE = """\
<?xml version="1.0"?>
<net name="m" version="11">
  <layers>
    <layer id="0" name="x" type="Parameter" version="opset1" extra="fine">
      <data shape="2" element_type="f32" anything="goes"/>
      <output>
        <port id="0" precision="FP32" names="x"><dims>2</dims></port>
      </output>
      <output/>
    </layer>
    <layer id="1" name="y" type="Result" version="opset1">
      <input><port id="0" precision="FP32"><dim>2</dim></port></input>
    </layer>
    <edge from-layer="0" from-port="0" to-layer="1" to-port="0"/>
  </layers>
  <edges><edge from-layer="0" from-port="0" to-layer="1" to-port="0"/></edges>
  <rt_info><free form="yes"><nested/></free></rt_info>
</net>
"""


def test_structure_errors_come_with_their_lines(write_ir):
    import irexec

    path = write_ir(STRUCTURE)
    found = {(d.line, d.code) for d in irexec.check(path).diagnostics}
    assert {(7, "bad-structure"), (9, "bad-structure"), (14, "bad-structure")} <= found
    messages = [d.message for d in irexec.check(path).diagnostics if d.code == "bad-structure"]
    assert any("'dims'" in m for m in messages)


def test_the_reader_speaks_first_on_its_own_lines(write_ir):
    import irexec

    text = STRUCTURE.replace('<layer id="1" name="y"', '<layer name="y"')
    diags = [d for d in irexec.check(write_ir(text)).diagnostics if d.line == 11]
    assert [d.code for d in diags] == ["missing-attribute"]


def test_schema_validation_works_from_an_installed_wheel(tmp_path):
    """The schema is package data: a non-editable install must find it."""
    wheel_dir = tmp_path / "wheel"
    proc = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(wheel_dir),
                           str(_project_copy(tmp_path / "src"))], capture_output=True, text=True, timeout=300, check=False)
    if proc.returncode != 0:
        pytest.skip(f"cannot build a wheel here: {proc.stderr[-300:]}")
    import zipfile

    (wheel,) = wheel_dir.glob("irexec-*.whl")
    assert "irexec/schemas/ir.xsd" in zipfile.ZipFile(wheel).namelist()
    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)
    (tmp_path / "m.xml").write_text(STRUCTURE)
    code = "import irexec; print(irexec.__file__); print(sorted({d.code for d in irexec.check('m.xml').diagnostics}))"
    env = dict(os.environ, PYTHONPATH=str(site))
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, env=env, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    where, codes = proc.stdout.splitlines()
    assert where.startswith(str(site)) and "bad-structure" in codes


@pytest.mark.parametrize("compress", [False, True])
def test_openvino_written_files_have_a_valid_structure(tmp_path, compress):
    ov = pytest.importorskip("openvino")
    import openvino.opset1 as o1
    import openvino.opset8 as o8

    import irexec

    x = o8.parameter([2, -1, 4], ov.Type.f32, name="x")
    g = o8.gather(x, o8.constant(np.array([1, 0], np.int64)), o8.constant(np.int64(2)), batch_dims=0)
    r = ov.opset7.roll(g, o8.constant(np.array([1], np.int64)), o8.constant(np.array([0], np.int64)))
    s = o1.reverse_sequence(r, o1.constant(np.array([1, 2], np.int32)), 0, 2)
    w = o1.convert(o1.constant(np.ones([2, 4], np.float32)), "f32")
    m = o1.matmul(s, w, False, False)
    c = o1.convert(m, "f16")
    # a sub-graph op (written with <port_map>, <back_edges>, <body>) and model rt_info
    cond = o8.parameter([], ov.Type.boolean, name="c")
    ti, ei = o8.parameter([2], ov.Type.f32), o8.parameter([2], ov.Type.f32)
    branch = o8.if_op(cond)
    branch.set_then_body(ov.Model([o8.result(o8.relu(ti))], [ti]))
    branch.set_else_body(ov.Model([o8.result(o8.negative(ei))], [ei]))
    y = o8.parameter([2], ov.Type.f32, name="y")
    branch.set_input(y.output(0), ti, ei)
    then_out = branch.get_then_body().get_results()[0]
    else_out = branch.get_else_body().get_results()[0]
    out = branch.set_output(then_out, else_out)
    model = ov.Model([c.output(0), out], [x, cond, y], "m")
    model.set_rt_info("value", ["section", "key"])
    path = tmp_path / "m.xml"
    ov.save_model(model, str(path), compress_to_fp16=compress)
    assert "<rt_info>" in path.read_text() and "<then_body>" in path.read_text()
    codes = {d.code for d in irexec.check(str(path)).diagnostics}
    assert "bad-structure" not in codes and not {c for c in codes if c not in ("unsupported-op",)}, codes


# ------------------------------------------------------- what check reads

GiB = 1 << 30

SPARSE_MODEL = """\
<?xml version="1.0"?>
<net name="sparse" version="11">
  <layers>
    <layer id="0" name="big_a" type="Const" version="opset1">
      <data element_type="f32" shape="1024, 1024, 1024" offset="0" size="{4 * GiB}"/>
      <output><port id="0" precision="FP32"><dim>1024</dim><dim>1024</dim><dim>1024</dim></port></output>
    </layer>
    <layer id="1" name="indices" type="Const" version="opset1">
      <data element_type="i64" shape="2" offset="{8 * GiB - 24}" size="16"/>
      <output><port id="0" precision="I64"><dim>2</dim></port></output>
    </layer>
    <layer id="2" name="axis" type="Const" version="opset1">
      <data element_type="i64" shape="" offset="{8 * GiB - 8}" size="8"/>
      <output><port id="0" precision="I64"/></output>
    </layer>
    <layer id="3" name="gather" type="Gather" version="opset8">
      <data batch_dims="0"/>
      <input>
        <port id="0" precision="FP32"><dim>1024</dim><dim>1024</dim><dim>1024</dim></port>
        <port id="1" precision="I64"><dim>2</dim></port>
        <port id="2" precision="I64"/>
      </input>
      <output><port id="3" precision="FP32"><dim>1024</dim><dim>2</dim><dim>1024</dim></port></output>
    </layer>
    <layer id="4" name="out_a" type="Result" version="opset1">
      <input><port id="0" precision="FP32"><dim>1024</dim><dim>2</dim><dim>1024</dim></port></input>
    </layer>
    <layer id="5" name="big_b" type="Const" version="opset1">
      <data element_type="f32" shape="1024, 1024, 1023" offset="{4 * GiB}" size="{4 * GiB - 4096 * 1024}"/>
      <output><port id="0" precision="FP32"><dim>1024</dim><dim>1024</dim><dim>1023</dim></port></output>
    </layer>
    <layer id="6" name="convert" type="Convert" version="opset1">
      <data destination_type="f16"/>
      <input><port id="0" precision="FP32"><dim>1024</dim><dim>1024</dim><dim>1023</dim></port></input>
      <output><port id="1" precision="FP16"><dim>1024</dim><dim>1024</dim><dim>1023</dim></port></output>
    </layer>
    <layer id="7" name="out_b" type="Result" version="opset1">
      <input><port id="0" precision="FP16"><dim>1024</dim><dim>1024</dim><dim>1023</dim></port></input>
    </layer>
  </layers>
  <edges>
    <edge from-layer="0" from-port="0" to-layer="3" to-port="0"/>
    <edge from-layer="1" from-port="0" to-layer="3" to-port="1"/>
    <edge from-layer="2" from-port="0" to-layer="3" to-port="2"/>
    <edge from-layer="3" from-port="3" to-layer="4" to-port="0"/>
    <edge from-layer="5" from-port="0" to-layer="6" to-port="0"/>
    <edge from-layer="6" from-port="1" to-layer="7" to-port="0"/>
  </edges>
</net>
"""

MEASURE = """\
import json, resource, sys
import irexec
from irexec.ir.weights import Weights
reads = []
real = Weights.array
def spy(self, offset, shape, etype, *rest):
    reads.append([offset, list(shape)])
    return real(self, offset, shape, etype, *rest)
Weights.array = spy
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
result = irexec.check(sys.argv[1])
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"grew_kib": after - before, "reads": reads,
                  "codes": sorted({d.code for d in result.diagnostics})}))
"""


def test_check_of_an_8_gib_sparse_weights_file_reads_only_what_inference_needs(tmp_path):
    xml = tmp_path / "sparse.xml"
    xml.write_text(SPARSE_MODEL.replace("{4 * GiB}", str(4 * GiB)).replace("{8 * GiB - 24}", str(8 * GiB - 24))
                   .replace("{8 * GiB - 8}", str(8 * GiB - 8)).replace("{4 * GiB - 4096 * 1024}", str(4 * GiB - 4096 * 1024)))
    with open(tmp_path / "sparse.bin", "wb") as f:
        f.truncate(8 * GiB)  # sparse: no disk blocks behind it
        f.seek(8 * GiB - 24)
        f.write(np.array([3, 1], np.int64).tobytes() + np.array(1, np.int64).tobytes())
    proc = subprocess.run([sys.executable, "-c", MEASURE, str(xml)], capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    got = json.loads(proc.stdout)
    assert got["codes"] == [], got
    # only the axis (and perhaps the indices) are read; never a big Const
    assert got["reads"] and all(np.prod(shape, dtype=np.int64) <= 2 for _, shape in got["reads"]), got["reads"]
    assert got["grew_kib"] < 64 * 1024, f"peak RSS grew by {got['grew_kib']} KiB"


# ------------------------------------------------------------- pre-commit


def test_pre_commit_hook(tmp_path):
    pytest.importorskip("pre_commit")
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    hooks = _project_copy(tmp_path / "hooks")
    git = ["git", "-c", "user.name=irexec", "-c", "user.email=irexec@localhost", "-c", "commit.gpgsign=false"]

    def run(*cmd: str, cwd: Path) -> subprocess.CompletedProcess:
        return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=600, check=False)

    assert run(*git, "init", "-q", cwd=hooks).returncode == 0
    run(*git, "add", "-A", cwd=hooks)
    assert run(*git, "commit", "-qm", "hooks", cwd=hooks).returncode == 0

    work = tmp_path / "work"
    work.mkdir()
    run(*git, "init", "-q", cwd=work)
    mixed_model(repeats=1).write(work / "good.xml")
    broken_chain().write(work / "bad.xml")
    (work / "notes.txt").write_text("<net> is not checked: not an .xml file")
    # XML that is not IR: passed over without a finding
    (work / "pom.xml").write_text('<?xml version="1.0"?>\n<project xmlns="http://maven.apache.org/POM/4.0.0">'
                                  "<modelVersion>4.0.0</modelVersion></project>\n")
    (work / "res" / "values").mkdir(parents=True)
    (work / "res" / "values" / "strings.xml").write_text('<resources><string name="app">x</string></resources>\n')
    run(*git, "add", "-A", cwd=work)
    env = dict(os.environ, PRE_COMMIT_HOME=str(tmp_path / "cache"))
    cmd = [sys.executable, "-m", "pre_commit", "try-repo", str(hooks), "irexec-check", "--all-files"]
    proc = subprocess.run(cmd, cwd=work, capture_output=True, text=True, env=env, timeout=600, check=False)
    out = proc.stdout + proc.stderr
    if "Installing environment" in out and "irexec check" not in out.split("Installing environment")[-1]:
        pytest.skip(f"pre-commit could not install the hook here: {out[-500:]}")
    assert proc.returncode == 1, out
    assert "bad.xml" in out and "error[shape-mismatch]" in out and "notes.txt" not in out
    assert "2 files, " in out and "pom.xml" not in out and "strings.xml" not in out and "not-ir" not in out
    (work / "bad.xml").unlink()  # IR that is fine and XML that is not IR: the hook passes
    run(*git, "add", "-A", cwd=work)
    proc = subprocess.run([*cmd, "--verbose"], cwd=work, capture_output=True, text=True, env=env, timeout=600, check=False)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out
    assert "irexec check" in out and "Passed" in out and "1 file, 0 errors" in out and "pom.xml" not in out


# ------------------------------------------- graph order (rewritten for speed)


@pytest.mark.parametrize("seed", range(20))
def test_topological_order_is_networkx_lexicographical_order(seed):
    """The graph's own Kahn sort must give exactly the order networkx's
    lexicographical sort (by document position) gives, and see every cycle."""
    import random

    import networkx as nx

    from irexec.ir.records import Edge, IRDocument, Layer, Port
    from irexec.model.graph import build_graph

    rng = random.Random(seed)
    n = rng.randint(1, 40)
    ids = rng.sample(range(1000), n)  # ids need not follow document order
    layers, edges = [], []
    for index, lid in enumerate(ids):
        layer = Layer(lid, f"l{lid}", "Thing", "opset1", index + 1, index)
        layer.outputs = [Port(0, 0, "output", index + 1)]
        sources = rng.sample(ids, rng.randint(0, min(3, n)))
        for k, src in enumerate(sources):
            layer.inputs.append(Port(k, k, "input", index + 1))
            edges.append(Edge(src, 0, lid, k, 0))
        layers.append(layer)
    graph, diags = build_graph(IRDocument("m.xml", 11, "m", layers, edges, []))
    position = {layer.id: layer.index for layer in layers}
    if nx.is_directed_acyclic_graph(graph.dag):
        assert graph.order == list(nx.lexicographical_topological_sort(graph.dag, key=position.__getitem__))
        assert not [d for d in diags if d.code == "cycle"]
    else:
        assert graph.order == [] and [d for d in diags if d.code == "cycle"]


def _random_document(seed: int, forward_only: bool):  # type: ignore[no-untyped-def]
    import random

    from irexec.ir.records import Edge, IRDocument, Layer, Port

    rng = random.Random(seed)
    n = rng.randint(1, 40)
    ids = rng.sample(range(1000), n)
    layers, edges = [], []
    for index, lid in enumerate(ids):
        kind = "Result" if rng.random() < 0.2 else "Thing"
        layer = Layer(lid, f"l{lid}", kind, "opset1", index + 1, index)
        layer.outputs = [Port(0, 0, "output", index + 1), Port(3, 1, "output", index + 1)]
        pool = ids[:index] if forward_only else ids
        sources = rng.sample(pool, rng.randint(0, min(3, len(pool))))
        for k, src in enumerate(sources):
            layer.inputs.append(Port(k, k, "input", index + 1))
            edges.append(Edge(src, rng.choice((0, 3)), lid, k, 0))
        layers.append(layer)
    return IRDocument("m.xml", 11, "m", layers, edges, [])


@pytest.mark.parametrize("seed", range(20))
@pytest.mark.parametrize("forward_only", [True, False])
def test_graph_matches_networkx_built_edge_by_edge(seed, forward_only):
    """The DAG joins exactly the layers the port map joins, and the order and
    unreachable-layer warnings agree with networkx's algorithms, for
    documents in topological order and not."""
    import networkx as nx

    from irexec.model.graph import build_graph

    doc = _random_document(seed, forward_only)
    graph, diags = build_graph(doc)
    expected = nx.DiGraph()
    expected.add_nodes_from(layer.id for layer in doc.layers)
    expected.add_edges_from((src, lid) for (lid, inp), (src, out) in graph.producer.items())
    assert sorted(graph.dag.edges(data=True)) == sorted(expected.edges(data=True))
    assert list(graph.dag.nodes) == list(expected.nodes)
    for node in expected:
        assert dict(graph.dag.pred[node]) == dict(expected.pred[node])
        assert dict(graph.dag.succ[node]) == dict(expected.succ[node])
    if not nx.is_directed_acyclic_graph(expected):
        assert graph.order == []
        return
    position = {layer.id: layer.index for layer in doc.layers}
    assert graph.order == list(nx.lexicographical_topological_sort(expected, key=position.__getitem__))
    results = [layer.id for layer in doc.layers if layer.type == "Result"]
    live = set(results).union(*(nx.ancestors(expected, r) for r in results))
    flagged = {d.layer_id for d in diags if d.code == "unreachable-layer"}
    # with a broken edge, the unreachable layers are told in that error's message, not apart
    folded = {u["layer_id"] for d in diags for u in d.values.get("unreachable_layers", [])}
    assert not (flagged and folded)
    assert flagged | folded == {layer.id for layer in doc.layers if layer.id not in live}
