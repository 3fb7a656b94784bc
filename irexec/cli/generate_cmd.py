"""`irexec generate`: greedy decoding with a stateful causal LM."""

from __future__ import annotations

import click

from ..base.errors import IRExecError
from .base import cli, fail
from .option_groups import memory_options


@cli.command()
@click.argument("model")
@click.option("--inputs", "-i", "inputs_path", metavar="PROMPT.npz",
              help="npz holding input_ids [batch, tokens] and optionally the model's other prefill inputs "
                   "(attention_mask, position_ids, beam_idx, cache_position), used as given.")
@click.option("--prompt", "-p", metavar="TEXT", help="With an export folder: the prompt, tokenized by its openvino_tokenizer.xml.")
@click.option("--prompt-file", metavar="FILE", help="With an export folder: the prompt, read from this UTF-8 file.")
@click.option("--image", "image_path", metavar="PIXELS.npy",
              help="With a VLM export folder: the image processor's pixel_values [images, channels, height, width] "
                   "(float; the resize and normalisation are in no IR, see docs/vision-language.md).")
@click.option("--audio", "audio_path", metavar="WAVE.npy",
              help="With a Whisper export folder: the 16 kHz waveform [samples] or [batch, samples], made into "
                   "log-mel features as its preprocessor_config.json says.")
@click.option("--audio-features", "features_path", metavar="FEATURES.npy",
              help="With a Whisper export folder: the log-mel features, f32 [batch, mel bins, frames], to transcribe.")
@click.option("--language", metavar="LANG", help="With --audio-features: the language (en or <|en|>, a key of "
              "generation_config.json's lang_to_id) rather than detecting it.")
@click.option("--task", type=click.Choice(["transcribe", "translate"]),
              help="With --audio-features: the task token (generation_config.json's task_to_id).")
@click.option("--max-new-tokens", "-n", type=click.IntRange(min=1), required=True, help="Tokens to generate per row.")
@click.option("--output", "-o", "output_path", metavar="TOKENS.npy",
              help="Write the prompt and the new tokens, int64 [batch, prompt + new], to this .npy (atomically).")
@click.option("--eos-token-id", type=int, metavar="ID",
              help="Stop once every row has produced this token (a row that has is filled with it); with an export "
                   "folder, default: generation_config.json's eos_token_id.")
@click.option("--ignore-eos", is_flag=True,
              help="Generate --max-new-tokens per row whatever tokens come: no end-of-sequence token stops it "
                   "(GenAI's ignore_eos).")
@click.option("--compare", "compare_path", metavar="TOKENS.npy|TEXT.txt",
              help="Compare the tokens with this .npy, or (export folder) the generated text with this file's text; "
                   "a mismatch exits 1 naming the first difference.")
@click.option("--profile", is_flag=True, help="Print the latency of every model call: the prefill, then each decode step.")
@click.option("--report", "report_path", metavar="OUT.json",
              help="Write the tokens and the measurements as JSON (schemas/generate-report.schema.json), atomically.")
@click.option("--weights", metavar="FILE.bin", help="The .bin file (default: beside MODEL).")
@memory_options()
@click.option("--follow-symlinks", is_flag=True, default=None,
              help="Read files through symbolic links that lead out of their folder (default: $IREXEC_FOLLOW_SYMLINKS).")
def generate(model: str, inputs_path: str | None, prompt: str | None, prompt_file: str | None, image_path: str | None,
             audio_path: str | None, features_path: str | None, language: str | None, task: str | None,
             max_new_tokens: int,
             output_path: str | None, eos_token_id: int | None, ignore_eos: bool, compare_path: str | None, profile: bool,
             report_path: str | None, weights: str | None, max_memory: int | None, follow_symlinks: bool | None) -> None:
    """Greedy decoding with MODEL, a stateful LM as optimum-intel exports it (a KV-cache
    transformer, an SSM such as Mamba, or a hybrid), or
    with an export folder (openvino_model.xml and the openvino-tokenizers pair): text in,
    text out, as GenAI's LLMPipeline(folder); with a LLaVA-style VLM export folder and
    --image, as GenAI's VLMPipeline(folder); or with a Whisper export folder and
    --audio-features: the start tokens, language detection and suppressed tokens of
    transformers' Whisper generate (docs/stateful.md).

    From a reset state the prompt is run once; each new token is the argmax of the
    logits at the last position, fed back as a one-token decode step with
    attention_mask, position_ids, beam_idx and cache_position built as
    optimum-intel builds them for the model's family (docs/stateful.md).
    Prints the new token ids, then time to first token, decode and overall
    tokens per second and peak memory, as GenAI's benchmark does.

    \b
    Example:
      irexec generate llm/model.xml --inputs prompt.npz --max-new-tokens 16 --output tokens.npy
      irexec generate llm/model.xml -i prompt.npz -n 16 --compare reference_tokens.npy --profile
      irexec generate llm-folder/ --prompt "The capital of France is" -n 16
      irexec generate vlm-folder/ --image pixel_values.npy --prompt "What is in the picture?" -n 16
      irexec generate whisper-folder/ --audio-features features.npy -n 32
      irexec generate whisper-folder/ --audio speech-16khz.npy -n 32
    """
    from ..api.generate.pipelines import SPEECH, VISION, pipeline_kind
    from .generate_request import Request, check_request

    sound = features_path if audio_path is None else audio_path
    kind = SPEECH if sound is not None else VISION if image_path is not None else pipeline_kind(model)
    request = Request(model, max_new_tokens, output_path, eos_token_id, ignore_eos, compare_path, profile, report_path,
                      max_memory, follow_symlinks or None)
    try:
        check_request(request, kind, {"--inputs": inputs_path, "--prompt": prompt, "--prompt-file": prompt_file,
                                      "--image": image_path, "--audio": audio_path, "--audio-features": features_path,
                                      "--language": language, "--task": task})
    except IRExecError as e:
        fail(e)
    if kind == SPEECH:
        from .generate_speech import generate_speech

        generate_speech(request, audio_path, features_path, language, task)
    elif kind == VISION:
        from .generate_vision import generate_vision

        generate_vision(request, image_path, inputs_path, prompt, prompt_file)  # type: ignore[arg-type]
    else:
        from .generate_text import generate_text

        generate_text(request, weights, inputs_path, prompt, prompt_file)
