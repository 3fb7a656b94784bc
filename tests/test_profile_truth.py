"""`--profile` on a fresh session: the first run's one-time work (weight
decompression, caches) is reported apart, and the per-run rows plus irexec's
own time add up to a run's wall time."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import irexec

LLM = Path(__file__).resolve().parents[1] / "examples" / "tiny-llm"


def test_one_time_work_is_apart_and_the_rows_add_up_to_the_wall_time():
    with irexec.Session(LLM / "model.xml") as s:
        feeds = dict(np.load(LLM / "inputs_step0.npz"))
        report = s.run(feeds, profile=True, repeat=3).profile
    assert report.first_wall_seconds > 0 and report.wall_seconds > 0
    assert report.one_time_seconds == pytest.approx(max(report.first_wall_seconds - report.wall_seconds, 0))
    assert all(p.seconds > 1e-3 for p in report.one_time)  # layers a millisecond slower on the first run
    assert report.layer_seconds + report.executor_seconds == pytest.approx(report.wall_seconds)
    text = report.render(top=3)
    assert re.search(r"one-time work, first run only and not in the rows: [0-9.]+ ms", text)
    op_share = sum(float(line.split()[-1]) for line in text.split("by op type:")[1].splitlines()[3:])
    assert op_share == pytest.approx(100, abs=1)


def test_a_fresh_process_reports_its_first_run_apart(run_cli):
    r = run_cli.subprocess("run", LLM / "model.xml", "--inputs", LLM / "inputs_step0.npz", "--profile", "-q")
    assert r.returncode == 0, r.stderr
    m = re.search(r"^one-time work, first run only and not in the rows: ([0-9.]+) ms \(the first run took ([0-9.]+) ms",
                  r.stdout, re.MULTILINE)
    assert m and 0 < float(m[1]) < float(m[2])
    assert re.search(r"ms in layers \+ [0-9.]+ ms irexec itself .* = [0-9.]+ ms a run \(1 run, after the first\)", r.stdout)


def test_rows_are_the_steps_a_plain_run_takes():
    """Weights kept from the first run (and a u4 weight only its decompression chain read,
    whose value is kept) are not stepped through by later runs: a profile does not show
    them, nor does it pay for them."""
    with irexec.Session(LLM / "model.xml") as s:
        feeds = dict(np.load(LLM / "inputs_step0.npz"))
        report = s.run(feeds, profile=True, repeat=2).profile
    by_type = report.render(top=0).split("by op type:")[1]
    assert "MatMul-1" in by_type and "Const-1" not in by_type


def test_a_stop_at_run_unpacks_no_weight_whose_chains_are_kept():
    """A run that stops at a layer (as diff's bisection does, run after run) steps through
    every layer before it, but a u4 weight whose decompression chains' values are kept is
    not unpacked again: nothing reads it."""
    with irexec.Session(LLM / "model.xml") as s:
        feeds = dict(np.load(LLM / "inputs_step0.npz"))
        last = max((layer for layer in s.model.layers.values() if layer.type == "MatMul"), key=lambda layer: layer.index)
        packed = {lid for lid, op in s.model.ops.items()
                  if s.model.layers[lid].type == "Const" and getattr(op, "element_type", None) is not None
                  and op.element_type.packed}
        assert packed
        seen: list[int] = []
        first = s.run(feeds, stop_at=last.name, on_layer=lambda layer, outs, t: seen.append(layer.id)).outputs
        assert packed <= set(seen)
        seen.clear()
        s.reset_state()
        again = s.run(feeds, stop_at=last.name, on_layer=lambda layer, outs, t: seen.append(layer.id)).outputs
        assert not packed & set(seen) and last.id in seen
        assert all(np.array_equal(first[k], again[k]) for k in first)
