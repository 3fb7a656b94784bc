"""Tokenizer and detokenizer IR made by openvino_tokenizers (tests/data/tokenizers,
see make_tokenizers.py there): `irexec run` gives OpenVINO's exact outputs, with
the extension loaded, over a corpus of hard strings and hard token ids."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

ov = pytest.importorskip("openvino")
pytest.importorskip("openvino_tokenizers")
pytest.importorskip("pcre2")
from oracle import from_tensor  # noqa: E402
from tokenizer_corpus import corpus  # noqa: E402

DATA = Path(__file__).parent / "data" / "tokenizers"
KINDS = ["bpe", "wordpiece", "wordlevel", "llama-bpe", "unigram", "t5-charsmap", "xlmr-charsmap", "albert-charsmap",
         "t5-sentencepiece", "llama-sentencepiece", "llama-sentencepiece-left", "qwen-bpe"]
# a SentencePiece model run by sentencepiece's library, which refuses negative ids (OpenVINO's run fails on them too)
SENTENCEPIECE = {"t5-sentencepiece", "llama-sentencepiece", "llama-sentencepiece-left"}


def _needs_extra(kind: str) -> None:
    if kind in SENTENCEPIECE or kind.endswith("-charsmap"):
        pytest.importorskip("sentencepiece")


def _openvino(xml: Path, feeds: list[np.ndarray]) -> dict[str, np.ndarray]:
    import openvino_tokenizers  # noqa: F401  (adds the extension to every Core made from here on)

    compiled = ov.Core().compile_model(str(xml), "CPU")
    request = compiled.create_infer_request()
    request.infer([ov.Tensor(f) for f in feeds])
    out = {}
    for i, port in enumerate(compiled.outputs):
        names = sorted(port.get_names())
        key = names[0] if names else str(i)
        t = request.get_output_tensor(i)
        out[key] = from_tensor(t, "string") if port.get_element_type() == ov.Type.string else np.array(t.data)
    return out


def _run(run_cli, xml: Path, tmp_path: Path, **feeds: np.ndarray) -> dict[str, np.ndarray]:
    inputs, output = tmp_path / f"{xml.stem}-in.npz", tmp_path / f"{xml.stem}-out.npz"
    np.savez(inputs, **feeds)
    r = run_cli("run", xml, "--inputs", inputs, "--output", output)
    assert r.exit_code == 0, r.output
    with np.load(output, allow_pickle=False) as f:
        return {k: f[k] for k in f.files}


@pytest.mark.parametrize("kind", KINDS)
def test_tokenizer_matches_openvino_on_the_corpus(kind, run_cli, tmp_path):
    _needs_extra(kind)
    texts = np.array(corpus())
    assert len(texts) >= 500
    xml = DATA / kind / "openvino_tokenizer.xml"
    ours = _run(run_cli, xml, tmp_path, **{_parameter(xml): texts})
    theirs = _openvino(xml, [texts])
    assert sorted(ours) == sorted(theirs)
    for name, want in theirs.items():
        assert ours[name].dtype == want.dtype and ours[name].shape == want.shape, name
        bad = np.argwhere(ours[name] != want)
        assert not bad.size, f"{name}: {len(bad)} elements differ, first in row {bad[0][0]}: {texts[bad[0][0]]!r}"


@pytest.mark.parametrize("kind", KINDS)
def test_detokenizer_matches_openvino_on_hard_ids(kind, run_cli, tmp_path):
    """The corpus's own ids, then random ids: lone bytes of multi-byte characters
    (invalid UTF-8 to replace), ids past the vocabulary, negative ids, skipped ids."""
    _needs_extra(kind)
    texts = np.array(corpus(count=200, seed=1))
    tokens = _openvino(DATA / kind / "openvino_tokenizer.xml", [texts])["input_ids"]
    xml = DATA / kind / "openvino_detokenizer.xml"
    rng = np.random.default_rng(2)
    vocab = int(tokens.max()) + 1
    noise = rng.integers(0 if kind in SENTENCEPIECE else -3, vocab + 5, (300, 12)).astype(np.int64)
    for ids in (tokens, noise, np.zeros((2, 0), np.int64)):
        name = _parameter(xml)
        ours = _run(run_cli, xml, tmp_path, **{name: ids})
        theirs = _openvino(xml, [ids])
        (key,) = theirs
        got = [x.encode() for x in ours[key].tolist()] if ours[key].dtype.kind == "U" else ours[key].tolist()
        assert got == list(theirs[key]), key


def test_stream_detokenizer_matches_openvino(run_cli, tmp_path):
    """SentencepieceStreamDetokenizer (converted with streaming_detokenizer=True): each id's piece
    as it is, byte pieces as single bytes, then the metaspace replaced by a space."""
    pytest.importorskip("sentencepiece")
    texts = np.array(corpus(count=200, seed=4))
    tokens = _openvino(DATA / "llama-sentencepiece" / "openvino_tokenizer.xml", [texts])["input_ids"]
    xml = DATA / "llama-sentencepiece" / "openvino_stream_detokenizer.xml"
    noise = np.random.default_rng(5).integers(0, int(tokens.max()) + 5, (300, 12)).astype(np.int64)
    for ids in (tokens, noise, tokens[:, :1], np.zeros((2, 0), np.int64)):
        ours = _run(run_cli, xml, tmp_path, **{_parameter(xml): ids})
        theirs = _openvino(xml, [ids])
        (key,) = theirs
        got = [x.encode() for x in ours[key].tolist()] if ours[key].dtype.kind == "U" else ours[key].tolist()
        assert got == list(theirs[key]), key


def _parameter(xml: Path) -> str:
    import irexec

    return irexec.read_model(str(xml)).parameters[0].name


def test_without_pcre2_a_coded_error_names_the_extra(run_cli, tmp_path):
    shadow = tmp_path / "shadow"
    shadow.mkdir()
    (shadow / "pcre2.py").write_text("raise ImportError('pcre2 is not installed')\n")
    inputs = tmp_path / "in.npz"
    np.savez(inputs, Parameter_1=np.array(["hello world"]))
    import os

    env = {"PYTHONPATH": os.pathsep.join([str(shadow), os.environ.get("PYTHONPATH", "")])}
    r = run_cli.subprocess("run", DATA / "bpe" / "openvino_tokenizer.xml", "--inputs", inputs, env=env)
    assert r.returncode == 1, r.stderr
    assert "missing-extra" in r.stderr and "irexec[tokenizers]" in r.stderr and "Traceback" not in r.stderr


@pytest.mark.parametrize("kind", [k for k in KINDS if k not in SENTENCEPIECE])  # the .model converter has no state
def test_truncation_switched_on_through_the_state_matches_openvino(kind, run_cli, tmp_path):
    """The converter keeps truncation off in a variable ("truncation"); set on, rows are cut
    at the tokenizer's max length, special tokens included."""
    _needs_extra(kind)
    import openvino_tokenizers  # noqa: F401

    texts = np.array(corpus(count=60, seed=3) + ["word " * 40])
    xml = DATA / kind / "openvino_tokenizer.xml"
    state = tmp_path / "state.npz"
    np.savez(state, truncation=np.array(True))
    inputs, output = tmp_path / "in.npz", tmp_path / "out.npz"
    np.savez(inputs, **{_parameter(xml): texts})
    r = run_cli("run", xml, "--inputs", inputs, "--state-in", state, "--output", output)
    assert r.exit_code == 0, r.output
    request = ov.Core().compile_model(str(xml), "CPU").create_infer_request()
    for variable in request.query_state():
        variable.state = ov.Tensor(np.array(True))
    request.infer([ov.Tensor(texts)])
    with np.load(output, allow_pickle=False) as ours:
        for i, port in enumerate(request.model_outputs):
            want = np.array(request.get_output_tensor(i).data)
            got = ours[sorted(port.get_names())[0]]
            assert got.shape == want.shape and np.array_equal(got, want)
            assert want.shape[1] < 60  # cut at the limit
