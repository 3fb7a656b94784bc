"""The checker: every layer's declared dims and types against inference."""
