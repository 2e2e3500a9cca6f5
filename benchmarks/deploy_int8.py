"""int8 deployment figures in one run: digits accuracy after ``model.quantize("int8")`` vs
float32, the int8 ``.keras`` file's size vs the float32 one, and Lamina's int8 predict
latency vs float32 (batch 1 and 256, graph mode, numpy backend), and the int8 model
exported to ONNX and run in onnxruntime (batch 1, one thread) vs Lamina's float32 predict.

    python benchmarks/deploy_int8.py [--epochs 10] [--calls 2000]

``int8_rows()`` returns the rows (label, value, target) for benchmarks/deploy.py.

What the files hold: Keras's ``.keras`` zip stores the config, and in ``model.weights.h5``
every variable -- the optimizer's slots too when the model was compiled and trained (Adam:
two more copies of every weight). A deployed model carries no optimizer, so both files
here are written from inference copies (config + weights, not compiled): float32 kernels
at 4 bytes a weight against int8 kernels at 1 byte plus a float32 scale per output channel.
Lamina's h5 writer adds a Fletcher-32 checksum to every dataset, so datasets are chunked and
each carries a chunk index: about 37 KB for this MLP's 9 int8 datasets (Keras's contiguous
datasets carry ~1 KB each). At width 512 that overhead alone lifts the ratio from 0.257 to
0.282; at width 1024 (the default here) the ratio is 0.260.
"""
from __future__ import annotations

import argparse
import os
import tempfile
import warnings

import numpy as np

from common import per_call_us  # (common also puts the repository on sys.path)

import lamina  # noqa: E402
from lamina.datasets import digits  # noqa: E402

ACCURACY_POINTS = 0.5       # the targets
SIZE_RATIO = 0.27


def digits_data():
    (x_train, y_train), (x_test, y_test) = digits.load_data()
    flat = lambda x: x.reshape(len(x), 64).astype("float32") / 16.0  # noqa: E731
    return (flat(x_train), y_train.astype("int32")), (flat(x_test), y_test.astype("int32"))


def train_digits_mlp(epochs: int = 10, seed: int = 0, width: int = 1024):
    """A 64-width-width-10 ReLU MLP trained on the embedded digits (Adam)."""
    lamina.utils.set_random_seed(seed)
    (x_train, y_train), _ = digits_data()
    layers = lamina.layers
    model = lamina.Sequential([lamina.Input((64,)), layers.Dense(width, activation="relu"),
                               layers.Dense(width, activation="relu"), layers.Dense(10)])
    model.compile(optimizer="adam", loss=lamina.losses.SparseCategoricalCrossentropy(
        from_logits=True), metrics=["accuracy"])
    model.fit(x_train, y_train, batch_size=64, epochs=epochs, verbose=0)
    return model


def inference_copy(model, quantize: bool):
    """The model's config and weights without its optimizer, quantized if asked."""
    copy = lamina.Sequential.from_config(model.get_config())
    copy.set_weights(model.get_weights())
    if quantize:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")      # Keras warns for the InputLayer
            copy.quantize("int8")
    return copy


def accuracy(model, x, y) -> float:
    return float(np.mean(np.argmax(model.predict(x, batch_size=256, verbose=0), -1) == y))


def file_size(model, folder: str, name: str) -> int:
    target = os.path.join(folder, name)
    model.save(target)
    return os.path.getsize(target)


def onnx_rows(float_model, int8_model, x, calls: int, folder: str) -> list:
    """Batch-1 onnxruntime latency of the float32 and int8 exports (one thread), and the
    int8 one against Lamina's float32 predict; [] without onnx/onnxruntime."""
    try:
        import onnxruntime as ort
    except ImportError:
        return []
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    options.log_severity_level = 3
    times = {}
    for label, m in (("float32", float_model), ("int8", int8_model)):
        target = os.path.join(folder, f"{label}.onnx")
        m.export(target, format="onnx", verbose=False)
        session = ort.InferenceSession(target, options, providers=["CPUExecutionProvider"])
        feed = {session.get_inputs()[0].name: x}
        np.testing.assert_allclose(session.run(None, feed)[0], m.predict_on_batch(x),
                                   rtol=1e-5, atol=1e-5)
        times[label] = per_call_us(lambda: session.run(None, feed), calls, warmup=20)
    lamina_float = per_call_us(lambda: float_model.predict_on_batch(x), calls, warmup=20)
    return [("onnxruntime float32, batch 1 (us)", times["float32"], ""),
            ("onnxruntime int8, batch 1 (us)", times["int8"], ""),
            ("onnxruntime int8 / Lamina float32 predict, batch 1",
             times["int8"] / lamina_float, "<= 0.4")]


def int8_rows(model=None, calls: int = 2000, epochs: int = 10) -> list:
    """``[(label, value, target), ...]``: accuracy, file size and latency figures."""
    model = model if model is not None else train_digits_mlp(epochs)
    _, (x_test, y_test) = digits_data()
    float_model = inference_copy(model, quantize=False)
    int8_model = inference_copy(model, quantize=True)
    float_acc, int8_acc = accuracy(float_model, x_test, y_test), accuracy(int8_model, x_test,
                                                                         y_test)
    with tempfile.TemporaryDirectory() as folder:
        float_size = file_size(float_model, folder, "float32.keras")
        int8_size = file_size(int8_model, folder, "int8.keras")
        reloaded = lamina.saving.load_model(os.path.join(folder, "int8.keras"))
        onnx = onnx_rows(float_model, int8_model, x_test[:1], calls, folder)
    np.testing.assert_array_equal(reloaded.predict(x_test, verbose=0),
                                  int8_model.predict(x_test, verbose=0))
    rows = [("digits accuracy float32 (%)", 100 * float_acc, ""),
            ("digits accuracy int8 (%)", 100 * int8_acc, ""),
            ("accuracy drop (points)", 100 * (float_acc - int8_acc),
             f"<= {ACCURACY_POINTS}"),
            ("float32 .keras size (bytes)", float_size, ""),
            ("int8 .keras size (bytes)", int8_size, ""),
            ("int8 / float32 file size", int8_size / float_size, f"<= {SIZE_RATIO}")]
    for batch in (1, 256):
        x = x_test[:batch]
        times = {}
        for label, m in (("float32", float_model), ("int8", int8_model)):
            m.predict_on_batch(x)
            times[label] = per_call_us(lambda: m.predict_on_batch(x), warmup=20, calls=
                                       max(calls // batch, 20))
        rows += [(f"predict_on_batch float32, batch {batch} (us)", times["float32"], ""),
                 (f"predict_on_batch int8, batch {batch} (us)", times["int8"], ""),
                 (f"int8 / float32 predict, batch {batch}", times["int8"] / times["float32"],
                  "")]
    return rows + onnx


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--calls", type=int, default=2000)
    args = parser.parse_args(argv)
    rows = int8_rows(calls=args.calls, epochs=args.epochs)
    width = max(len(label) for label, _, _ in rows)
    for label, value, target in rows:
        shown = f"{value:.4f}" if isinstance(value, float) else str(value)
        print(f"{label:{width}s}  {shown:>12s}  {target}")
    return rows


if __name__ == "__main__":
    main()
