"""The package's import graph, read from the source (ast over irexec/**/*.py):
no circle among its modules, and no layer importing one above it.

Every import statement counts, wherever it stands: at module level, inside a
function (a deferred import hides a circle from Python, not from a reader),
and under ``if TYPE_CHECKING:``.  ``from pkg import name`` is an edge to
``pkg.name`` when that is a module, else to ``pkg``.  Importing a package's
submodule also runs the package's ``__init__``, but that is not an edge here:
a package is a folder, and its ``__init__`` is a module like any other.
"""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx

ROOT = Path(__file__).resolve().parent.parent / "irexec"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports() -> tuple[dict[str, Path], list[tuple[str, str, str | None]]]:
    """Modules by name, and (importer, imported module, imported name or None) triples."""
    modules = {_module_name(p): p for p in ROOT.rglob("*.py")}
    found: list[tuple[str, str, str | None]] = []
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Import):
                found.extend((name, a.name, None) for a in node.names if a.name.split(".")[0] == "irexec")
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")[: len(package.split(".")) - node.level + 1]
                    target = ".".join(base + ([node.module] if node.module else []))
                else:
                    target = node.module or ""
                if target.split(".")[0] != "irexec":
                    continue
                for a in node.names:
                    sub = f"{target}.{a.name}"
                    found.append((name, sub, None) if sub in modules else (name, target, a.name))
    return modules, found


MODULES, IMPORTS = _imports()
GRAPH = nx.DiGraph((a, b) for a, b, _ in IMPORTS if a != b)


def _in(module: str, area: str) -> bool:
    return module == area or module.startswith(area + ".")


def test_the_import_graph_is_read():
    # the reading above finds the package's real arrows (a broken reader would make every test below pass)
    assert len(MODULES) > 60
    assert GRAPH.has_edge("irexec.checker.model_checker", "irexec.model.binding")
    assert GRAPH.has_edge("irexec.api.load", "irexec.checker.model_checker")


def test_no_import_circle():
    cycles = sorted(sorted(c) for c in nx.simple_cycles(GRAPH))
    assert cycles == [], "import circles: " + "; ".join(" -> ".join(c) for c in cycles)


# The layers, lowest first: a module imports only from its own folder and the
# layers below it.  Peers (one rank) never import each other: kernels sit below
# ops, and the checker and the executor are two engines over one model.
LAYERS = {
    "base": 0,  # errors, element types, low-bit packing, shapes, limits: no I/O
    "system": 1,  # files, atomic writes, tensor files, threads, BLAS, heap, gc
    "ir": 2,  # records, the locked-down parse, element readers, the readers
    "kernels": 3,  # NumPy kernels several ops share
    "ops": 4,  # the op framework and the families
    "model": 5,  # a document bound to ops
    "checker": 6, "executor": 6,  # the two engines
    "api": 7,  # load, Session, state, inputs, comparison, diff, generate, dumps
    "report": 8,  # renderers
    "cli": 9,  # only it knows how an option is spelled
}


def _layer(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in LAYERS else None


def test_every_module_lives_in_a_layer_folder():
    """The package root holds only its entry points; everything else is in a layer's folder."""
    loose = sorted(m for m in MODULES if m not in ("irexec", "irexec.__main__") and _layer(m) is None)
    assert loose == []
    folders = {p.name for p in ROOT.iterdir() if p.is_dir() and (p / "__init__.py").is_file()}
    assert folders <= set(LAYERS), f"a folder that is no layer: {sorted(folders - set(LAYERS))}"


def test_layers_import_only_downward():
    wrong = []
    for a, b in GRAPH.edges:
        la, lb = _layer(a), _layer(b)
        if la is None or lb is None or la == lb:
            continue
        if LAYERS[lb] >= LAYERS[la]:
            wrong.append(f"{a} ({la}) -> {b} ({lb})")
    assert sorted(wrong) == []


def test_no_module_is_long():
    """One job per module: every module of the package stays under 450 lines."""
    long = sorted(f"{p.relative_to(ROOT)}: {n} lines" for p in ROOT.rglob("*.py")
                  if (n := len(p.read_text(encoding="utf-8").splitlines())) > 450)
    assert long == []


def test_only_the_entry_points_import_the_cli():
    wrong = sorted(f"{a} -> {b}" for a, b in GRAPH.edges
                   if _in(b, "irexec.cli") and not _in(a, "irexec.cli") and a != "irexec.__main__")
    assert wrong == []


def test_private_names_stay_in_their_folder():
    """``from x import _name`` only between modules of one folder (dunders such as
    ``__version__`` are public)."""
    def folder(module: str) -> str:
        return module if MODULES[module].name == "__init__.py" else module.rpartition(".")[0]

    wrong = sorted(f"{a} imports {b}.{n}" for a, b, n in IMPORTS
                   if n is not None and n.startswith("_") and not n.startswith("__") and b in MODULES and folder(a) != folder(b))
    assert wrong == []


# ------------------------------------------------------------ the op layout

OPS = ROOT / "ops"
SHARED = {"__init__"}  # what every family shares lives in ops/framework/


def test_ops_live_in_their_family_folder():
    """Every registered op is defined in irexec/ops/<its family>/, and every
    family folder holds only ops of that family."""
    import irexec.ops  # noqa: F401  (registers every op)
    from irexec.ops.framework.registry import all_ops, defined_in

    wrong = [f"{c.display()} ({c.family}) in {defined_in(c)}" for c in all_ops()
             if defined_in(c).split(".")[:3] != ["irexec", "ops", c.family]]
    assert wrong == []
    folders = {p.name for p in OPS.iterdir() if p.is_dir() and not p.name.startswith("_")}
    assert folders == {c.family for c in all_ops()} | {"framework"}
    assert {p.stem for p in OPS.glob("*.py")} <= SHARED  # no op module outside a family folder


def test_ops_json_names_the_defining_module(run_cli):
    import json

    import irexec.ops  # noqa: F401
    from irexec.ops.framework.registry import all_ops

    result = run_cli("ops", "--format", "json")
    assert result.exit_code == 0
    listed = {e["op"]: e for e in json.loads(result.output)}
    assert set(listed) == {c.display() for c in all_ops()}
    roll = listed["Roll-7"]
    assert roll["family"] == "movement" and roll["module"] == "irexec.ops.movement.roll"
    assert (ROOT.parent / roll["file"]).is_file()
    assert all((ROOT.parent / e["file"]).is_file() and e["file"].startswith(f"irexec/ops/{e['family']}/")
               for e in listed.values())
