"""Ops of the `tokenizers` family: the openvino_tokenizers extension, not core OpenVINO.

Tokenizer and detokenizer IR made by openvino_tokenizers (``openvino_tokenizer.xml``,
``openvino_detokenizer.xml`` in an optimum-cli export folder) holds these ops with
``version="extension"``; OpenVINO reads them only with that package loaded.  Their
semantics are the package's C++ kernels, verified against OpenVINO with it loaded.
Strings flow between them decomposed: a ragged tensor of strings is
(ragged begins, ragged ends, begins, ends, bytes); regexes run on RE2 (regex_engine.py)."""
