"""Which files irexec reads: regular files only, and no symbolic link that leads
out of the folder a file is named in (unless --follow-symlinks or
IREXEC_FOLLOW_SYMLINKS allows it).  Directory walks and patterns never enter a
symbolic link to a directory and never check one file twice."""

from __future__ import annotations

import json
import os
import signal
import struct
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

import irexec
from irexec.api.load import load
from irexec.base.errors import InputError, ModelError
from irexec.cli import cli
from irexec.model.builder import IRBuilder
from irexec.system.tensorfile import load_npz

SECRET = b"hunter2!" + b"PRIVATE-KEY-MATERIAL" * 4


def _roll_model(directory: Path) -> Path:
    """x -> Roll(shift 1, axes = a Const read from the .bin) -> Result: the
    Const's 8 bytes end up in a finding when they are not a valid axis."""
    b = IRBuilder()
    x = b.parameter("x", [2, 3], "f32")
    b.result(b.layer("Roll", "opset7", [x, b.const(np.array([1], np.int64)), b.const(np.array([0], np.int64))]),
             name="out")
    directory.mkdir(parents=True, exist_ok=True)
    xml, _ = b.write(directory / "model.xml")
    return Path(xml)


def _leaky_model(tmp_path: Path) -> tuple[Path, Path]:
    """A model whose model.bin is a symbolic link to a secret outside its folder."""
    secret = tmp_path / "home" / "id_rsa"
    secret.parent.mkdir()
    secret.write_bytes(SECRET * 2)
    xml = _roll_model(tmp_path / "repo" / "model")
    binf = xml.with_suffix(".bin")
    binf.unlink()
    binf.symlink_to(os.path.relpath(secret, binf.parent))
    return xml, secret


def _secret_numbers() -> set[str]:
    """Every way a few bytes of the secret could appear in a finding."""
    out = set()
    for i in range(0, len(SECRET) - 8, 1):
        for fmt in ("<q", "<Q"):
            out.add(str(struct.unpack(fmt, SECRET[i : i + 8])[0]))
    return out


def _leaks(text: str) -> bool:
    return "hunter2" in text or "PRIVATE" in text or any(n in text for n in _secret_numbers())


