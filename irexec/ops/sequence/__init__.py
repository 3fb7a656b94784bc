"""Ops of the `sequence` family: decoding and scoring the outputs of sequence
models (CTC greedy decoders, CTCLoss, GatherTree of a beam search); one module
per op type or small group of related types."""
