"""Ops of the `io` family: where tensors enter, live and leave (the engines use them by name)."""

from .parameter_const_result import Const1, Parameter1, Result1

__all__ = ["Const1", "Parameter1", "Result1"]
