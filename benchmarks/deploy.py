"""Deployment latency at batch 1: the MLP 784-512-512-10 exported to ONNX and run in
onnxruntime, against the bare numpy computation (three ``x @ W + b`` with ReLU, as in
predict_latency.py) and Lamina's ``predict_on_batch`` (graph mode), as ratios in one run.

    python benchmarks/deploy.py [--calls 2000] [--threads 1]

The int8 rows (``model.quantize("int8")`` exported and run in onnxruntime, digits accuracy,
file sizes) come from ``benchmarks/deploy_int8.py`` when it is present: see INT8 HOOK below.
"""
import argparse
import os
import tempfile

import numpy as np

from common import mlp
from predict_latency import per_call_us

import lamina as keras  # noqa: E402


def onnx_session(path, threads: int):
    import onnxruntime as ort
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])


def float_rows(model, x, calls: int, threads: int, tmpdir: str) -> dict:
    """name -> µs per call: the numpy floor, Lamina predict_on_batch, onnxruntime float32."""
    (k1, b1, k2, b2, k3, b3) = model.get_weights()

    def floor():
        h = np.maximum(x @ k1 + b1, 0)
        h = np.maximum(h @ k2 + b2, 0)
        return h @ k3 + b3
    path = os.path.join(tmpdir, "mlp.onnx")
    model.export(path, format="onnx", verbose=False)
    session = onnx_session(path, threads)
    name = session.get_inputs()[0].name
    np.testing.assert_allclose(session.run(None, {name: x})[0], floor(), rtol=1e-4, atol=1e-5)
    model.compile(optimizer="adam", loss="mse")
    np.testing.assert_allclose(model.predict_on_batch(x), floor(), rtol=1e-4, atol=1e-5)
    return {"numpy floor": per_call_us(floor, calls),
            "Lamina predict_on_batch (float32)": per_call_us(
                lambda: model.predict_on_batch(x), calls),
            "onnxruntime float32": per_call_us(lambda: session.run(None, {name: x}), calls),
            "_float_onnx_bytes": os.path.getsize(path)}


# ------------------------------------------------------------------------- INT8 HOOK
# benchmarks/deploy_int8.py (the int8 quantization work) defines
#   int8_rows(model=None, calls=2000, epochs=10) -> [(label, value, target), ...]
# (digits accuracy float32/int8, file sizes, latencies); they are printed below as given.
# A row whose label starts with "onnxruntime int8" and ends with "(us)" (batch-1 latency of
# the int8 MLP exported to ONNX) is also printed as ratios to this run's numpy floor and to
# Lamina's float32 predict_on_batch (the target: <= 0.4x).
def int8_hook():
    try:
        import deploy_int8
    except ImportError:
        return None
    return deploy_int8 if hasattr(deploy_int8, "int8_rows") else None


def print_int8_rows(rows, floor: float, lamina_float: float) -> None:
    width = max([len(label) for label, _, _ in rows] + [34])
    for label, value, target in rows:
        shown = f"{value:.4f}" if isinstance(value, float) else str(value)
        print(f"{label:{width}s}  {shown:>12s}  {target}")
        if label.startswith("onnxruntime int8") and label.endswith("(us)"):
            print(f"{'  ratio to the numpy floor':{width}s}  {value / floor:12.2f}")
            print(f"{'  ratio to Lamina float32 predict':{width}s}  "
                  f"{value / lamina_float:12.2f}  <= 0.4")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--threads", type=int, default=1,
                        help="onnxruntime intra-op threads (batch 1: one is fastest)")
    args = parser.parse_args()
    keras.utils.set_random_seed(0)
    model = mlp(keras)
    x = np.random.default_rng(0).standard_normal((1, 784)).astype("float32")
    with tempfile.TemporaryDirectory() as tmpdir:
        results = float_rows(model, x, args.calls, args.threads, tmpdir)
        float_bytes = results.pop("_float_onnx_bytes")
    floor, lamina_float = results["numpy floor"], results["Lamina predict_on_batch (float32)"]
    print(f"{'batch-1 MLP 784-512-512-10':36s} {'us/call':>9s}  {'/ floor':>7s}  "
          f"{'/ Lamina f32':>12s}")
    for name, us in results.items():
        print(f"{name:36s} {us:9.1f}  {us / floor:7.2f}  {us / lamina_float:12.2f}")
    print(f"float32 ONNX file: {float_bytes / 1e6:.2f} MB")
    hook = int8_hook()
    if hook is None:
        print("int8 rows: benchmarks/deploy_int8.py (int8_rows) is not present")
    else:
        print_int8_rows(hook.int8_rows(calls=args.calls), floor, lamina_float)
    print("targets: onnxruntime float32 <= 1.0x the floor; int8 in onnxruntime <= 0.4x "
          "Lamina float32 predict")


if __name__ == "__main__":
    main()
