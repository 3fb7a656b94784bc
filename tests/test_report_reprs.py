"""RunReport and CompareReport print as a summary a person can read, not as
dataclass dumps of arrays."""

from __future__ import annotations

from pathlib import Path

import numpy as np

import irexec

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "roll-example-1"


def test_reports_print_one_line_per_output():
    with irexec.Session(EXAMPLE / "model.xml") as s:
        result = s.run(dict(np.load(EXAMPLE / "inputs.npz")))
        assert repr(result) == "RunReport: 1 output(s)\n  ['output'] int32[4,3] in [1, 12]"
        report = s.compare(result, EXAMPLE / "expected.npz")
        text = repr(report)
        assert text.startswith("CompareReport: PASSED, 1 output(s) against ")
        assert "['output'] ok: 0/12 beyond exact (atol=0, rtol=0), the int32 default" in text
        wrong = dict(np.load(EXAMPLE / "expected.npz"))
        wrong["output"] = wrong["output"] + 1
        failed = s.compare(result, wrong)
        assert repr(failed).startswith("CompareReport: FAILED") and "mismatch: 12/12" in repr(failed)
        assert failed["output"].max_abs_error == 1
