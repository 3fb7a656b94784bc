"""The built inputs of a generation's decode steps, made once for all its steps.

``decode_value`` says what each built input of a step is, from its value in the call before;
the first decode step's values are made that way (with its checks and type conversion), and
the later steps' are taken from arrays sized then for every step to come: the attention mask
as growing views of one buffer of ones, the positions and cache positions as slices of a
strip counting on, and what does not change (beam_idx, an SSM's mask of one column, the
encoder's output) as the same array again.  Every value equals the one ``decode_value``
would build, in the same type: only the allocation and copying per step go.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np

from .decode_inputs import Family, decode_value


class StepFeeds:
    """The built inputs of decode steps 1, 2, ... of a generation of at most ``steps`` decode
    steps, from the prefill's feeds; ``typed`` converts a value to its input's type."""

    def __init__(self, roles: list[str], family: Family, batch: int, prompt_tokens: int, steps: int,
                 typed: Callable[[str, np.ndarray], np.ndarray]) -> None:
        self.roles, self.family, self.batch, self.steps, self.typed = roles, family, batch, steps, typed
        self.prompt_tokens = prompt_tokens
        self._makers: dict[str, Callable[[int], np.ndarray]] = {}

    def feeds(self, step: int, last: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
        """The built inputs of decode step ``step`` (1 for the first), given the feeds of the
        call before (read at the first step only)."""
        if step == 1:
            return {role: self._first(role, last[role]) for role in self.roles}
        return {role: self._makers[role](step) for role in self.roles}

    def _first(self, role: str, last: np.ndarray) -> np.ndarray:
        value = self.typed(role, decode_value(role, self.family, np.asarray(last), self.batch, self.prompt_tokens + 1))
        later = self.steps - 1  # the decode steps after this one
        if role == "attention_mask" and self.family.mask_grows:
            width = value.shape[-1]
            grown = np.ones((*value.shape[:-1], width + later), value.dtype)
            grown[..., :width] = value
            grown.flags.writeable = False
            self._makers[role] = lambda step: grown[..., :width + step - 1]
        elif role in ("position_ids", "cache_position") and value.shape[-1:] == (1,):
            # each step's value is the last one plus one (decode_value): the same sums, made at once
            strip = value + np.arange(later + 1, dtype=value.dtype)
            strip.flags.writeable = False
            self._makers[role] = lambda step: strip[..., step - 1:step]
        else:  # beam_idx, an SSM's mask, the encoder's output: the same value every step
            self._makers[role] = lambda step: value
        return value


__all__ = ["StepFeeds"]
