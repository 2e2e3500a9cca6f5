"""Lamina against its peers on the same CPU, in one run: MLP and VGG-style CNN training
throughput and batch-1 MLP predict latency, as ratios.

    python benchmarks/vs_peers.py --torch PEER_TORCH/bin/python --keras PEER_JAX/bin/python
                                  [--quick] [--ways both|env|unset]

The peers run ``benchmarks/peers.py`` (a copy of the shared peer script: PyTorch eager,
Keras 3 on JAX) in their own virtual environments, which the project never installs::

    python3 -m venv peer-torch && peer-torch/bin/pip install torch numpy
    python3 -m venv peer-jax && peer-jax/bin/pip install "jax[cpu]" keras

Lamina runs the same workloads (same shapes, batch sizes, Adam, data sizes) in a child
process. Each figure is measured twice in the run ("ways"): with OpenBLAS as the
environment sets it (the build machine forces its Haswell kernel through
``OPENBLAS_CORETYPE``/``OPENBLAS_L2_SIZE``), and with both variables unset together, so
numpy's BLAS picks its own kernel as the peers' MKL/oneDNN/XLA do. Rounds interleave the
frameworks, and the best of ``--rounds`` counts.
"""
import argparse
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
BLAS_VARIABLES = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")
WORKLOADS = {"mlp_train": "samples/s", "cnn_train": "samples/s", "mlp_infer_b1": "us/call"}


def run_lamina(quick: bool, conv_threads: bool = False) -> None:
    """The peers' workloads in Lamina (graph mode), as peers.py's JSON lines;
    ``conv_threads``: with the opt-in ``backend.conv_threads`` (its own column)."""
    sys.path.insert(0, HERE)
    import numpy as np
    from common import cnn, mlp
    import lamina as keras

    keras.backend.get_backend().conv_threads = conv_threads
    name = "lamina conv_threads" if conv_threads else "lamina"
    rng = np.random.default_rng(0)

    def emit(workload, value, unit):
        print(json.dumps({"peer": name, "workload": workload, "value": round(value, 3),
                          "unit": unit}), flush=True)

    def train(build, x, y, batch, epochs):
        keras.utils.set_random_seed(0)
        model = build(keras)
        model.compile(optimizer=keras.optimizers.Adam(1e-3),
                      loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
        model.fit(x, y, batch_size=batch, epochs=1, verbose=0)      # warm-up / trace
        start = time.perf_counter()
        model.fit(x, y, batch_size=batch, epochs=epochs, verbose=0)
        return (len(x) // batch) * batch * epochs / (time.perf_counter() - start), model

    n = 4096 if quick else 8192
    x = rng.standard_normal((n, 784)).astype("float32")
    y = rng.integers(0, 10, n)
    emit("mlp_train", train(mlp, x, y, 128, 2)[0], "samples/s")
    n = 256 if quick else 1024
    x = rng.standard_normal((n, 32, 32, 3)).astype("float32")
    y = rng.integers(0, 10, n)
    emit("cnn_train", train(cnn, x, y, 64, 1)[0], "samples/s")
    model = mlp(keras)
    xb = np.zeros((1, 784), "float32")
    for _ in range(50):
        model.predict_on_batch(xb)
    calls = 2000
    start = time.perf_counter()
    for _ in range(calls):
        model.predict_on_batch(xb)
    emit("mlp_infer_b1", (time.perf_counter() - start) / calls * 1e6, "us/call")


def _environment(way: str) -> dict:
    env = dict(os.environ)
    if way == "unset":
        for name in BLAS_VARIABLES:
            env.pop(name, None)
    return env


def _figures(command, env) -> dict:
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=1800)
    if done.returncode != 0:
        print(f"  {' '.join(command)} failed:\n{done.stderr[-2000:]}", file=sys.stderr)
        return {}
    rows = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    return {(row["peer"], row["workload"]): row["value"] for row in rows}


def _better(unit, a, b):
    if a is None:
        return b
    return max(a, b) if unit == "samples/s" else min(a, b)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--torch", help="a Python with torch installed")
    parser.add_argument("--keras", help="a Python with keras and jax installed")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--ways", choices=("both", "env", "unset"), default="both")
    parser.add_argument("--conv-threads", action="store_true",
                        help="also run Lamina with backend.conv_threads = True (a column)")
    parser.add_argument("--emit-lamina", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.emit_lamina:
        return run_lamina(args.quick, args.conv_threads)
    quick = ["--quick"] if args.quick else []
    commands = {"lamina": [sys.executable, os.path.abspath(__file__), "--emit-lamina", *quick],
                "gemm": [sys.executable, os.path.join(HERE, "peers.py"), "gemm"]}
    if args.conv_threads:
        commands["lamina conv_threads"] = [*commands["lamina"], "--conv-threads"]
    if args.torch:
        commands["torch"] = [args.torch, os.path.join(HERE, "peers.py"), "torch", *quick]
    if args.keras:
        commands["keras"] = [args.keras, os.path.join(HERE, "peers.py"), "keras", *quick]
    ways = ("env", "unset") if args.ways == "both" else (args.ways,)
    seen = {name: os.environ.get(name, "unset") for name in BLAS_VARIABLES}
    print(f"environment: {seen}; ways: {', '.join(ways)}; best of {args.rounds} rounds")
    for way in ways:
        env = _environment(way)
        if way == "env" and all(v == "unset" for v in seen.values()):
            print("(this environment sets neither variable: both ways run the same BLAS)")
        best: dict = {}
        for _ in range(args.rounds):
            for command in commands.values():
                env_for = dict(env, KERAS_BACKEND="jax") if command is commands.get("keras") \
                    else env
                for key, value in _figures(command, env_for).items():
                    unit = WORKLOADS.get(key[1], "GFLOP/s")
                    best[key] = _better(unit, best.get(key), value)
        _report(way, best)


def _report(way, best):
    roof = best.get(("numpy-gemm-roofline", "sgemm_1024"))
    print(f"\n== OpenBLAS {'as the environment sets it' if way == 'env' else 'variables unset'}"
          f" (numpy sgemm 1024: {roof} GFLOP/s)")
    peers = sorted({peer for peer, _ in best if peer not in ("lamina", "numpy-gemm-roofline")})
    print(f"{'workload':14s} {'lamina':>10s} " + " ".join(f"{p:>16s}" for p in peers))
    for workload, unit in WORKLOADS.items():
        ours = best.get(("lamina", workload))
        cells = []
        for peer in peers:
            theirs = best.get((peer, workload))
            if ours is None or theirs is None:
                cells.append(f"{'-':>16s}")
                continue
            ratio = ours / theirs if unit == "samples/s" else theirs / ours
            cells.append(f"{theirs:9.1f} {ratio:5.2f}x")
        print(f"{workload:14s} {ours if ours is not None else float('nan'):10.1f} "
              + " ".join(cells) + f"   ({unit}; ratio > 1: Lamina ahead)")


if __name__ == "__main__":
    main()
