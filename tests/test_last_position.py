"""A run of the last position only (``Session.run(last_position=...)``, what the greedy
loop asks for): the head product is fed the last position alone, the logits of that
position agree with the full run's, greedy decoding chooses the same tokens, no warning
about the declared dims, and a plain run (``irexec run``) still computes every position."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from irexec.api.generate import generate
from irexec.api.generate.vision_language import open_vision_language_folder
from irexec.api.session import Session
from irexec.executor.last_position import find_head

pytest.importorskip("openvino")
import openvino as ov  # noqa: E402
import openvino.opset8 as o8  # noqa: E402
from stateful_models import save, tiny_lm  # noqa: E402

DATA = Path(__file__).parent / "data"
SMOLLM = Path(__file__).resolve().parents[1].parent / "shared" / "models" / "smollm_int4_stateful"


class FullRuns(Session):
    """A session whose runs compute every position, whatever they are asked: the greedy
    loop as it ran before it asked for the last position only."""

    def run(self, *args, last_position=None, **kwargs):  # type: ignore[no-untyped-def,override]
        return super().run(*args, **kwargs)


def _closeness(full: np.ndarray, last: np.ndarray) -> None:
    """The one position, as the full run's last: the head product for one row may sum in another
    order than for many (BLAS's and the compressed kernels' paths differ by row count)."""
    assert last.shape == full[:, -1:].shape
    scale = float(np.abs(full[:, -1:]).max())
    np.testing.assert_allclose(last, full[:, -1:], rtol=0, atol=1e-5 * max(scale, 1.0))
    assert (last.argmax(-1) == full[:, -1:].argmax(-1)).all()


def _prefill_and_greedy(xml: Path, prompt: dict[str, np.ndarray], new: int) -> None:
    full, cut = FullRuns(str(xml)), Session(str(xml))
    want = generate(full, prompt, new)
    got = generate(cut, prompt, new)
    assert np.array_equal(got.tokens, want.tokens)
    full.reset_state()
    cut.reset_state()
    feeds = {k: v for k, v in _feeds(cut, prompt).items()}
    whole = full.run(feeds)
    last = cut.run(feeds, last_position="logits")
    assert not whole.warnings and not last.warnings
    assert last.outputs["logits"].shape[1] == 1
    _closeness(whole.outputs["logits"], last.outputs["logits"])


def _feeds(session: Session, prompt: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The prefill inputs generate builds for a kv-cache model."""
    ids = prompt["input_ids"]
    batch, length = ids.shape
    built = {"attention_mask": np.ones((batch, length), np.int64),
             "position_ids": np.tile(np.arange(length, dtype=np.int64), (batch, 1)),
             "beam_idx": np.arange(batch, dtype=np.int32)}
    names = {p.name for p in session.model.parameters}
    return {**{k: v for k, v in built.items() if k in names}, **prompt}


def test_tiny_lm_greedy_tokens_and_last_logits(tmp_path: Path) -> None:
    xml = Path(save(tiny_lm(), tmp_path))
    ids = np.random.default_rng(3).integers(0, 50, (2, 9), dtype=np.int64)
    _prefill_and_greedy(xml, {"input_ids": ids}, 8)


@pytest.mark.skipif(not SMOLLM.is_dir(), reason=f"the shared models are absent ({SMOLLM})")
def test_smollm_greedy_tokens_and_last_logits() -> None:
    step0 = dict(np.load(SMOLLM / "inputs_step0.npz"))
    prompt = {k: step0[k] for k in ("input_ids", "attention_mask", "position_ids", "beam_idx")}
    _prefill_and_greedy(SMOLLM / "model.xml", prompt, 16)
    got = generate(Session(str(SMOLLM / "model.xml")), prompt, 16)
    assert np.array_equal(got.tokens, np.load(SMOLLM / "greedy_tokens.npy"))


def test_gpt_oss_greedy_tokens_and_last_logits() -> None:
    folder = DATA / "llm_exports" / "gpt_oss"
    step0 = dict(np.load(folder / "inputs_step0.npz"))
    _prefill_and_greedy(folder / "openvino_model.xml", step0, 6)


def test_mamba_greedy_tokens() -> None:
    folder = DATA / "mamba_export"
    prompts = np.load(folder / "prompts.npz")
    for key in prompts.files:
        prompt = {"input_ids": prompts[key]}
        want = generate(FullRuns(str(folder / "openvino_model.xml")), prompt, 8)
        got = generate(Session(str(folder / "openvino_model.xml")), prompt, 8)
        assert np.array_equal(got.tokens, want.tokens), key


