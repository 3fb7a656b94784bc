#!/usr/bin/env python
"""Cold start of each irexec command: fresh processes, wall time, and what
they import (``python -X importtime``).

    python benchmarks/bench_startup.py             # 7 rounds
    python benchmarks/bench_startup.py --repeat 3  # fewer rounds

Each round starts every contender once, in a rotating order, so that all see
the same load: ``python -c pass``, ``python -c "import numpy"`` (the floor any
NumPy program pays), and ``irexec --help``, ``ops``, ``inspect``, ``check``
and ``run`` on a three-layer IR (Parameter -> Relu -> Result).  Bytecode is
cached (a first untimed round writes it), as on a user's machine.  The table
gives the median wall time, the ratio to ``import numpy``, the time Python
spent importing (from ``-X importtime``: the sum of the top-level imports),
the heavy modules loaded, and the three slowest irexec modules to import.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
HEAVY = ("numpy", "ml_dtypes", "lxml", "networkx")


def _tiny_model(folder: Path) -> tuple[Path, Path]:
    sys.path.insert(0, str(REPO))
    import numpy as np

    from irexec.model.builder import IRBuilder

    b = IRBuilder()
    b.result(b.layer("Relu", "opset1", [b.parameter("x", "2,3", "f32")], {}, names=["y"]))
    xml = folder / "model.xml"
    b.write(str(xml))
    np.savez(folder / "inputs.npz", x=np.ones((2, 3), np.float32))
    return xml, folder / "inputs.npz"


def contenders(xml: Path, inputs: Path) -> dict[str, list[str]]:
    py, irexec = [sys.executable], [sys.executable, "-m", "irexec"]
    return {
        "python -c pass": [*py, "-c", "pass"],
        "import numpy": [*py, "-c", "import numpy"],
        "irexec --help": [*irexec, "--help"],
        "irexec ops": [*irexec, "ops"],
        "irexec inspect": [*irexec, "inspect", str(xml)],
        "irexec check": [*irexec, "check", str(xml)],
        "irexec run": [*irexec, "run", str(xml), "--inputs", str(inputs), "-q"],
    }


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH", "")]))
    return env


def _wall(cmd: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start


def imports(cmd: list[str], env: dict[str, str]) -> tuple[float, set[str], list[tuple[float, str]]]:
    """(seconds importing, heavy modules loaded, the slowest irexec modules by cumulative time)."""
    proc = subprocess.run([cmd[0], "-X", "importtime", *cmd[1:]], env=env, capture_output=True, text=True, check=True)
    total, mods, ours = 0, set(), []
    for line in proc.stderr.splitlines():
        if not line.startswith("import time:") or "self [us]" in line:
            continue
        own, cumulative, name = (part.strip() for part in line[len("import time:"):].split("|"))
        total += int(own)
        mods.add(name)
        if name.startswith("irexec"):
            ours.append((int(cumulative) / 1e6, name))
    return total / 1e6, {h for h in HEAVY if h in mods}, sorted(ours, reverse=True)[:3]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=7, help="rounds of fresh processes (median)")
    args = ap.parse_args()
    env = _env()
    with tempfile.TemporaryDirectory() as tmp:
        xml, inputs = _tiny_model(Path(tmp))
        runs = contenders(xml, inputs)
        for cmd in runs.values():  # writes the bytecode: later rounds start as a user's second run does
            _wall(cmd, env)
        times: dict[str, list[float]] = {name: [] for name in runs}
        names = list(runs)
        for r in range(args.repeat):
            for name in names[r % len(names):] + names[:r % len(names)]:
                times[name].append(_wall(runs[name], env))
        floor = statistics.median(times["import numpy"])
        print(f"== startup (median of {args.repeat} fresh processes; bytecode cached)")
        print(f"{'command':<16} {'wall s':>7} {'x numpy':>8} {'imports s':>10}  heavy modules    slowest irexec imports")
        for name, cmd in runs.items():
            wall = statistics.median(times[name])
            spent, heavy, ours = imports(cmd, env)
            slow = ", ".join(f"{n} {t * 1e3:.0f} ms" for t, n in ours) or "-"
            print(f"{name:<16} {wall:7.3f} {wall / floor:8.2f} {spent:10.3f}  {','.join(sorted(heavy)) or '-':<16} {slow}")


if __name__ == "__main__":
    main()
