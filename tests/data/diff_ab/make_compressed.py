"""Make the weight-compressed copies of bert_tiny used by tests/test_diff_ab.py.

Run once with NNCF installed (it is not a dependency of irexec or of its tests):

    python3 -m venv /tmp/nncf && /tmp/nncf/bin/pip install nncf openvino
    /tmp/nncf/bin/python tests/data/diff_ab/make_compressed.py /work/shared/models/bert_tiny/model.xml

It writes bert_tiny_int8.xml/.bin (INT8 asymmetric, one scale and zero point per output
channel) and bert_tiny_int4.xml/.bin (INT4 asymmetric, groups of 32, every layer) beside itself.
"""

import sys
from pathlib import Path

import nncf
import openvino as ov

here = Path(__file__).resolve().parent
core = ov.Core()
source = sys.argv[1]
for name, kwargs in (("int8", {"mode": nncf.CompressWeightsMode.INT8_ASYM}),
                     ("int4", {"mode": nncf.CompressWeightsMode.INT4_ASYM, "group_size": 32, "ratio": 1.0,
                               "all_layers": True})):
    model = nncf.compress_weights(core.read_model(source), **kwargs)
    ov.save_model(model, str(here / f"bert_tiny_{name}.xml"), compress_to_fp16=False)
    print(name, nncf.__version__, ov.__version__)
