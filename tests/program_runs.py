"""What the tests of a program's fused and in-place steps share: inputs holding every
special value, outputs compared bit for bit, repeated runs held to the layer loop, the
program those runs build, and the memory limit refused where the layer loop refuses."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import irexec
from irexec.base.errors import IRExecError
from irexec.executor import program as program_module


def special_values(rng: np.random.Generator, shape: tuple[int, ...], nan: bool = False) -> np.ndarray:
    x = rng.standard_normal(shape).astype(np.float32)
    flat = x.reshape(-1)
    flat[::97] = -0.0
    flat[5::211] = np.float32(1e30)  # products overflow to +-inf, and inf - inf is NaN downstream
    if nan:
        flat[7::301] = np.nan
    return x


def same_outputs(got: dict, want: dict) -> None:
    assert got.keys() == want.keys()
    for name, value in got.items():
        assert value.dtype == want[name].dtype and value.shape == want[name].shape
        assert value.tobytes() == want[name].tobytes(), name  # bit for bit: NaN, inf and -0 alike


def repeated_runs_match_the_loop(path: Any, feeds: dict) -> dict:
    """Four runs of one model (replayed, recorded into a program, then run as one), each
    the layer loop's bits (a model's first run goes through the loop); the last outputs."""
    loop = irexec.run(irexec.load(path), feeds)
    model = irexec.load(path)
    for _ in range(4):
        got = irexec.run(model, feeds)
        same_outputs(got, loop)
    return got


def program_built(path: Any, feeds: dict, monkeypatch: pytest.MonkeyPatch) -> Any:
    """The one program that repeated runs build, each run held to the layer loop."""
    built: list = []
    real_build = program_module.build

    def spy(*args: Any, **kwargs: Any) -> Any:
        made = real_build(*args, **kwargs)
        built.append(made)
        return made

    monkeypatch.setattr(program_module, "build", spy)
    repeated_runs_match_the_loop(path, feeds)
    assert len(built) == 1 and built[0] is not None
    return built[0]


def memory_limit_held(path: Any, feeds: dict, refused: int, passed: int) -> None:
    """A limit the layer loop refuses is refused by the program with the same message,
    and one it passes still passes with the same bits."""
    model = irexec.load(path)
    for _ in range(3):
        want = irexec.run(model, feeds)
    with pytest.raises(IRExecError) as fresh:
        irexec.run(irexec.load(path), feeds, max_memory=refused)
    with pytest.raises(IRExecError) as reused:
        irexec.run(model, feeds, max_memory=refused)
    assert str(reused.value) == str(fresh.value)
    same_outputs(irexec.run(model, feeds, max_memory=passed), want)


def same_without(path: Any, feeds: dict, monkeypatch: pytest.MonkeyPatch, owner: Any, step: str) -> None:
    """The program's last run against one whose ``owner.step`` pass leaves the calls as
    they are: the same bits."""
    model = irexec.load(path)
    fused = [irexec.run(model, feeds) for _ in range(4)][-1]
    monkeypatch.setattr(owner, step, lambda calls, *rest: calls)
    plain_model = irexec.load(path)
    plain = [irexec.run(plain_model, feeds) for _ in range(4)][-1]
    same_outputs(fused, plain)
