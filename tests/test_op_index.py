"""The registry imports an op module when a model first uses one of its types:
irexec/ops/framework/op_index.py must name, for every type, the module that registers it."""

from __future__ import annotations

import json
import subprocess
import sys

from irexec.ops.framework import op_index


def test_the_index_names_the_module_of_every_type():
    from irexec.ops.framework.registry import _REGISTRY, load_all

    load_all()
    built = {key: " ".join(sorted({c.__module__ for c in versions.values()})) for key, versions in sorted(_REGISTRY.items())}
    table = "".join(f'    "{key}": "{module}",\n' for key, module in built.items())
    assert built == op_index.MODULE_OF_TYPE, f"irexec/ops/framework/op_index.py should read:\n{table}"


def test_a_run_imports_only_the_op_modules_its_model_uses(tmp_path):
    """A Relu model loads its activation module and the Parameter/Const/Result one, not the rest."""
    from irexec.model.builder import IRBuilder

    b = IRBuilder()
    b.result(b.layer("Relu", "opset1", [b.parameter("x", "2,3", "f32")], {}, names=["y"]))
    b.write(str(tmp_path / "m.xml"))
    code = ("import sys, irexec; s = irexec.Session(sys.argv[1]); s.run(seed=0); "
            "import json; print(json.dumps(sorted(m for m in sys.modules if m.startswith('irexec.ops.') "
            "and m.count('.') == 3)))")
    out = subprocess.run([sys.executable, "-c", code, str(tmp_path / "m.xml")], capture_output=True, text=True,
                         check=True).stdout
    loaded = json.loads(out)
    assert op_index.MODULE_OF_TYPE["relu"] in loaded and "irexec.ops.io.parameter_const_result" in loaded
    nms = set(op_index.MODULE_OF_TYPE["nonmaxsuppression"].split())
    assert not nms & set(loaded) and len(loaded) < len(set(op_index.MODULE_OF_TYPE.values())) // 2
