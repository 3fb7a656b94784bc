"""`irexec check -j N` stops at once on SIGTERM and Ctrl-C: its worker processes
are killed, not waited for while they finish the files in progress, no report
is left behind, and the exit status is 143 or 130 (docs/cli.md)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from irexec.model.builder import IRBuilder

ROOT = Path(__file__).resolve().parents[2]
LAYERS = 60_000  # a check of several seconds per file


def _descendants(pid: int) -> set[int]:
    found: set[int] = set()
    todo = [pid]
    while todo:
        p = todo.pop()
        try:
            tasks = os.listdir(f"/proc/{p}/task")
        except OSError:
            continue
        for task in tasks:
            try:
                children = Path(f"/proc/{p}/task/{task}/children").read_text().split()
            except OSError:
                continue
            for child in map(int, children):
                if child not in found:
                    found.add(child)
                    todo.append(child)
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.fixture(scope="module")
def slow_models(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("slow")
    b = IRBuilder()
    x = b.parameter("x", [2], "f32")
    for _ in range(LAYERS):
        x = b.layer("Relu", "opset1", [x])
    b.result(x)
    b.write(folder / "m0.xml")
    for k in range(1, 6):
        (folder / f"m{k}.xml").write_bytes((folder / "m0.xml").read_bytes())
        (folder / f"m{k}.bin").write_bytes(b"")
    return folder


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="needs /proc")
@pytest.mark.parametrize("signum,status", [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_check_with_workers_stops_at_once(slow_models: Path, tmp_path: Path, signum: int, status: int) -> None:
    report = tmp_path / "report.json"
    proc = subprocess.Popen([sys.executable, "-m", "irexec", "check", "-j", "2", "-f", "json", "-o", str(report),
                             str(slow_models)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=dict(os.environ, PYTHONPATH=str(ROOT)))
    try:
        deadline = time.monotonic() + 60
        workers: set[int] = set()
        while time.monotonic() < deadline and len(workers) < 3:  # the forkserver and two workers
            time.sleep(0.2)
            workers = _descendants(proc.pid)
        assert len(workers) >= 3, "the workers never started"
        time.sleep(1.5)  # every worker is inside a check of several seconds
        assert proc.poll() is None
        sent = time.monotonic()
        proc.send_signal(signum)
        out, err = proc.communicate(timeout=60)
        took = time.monotonic() - sent
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == status, out + err
    assert "Traceback" not in err and not report.exists(), err
    assert took < 5, f"exited {took:.1f} s after the signal"
    time.sleep(0.5)
    assert not [p for p in workers if _alive(p)], "worker processes outlived the command"
