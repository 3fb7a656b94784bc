"""Ops of the `string` family: OpenVINO's core ops on the string element type."""
