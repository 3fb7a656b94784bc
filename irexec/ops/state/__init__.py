"""Ops of the `state` family: a stateful model's variables (ReadValue reads one, Assign writes it)."""

from .variables import Assign3, Assign6, AssignOp, ReadValue3, ReadValue6, ReadValueOp, StateOp, Variable

__all__ = ["Assign3", "Assign6", "AssignOp", "ReadValue3", "ReadValue6", "ReadValueOp", "StateOp", "Variable"]
