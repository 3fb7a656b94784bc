"""`irexec generate FOLDER --image PIXELS.npy` on a LLaVA-style VLM export: a tiny LLaVA
exported by optimum-intel (tests/data/llava_export/make_llava.py).  optimum-intel's own
greedy tokens are recorded for token-id prompts and VLMPipeline's tokens and text for
text prompts; a live OpenVINO loop over the three compiled IRs, fed as optimum-intel
feeds them, checks the recording against today's OpenVINO."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from irexec.api.generate import generate
from irexec.api.session import Session
from irexec.base.errors import ModelError

FOLDER = Path(__file__).parent / "data" / "llava_export"
PIXELS = FOLDER / "pixel_values.npy"
NEW = 10
GENAI_PROMPTS = {"tagless": "The quick brown fox", "tagged": "Look: <image> what is it?"}


def _recorded() -> dict[str, tuple[np.ndarray, np.ndarray]]:
    prompts, expected = np.load(FOLDER / "prompts.npz"), np.load(FOLDER / "expected_tokens.npz")
    return {k: (prompts[k], expected[k]) for k in prompts.files}


@pytest.mark.parametrize("key", ["image_first", "image_inside", "tagless", "tagged"])
def test_token_prompts_give_optimum_intels_greedy_tokens(key: str, tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    prompt, want = _recorded()[key]
    np.savez(tmp_path / "prompt.npz", input_ids=prompt)
    np.save(tmp_path / "want.npy", want)
    r = run_cli("generate", FOLDER, "--image", PIXELS, "-i", tmp_path / "prompt.npz", "-n", NEW,
                "--compare", tmp_path / "want.npy")
    assert r.exit_code == 0 and "PASSED" in r.output, r.output
    assert r.stdout.splitlines()[0] == " ".join(map(str, want[0, prompt.shape[1]:]))


@pytest.mark.parametrize("key", sorted(GENAI_PROMPTS))
def test_text_prompts_give_vlm_pipelines_tokens_and_text(key: str, tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    """VLMPipeline's own rule: a tag first when there is none, each tag one token per image feature and a newline."""
    pytest.importorskip("pcre2")
    genai = np.load(FOLDER / "genai_tokens.npz")
    prompt, want = _recorded()[key]
    assert np.array_equal(want[:, prompt.shape[1]:], genai[key])  # the two references agree
    out = tmp_path / "tokens.npy"
    r = run_cli("generate", FOLDER, "--image", PIXELS, "--prompt", GENAI_PROMPTS[key], "-n", NEW, "--output", out)
    assert r.exit_code == 0, r.output
    assert np.array_equal(np.load(out), want)
    assert r.stdout.splitlines()[1] == str(genai[f"{key}_text"][0])
    (tmp_path / "want.txt").write_text(str(genai[f"{key}_text"][0]), encoding="utf-8")
    r = run_cli("generate", FOLDER, "--image", PIXELS, "--prompt", GENAI_PROMPTS[key], "-n", NEW,
                "--compare", tmp_path / "want.txt")
    assert r.exit_code == 0 and "PASSED: the generated text matches" in r.output, r.output


def _openvino_greedy(ids: np.ndarray, pixel_values: np.ndarray, image_token: int, new: int) -> np.ndarray:
    """The three IRs on OpenVINO CPU, fed as optimum-intel's _OVLlavaForCausalLM feeds them."""
    ov = pytest.importorskip("openvino")
    core, f32 = ov.Core(), {"INFERENCE_PRECISION_HINT": "f32"}
    vision = core.compile_model(str(FOLDER / "openvino_vision_embeddings_model.xml"), "CPU", f32)
    text = core.compile_model(str(FOLDER / "openvino_text_embeddings_model.xml"), "CPU", f32)
    lm = core.compile_model(str(FOLDER / "openvino_language_model.xml"), "CPU", f32).create_infer_request()
    features = vision(pixel_values)[0]
    embeds = text(ids)[0].copy()
    embeds[ids == image_token] = features.reshape(-1, features.shape[-1])
    tokens, batch = ids.astype(np.int64), ids.shape[0]
    feeds = {"inputs_embeds": embeds, "attention_mask": np.ones_like(tokens),
             "position_ids": np.broadcast_to(np.arange(tokens.shape[1]), tokens.shape).copy(),
             "beam_idx": np.arange(batch, dtype=np.int32)}
    for _ in range(new):
        nxt = lm.infer(feeds)["logits"][:, -1].argmax(-1).astype(np.int64)[:, None]
        tokens = np.concatenate([tokens, nxt], 1)
        feeds = {"inputs_embeds": text(nxt)[0], "attention_mask": np.ones_like(tokens),
                 "position_ids": np.full((batch, 1), tokens.shape[1] - 1), "beam_idx": np.arange(batch, dtype=np.int32)}
    return tokens


def test_the_recording_is_what_openvino_gives_today() -> None:
    image_token = json.loads((FOLDER / "config.json").read_text())["image_token_index"]
    pixel_values = np.load(PIXELS)
    for prompt, want in _recorded().values():
        assert np.array_equal(_openvino_greedy(prompt, pixel_values, image_token, NEW), want)


