"""What irexec writes: never replaces anything but a regular file, cleans up its
temporaries on SIGTERM as on SIGINT, never writes a report partly, and keeps
a report linear in the file it describes."""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import irexec
from irexec.model.builder import IRBuilder
from irexec.system import atomic

ROOT = Path(__file__).resolve().parents[2]


def _model(directory: Path, dims: list[int] | None = None) -> Path:
    b = IRBuilder()
    x = b.parameter("x", dims or [2, 3], "f32")
    b.result(b.layer("Convert", "opset1", [x], {"destination_type": "f16"}), name="y")
    directory.mkdir(parents=True, exist_ok=True)
    xml, _ = b.write(directory / "model.xml")
    return Path(xml)


def _device(path: Path, minor: int) -> Path:
    """A copy of /dev/null (minor 3) or /dev/full (minor 7)."""
    if os.geteuid() != 0:
        pytest.skip("mknod needs root")
    try:
        os.mknod(path, 0o666 | stat.S_IFCHR, os.makedev(1, minor))
    except PermissionError:
        pytest.skip("this container forbids mknod")
    return path


def _still_a_device(path: Path) -> bool:
    return stat.S_ISCHR(os.lstat(path).st_mode)


@pytest.mark.parametrize("option", ["--output", "--save-inputs", "check -o"])
def test_a_device_is_written_to_never_replaced(option: str, tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    xml = _model(tmp_path / "m")
    null, full = _device(tmp_path / "null", 3), _device(tmp_path / "full", 7)
    for device, code in ((null, 0), (full, 1)):
        args = ["check", xml, "-o", device] if option == "check -o" else ["run", xml, option, device]
        result = run_cli(*args)
        assert result.exit_code == code, result.output
        assert _still_a_device(device)
        if code:
            assert "error[cannot-write-output]" in result.output and "No space left" in result.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["full", "m", "null"]  # no temporary left


def test_a_socket_is_never_replaced(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    import socket

    xml = _model(tmp_path / "m")
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(tmp_path / "out.npz"))
    sock.close()
    result = run_cli("run", xml, "--output", tmp_path / "out.npz")
    assert result.exit_code == 1 and "error[cannot-write-output]" in result.output
    assert stat.S_ISSOCK(os.lstat(tmp_path / "out.npz").st_mode)


def test_a_report_is_written_whole_or_not_at_all(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """One write(2) moves at most 2 GiB; a short write must never be the end of the file."""
    data = bytes(range(256)) * 40_000
    monkeypatch.setattr(atomic, "CHUNK", 1000)
    atomic.write_atomically(str(tmp_path / "r.txt"), data)
    assert (tmp_path / "r.txt").read_bytes() == data

    class Stuck:
        def write(self, b: bytes) -> int:
            return 0

    with pytest.raises(OSError):
        atomic.write_all(Stuck(), data)  # type: ignore[arg-type]


# ------------------------------------------------------------------ signals


def _spawn(*args: object) -> subprocess.Popen[str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT), IREXEC_RETAIN_MEMORY="0")
    return subprocess.Popen([sys.executable, "-m", "irexec", *map(str, args)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=env)


def _temporaries(directory: Path) -> list[str]:
    return [p.name for p in directory.rglob(".irexec-*")]


@pytest.mark.parametrize(("sig", "what"), [(signal.SIGTERM, "--output"), (signal.SIGTERM, "--dump"), (signal.SIGINT, "--output")])
def test_a_signal_while_writing_leaves_no_temporary(sig: int, what: str, tmp_path: Path) -> None:
    xml = _model(tmp_path / "m", [48 << 20])  # 192 MiB of f32 in, 96 MiB of f16 out
    out = tmp_path / "out"
    out.mkdir()
    target = out / "out.npz" if what == "--output" else out / "dump"
    proc = _spawn("run", xml, what, target)
    seen = False
    deadline = time.monotonic() + 120
    while proc.poll() is None and time.monotonic() < deadline:
        if _temporaries(out):
            proc.send_signal(sig)
            seen = True
            break
        time.sleep(0.001)
    _, err = proc.communicate(timeout=120)
    if not seen:
        pytest.skip("the write finished before a temporary was seen (machine too fast for this size)")
    assert proc.returncode == 128 + sig, err  # 130 for Ctrl-C, 143 for SIGTERM, wherever they land
    assert "Traceback" not in err
    assert _temporaries(out) == []
    assert not (out / "out.npz").exists()


@pytest.mark.parametrize("where", ["after-open", "inside-close"])
def test_an_exit_inside_the_archive_writer_stays_that_exit(where: str, tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """The windows a timed signal hits only now and then: SystemExit between
    ZipFile.open() and its ``with`` (the handle never closes), and inside the
    entry's close()."""
    import zipfile

    from irexec.system import tensorfile

    if where == "after-open":
        real_open = zipfile.ZipFile.open

        def open_then_exit(self, *args, **kwargs):  # type: ignore[no-untyped-def]
            real_open(self, *args, **kwargs)
            raise SystemExit(143)

        monkeypatch.setattr(zipfile.ZipFile, "open", open_then_exit)
    else:
        def close_then_exit(self) -> None:  # type: ignore[no-untyped-def]
            raise SystemExit(143)

        monkeypatch.setattr(zipfile._ZipWriteFile, "close", close_then_exit)
    with pytest.raises(SystemExit) as exited:
        tensorfile.save_npz(str(tmp_path / "out.npz"), {"x": np.zeros(4, np.float32)})
    assert exited.value.code == 143
    assert list(tmp_path.iterdir()) == []


def test_a_job_started_with_ctrl_c_ignored_keeps_ignoring_it(tmp_path: Path) -> None:
    xml = _model(tmp_path / "m", [48 << 20])
    out = tmp_path / "out"
    out.mkdir()
    env = dict(os.environ, PYTHONPATH=str(ROOT), IREXEC_RETAIN_MEMORY="0")
    proc = subprocess.Popen([sys.executable, "-m", "irexec", "run", str(xml), "--output", str(out / "out.npz")],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))  # as `nohup cmd &` starts it
    for _ in range(5):
        time.sleep(0.1)
        proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    assert (out / "out.npz").exists() and _temporaries(out) == []


def test_ctrl_c_outside_clicks_own_handler_exits_quietly() -> None:
    """A Ctrl-C that lands between the entry point and click's try block (here
    sent just before click starts) ends the command like any other."""
    code = ("import os, signal, sys\nimport irexec.cli as c\nstart = c.cli.main\n"
            "def interrupted_first(*a, **k):\n    os.kill(os.getpid(), signal.SIGINT)\n    return start(*a, **k)\n"
            "c.cli.main = interrupted_first\nc.main(['ops'])\n")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 130, proc.stderr
    assert "Traceback" not in proc.stderr and "Aborted" not in proc.stderr


def test_the_entry_point_gives_a_caller_its_ctrl_c_handler_back(capsys) -> None:  # type: ignore[no-untyped-def]
    from irexec.cli import main

    before = signal.getsignal(signal.SIGINT)
    with pytest.raises(SystemExit) as info:
        main(["ops"])
    assert info.value.code in (0, None)
    assert signal.getsignal(signal.SIGINT) is before


def _frames_in_package(stderr: str) -> list[str]:
    """Lines (traceback frames) naming a file of the irexec package being tested."""
    package = str(ROOT / "irexec") + os.sep
    return [line for line in stderr.splitlines() if package in line]


def test_frames_in_package_tells_the_package_from_its_folder() -> None:
    inside = f'  File "{ROOT / "irexec" / "cli" / "__init__.py"}", line 3, in main'
    beside = f'  File "{ROOT / "tests" / "x.py"}", line 1, in <module>\nKeyboardInterrupt'
    assert _frames_in_package(inside) == [inside]
    assert _frames_in_package(beside) == []  # even when ROOT itself is named irexec


def test_ctrl_c_during_start_up_prints_no_irexec_traceback(tmp_path: Path) -> None:
    xml = _model(tmp_path / "m")
    for delay in (0.02, 0.05, 0.08, 0.12, 0.16, 0.2, 0.3, 0.4):
        proc = _spawn("run", xml)
        time.sleep(delay)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
        # before irexec's first line runs, only the interpreter's own start-up can be interrupted:
        # no traceback frame may be in the package (whatever the clone's folder is called)
        assert not _frames_in_package(err), (delay, err)


# ------------------------------------------------------------------ report size


def _repeated_name_model(directory: Path, name_chars: int, consumers: int) -> Path:
    """A failing layer with a huge name that ``consumers`` Results depend on:
    one note, folding every Result, names it."""
    b = IRBuilder()
    x = b.parameter("x", [2, 3], "f32")
    y = b.layer("Convert", "opset1", [x], {"destination_type": "f16"})
    for _ in range(consumers):
        b.result(y)
    directory.mkdir(parents=True, exist_ok=True)
    xml, _ = b.write(directory / "model.xml")
    path = Path(xml)
    text = path.read_text().replace('name="Convert_1"', 'name="' + "N" * name_chars + '"', 1)
    path.write_text(text.replace('destination_type="f16"', 'destination_type="bogus"', 1))
    return path


@pytest.mark.parametrize("fmt", ["text", "json", "github", "junit"])
def test_a_report_is_linear_in_the_file(fmt: str, tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    xml = _repeated_name_model(tmp_path, 1_000_000, 250)
    result = run_cli("check", "-v", "--format", fmt, xml)
    assert result.exit_code == 1
    assert len(result.output) < 2_000_000, len(result.output)  # was 250 copies of the name: 250 MB
    assert "(1000000 characters)" in result.output
    if fmt in ("text", "json"):
        assert "250 layers not checked: they depend on layer 1" in result.output


def test_findings_through_the_api_are_bounded(tmp_path: Path) -> None:
    xml = _repeated_name_model(tmp_path, 1_000_000, 20)
    found = irexec.check(str(xml)).diagnostics
    assert len(found) == 21
    assert all(len(d.message) < 2100 and len(d.layer_name or "") < 250 for d in found)
    assert sum(len(d.format()) for d in found) < 100_000


def test_a_check_report_that_cannot_be_written_is_coded(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    xml = _model(tmp_path / "m")
    (tmp_path / "file").write_text("")
    result = run_cli("check", xml, "-o", tmp_path / "file" / "report.txt")  # a path component is a regular file
    assert result.exit_code == 1 and "error[cannot-write-output]" in result.output


def test_report_memory_is_linear_in_the_file(tmp_path: Path) -> None:
    """Peak RSS of check on a 4 MB file whose name repeats in 250 findings (was 1.6 GB)."""
    xml = _repeated_name_model(tmp_path, 4_000_000, 250)
    if not os.path.exists("/proc/self/status"):
        pytest.skip("reads the peak RSS from /proc")
    code = ("import sys; from irexec.cli import main\n"
            "try:\n    main(['check', '-v', '--format', 'json', sys.argv[1]])\n"
            "except SystemExit:\n    pass\n"
            "print([l.split()[1] for l in open('/proc/self/status') if l.startswith('VmHWM')][0], file=sys.stderr)")
    proc = subprocess.run([sys.executable, "-c", code, str(xml)], capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, PYTHONPATH=str(ROOT)))
    peak_kib = int(proc.stderr.strip().splitlines()[-1])
    assert peak_kib < 400 * 1024, peak_kib
    assert len(proc.stdout) < 2_000_000
    np.testing.assert_equal(proc.stdout.count('"code": "skipped"'), 1)
    np.testing.assert_equal(proc.stdout.count('"layer_name": "Result_'), 250)  # the folded note keeps every layer
