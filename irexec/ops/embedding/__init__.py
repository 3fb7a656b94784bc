"""Ops of the `embedding` family: bags of rows of an embedding table summed
or averaged (EmbeddingBag*, EmbeddingSegmentsSum); one module per op type or
small group of related types."""
