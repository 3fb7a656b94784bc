"""The table formats NNCF writes (NF4, MXFP4, NVFP4, CB4, MXFP8, FP8; tests/data/nncf_formats)
run their products through the compressed product when a run cannot keep their f32 weights
(a model bigger than an eighth of the memory limit; here a 256 KiB limit and 56 KiB of f32
weights): each chain's weight is a StandIn whose codes are read packed, and its one-hot
products are the chain's decompressed weight bit for bit.  When the f32 weights are kept,
BLAS on them is faster, and the runs keep them.  The logits agree with OpenVINO either way
(tests/test_nncf_formats.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import irexec
from irexec.executor.cache import run_cache
from irexec.kernels import compressed_linear
from irexec.kernels.compressed_linear import StandIn
from irexec.model.rewrites.decompression import find

pytest.importorskip("numba")

DATA = Path(__file__).resolve().parent / "data" / "nncf_formats"
LIMIT = 256 << 10  # an eighth of it (32 KiB) keeps less than the fixtures' 56 KiB of f32 weights
# format -> the weight type of its chains' codes and the table size the product reads
FORMATS = {"nf4_g32_all_layers": ("nf4", 16), "mxfp4_all_layers": ("f4e2m1", 16),
           "nvfp4_all_layers": ("f4e2m1", 16), "cb4_all_layers": ("u4", 16),
           "mxfp8_e4m3": ("f8e4m3", 256), "fp8_e4m3": ("f8e4m3", 256)}


def _feeds(ids: np.ndarray, past: int) -> dict[str, np.ndarray]:
    return {"input_ids": ids.astype(np.int64), "attention_mask": np.ones((1, past + ids.shape[1]), np.int64),
            "position_ids": np.arange(past, past + ids.shape[1], dtype=np.int64)[None],
            "beam_idx": np.zeros(1, np.int32)}


@pytest.mark.parametrize("name", sorted(FORMATS))
def test_the_decode_step_reads_the_codes_packed(name: str) -> None:
    model = irexec.load(str(DATA / name / "model.xml"))
    prompt = np.load(DATA / "prompt.npz")["input_ids"][:1]
    with irexec.Session(model) as session:  # the default limit: the f32 weights are kept
        kept = session.run(_feeds(prompt, 0))["logits"]
        assert not any(isinstance(outs[0], StandIn) for outs in run_cache(model).outputs.values())
    model = irexec.load(str(DATA / name / "model.xml"))
    with irexec.Session(model, max_memory=LIMIT) as session:
        logits = session.run(_feeds(prompt, 0))["logits"]
        token = logits[:, -1].argmax(-1)[:, None]
        session.run(_feeds(token, prompt.shape[1]))
        weights = [outs[0] for outs in run_cache(model).outputs.values() if isinstance(outs[0], StandIn)]
    bound = 64 * np.finfo(np.float32).eps * np.abs(kept).max()  # the f32 products' sums in another order
    np.testing.assert_allclose(logits, kept, rtol=0, atol=bound)
    kind, entries = FORMATS[name]
    chains = {end: chain for end, chain in find(model).items() if not chain.operand
              and any(model.layers[lid].type == "MatMul" for lid, _ in model.graph.consumers[(end, 0)])}
    assert len(weights) == len(chains) == 8  # every MatMul weight: never made in f32
    for weight in weights:
        assert weight.compressed.table is not None and weight.compressed.table.size == entries
    # the codes' type as the file declares it
    codes = {model.ops[(chain.leaves[1] if kind == "u4" else chain.leaves[0])[0]].element_type.name
             for chain in chains.values()}
    assert codes == {kind}


@pytest.mark.parametrize("name", sorted(FORMATS))
def test_one_hot_products_are_the_chains_weights(name: str) -> None:
    """A run that reads values makes each chain's f32 weight; the packed product of a
    one-hot row gives its column bit for bit (the embedding's rows too)."""
    model = irexec.load(str(DATA / name / "model.xml"))
    prompt = np.load(DATA / "prompt.npz")["input_ids"][:1]
    with irexec.Session(model, max_memory=LIMIT) as session:
        session.run(_feeds(prompt, 0))
        packed = {end: outs[0].compressed for end, outs in run_cache(model).outputs.items()
                  if isinstance(outs[0], StandIn)}
        session.reset_state()
        seen: dict[int, np.ndarray] = {}  # a hook that reads values: every chain makes its f32 weight
        session.run(_feeds(prompt, 0), on_layer=lambda layer, outs, _: seen.update({layer.id: outs[0]})
                    if layer.id in packed else None)
        assert packed and set(seen) == set(packed)
        _check(packed, seen)


def _check(packed: dict[int, compressed_linear.CompressedWeight], seen: dict[int, np.ndarray]) -> None:
    """(the packed codes are read where the .bin is mapped: while the model is open)"""
    for end, compressed in packed.items():
        weight = seen[end]
        assert type(weight) is np.ndarray and weight.shape == compressed.shape
        n, k = compressed.shape
        assert compressed.rows(np.arange(n)).tobytes() == weight.tobytes()
        for column in (0, k // 2 + 1, k - 1):
            one_hot = np.zeros((1, k), np.float32)
            one_hot[0, column] = np.float32(0.7071)  # the product rounds once: c times the chain's value
            got = compressed.product(one_hot)
            assert got is not None  # (a sum starts from +0.0, so -0.0 is 0.0 here, as through BLAS)
            np.testing.assert_array_equal(got[0], np.float32(0.7071) * weight[:, column])


def test_without_the_kernels_the_table_formats_run_as_before(tmp_path: Path) -> None:
    """IREXEC_JIT=0: no StandIn, the f32 weights made, the same logits within the f32 product's bound."""
    script = tmp_path / "run.py"
    script.write_text(
        "import sys, numpy as np, irexec\n"
        "from irexec.executor.cache import run_cache\n"
        "from irexec.kernels.compressed_linear import StandIn\n"
        "model = irexec.load(sys.argv[1])\n"
        "feeds = dict(np.load(sys.argv[2]))\n"
        "with irexec.Session(model, max_memory=int(sys.argv[4])) as s:\n"
        "    out = s.run(feeds)['logits']\n"
        "    stood = sum(isinstance(o[0], StandIn) for o in run_cache(model).outputs.values())\n"
        "np.save(sys.argv[3], out)\n"
        "print(stood)\n")
    prompt = np.load(DATA / "prompt.npz")["input_ids"][:1]
    token = prompt[:, :1]
    np.savez(tmp_path / "feeds.npz", **_feeds(token, 0))
    got = {}
    for name in ("nvfp4_all_layers", "cb4_all_layers"):
        for jit in ("1", "0"):
            env = {**os.environ, compressed_linear.ENV_VAR: jit}
            done = subprocess.run([sys.executable, str(script), str(DATA / name / "model.xml"),
                                   str(tmp_path / "feeds.npz"), str(tmp_path / f"{jit}.npy"), str(LIMIT)],
                                  capture_output=True, text=True, env=env, check=True)
            assert int(done.stdout.split()[-1]) == (8 if jit == "1" else 0), done.stderr
            got[jit] = np.load(tmp_path / f"{jit}.npy")
        scale = np.abs(got["0"]).max()
        np.testing.assert_allclose(got["1"], got["0"], rtol=0, atol=1e-5 * scale)
