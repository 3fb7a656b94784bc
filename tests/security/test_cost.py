"""Refusing a hostile file is cheap: every attack is rejected by `irexec check`
and `irexec run` in well under a second of CPU time and a few MiB of memory.
CPU time, not wall time: a loaded machine (other processes, other pytest-xdist
workers) delays a child but does not make it do more work.

Measured in a separate process that imports irexec once and forks a child
per attack, so each child's peak RSS growth is that attack's alone."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from hostile_files import ATTACKS

# Generous bounds: the costliest rejection (the 100 MB attribute) takes about
# 0.1 s and 13 MiB here;
# the bounds only have to tell "bounded" from "expanded/read the whole thing".
MAX_CPU_SECONDS = 2.0
MAX_RSS_GROWTH_MIB = 64

DRIVER = r"""
import io, json, os, resource, sys, time
from contextlib import redirect_stderr, redirect_stdout
from irexec.cli import main

def invoke(args):
    out = io.StringIO()
    start = time.process_time()  # the child's own CPU time, its threads included
    with redirect_stdout(out), redirect_stderr(out):
        try:
            main(args)
            code = 0
        except SystemExit as e:
            code = e.code
    return code, time.process_time() - start, out.getvalue()

warm = sys.argv[1]
invoke(["check", warm]); invoke(["run", warm, "--inputs", os.path.join(os.path.dirname(warm), "inputs.npz")])
for name, xml in json.loads(sys.stdin.read()):
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        if xml is None:  # the control: allocate and touch 100 MiB
            block = b"\1" * (100 << 20)
            results = [(1, 0.0, ""), (1, 0.0, "")]
        else:
            inputs = os.path.join(os.path.dirname(xml), "inputs.npz")
            results = [invoke(["check", xml]), invoke(["run", xml, "--inputs", inputs])]
        growth = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
        with os.fdopen(w, "w") as f:
            json.dump({"name": name, "codes": [c for c, _, _ in results], "seconds": [s for _, s, _ in results],
                       "rss_growth_kib": growth, "output": "".join(o for _, _, o in results)}, f)
        os._exit(0)
    os.close(w)
    with os.fdopen(r) as f:
        print(f.read(), flush=True)
    os.waitpid(pid, 0)
"""


@pytest.fixture(scope="module")
def measurements(tmp_path_factory: pytest.TempPathFactory, attack_env) -> dict[str, dict]:  # type: ignore[no-untyped-def]
    from hostile_files import write_base

    root = tmp_path_factory.mktemp("cost")
    (root / "warm").mkdir()
    warm = write_base(root / "warm")
    paths: list[tuple[str, str | None]] = [("control", None)]
    for attack in ATTACKS:
        d = root / attack.name
        d.mkdir()
        paths.append((attack.name, str(attack.build(d, attack_env))))
    p = subprocess.run([sys.executable, "-c", DRIVER, str(warm)], input=json.dumps(paths), capture_output=True, text=True,
                       timeout=300, check=False)
    assert p.returncode == 0, p.stderr
    found = [json.loads(line) for line in p.stdout.splitlines() if line.strip()]
    return {m["name"]: m for m in found}


@pytest.mark.parametrize("attack", ATTACKS, ids=lambda a: a.name)
def test_rejection_is_fast_and_small(attack, measurements, tripwire) -> None:  # type: ignore[no-untyped-def]
    m = measurements[attack.name]
    assert m["codes"] == [1, 1], m["output"]
    assert f"error[{attack.code}]" in m["output"]
    assert "Traceback" not in m["output"]
    assert max(m["seconds"]) < MAX_CPU_SECONDS, m["seconds"]
    assert m["rss_growth_kib"] < MAX_RSS_GROWTH_MIB * 1024, m["rss_growth_kib"]
    assert tripwire.requests == []


def test_the_measurement_can_see_memory(measurements) -> None:  # type: ignore[no-untyped-def]
    """Control: a child of the same driver that allocates 100 MiB is seen to.
    (A child's peak RSS is its own: a plain subprocess would inherit pytest's.)"""
    assert measurements["control"]["rss_growth_kib"] > 100 * 1024 * 0.9
