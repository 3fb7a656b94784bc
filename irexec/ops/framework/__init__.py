"""What every op shares: the declaration language, tensors and partial values, the
registry and OpenVINO's opsets, shape helpers, and the sub-graph framework."""
