"""A stateful model's variables as a session keeps them, as OpenVINO's
InferRequest does: each run starts from the state the last one left;
``reset_state`` goes back to the initial values (see docs/stateful.md)."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence

import numpy as np

from ..base import dtypes, limits
from ..base.errors import ERROR, Diagnostic, InputError, UsageError
from ..base.shapes import PartialShape
from ..ops.state import Variable
from ..system.tensorfile import as_dtype, load_npz, save_npz
from .load import Model


class SessionState:
    """The state half of ``Session``: ``variables``, ``state``, ``get_state``,
    ``set_state``, ``reset_state``, ``load_state`` and ``save_state``."""

    model: Model
    max_memory: int | None
    _state: dict[str, np.ndarray]

    @property
    def variables(self) -> dict[str, Variable]:
        """The model's variables by variable_id: declared partial shape and element type."""
        return dict(self.model.variables)

    @property
    def state(self) -> dict[str, np.ndarray]:
        """The value of every variable, by variable_id (read-only arrays; copy one to change it
        and give it back with ``set_state``).  A variable whose initial value comes from its
        ReadValue's initialising input is absent until a run or ``set_state`` gives it a value."""
        out = {}
        for vid in self.model.variables:
            value = self.get_state(vid)
            if value is not None:
                out[vid] = value
        return out

    def get_state(self, variable_id: str) -> np.ndarray | None:
        """One variable's value (read-only).  On a reset state: zeros (dynamic dims 0) for a
        variable without an initialising input, else None (its ReadValue computes it in a run)."""
        var = self._variable(variable_id)
        value = self._state.get(variable_id)
        return value if value is not None else var.initial_zeros(limits.resolve(self.max_memory))

    def set_state(self, values: Mapping[str, np.ndarray] | str, value: np.ndarray | None = None) -> None:
        """Set variables: ``set_state(id, array)`` or ``set_state({id: array, ...})``.  Each
        array must have the variable's element type and fit its shape (error ``state-mismatch``);
        it is copied.  Variables not named keep their values."""
        items = {values: value} if isinstance(values, str) else dict(values)
        checked: dict[str, np.ndarray] = {}
        for vid, arr in items.items():
            var = self._variable(vid)
            if arr is None:
                raise UsageError(f"no value given for variable {vid!r}", code="state-mismatch", file=self.model.path)
            checked[vid] = _state_value(self.model, var, np.asarray(arr), copy=True)
        self._state.update(checked)

    def reset_state(self, variable_id: str | None = None) -> None:
        """Back to the initial value: every variable, or the one named."""
        if variable_id is None:
            self._state.clear()
        else:
            self._variable(variable_id)
            self._state.pop(variable_id, None)

    def load_state(self, path: str | os.PathLike[str], *, follow_symlinks: bool | None = None) -> None:
        """Set the whole state from an npz keyed by variable_id: it must hold exactly the
        model's variables, each of its type and shape (error ``state-mismatch`` naming it)."""
        name = os.fspath(path)
        arrays = load_npz(name, self.max_memory, follow_symlinks=follow_symlinks)
        variables = self.model.variables
        problems = [f"{name} has no array for variable {vid!r} ({var.etype.name}{var.shape})"
                    for vid, var in variables.items() if vid not in arrays]
        problems += [f"{name} holds {key!r}, which is not a variable of the model (variables: "
                     f"{_listing(list(variables))})" for key in arrays if key not in variables]
        if problems:
            raise InputError([Diagnostic("state-mismatch", p, ERROR, file=self.model.path) for p in problems])
        checked = {vid: _state_value(self.model, variables[vid], arr, copy=False, source=name) for vid, arr in arrays.items()}
        self._state = checked

    def save_state(self, path: str | os.PathLike[str]) -> None:
        """Write every variable's value to an npz keyed by variable_id (atomically)."""
        state = self.state
        missing = [vid for vid in self.model.variables if vid not in state]
        if missing:
            raise UsageError(f"variable{'s' if len(missing) > 1 else ''} {_listing(missing)} "
                             "hold no value yet (their initial value comes from the initialising input of their "
                             "ReadValue, computed in a run)", code="state-not-set", file=self.model.path)
        save_npz(os.fspath(path), state)

    def _variable(self, variable_id: str) -> Variable:
        var = self.model.variables.get(variable_id)
        if var is None:
            known = _listing(list(self.model.variables)) or "none: the model is not stateful"
            raise UsageError(f"{variable_id!r} is not a variable of the model (variables: {known})",
                             code="unknown-variable", file=self.model.path)
        return var


def frozen_copy(a: np.ndarray) -> np.ndarray:
    """A variable's new value: an array of its own that nothing can change (an output
    handed to the caller may be the same tensor)."""
    out = np.array(a, copy=True)
    out.flags.writeable = False
    return out


def kept_state(assigned: Mapping[str, np.ndarray], held: Mapping[str, np.ndarray],
               shared: Sequence[np.ndarray] | None) -> dict[str, np.ndarray]:
    """The variables' new values from what a run's Assigns received: an array the run made
    for itself (owning its memory, writeable: nothing kept for later runs) is taken as it is
    and frozen, unless the caller also holds it (``shared``: the outputs handed out, the feeds;
    None: the caller may hold any tensor of the run); a value the session already holds stays;
    anything else is copied.  Taking the cache's tensor saves a copy of the whole KV cache
    per decode step."""
    out = {}
    for vid, value in assigned.items():
        if value is held.get(vid):
            out[vid] = value
        elif (shared is not None and type(value) is np.ndarray and value.base is None and value.flags.writeable
              and not any(np.may_share_memory(value, a) for a in shared)):
            value.flags.writeable = False
            out[vid] = value
        else:
            out[vid] = frozen_copy(value)
    return out


def _state_value(model: Model, var: Variable, arr: np.ndarray, *, copy: bool, source: str | None = None) -> np.ndarray:
    """``arr`` as a value of ``var``, or a coded error naming the variable."""
    held = as_dtype(arr, var.etype.dtype) if var.etype.supported else None
    if held is not None and held.dtype != arr.dtype:
        arr = held  # npz files keep the ml_dtypes types as raw bytes
    etype = dtypes.from_dtype(arr.dtype)
    where = f" in {source}" if source else ""
    if etype is None:
        raise InputError(f"the value of variable {var.id!r}{where} has dtype {arr.dtype}, which no IR element type is",
                         code="state-mismatch", file=model.path, line=var.line)
    why = var.fits(PartialShape.static(arr.shape), etype)
    if why:
        raise InputError(f"the value of variable {var.id!r}{where} does not fit: {why}", code="state-mismatch", file=model.path,
                         line=var.line)
    return frozen_copy(arr) if copy or arr.flags.writeable else arr


def _listing(names: list[str], shown: int = 8) -> str:
    text = ", ".join(repr(n) for n in names[:shown])
    return text + (f", and {len(names) - shown} more" if len(names) > shown else "")