def test_llava_greedy_tokens() -> None:
    folder = open_vision_language_folder(str(DATA / "llava_export"))
    from irexec.api.generate.vision_language import VisionLanguageModel

    prompts = np.load(DATA / "llava_export" / "prompts.npz")
    pixels = np.load(DATA / "llava_export" / "pixel_values.npy")
    cut = VisionLanguageModel(folder, None, None)
    full = VisionLanguageModel(folder, None, None)
    full.language = FullRuns(str(folder.language))
    for key in prompts.files:
        want = full.generate({"input_ids": prompts[key]}, pixels, 6)
        got = cut.generate({"input_ids": prompts[key]}, pixels, 6)
        assert np.array_equal(got.tokens, want.tokens), key


def _static_head(tmp_path: Path, second_reader: bool = False, through: str = "") -> Path:
    """x [1, 5, 4] -> MatMul [4, 7] -> (Convert | Reshape) -> logits, its dims all declared static."""
    x = o8.parameter([1, 5, 4], np.float32, name="x")
    w = o8.constant(np.random.default_rng(0).normal(size=(4, 7)).astype(np.float32))
    head = o8.matmul(x, w, False, False)
    out = head
    if through == "convert":
        out = o8.convert(o8.convert(head, "f16"), "f32")
    elif through == "reshape":
        out = o8.reshape(head, o8.constant(np.int64([1, 5, 7])), False)
    out.output(0).get_tensor().set_names({"logits"})
    results = [o8.result(out)]
    if second_reader:
        results.append(o8.result(o8.relu(head)))
    return Path(save(ov.Model(results, [x], "head"), tmp_path))


@pytest.mark.parametrize("through", ["", "convert"])
def test_declared_static_dims_give_no_warning(tmp_path: Path, through: str) -> None:
    xml = _static_head(tmp_path, through=through)
    session = Session(str(xml))
    x = np.random.default_rng(1).normal(size=(1, 5, 4)).astype(np.float32)
    whole = session.run({"x": x})
    last = session.run({"x": x}, last_position="logits")
    assert last.outputs["logits"].shape == (1, 1, 7)
    assert not whole.warnings and not last.warnings
    _closeness(whole.outputs["logits"], last.outputs["logits"])
    again = session.run({"x": x})  # the full run's plan is its own
    assert again.outputs["logits"].shape == (1, 5, 7) and not again.warnings


@pytest.mark.parametrize("second_reader, through", [(True, ""), (False, "reshape")])
def test_where_the_graph_does_not_allow_it_every_position_is_computed(tmp_path: Path, second_reader: bool,
                                                                      through: str) -> None:
    xml = _static_head(tmp_path, second_reader, through)
    session = Session(str(xml))
    assert find_head(session.model, "logits") is None
    x = np.random.default_rng(1).normal(size=(1, 5, 4)).astype(np.float32)
    last = session.run({"x": x}, last_position="logits")
    assert last.outputs["logits"].shape == (1, 5, 7)
    assert np.array_equal(last.outputs["logits"], session.run({"x": x}).outputs["logits"])


def test_irexec_run_computes_every_position(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    xml = Path(save(tiny_lm(), tmp_path))
    ids = np.array([[1, 2, 3, 4]], np.int64)
    np.savez(tmp_path / "in.npz", input_ids=ids, attention_mask=np.ones_like(ids),
             position_ids=np.arange(4, dtype=np.int64)[None], beam_idx=np.zeros(1, np.int32))
    r = run_cli("run", xml, "--inputs", tmp_path / "in.npz", "-o", tmp_path / "out.npz")
    assert r.exit_code == 0, r.output
    assert np.load(tmp_path / "out.npz")["logits"].shape == (1, 4, 50)


def test_a_head_computed_from_constants_alone_is_left_whole(tmp_path: Path) -> None:
    """Its output is kept for every later run, so a run of the last position must not make it."""
    x = o8.parameter([1, 3], np.float32, name="x")
    rng = np.random.default_rng(2)
    hidden = o8.constant(rng.normal(size=(1, 5, 4)).astype(np.float32))
    logits = o8.matmul(hidden, o8.constant(rng.normal(size=(4, 7)).astype(np.float32)), False, False)
    logits.output(0).get_tensor().set_names({"logits"})
    xml = Path(save(ov.Model([o8.result(logits), o8.result(o8.relu(x))], [x], "const_head"), tmp_path))
    session = Session(str(xml))
    assert find_head(session.model, "logits") is not None
    feeds = {"x": np.ones((1, 3), np.float32)}
    last = session.run(feeds, last_position="logits")
    whole = session.run(feeds)
    assert last.outputs["logits"].shape == whole.outputs["logits"].shape == (1, 5, 7)
    assert np.array_equal(last.outputs["logits"], whole.outputs["logits"])
