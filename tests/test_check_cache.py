"""The cache of `irexec check`: an unchanged file's findings come from the user's
cache folder, identical in every format and exit status; a changed byte in the
.xml or the .bin is checked again; --no-cache neither reads nor writes it; a
broken entry is a miss; the cache never lands in the tree being checked.
(conftest.py gives every test its own XDG_CACHE_HOME.)"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from irexec.model.builder import IRBuilder
from irexec.system import user_cache
from irexec.system.user_cache import UserCache


def _reshape_model(folder: Path, target: tuple[int, ...] = (3, 2), declared: tuple[int, ...] = (3, 2)) -> Path:
    """x[2,3] -> Reshape to the Const ``target`` (in the .bin) -> declared ``declared``:
    whether the check passes depends on the bytes of both files."""
    b = IRBuilder()
    x = b.parameter("x", (2, 3), "f32")
    y = b.layer("Reshape", "opset1", [x, b.const(np.array(target, np.int64))], {"special_zero": "false"},
                outputs=[(declared, "f32")])
    b.result(y)
    folder.mkdir(parents=True, exist_ok=True)
    xml = folder / "model.xml"
    b.write(xml)
    return xml


def _entries() -> list[Path]:
    folder = Path(os.environ["XDG_CACHE_HOME"]) / "irexec" / "check"
    return sorted(folder.glob("*.json")) if folder.is_dir() else []


def _outputs(run_cli, *args: str) -> tuple[tuple[int, str], tuple[int, str]]:
    text = run_cli("check", *args)
    js = run_cli("check", "-f", "json", *args)
    return (text.exit_code, text.output), (js.exit_code, js.output)


@pytest.mark.parametrize("wrong", [False, True])
def test_a_second_check_of_an_unchanged_file_comes_from_the_cache_with_the_same_output(tmp_path, run_cli, wrong):
    xml = _reshape_model(tmp_path / "m", declared=(3, 3) if wrong else (3, 2))
    first = _outputs(run_cli, str(xml))
    assert first[0][0] == (1 if wrong else 0)
    assert ("shape-mismatch" in first[0][1]) == wrong
    assert len(_entries()) == 1
    # served from the entry: an entry whose finding says something else is what the next check prints
    entry_path = _entries()[0]
    entry = json.loads(entry_path.read_text())
    assert _outputs(run_cli, str(xml)) == first
    if wrong:
        entry["diagnostics"][0]["message"] = "from the cache"
        entry_path.write_text(json.dumps(entry))
        again = run_cli("check", str(xml))
        assert "from the cache" in again.output and again.exit_code == 1
        assert "from the cache" not in run_cli("check", "--no-cache", str(xml)).output


def test_a_second_check_in_a_fresh_process_and_on_two_processes_is_the_same(tmp_path, run_cli):
    a = _reshape_model(tmp_path / "a", declared=(3, 3))
    b = _reshape_model(tmp_path / "b")
    first = run_cli.subprocess("check", "-f", "json", str(a), str(b))
    assert first.returncode == 1 and len(_entries()) == 2
    for extra in ((), ("-j", "2")):
        again = run_cli.subprocess("check", "-f", "json", *extra, str(a), str(b))
        assert (again.returncode, again.stdout) == (first.returncode, first.stdout)
    assert len(_entries()) == 2


def test_a_changed_byte_in_the_xml_or_the_bin_is_checked_again(tmp_path, run_cli):
    xml = _reshape_model(tmp_path / "m")
    assert run_cli("check", str(xml)).exit_code == 0
    # the same .xml, a .bin whose shape Const says [6, 1]: a finding only a new check can see
    good_bin = xml.with_suffix(".bin").read_bytes()
    _reshape_model(tmp_path / "other", target=(6, 1))
    new_bin = (tmp_path / "other" / "model.bin").read_bytes()
    assert len(new_bin) == len(good_bin) and new_bin != good_bin
    xml.with_suffix(".bin").write_bytes(new_bin)
    changed = run_cli("check", str(xml))
    assert changed.exit_code == 1 and "shape-mismatch" in changed.output and "[6,1]" in changed.output
    xml.with_suffix(".bin").write_bytes(good_bin)
    assert run_cli("check", str(xml)).exit_code == 0
    # one byte of the .xml: a declared dim 2 -> 7
    text = xml.read_bytes()
    at = text.rindex(b"<dim>2</dim>")
    xml.write_bytes(text[:at] + b"<dim>7</dim>" + text[at + len(b"<dim>2</dim>"):])
    changed = run_cli("check", str(xml))
    assert changed.exit_code == 1 and "shape-mismatch" in changed.output
    assert len(_entries()) == 3  # one per distinct content


def test_no_cache_neither_reads_nor_writes_the_cache(tmp_path, run_cli):
    xml = _reshape_model(tmp_path / "m", declared=(3, 3))
    plain = run_cli("check", "--no-cache", str(xml))
    assert plain.exit_code == 1 and not _entries()
    assert not (Path(os.environ["XDG_CACHE_HOME"]) / "irexec").exists()
    run_cli("check", str(xml))
    [entry_path] = _entries()
    entry = json.loads(entry_path.read_text())
    entry["diagnostics"] = []  # an entry that would make the file clean
    entry_path.write_text(json.dumps(entry))
    before = entry_path.stat().st_mtime_ns
    os.utime(entry_path, ns=(before - 10**9, before - 10**9))
    again = run_cli("check", "--no-cache", str(xml))
    assert (again.exit_code, again.output) == (plain.exit_code, plain.output)
    assert entry_path.stat().st_mtime_ns == before - 10**9  # not even touched
    assert json.loads(entry_path.read_text()) == entry


@pytest.mark.parametrize("broken", [b"", b"not json {", b"[1, 2, 3]", b"{\"format\": 1}", b"[" * 100_000,
                                    "wrong types", "another key", "a folder"])
def test_a_broken_cache_entry_is_ignored_and_replaced(tmp_path, run_cli, broken):
    xml = _reshape_model(tmp_path / "m", declared=(3, 3))
    expected = _outputs(run_cli, "--no-cache", str(xml))
    run_cli("check", str(xml))
    [entry_path] = _entries()
    original = entry_path.read_text()
    entry = json.loads(original)
    if broken == "wrong types":
        entry["diagnostics"][0]["line"] = "57"
        entry_path.write_text(json.dumps(entry))
    elif broken == "another key":
        entry["key"] = "0" * 64
        entry_path.write_text(json.dumps(entry))
    elif broken == "a folder":
        entry_path.unlink()
        entry_path.mkdir()
    else:
        assert isinstance(broken, bytes)
        entry_path.write_bytes(broken)
    assert _outputs(run_cli, str(xml)) == expected
    if broken != "a folder":  # the miss was checked again and stored anew
        assert entry_path.read_text() == original
        assert _outputs(run_cli, str(xml)) == expected


def test_the_cache_never_lands_inside_the_checked_folder(tmp_path, run_cli, monkeypatch):
    tree = tmp_path / "repo"
    _reshape_model(tree / "models")
    files_before = sorted(p for p in tree.rglob("*"))
    # XDG_CACHE_HOME inside the tree being checked: no cache at all
    monkeypatch.setenv("XDG_CACHE_HOME", str(tree / ".cache"))
    assert run_cli("check", str(tree)).exit_code == 0
    assert run_cli("check", str(tree / "**" / "*.xml")).exit_code == 0
    assert sorted(p for p in tree.rglob("*")) == files_before
    # a relative XDG_CACHE_HOME is ignored (it would be the working directory's): ~/.cache/irexec instead
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CACHE_HOME", "cache")
    done = run_cli.subprocess("check", "models", cwd=str(tree))
    assert done.returncode == 0, done.stderr
    assert sorted(p for p in tree.rglob("*")) == files_before
    assert len(list((home / ".cache" / "irexec" / "check").glob("*.json"))) == 1


def test_a_project_file_in_the_checked_tree_cannot_move_the_cache(tmp_path, run_cli):
    tree = tmp_path / "repo"
    _reshape_model(tree / "models")
    (tree / "pyproject.toml").write_text('[tool.irexec]\ncache-dir = "elsewhere"\n')
    done = run_cli.subprocess("check", "models", cwd=str(tree))
    assert done.returncode == 2 and "cache-dir" in done.stderr  # an unknown key: a usage error, nothing read
    assert not (tree / "elsewhere").exists()


def test_the_cache_folder_is_bounded(tmp_path, monkeypatch):
    monkeypatch.setattr(user_cache, "MAX_ENTRIES", 3)
    cache = UserCache("check", str(tmp_path))
    for k in range(6):
        assert cache.put(f"{k:064x}", {"n": k})
        path = tmp_path / "check" / f"{k:064x}.json"
        os.utime(path, ns=(k * 10**9, k * 10**9))
    assert cache.get(f"{1:064x}") == {"n": 1}  # used now: kept
    cache.trim()
    assert sorted(p.name[63] for p in (tmp_path / "check").glob("*.json")) == ["1", "4", "5"]
    monkeypatch.setattr(user_cache, "MAX_ENTRY_BYTES", 100)
    assert not cache.put("f" * 64, {"text": "x" * 200})
    assert cache.get("../" + "f" * 61) is None  # keys are hex names, never paths


def test_a_check_served_from_the_cache_reads_nothing_but_the_hash(tmp_path, run_cli):
    """The point of the cache is the time of a CI run: a warm entry costs a hash of the
    files, so the process never imports the reader, the checker or NumPy."""
    xml = _reshape_model(tmp_path / "m")
    assert run_cli.subprocess("check", str(xml)).returncode == 0
    warm = subprocess.run([sys.executable, "-X", "importtime", "-m", "irexec", "check", "-f", "json", str(xml)],
                          capture_output=True, text=True, env=dict(os.environ), timeout=300)
    assert warm.returncode == 0 and json.loads(warm.stdout)["summary"]["errors"] == 0
    imported = {line.rsplit("|", 1)[-1].strip() for line in warm.stderr.splitlines() if line.startswith("import time:")}
    assert not {m for m in imported if m.split(".")[0] == "numpy" or m.startswith(("irexec.checker", "irexec.ir."))}
    cold = subprocess.run([sys.executable, "-X", "importtime", "-m", "irexec", "check", "--no-cache", str(xml)],
                          capture_output=True, text=True, env=dict(os.environ), timeout=300)
    assert "irexec.checker.model_checker" in cold.stderr  # the same probe sees a real check
