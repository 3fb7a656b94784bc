#!/usr/bin/env python
"""What ``irexec diff --device CPU`` costs against one irexec run plus one plugin run,
on the real models (``shared/models`` beside the repository, or ``--models DIR``).

    python benchmarks/bench_diff.py [--models DIR] [--only NAME] [--repeat 3]

Per model: the median of ``--repeat`` of one irexec run (model loaded) and one
OpenVINO CPU inference (model compiled with its defaults); and the wall time of a
whole diff through the library (``run_diff``: one reference run capturing every
layer, the deployed plugin run and every compilation the mode needs), in the
default bisect mode with the plugin's defaults, in bisect mode with
INFERENCE_PRECISION_HINT=f32 (the outputs agree, so nothing is exposed), and with
``--layers all``.  The ratio is the diff's time over irexec run + plugin run.  The
stateful model runs its step 0 (the prefill) only.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
DEFAULT_DIR = ROOT.parent / "shared" / "models"
MODELS = ("squeezenet1_1", "mobilenet_v3_small", "bert_tiny", "gpt2_tiny", "smollm_int4_stateful")


def _median(fn, repeat: int) -> float:  # type: ignore[no-untyped-def]
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def bench(model_dir: Path, repeat: int) -> list[str]:
    import openvino as ov

    from irexec.api.diff.core import run_diff
    from irexec.api.diff.device import DeviceSide
    from irexec.api.diff.reference import ReferenceSide
    from irexec.api.session import Session
    from irexec.system.tensorfile import load_npz

    xml = str(model_dir / "model.xml")
    inputs = model_dir / ("inputs_step0.npz" if (model_dir / "inputs_step0.npz").exists() else "inputs.npz")
    session = Session(xml)
    feeds = dict(load_npz(str(inputs)))
    by_name = {p.name: feeds.get(p.name, next((feeds[n] for port in p.outputs for n in port.names if n in feeds), None))
               for p in session.model.parameters}
    irexec_run = _median(lambda: (session.reset_state(), session.run(by_name)), repeat)
    compiled = ov.Core().compile_model(xml, "CPU")
    request = compiled.create_infer_request()
    names = [p.get_node().get_friendly_name() for p in compiled.inputs]

    def plugin() -> None:
        request.reset_state()
        request.infer({i: by_name[n] for i, n in enumerate(names)})

    plugin_run = _median(plugin, repeat)
    row = [model_dir.name, f"{irexec_run * 1000:.0f}", f"{plugin_run * 1000:.1f}"]
    for mode, config in (("bisect", {}), ("bisect", {"INFERENCE_PRECISION_HINT": "f32"}), ("all", {})):
        start = time.perf_counter()
        other = DeviceSide(xml, None, "CPU", config)
        report = run_diff(ReferenceSide(session), other, [by_name], mode=mode)
        seconds = time.perf_counter() - start
        row += [f"{seconds:.2f}", f"{seconds / (irexec_run + plugin_run):.0f}x", str(report.compiles)]
    return row


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--models", type=Path, default=DEFAULT_DIR)
    ap.add_argument("--only", action="append", help="a model folder name (repeatable)")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    header = ["model", "irexec run ms", "plugin run ms", "bisect s", "ratio", "compiles", "bisect f32 s", "ratio",
              "compiles", "all s", "ratio", "compiles"]
    rows = [bench(args.models / name, args.repeat) for name in (args.only or MODELS) if (args.models / name).is_dir()]
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(header)]
    print(" | ".join(h.ljust(w) for h, w in zip(header, widths)))
    for r in rows:
        print(" | ".join(c.ljust(w) for c, w in zip(r, widths)))


if __name__ == "__main__":
    main()
