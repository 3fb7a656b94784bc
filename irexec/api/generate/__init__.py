"""Generation: the pipelines of export folders (``pipelines``: text, vision-language, speech),
greedy decoding with a stateful LM (``greedy``), its one table of decoder inputs per model
family (``decode_inputs``), the folders' readers and the report of a generation."""

from .greedy import CausalLM, GenerateResult, causal_lm, generate
from .pipelines import LLMPipeline, PipelineResult, VLMPipeline, WhisperPipeline, open_pipeline, pipeline_kind

__all__ = ["CausalLM", "GenerateResult", "LLMPipeline", "PipelineResult", "VLMPipeline", "WhisperPipeline", "causal_lm",
           "generate", "open_pipeline", "pipeline_kind"]
