"""Mixed precision on the CPU: mixed_bfloat16 MLP and VGG-style CNN train steps vs float32.

    python benchmarks/mixed_precision.py [--repeats 10] [--rounds 3]

MLP 784-512-512-10 (softmax output kept in float32, as Keras advises), batch 256, SGD,
graph mode. Prints, in one run:

- the train step time (best of N, train_on_batch), mixed_bfloat16 / float32
  (target <= 1.3x: numpy computes 16-bit matmuls in float32 and stores 16 bits);
- the activation memory, mixed_bfloat16 / float32 (target <= 0.6x): the bytes of the
  step's memory plan (its arena) that hold a value per example -- activations and their
  gradients; the weights' float32 gradients and the weights' bfloat16 copies are per-model.

With float32 input data the first layer keeps a bfloat16 copy of its input for the
backward pass (a float32 model reads the input itself, outside the plan); the third line
feeds the data already in bfloat16, as a 16-bit input pipeline would.

Then the VGG-style CNN of ``common.cnn`` (32x32x3, batch 64, Adam) built under each global
policy: its step time, mixed_bfloat16 / float32 (target: < 1x where oneDNN runs the bfloat16
convolutions and matmuls natively, AVX512-BF16/AMX).
"""
import argparse
import numpy as np

from common import best_of, cnn

import lamina as keras  # noqa: E402
from lamina.dtypes import itemsize  # noqa: E402


def model_for(policy: str):
    layers = keras.layers
    keras.utils.set_random_seed(0)
    return keras.Sequential([
        keras.Input((784,)),
        layers.Dense(512, activation="relu", dtype=policy),
        layers.Dense(512, activation="relu", dtype=policy),
        layers.Dense(10, dtype=policy),
        layers.Activation("softmax", dtype="float32")])


def compiled(policy: str, x, y):
    model = model_for(policy)
    model.compile(optimizer="sgd", loss="sparse_categorical_crossentropy")
    for _ in range(2):
        model.train_on_batch(x, y)                 # trace, plan, warm up
    return model


def activation_bytes(model, batch: int) -> int:
    """Bytes of the step's planned buffers that hold a value per example (leading axis
    the batch): activations and their gradients. Weights, their gradients and the
    optimizer's values are per-model, not per-example, and are left out."""
    total = 0
    for traced in model.train_function.function._plans.values():
        plan = traced.plans[batch]
        for shape, dtype in plan.memory.buffers:
            if shape and shape[0] == batch:
                count = 1
                for d in shape:
                    count *= d
                total += count * itemsize(dtype)
    return total


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    batch = 256                       # no weight axis has this length
    x = rng.standard_normal((batch, 784)).astype("float32")
    y = rng.integers(0, 10, batch)
    runs = {"float32": ("float32", x),
            "mixed_bfloat16": ("mixed_bfloat16", x),
            "mixed_bfloat16, bfloat16 data": ("mixed_bfloat16", x.astype("bfloat16"))}
    models = {name: compiled(policy, data, y) for name, (policy, data) in runs.items()}
    seconds = dict.fromkeys(runs, float("inf"))
    for _ in range(args.rounds):      # interleaved: a busy machine slows all runs alike
        for name, (_, data) in runs.items():
            model = models[name]
            seconds[name] = min(seconds[name],
                                best_of(lambda: model.train_on_batch(data, y), args.repeats))
    memory = {name: activation_bytes(model, batch) for name, model in models.items()}
    t32, m32 = seconds["float32"], memory["float32"]
    for name in runs:
        print(f"{name:30s} step {seconds[name] * 1e3:7.2f} ms  {seconds[name] / t32:5.2f}x "
              f"(target <= 1.3x)   activations {memory[name] / 2**20:5.2f} MiB  "
              f"{memory[name] / m32:5.2f}x (target <= 0.6x)")
    cnn_seconds = cnn_steps(args.repeats, args.rounds)
    for policy, t in cnn_seconds.items():
        print(f"CNN {policy:26s} step {t * 1e3:7.2f} ms  "
              f"{t / cnn_seconds['float32']:5.2f}x (target < 1x)")


def cnn_steps(repeats: int, rounds: int) -> dict:
    """Best step time of the VGG-style CNN built under each global policy."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal((64, 32, 32, 3)).astype("float32")
    y = rng.integers(0, 10, 64)
    models = {}
    for policy in ("float32", "mixed_bfloat16"):
        keras.mixed_precision.set_global_policy(policy)
        try:
            keras.utils.set_random_seed(0)
            model = cnn(keras)
        finally:
            keras.mixed_precision.set_global_policy("float32")
        model.compile(optimizer="adam",
                      loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
        for _ in range(10):
            model.train_on_batch(x, y)                 # trace, plan, compile the chains
        models[policy] = model
    seconds = dict.fromkeys(models, float("inf"))
    for _ in range(rounds):
        for policy, model in models.items():
            seconds[policy] = min(seconds[policy],
                                  best_of(lambda: model.train_on_batch(x, y), repeats))
    return seconds


if __name__ == "__main__":
    main()
