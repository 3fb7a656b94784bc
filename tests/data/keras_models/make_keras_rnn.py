"""Write keras_rnn.xml/.bin here: a small Keras 3 sequence model (LSTM, then GRU, then Dense,
random weights, seeded) converted by OpenVINO's TensorFlow frontend from the SavedModel Keras
exports, with its inputs and OpenVINO CPU's outputs beside it.  The frontend lowers each
recurrent layer to a Loop whose body broadcasts with Broadcast-1 in numpy mode fed a 0-d
axes_mapping input, which the mode ignores.  Needs tensorflow-cpu, keras and openvino; the
tests only read the files this writes.

    python tests/data/keras_models/make_keras_rnn.py
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("KERAS_BACKEND", "tensorflow")

import keras  # noqa: E402
import numpy as np  # noqa: E402
import openvino as ov  # noqa: E402

HERE = Path(__file__).resolve().parent


def main() -> None:
    keras.utils.set_random_seed(20261127)
    inputs = keras.Input(shape=(7, 5), batch_size=2, name="x")
    h = keras.layers.LSTM(8, return_sequences=True)(inputs)
    h = keras.layers.GRU(6)(h)
    outputs = keras.layers.Dense(3, name="y")(h)
    model = keras.Model(inputs, outputs)
    with tempfile.TemporaryDirectory() as tmp:
        model.export(tmp, format="tf_saved_model")
        converted = ov.convert_model(tmp)
    ov.save_model(converted, HERE / "keras_rnn.xml", compress_to_fp16=False)
    x = np.random.default_rng(3).standard_normal((2, 7, 5)).astype(np.float32)
    compiled = ov.Core().compile_model(HERE / "keras_rnn.xml", "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    name = compiled.inputs[0].get_any_name()
    out = compiled({name: x})
    np.savez(HERE / "keras_rnn_inputs.npz", **{name: x})
    np.savez(HERE / "keras_rnn_expected.npz", **{o.get_any_name(): v for o, v in out.items()})
    print("inputs", name, "outputs", [o.get_any_name() for o in out])


if __name__ == "__main__":
    main()