def test_control_the_link_does_leak_when_followed(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    """Shows the attack: with the link allowed, the secret's bytes reach the findings."""
    xml, _ = _leaky_model(tmp_path)
    result = run_cli("check", xml, "--follow-symlinks")
    assert result.exit_code == 1
    assert _leaks(result.output)


def test_a_weights_link_out_of_the_folder_is_refused_by_check(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    xml, secret = _leaky_model(tmp_path)
    result = run_cli("check", xml)
    assert result.exit_code == 1
    assert "error[symlink-escape]" in result.output
    assert "model.bin" in result.output and str(secret) in result.output and "--follow-symlinks" in result.output
    assert not _leaks(result.output)
    found = irexec.check(str(xml))
    assert [d.code for d in found.diagnostics] == ["symlink-escape"]


def test_a_weights_link_out_of_the_folder_is_refused_by_run(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    xml, _ = _leaky_model(tmp_path)
    out = tmp_path / "out.npz"
    result = run_cli("run", xml, "--output", out)
    assert result.exit_code == 1
    assert "error[symlink-escape]" in result.output
    assert not out.exists()
    assert not _leaks(result.output)
    with pytest.raises(ModelError) as info:
        load(str(xml))
    assert info.value.code == "symlink-escape"


def test_the_model_xml_inputs_and_references_follow_the_same_rule(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    outside = _roll_model(tmp_path / "outside")
    np.savez(tmp_path / "outside" / "in.npz", x=np.ones((2, 3), np.float32))
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "model.xml").symlink_to(outside)
    (repo / "in.npz").symlink_to(tmp_path / "outside" / "in.npz")
    result = run_cli("check", repo / "model.xml")
    assert result.exit_code == 1 and "error[symlink-escape]" in result.output
    model = _roll_model(tmp_path / "model")
    for option in ("--inputs", "--compare"):
        result = run_cli("run", model, option, repo / "in.npz")
        assert result.exit_code == 1 and "error[symlink-escape]" in result.output, result.output
    with pytest.raises(InputError) as info:
        load_npz(str(repo / "in.npz"))
    assert info.value.code == "symlink-escape"
    assert load_npz(str(repo / "in.npz"), follow_symlinks=True)["x"].shape == (2, 3)


def test_links_inside_the_folder_are_followed(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    xml = _roll_model(tmp_path / "m")
    (tmp_path / "m" / "weights").mkdir()
    xml.with_suffix(".bin").rename(tmp_path / "m" / "weights" / "w.bin")
    xml.with_suffix(".bin").symlink_to("weights/w.bin")
    (tmp_path / "m" / "alias.xml").symlink_to("model.xml")
    (tmp_path / "m" / "alias.bin").symlink_to("weights/w.bin")
    assert run_cli("check", tmp_path / "m" / "model.xml").exit_code == 0
    assert run_cli("check", tmp_path / "m" / "alias.xml").exit_code == 0


def _hub_snapshot(tmp_path: Path) -> Path:
    """The Hugging Face hub cache: snapshots/<rev>/model.xml -> ../../blobs/<hash>."""
    built = _roll_model(tmp_path / "built")
    repo = tmp_path / "hub" / "models--acme--tiny"
    (repo / "blobs").mkdir(parents=True)
    snap = repo / "snapshots" / "0123abcd"
    snap.mkdir(parents=True)
    for name, blob in (("model.xml", "a1b2"), ("model.bin", "c3d4")):
        (built.parent / name).rename(repo / "blobs" / blob)
        (snap / name).symlink_to(Path("..", "..", "blobs", blob))
    return snap / "model.xml"


def test_a_hub_snapshot_needs_the_flag_or_the_variable(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    xml = _hub_snapshot(tmp_path)
    refused = run_cli("run", xml)
    assert refused.exit_code == 1
    assert "error[symlink-escape]" in refused.output and "blobs" in refused.output
    assert "--follow-symlinks" in refused.output and "IREXEC_FOLLOW_SYMLINKS" in refused.output
    assert run_cli("run", xml, "--follow-symlinks").exit_code == 0
    assert run_cli("check", xml, "--follow-symlinks").exit_code == 0
    assert run_cli("run", xml, env={"IREXEC_FOLLOW_SYMLINKS": "1"}).exit_code == 0
    assert run_cli("check", xml, env={"IREXEC_FOLLOW_SYMLINKS": "0"}).exit_code == 1
    assert irexec.check(str(xml), follow_symlinks=True).diagnostics == []
    assert irexec.Session(str(xml), follow_symlinks=True).run().outputs["out"].shape == (2, 3)


# ------------------------------------------------------------------ special files


def _special(kind: str, path: Path) -> None:
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "dev-zero":
        path.symlink_to("/dev/zero")
    elif kind == "dev-zero-copy":
        if os.geteuid() != 0:
            pytest.skip("mknod needs root")
        os.mknod(path, 0o666 | 0o020000, os.makedev(1, 5))
    elif kind == "socket":
        import socket

        s = socket.socket(socket.AF_UNIX)
        s.bind(str(path))
        s.close()


KINDS = ["fifo", "dev-zero", "dev-zero-copy", "socket"]


@dataclass
class Outcome:
    returncode: int
    stdout: str
    stderr: str


def _in_subprocess(*args: object, timeout: float = 60) -> Outcome:
    """The command line in-process, under an alarm: a hang fails the test instead of stalling the suite.
    /dev/zero lies outside every test folder, so links are allowed here: the special-file rule is tested alone."""

    def hung(*_: object) -> None:
        raise AssertionError(f"irexec {' '.join(map(str, args))} did not answer in {timeout} s")

    previous = signal.signal(signal.SIGALRM, hung)
    signal.alarm(int(timeout))
    try:
        result = CliRunner().invoke(cli, [str(a) for a in args], env={"IREXEC_FOLLOW_SYMLINKS": "1"}, catch_exceptions=False)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    return Outcome(result.exit_code, result.stdout, result.stderr)


@pytest.mark.parametrize("kind", KINDS)
def test_a_special_model_file_is_refused_at_once(kind: str, tmp_path: Path) -> None:
    xml = tmp_path / "model.xml"
    _special(kind, xml)
    for command in ("check", "run"):
        result = _in_subprocess(command, xml)
        assert result.returncode == 1, result.stderr
        assert "not-regular-file" in result.stdout + result.stderr


@pytest.mark.parametrize("kind", ["fifo", "dev-zero"])
def test_a_special_file_found_in_a_directory_or_pattern_is_a_finding(kind: str, tmp_path: Path) -> None:
    models = tmp_path / "models"
    _roll_model(models / "good")
    _special(kind, models / "bad.xml")
    for arg in (models, f"{models}/**/*.xml", f"{models}/*.xml"):
        result = _in_subprocess("check", arg)
        assert result.returncode == 1, result.stderr
        assert "bad.xml" in result.stdout and "error[not-regular-file]" in result.stdout, result.stdout


@pytest.mark.parametrize("kind", ["fifo", "dev-zero-copy"])
def test_special_weights_and_inputs_are_refused_at_once(kind: str, tmp_path: Path) -> None:
    xml = _roll_model(tmp_path / "m")
    xml.with_suffix(".bin").unlink()
    _special(kind, xml.with_suffix(".bin"))
    for command in ("check", "run"):
        result = _in_subprocess(command, xml)
        assert result.returncode == 1 and "error[not-regular-file]" in result.stdout + result.stderr, result.stderr
    good = _roll_model(tmp_path / "good")
    _special(kind, tmp_path / "in.npz")
    for option in ("--inputs", "--compare"):
        result = _in_subprocess("run", good, option, tmp_path / "in.npz")
        assert result.returncode == 1 and "error[bad-input-file]" in result.stderr and "regular files only" in result.stderr


def test_the_api_refuses_special_files(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "model.xml")
    assert [d.code for d in irexec.check(str(tmp_path / "model.xml")).diagnostics] == ["not-regular-file"]
    from irexec.ir.reader import read_document

    with pytest.raises(ModelError) as info:
        read_document(str(tmp_path / "model.xml"))
    assert info.value.code == "not-regular-file"


# ------------------------------------------------------------------ directory links in walks and patterns


def _tree_with_loops(tmp_path: Path, links: int) -> Path:
    models = tmp_path / "models"
    _roll_model(models / "a")
    _roll_model(models / "b" / "c")
    for i in range(links):
        (models / f"loop{i}").symlink_to(".")
    (models / "b" / "up").symlink_to("..")
    (models / "b" / "same.xml").symlink_to("c/model.xml")  # one file, two names: checked once
    (models / "b" / "same.bin").symlink_to("c/model.bin")
    return models


@pytest.mark.parametrize("links", [1, 2])
def test_patterns_and_walks_do_not_enter_directory_links(links: int, tmp_path: Path) -> None:
    models = _tree_with_loops(tmp_path, links)
    for arg in (f"{models}/**/*.xml", str(models), f"{models}/*/*.xml"):
        result = _in_subprocess("check", arg, "--format", "json", timeout=60)
        assert result.returncode == 0, result.stdout + result.stderr
        files = [f["path"] for f in json.loads(result.stdout)["files"]]
        assert len(files) == len({os.path.realpath(f) for f in files}), files
        assert all("loop" not in f and "/up/" not in f for f in files), files
        assert len(files) == 2, files
