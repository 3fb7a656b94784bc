"""BatchToSpace-2 undoes SpaceToBatch-2: for any data, blocks and pads, the
batch-to-space of the space-to-batch, cropped by the pads, is the data bit
for bit (both kernels only move values)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from conformance.strategies import EXECUTABLE, any_bits
from irexec.ops.movement.batch_space import BatchToSpace2, SpaceToBatch2


@st.composite
def round_trips(draw):  # type: ignore[no-untyped-def]
    rank = draw(st.integers(2, 5))
    blocks = [1] + [draw(st.integers(1, 3)) for _ in range(rank - 1)]
    begin = [0] + [draw(st.integers(0, 2)) for _ in range(rank - 1)]
    end = [0] + [draw(st.integers(0, 2)) for _ in range(rank - 1)]
    # each padded dim a multiple of its block
    dims = [draw(st.integers(1, 2))]
    for b, lo, hi in zip(blocks[1:], begin[1:], end[1:]):
        size = b * draw(st.integers(1, 3)) - lo - hi
        if size < 1:
            size += b * (-(-(1 - size) // b))
        dims.append(size)
    etype = draw(st.sampled_from(EXECUTABLE))
    data = draw(any_bits(tuple(dims), etype))
    return data, np.array(blocks, np.int64), np.array(begin, np.int64), np.array(end, np.int64)


@settings(max_examples=60, deadline=None)
@given(case=round_trips())
def test_batch_to_space_undoes_space_to_batch(case) -> None:  # type: ignore[no-untyped-def]
    data, blocks, begin, end = case
    (spread,) = SpaceToBatch2().run(data, blocks, begin, end)
    assert spread.shape[0] == data.shape[0] * int(np.prod(blocks))
    (back,) = BatchToSpace2().run(spread, blocks, begin, end)
    assert back.shape == data.shape and back.dtype == data.dtype
    assert back.tobytes() == data.tobytes()
