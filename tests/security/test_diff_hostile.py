"""``irexec diff`` on hostile files: its time grows linearly with the layers, its
memory is held to --max-memory, names cannot forge text or break out of the HTML
page's JSON, a Dask cluster's failures end in coded errors and its workers never
serve a model that changed, and two unrelated models are told apart from a copy."""

from __future__ import annotations

import gc
import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from irexec.model.builder import IRBuilder

ROOT = Path(__file__).resolve().parents[2]
# 600 and 12,000 layers: linear work costs about 13x (20x the layers, a fixed start); the
# per-layer scans this bounds cost about 36x, and grow as the square beyond
SCALE = 20
MAX_RATIO = 26


def _ladder(path: Path, n: int, prefix: str, scale: float = 1.0, elements: int = 4, names: tuple[str, ...] = ()) -> Path:
    """x -> n rungs of (y = Relu(x) * scale; x = x + y): two-input layers, so matching B
    (named apart from A) goes by structure.  ``names`` replace the first layers' names."""
    b = IRBuilder()
    x = b.parameter("x", [elements], "f32")
    k = b.const(np.full([elements], scale, np.float32), name=f"{prefix}scale")
    for i in range(n):
        y = b.layer("Relu", "opset1", [x], {}, name=names[2 * i] if 2 * i < len(names) else f"{prefix}relu{i}")
        y = b.layer("Multiply", "opset1", [y, k], {}, name=f"{prefix}mul{i}")
        x = b.layer("Add", "opset1", [x, y], {},
                    name=names[2 * i + 1] if 2 * i + 1 < len(names) else f"{prefix}add{i}")
    b.result(x, name=f"{prefix}out")
    xml, _ = b.write(path)
    return Path(xml)


def _cpu_seconds(fn: Callable[[], object]) -> float:
    # The cyclic collector's passes cost in proportion to everything the test process holds (other tests' objects
    # under xdist), not to the diff: collected before, and paused while the diff's own time is taken.
    gc.collect()
    gc.disable()
    try:
        start = time.process_time()  # this process's CPU time: other processes cannot inflate it
        fn()
        return time.process_time() - start
    finally:
        gc.enable()


