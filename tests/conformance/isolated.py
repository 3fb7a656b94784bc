"""OpenVINO's shape inference of IR files run in a child process, so that a crash
or a hang inside OpenVINO (a segmentation fault on a malformed layer) fails the
cases that caused it instead of killing the test process (a pytest-xdist worker).

Every file of a table goes to one child; when the child dies on a file, that file
is reported as a ``Crash`` and a new child goes on with the files after it.

    results = openvino_outputs([(xml, "op0"), ...])  # per file: outputs, Exception or Crash

Run as a script, this module is that child: it reads a JSON list of
``[xml, layer name]`` on stdin and prints one JSON line per file as soon as it
has it (so the parent knows which file a crash happened on).
"""

from __future__ import annotations

import json
import os
import selectors
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from typing import Any

# Time for one child to read every file it is given, and for each file beyond startup.
_STARTUP_SECONDS = 30.0
_SECONDS_PER_FILE = 10.0

Outputs = list[tuple[str, str]]


class Refused(Exception):
    """OpenVINO's read_model raised: it refuses the file (its message is the text)."""


class Crash(Exception):
    """OpenVINO died or hung while reading the file: neither an accept nor a refusal."""


def _describe(returncode: int | None) -> str:
    if returncode is None:
        return "hung (killed after its time ran out)"
    if returncode < 0:
        try:
            return f"crashed with {signal.Signals(-returncode).name}"
        except ValueError:
            return f"crashed with signal {-returncode}"
    return f"exited with code {returncode}"


def _run_child(jobs: Sequence[tuple[str, str | None]]) -> tuple[list[dict[str, Any]], int | None, str]:
    """The answers a child gave (in order, possibly fewer than ``jobs``), its exit
    code (None when it was killed for taking too long) and the end of its stderr.
    Reading stops once every answer is in or the child has exited: a process the
    child forked may keep its pipes open long after (its own process group is
    killed then), so the end of the pipes is never waited for."""
    proc = subprocess.Popen([sys.executable, __file__], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, start_new_session=True)
    deadline = time.monotonic() + _STARTUP_SECONDS + _SECONDS_PER_FILE * len(jobs)
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    proc.stdin.write(json.dumps([list(j) for j in jobs]).encode())
    proc.stdin.close()
    answers: list[dict[str, Any]] = []
    pending, err = b"", b""
    streams = {proc.stdout.fileno(): "out", proc.stderr.fileno(): "err"}
    exited_at: float | None = None
    with selectors.DefaultSelector() as sel:
        for fd in streams:
            sel.register(fd, selectors.EVENT_READ)
        while len(answers) < len(jobs) and streams and time.monotonic() < deadline:
            if exited_at is None and proc.poll() is not None:
                exited_at = time.monotonic()
            if exited_at is not None and time.monotonic() - exited_at > 1.0:
                break  # the child is gone and what it wrote has been read
            for key, _ in sel.select(timeout=0.2):
                chunk = os.read(key.fd, 1 << 16)
                if not chunk:
                    sel.unregister(key.fd)
                    del streams[key.fd]
                elif streams[key.fd] == "err":
                    err = (err + chunk)[-4000:]
                else:
                    *lines, pending = (pending + chunk).split(b"\n")
                    for line in lines:
                        try:
                            answers.append(json.loads(line))
                        except json.JSONDecodeError:  # a line cut short by the crash
                            break
    if not streams or len(answers) == len(jobs):  # its pipes closed, or it said everything: it is ending
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
    code = proc.poll()
    try:
        os.killpg(proc.pid, signal.SIGKILL)  # the child if it hung, and anything it forked
    except ProcessLookupError:
        pass
    proc.wait()
    for stream in (proc.stdout, proc.stderr):
        stream.close()
    if code is None and len(answers) == len(jobs):
        code = 0  # every answer was in: it was stopped, not hung
    return answers, code, err.decode("utf-8", "replace")[-2000:]


def openvino_outputs(jobs: Sequence[tuple[str, str | None]]) -> list[Outputs | Exception]:
    """For each (xml, layer name): the layer's output (shape, element type) pairs (none
    for a name of None)
    as OpenVINO's read_model infers them, a ``Refused`` when it raises, or a
    ``Crash`` when the child process died or hung on that file."""
    results: list[Outputs | Exception] = []
    while len(results) < len(jobs):
        pending = jobs[len(results):]
        answers, code, err = _run_child(pending)
        for (xml, name), a in zip(pending, answers):
            if "missing" in a:
                raise AssertionError(f"OpenVINO's model of {xml} has no layer {name}")
            if "error" in a:
                results.append(Refused(str(a["error"])))
            else:
                results.append([(str(s), str(t)) for s, t in a["outputs"]])
        if len(answers) < len(pending):
            if code is not None and code >= 0:  # not a signal nor a hang: the child itself is broken
                raise RuntimeError(f"the OpenVINO child process {_describe(code)}: {err}")
            results.append(Crash(f"OpenVINO's read_model {_describe(code)}"))
    return results


def _child() -> None:
    import openvino as ov

    try:  # its ops (tokenizer IR) are read only with the extension, which it adds to every Core made after it
        import openvino_tokenizers  # noqa: F401
    except ImportError:
        pass
    core = ov.Core()
    for xml, name in json.load(sys.stdin):
        try:
            model = core.read_model(xml)
        except Exception as e:  # OpenVINO refuses the file: the parent decides what that means
            answer: dict[str, object] = {"error": str(e)}
        else:
            node = next((n for n in model.get_ops() if n.get_friendly_name() == name), None)
            if name is None:  # only whether OpenVINO reads the file
                answer = {"outputs": []}
            elif node is None:
                answer = {"missing": name}
            else:
                answer = {"outputs": [[str(node.get_output_partial_shape(j)), node.get_output_element_type(j).get_type_name()]
                                      for j in range(node.get_output_size())]}
        print(json.dumps(answer), flush=True)


if __name__ == "__main__":
    # run as a script, this folder leads sys.path, and its family folders (string/) would
    # shadow the standard library's modules of those names
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != here]
    _child()
