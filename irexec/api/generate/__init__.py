"""Generation: greedy decoding with a stateful LM (``greedy``), its one table of decoder
inputs per model family (``decode_inputs``), export folders (text, Whisper, LLaVA-style VLM)
and the report of a generation."""

from .greedy import CausalLM, GenerateResult, causal_lm, generate

__all__ = ["CausalLM", "GenerateResult", "causal_lm", "generate"]