def test_a_batch_of_two_images_and_prompts_matches_openvino(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    """Row r's image tokens take image r's features (a masked scatter fills them in order)."""
    import jsonschema

    pixels = np.load(PIXELS)
    two = np.concatenate([pixels, pixels[:, :, ::-1]])
    ids = np.concatenate([_recorded()["image_first"][0], _recorded()["image_inside"][0]])
    np.save(tmp_path / "two.npy", two)
    np.savez(tmp_path / "ids.npz", input_ids=ids)
    np.save(tmp_path / "want.npy", _openvino_greedy(ids, two, 377, NEW))
    r = run_cli("generate", FOLDER, "--image", tmp_path / "two.npy", "-i", tmp_path / "ids.npz", "-n", NEW,
                "--compare", tmp_path / "want.npy", "--report", tmp_path / "report.json")
    assert r.exit_code == 0 and "PASSED" in r.output, r.output
    first = _recorded()["image_first"]  # row 0 is the recorded single prompt
    assert r.stdout.splitlines()[0] == " ".join(map(str, first[1][0, first[0].shape[1]:]))
    schema = json.loads((Path(__file__).parent.parent / "schemas" / "generate-report.schema.json").read_text())
    doc = json.loads((tmp_path / "report.json").read_text())
    jsonschema.Draft202012Validator(schema).validate(doc)


def test_the_export_folder_checks_clean(run_cli) -> None:  # type: ignore[no-untyped-def]
    r = run_cli("check", FOLDER)
    assert r.exit_code == 0 and "5 files, 0 errors, 0 warnings" in r.output, r.output


def test_the_language_model_alone_needs_a_way_to_embed_tokens() -> None:
    session = Session(str(FOLDER / "openvino_language_model.xml"))
    prompt, _ = _recorded()["image_first"]
    with pytest.raises(ModelError) as e:
        generate(session, {"input_ids": prompt}, 2)
    assert e.value.code == "not-causal-lm" and "inputs_embeds" in str(e.value)


def _fails(r, code: str) -> None:  # type: ignore[no-untyped-def]
    assert r.exit_code == 1 and f"[{code}]" in r.output and "Traceback" not in r.output, r.output


def test_pixel_values_of_the_wrong_type_or_shape(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    pixels = np.load(PIXELS)
    cases = {"image": np.load(FOLDER / "image.npy")[None].transpose(0, 3, 1, 2),  # the image's bytes, not pixel values
             "ints": pixels.astype(np.int32), "small": pixels[:, :, :16, :16], "rank3": pixels[0],
             "channels": pixels[:, :2], "none": pixels[:0]}
    for name, value in cases.items():
        np.save(tmp_path / f"{name}.npy", value)
        r = run_cli("generate", FOLDER, "--image", tmp_path / f"{name}.npy", "--prompt", "hi", "-n", 2)
        _fails(r, "bad-pixel-values")
        assert f"{value.dtype}{list(value.shape)}".replace(" ", "") in r.output.replace(" ", ""), r.output
    assert "not an image's bytes" in run_cli("generate", FOLDER, "--image", tmp_path / "image.npy", "-p", "hi", "-n", 1).output
    np.save(tmp_path / "f64.npy", pixels.astype(np.float64))  # any float is cast to the model's type
    assert run_cli("generate", FOLDER, "--image", tmp_path / "f64.npy", "--prompt", "hi", "-n", 2).exit_code == 0


def test_a_folder_that_is_not_a_vlm_export(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    mamba = Path(__file__).parent / "data" / "mamba_export"
    _fails(run_cli("generate", mamba, "--image", PIXELS, "--prompt", "hi", "-n", 2), "not-vlm-export")
    _fails(run_cli("generate", mamba / "openvino_model.xml", "--image", PIXELS, "--prompt", "hi", "-n", 2), "not-vlm-export")
    partial = tmp_path / "partial"
    shutil.copytree(FOLDER, partial)
    (partial / "openvino_vision_embeddings_model.xml").unlink()
    r = run_cli("generate", partial, "--image", PIXELS, "--prompt", "hi", "-n", 2)
    _fails(r, "not-vlm-export")
    assert "openvino_vision_embeddings_model.xml" in r.output
    (partial / "openvino_vision_embeddings_model.xml").write_bytes((FOLDER / "openvino_vision_embeddings_model.xml").read_bytes())
    config = json.loads((FOLDER / "config.json").read_text())
    del config["image_token_index"]
    (partial / "config.json").write_text(json.dumps(config))
    _fails(run_cli("generate", partial, "--image", PIXELS, "--prompt", "hi", "-n", 2), "not-vlm-export")
    shutil.copy(FOLDER / "config.json", partial / "config.json")
    (partial / "openvino_tokenizer.xml").unlink()
    r = run_cli("generate", partial, "--image", PIXELS, "--prompt", "hi", "-n", 2)
    _fails(r, "not-vlm-export")
    assert "token ids" in r.output


def test_image_tokens_that_do_not_match_the_image(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    prompt, _ = _recorded()["image_first"]
    np.savez(tmp_path / "short.npz", input_ids=prompt[:, 3:])  # 13 image tokens for 16 features
    r = run_cli("generate", FOLDER, "--image", PIXELS, "-i", tmp_path / "short.npz", "-n", 2)
    _fails(r, "image-tokens-mismatch")
    assert "13 image token(s)" in r.output and "16 feature(s)" in r.output
    _fails(run_cli("generate", FOLDER, "--image", PIXELS, "-p", "<image> and <image>", "-n", 2), "image-tokens-mismatch")


def test_a_vlm_export_needs_an_image_and_one_prompt(run_cli) -> None:  # type: ignore[no-untyped-def]
    r = run_cli("generate", FOLDER, "--prompt", "hi", "-n", 2)
    assert r.exit_code == 2 and "[bad-prompt]" in r.output and "--image" in r.output
    r = run_cli("generate", FOLDER, "--image", PIXELS, "-n", 2)
    assert r.exit_code == 2 and "[bad-prompt]" in r.output
