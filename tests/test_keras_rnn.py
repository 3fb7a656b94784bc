"""A Keras 3 LSTM/GRU model converted by OpenVINO's TensorFlow frontend
(tests/data/keras_models/make_keras_rnn.py): its Loop bodies hold Broadcast-1 in numpy mode
with a 0-d axes_mapping input, which that mode ignores, as OpenVINO does."""

from __future__ import annotations

from pathlib import Path

DATA = Path(__file__).parent / "data" / "keras_models"


def test_the_keras_rnn_checks_clean_and_runs_as_openvino(run_cli) -> None:  # type: ignore[no-untyped-def]
    xml = DATA / "keras_rnn.xml"
    text = xml.read_text()
    assert 'type="Loop"' in text and 'type="Broadcast" version="opset1"' in text
    r = run_cli("check", xml)
    assert r.exit_code == 0 and "0 errors, 0 warnings" in r.output, r.output
    r = run_cli("run", xml, "--inputs", DATA / "keras_rnn_inputs.npz", "--compare", DATA / "keras_rnn_expected.npz")
    assert r.exit_code == 0 and "PASSED" in r.output, r.output