def test_diff_of_many_layers_takes_linear_time(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    def make(n: int) -> Callable[[], object]:
        a, b = _ladder(tmp_path / f"a{n}.xml", n, "a"), _ladder(tmp_path / f"b{n}.xml", n, "b")

        def diff() -> None:
            r = run_cli("diff", a, b, "--ablate", "0")
            assert r.exit_code == 0 and f"matched: {3 * n} by structure" in r.output, r.output
        return diff

    small = 200
    run_small, run_large = make(small), make(small * SCALE)
    run_small()
    t_small = t_large = float("inf")
    for _ in range(2):
        t_small = min(t_small, _cpu_seconds(run_small), _cpu_seconds(run_small))
        t_large = min(t_large, _cpu_seconds(run_large))
    t_small = max(t_small, 1e-2)
    assert t_large < MAX_RATIO * t_small, (f"{SCALE}x the layers took {t_large / t_small:.0f}x the CPU time "
                                           f"({t_small:.3f} s -> {t_large:.3f} s)")


# ------------------------------------------------------------------ memory

MiB = 1 << 20
CAP = 1100 * MiB  # the child's address space: about 300 MiB of interpreter and NumPy, the rest for tensors


def _widening(path: Path, elements: int, depth: int) -> Path:
    """A 1-element input broadcast to ``elements`` floats, then ``depth`` elementwise layers:
    a few hundred bytes of XML whose layers each make ``4 * elements`` bytes."""
    b = IRBuilder()
    x = b.parameter("x", [1], "f32")
    y = b.layer("Broadcast", "opset3", [x, b.const(np.array([elements], np.int64))], {"mode": "numpy"}, name="wide")
    for i in range(depth):
        y = b.layer("Negative" if i % 2 else "Relu", "opset1", [y], {}, name=f"step{i}")
    b.result(b.layer("ReduceSum", "opset1", [y, b.const(np.array([0], np.int64))], {"keep_dims": "false"},
                     name="total"))
    xml, _ = b.write(path)
    return Path(xml)


def _capped_irexec(*args: str | Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    if sys.platform != "linux":
        pytest.skip("caps the child's address space with RLIMIT_AS")
    import resource

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (CAP, CAP))

    full = {k: v for k, v in os.environ.items() if k != "IREXEC_MAX_MEMORY"}  # only the limit the case sets
    full.update(PYTHONPATH=str(ROOT), OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", IREXEC_THREADS="1", **(env or {}))
    return subprocess.run([sys.executable, "-m", "irexec", *map(str, args)], capture_output=True, text=True,
                          timeout=600, env=full, preexec_fn=cap)


def _refused(proc: subprocess.CompletedProcess[str]) -> None:
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "error[memory-limit]" in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stdout + proc.stderr


def test_diff_is_held_to_max_memory_where_run_fits(tmp_path: Path) -> None:
    # 24 layers of 64 MiB: a run holds two or three of them; a diff that kept every layer of
    # both sides would hold 3 GiB
    a = _widening(tmp_path / "a.xml", 16 * MiB, 24)
    b = _widening(tmp_path / "b.xml", 16 * MiB, 24)
    run = _capped_irexec("run", a, "--max-memory", "400MiB")
    assert run.returncode == 0, run.stderr
    _refused(_capped_irexec("diff", a, b, "--max-memory", "400MiB"))
    _refused(_capped_irexec("diff", a, b, env={"IREXEC_MAX_MEMORY": "400MiB"}))
    samples = _samples(tmp_path / "samples", 1, elements=1)
    _refused(_capped_irexec("diff", a, b, "--inputs-dir", samples, "--max-memory", "400MiB"))
    # the library call takes the limit too
    from irexec.api.diff.api import diff
    from irexec.base.errors import IRExecError

    with pytest.raises(IRExecError) as e:
        diff(str(a), str(b), max_memory=400 * MiB)
    assert e.value.diagnostics[0].code == "memory-limit"


def test_diff_within_max_memory_completes(tmp_path: Path) -> None:
    a = _widening(tmp_path / "a.xml", 1 * MiB, 8)
    b = _widening(tmp_path / "b.xml", 1 * MiB, 8)
    proc = _capped_irexec("diff", a, b, "--max-memory", "600MiB")
    assert proc.returncode == 0, proc.stderr
    assert "outputs within stated accuracy" in proc.stdout


# ------------------------------------------------------------------ text and HTML

FORGED = "\n::error title=forged::diff\noutputs within stated accuracy\n"
BREAKOUT = "</script><script>window.forged=1</script><!--"


def _hostile_pair(tmp_path: Path) -> tuple[Path, Path]:
    """A and B whose second outputs come from layers without counterpart (a Relu in A, a
    Negative in B), named to forge lines and to close a script element; A's file name does
    both too."""
    folder = tmp_path / "a<"  # with the file name below, the path holds "</script>"
    folder.mkdir()
    paths = []
    for directory, stem, op, prefix in ((folder, "script>" + FORGED.replace("\n", "\r\n") + "a", "Relu", "a"),
                                        (tmp_path, "b", "Negative", "b")):
        b = IRBuilder()
        x = b.parameter("x", [4], "f32")
        y = b.layer("Multiply", "opset1", [x, b.const(np.full([4], 2, np.float32))], {}, name=f"{prefix}mul")
        b.result(y, name="out")
        b.result(b.layer(op, "opset1", [y], {}, name=f"{prefix}{FORGED}{BREAKOUT}{op}"), name="side")
        xml, _ = b.write(directory / f"{stem}.xml")
        paths.append(Path(xml))
    return paths[0], paths[1]


def test_names_forge_no_line_of_the_diff_text(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    a, b = _hostile_pair(tmp_path)
    r = run_cli("diff", a, b, "--top", "0")
    assert r.exit_code == 0, r.output
    lines = r.output.splitlines()
    assert "::error title=forged::diff" in r.output  # the names are shown...
    assert not [line for line in lines if line.lstrip().startswith("::")]  # ...on no line of their own
    assert lines.count("outputs within stated accuracy") == 0 and lines[-1] != "outputs within stated accuracy"
    assert "outputs beyond stated accuracy" in lines


def test_html_metadata_is_json_no_name_closes_its_script(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    pytest.importorskip("plotly")
    from lxml import html

    a, b = _hostile_pair(tmp_path)
    page = tmp_path / "report.html"
    r = run_cli("diff", a, b, "--html", page)
    assert r.exit_code == 0, r.output
    doc = html.fromstring(page.read_bytes())
    meta = doc.get_element_by_id("diff-meta")
    assert meta.tag == "script"
    fields = json.loads(meta.text)
    assert fields["model"] == str(a) and str(b) in fields["other"] and fields["mode"] == "all"
    # no name opened a script element of its own
    assert not [s for s in doc.iter("script") if (s.text or "").startswith("window.forged")]


# ------------------------------------------------------------------ B is not a copy of A


def _unrelated(path: Path, input_name: str, output_name: str, op: str) -> Path:
    b = IRBuilder()
    x = b.parameter(input_name, [4], "f32")
    b.result(b.layer(op, "opset1", [b.layer("Relu", "opset1", [x], {}, name=f"{op}_in")], {}, name=op), name=output_name)
    xml, _ = b.write(path)
    return Path(xml)


def test_an_unrelated_b_is_not_a_copy(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    a = _ladder(tmp_path / "a.xml", 3, "a")
    for b, what in ((_unrelated(tmp_path / "other_input.xml", "pixels", "out", "Exp"), "'pixels'"),
                    (_unrelated(tmp_path / "other_output.xml", "x", "logits", "Exp"), "'aout'")):
        r = run_cli("diff", a, b)
        assert r.exit_code == 1, r.output
        assert "error[not-a-copy]" in r.output and "is not a copy of" in r.output and what in r.output, r.output
        assert re.search(r"[01] of 9 layer\(s\) of A \(\d+%\) have a counterpart in B", r.output), r.output
        assert "Traceback" not in r.output
    # a B that runs on A's inputs and gives A's outputs, but shares few of its layers, says so
    b = _unrelated(tmp_path / "few.xml", "x", "aout", "Exp")
    r = run_cli("diff", a, b)
    assert r.exit_code == 0, r.output
    assert "B may not be a copy of A" in r.output


# ------------------------------------------------------------------ Dask


def _samples(directory: Path, n: int, elements: int = 4) -> Path:
    directory.mkdir(exist_ok=True)
    rng = np.random.default_rng(0)
    for i in range(n):
        np.savez(directory / f"s{i:02d}.npz", x=rng.standard_normal(elements).astype(np.float32))
    return directory


def _output_rel_l2(run_cli, a: Path, b: Path, samples: Path, tmp_path: Path, *args: str) -> float:  # type: ignore[no-untyped-def]
    out = tmp_path / "ds.json"
    r = run_cli("diff", a, b, "--inputs-dir", samples, "--json", out, *args)
    assert r.exit_code == 0, r.output
    return max(float(o["max_rel_l2"]) for o in json.loads(out.read_text())["dataset"]["outputs"].values())


def test_dask_workers_load_a_changed_model_again(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    distributed = pytest.importorskip("dask.distributed")
    a, b = _ladder(tmp_path / "a.xml", 3, "a"), _ladder(tmp_path / "b.xml", 3, "b")
    samples = _samples(tmp_path / "samples", 2)
    with distributed.LocalCluster(n_workers=1, processes=False, threads_per_worker=1, dashboard_address=None) as cluster:
        address = cluster.scheduler_address
        assert _output_rel_l2(run_cli, a, b, samples, tmp_path, "--scheduler", address) == 0.0
        # B changes between two diffs, at the same path: new files put in place of the old ones
        (tmp_path / "new").mkdir()
        _ladder(tmp_path / "new" / "b.xml", 3, "b", scale=3.0)
        for name in ("b.xml", "b.bin"):
            os.replace(tmp_path / "new" / name, tmp_path / name)
        serial = _output_rel_l2(run_cli, a, b, samples, tmp_path)
        assert serial > 0.1
        assert _output_rel_l2(run_cli, a, b, samples, tmp_path, "--scheduler", address) == serial


def _scheduler_failure(proc_or_result: object, code: str, seconds: float, bound: float) -> None:
    output = getattr(proc_or_result, "output", None)
    if output is None:
        output = proc_or_result.stdout + proc_or_result.stderr  # type: ignore[attr-defined]
    exit_code = getattr(proc_or_result, "exit_code", getattr(proc_or_result, "returncode", None))
    assert exit_code == (2 if code == "bad-scheduler" else 1), output
    assert f"error[{code}]" in output and "Traceback" not in output, output
    assert seconds < bound, f"{code} took {seconds:.1f} s"


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_dask_scheduler_failures_are_coded_errors_in_time(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    distributed = pytest.importorskip("dask.distributed")
    a, b = _ladder(tmp_path / "a.xml", 2, "a"), _ladder(tmp_path / "b.xml", 2, "b")
    samples = _samples(tmp_path / "samples", 1)
    base = ("diff", a, b, "--inputs-dir", samples, "--scheduler-timeout", "2", "--scheduler")
    for address, code in (("tcp://", "bad-scheduler"), ("tcp://127.0.0.1:port", "bad-scheduler"),
                          ("garbage", "bad-scheduler"), (f"tcp://127.0.0.1:{_free_port()}", "scheduler-unreachable")):
        start = time.monotonic()
        r = run_cli(*base, address)
        _scheduler_failure(r, code, time.monotonic() - start, 15)
    with distributed.LocalCluster(n_workers=0, processes=False, dashboard_address=None) as cluster:  # no worker
        start = time.monotonic()
        r = run_cli(*base, cluster.scheduler_address)
        _scheduler_failure(r, "scheduler-error", time.monotonic() - start, 15)
        assert "has no worker" in r.output


def test_dask_cluster_whose_workers_all_die_is_a_coded_error(tmp_path: Path) -> None:
    distributed = pytest.importorskip("dask.distributed")
    # samples that take a while each: the only worker goes away while they run
    a, b = _widening(tmp_path / "a.xml", 1 << 18, 40), _widening(tmp_path / "b.xml", 1 << 18, 40)
    samples = _samples(tmp_path / "samples", 200, elements=1)
    with distributed.LocalCluster(n_workers=1, processes=False, threads_per_worker=1, protocol="tcp://",
                                  dashboard_address=None) as cluster:
        env = dict(os.environ, PYTHONPATH=str(ROOT))
        proc = subprocess.Popen([sys.executable, "-m", "irexec", "diff", str(a), str(b), "--inputs-dir", str(samples),
                                 "--scheduler", cluster.scheduler_address, "--scheduler-timeout", "2"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        try:
            with distributed.Client(cluster.scheduler_address) as watcher:
                deadline = time.monotonic() + 60
                while not any(watcher.processing().values()):
                    assert time.monotonic() < deadline and proc.poll() is None, proc.communicate()
                    time.sleep(0.1)
            cluster.scale(0)
            start = time.monotonic()
            stdout, stderr = proc.communicate(timeout=60)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
        _scheduler_failure(subprocess.CompletedProcess(proc.args, proc.returncode, stdout, stderr), "scheduler-error",
                           time.monotonic() - start, 20)


def test_findings_of_run_and_check_forge_no_line(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    """A layer whose declared dims are wrong is a warning of `run` and an error of `check`,
    each naming the layer: its name stays on the finding's line."""
    b = IRBuilder()
    x = b.parameter("x", [2], "f32")
    b.result(b.layer("Relu", "opset1", [x], name="relu\n::error title=forged::finding", outputs=[([3], "f32")]))
    xml, _ = b.write(tmp_path / "model.xml")
    for args, code in ((("run", xml), 0), (("check", xml), 1)):
        proc = run_cli.subprocess(*args)
        assert proc.returncode == code, proc.stdout + proc.stderr
        assert "shape-mismatch" in proc.stdout + proc.stderr and "::error title=forged::finding" in proc.stdout + proc.stderr
        assert not [line for line in (proc.stdout + proc.stderr).splitlines() if line.startswith("::")], proc.stderr
