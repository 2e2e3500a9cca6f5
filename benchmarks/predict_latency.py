"""Batch-1 MLP inference latency: predict_on_batch and model(x) in graph and eager mode,
against the bare numpy computation (three ``x @ W + b`` with ReLU) as the floor.

    python benchmarks/predict_latency.py [--calls 2000]
"""
import argparse

import numpy as np

from common import mlp, per_call_us

import lamina as keras  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=2000)
    args = parser.parse_args()
    keras.utils.set_random_seed(0)
    model = mlp(keras)
    x = np.random.default_rng(0).standard_normal((1, 784)).astype("float32")
    (k1, b1, k2, b2, k3, b3) = model.get_weights()

    def floor():
        h = np.maximum(x @ k1 + b1, 0)
        h = np.maximum(h @ k2 + b2, 0)
        return h @ k3 + b3
    results = {"numpy floor": per_call_us(floor, args.calls)}
    for eager in (True, False):
        model.compile(optimizer="adam", loss="mse", run_eagerly=eager)
        mode = "eager" if eager else "graph"
        np.testing.assert_allclose(model.predict_on_batch(x), floor(), rtol=1e-4, atol=1e-5)
        results[f"predict_on_batch ({mode})"] = per_call_us(
            lambda: model.predict_on_batch(x), args.calls)
    results["model(x, training=False) (eager)"] = per_call_us(
        lambda: model(x, training=False), args.calls)
    base = results["numpy floor"]
    for name, us in results.items():
        print(f"{name:36s} {us:8.1f} us/call   {us / base:5.2f}x the floor")
    print("target: predict_on_batch (graph) <= 1.3x the floor")


if __name__ == "__main__":
    main()
