"""Lamina against its peers on the same CPU, in one run, as ratios: MLP and VGG-style CNN
training throughput, batch-1 MLP predict latency, ResNet50 / MobileNetV2 predict and
training, LSTM / GRU training (and onnxruntime on Lamina's ONNX export).

    python benchmarks/vs_peers.py --torch PEER_TORCH/bin/python --keras PEER_JAX/bin/python
                                  [--quick] [--ways both|env|unset] [--rounds 2]
                                  [--only basic,resnet,mobilenet,onnx,rnn]
                                  [--warmup 10] [--calls N] [--steps N] [--timeout 3600]

``--only`` picks groups of workloads (default: all of them): ``basic`` the three original
workloads; ``resnet`` ResNet50 predict at batch 1 and 8 and a training step at batch 16;
``mobilenet`` MobileNetV2 predict at batch 1 and 8; ``onnx`` an onnxruntime column running
Lamina's own ONNX export of those image models (``--only onnx`` alone: onnxruntime's
times for both models, with no Lamina rows to compare them with); ``rnn`` LSTM(128) and
GRU(128) training steps (50 steps x 32 features, batch 32, Dense(10)). Their shapes,
optimizers and timing are in ``keras_workloads.py``, whose code Lamina and Keras-on-JAX
both run; PyTorch runs eager torchvision models (channels_last) and nn.LSTM/nn.GRU + Linear
(``peers.py``). Every figure is taken
after ``--warmup`` calls or steps (default 10: any trace or compile is inside it; fewer
only for smoke tests). Lamina runs with its defaults for these rows.

The peers run ``benchmarks/peers.py`` (a copy of the shared peer script: PyTorch eager,
Keras 3 on JAX) in their own virtual environments, which the project never installs::

    python3 -m venv peer-torch && peer-torch/bin/pip install torch torchvision numpy
    python3 -m venv peer-jax && peer-jax/bin/pip install "jax[cpu]" keras numpy

Lamina runs the same workloads (same shapes, batch sizes, Adam, data sizes) in a child
process. Each figure is measured twice in the run ("ways"): with OpenBLAS as the
environment sets it (the build machine forces its Haswell kernel through
``OPENBLAS_CORETYPE``/``OPENBLAS_L2_SIZE``), and with both variables unset together, so
numpy's BLAS picks its own kernel as the peers' MKL/oneDNN/XLA do. Rounds interleave the
frameworks, and the best of ``--rounds`` counts. ``--ways unset`` runs only the
unset-variables measurement (as ``env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE`` would).

onnxruntime runs in this Python (``pip install onnx onnxruntime``) with its default
intra-op threads (``THREADS`` sets them, as it does PyTorch's; PyTorch defaults to 2).
"""
import argparse
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
BLAS_VARIABLES = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")
sys.path.insert(0, HERE)
import common  # noqa: E402,F401  (puts this repository's lamina first on sys.path)
import keras_workloads as kw  # noqa: E402

BASIC = {"mlp_train": "samples/s", "cnn_train": "samples/s", "mlp_infer_b1": "us/call"}
WORKLOADS = {**BASIC, **kw.WORKLOADS}
ONNX_PEER = "onnxruntime"


def _emitter(name):
    def emit(workload, value, unit):
        print(json.dumps({"peer": name, "workload": workload, "value": round(value, 3),
                          "unit": unit}), flush=True)
    return emit


def _emit_versions(name, text):
    print(json.dumps({"peer": name, "workload": "versions", "value": 0, "unit": "",
                      "text": text}), flush=True)


def run_lamina(quick: bool, groups=None, warmup: int = 10, calls=None, steps=None) -> None:
    """The peers' workloads in Lamina (graph mode, default settings), as peers.py's JSON
    lines; the larger workloads run keras_workloads.py."""
    import numpy as np
    from common import cnn, mlp
    import lamina as keras

    groups = kw.parse_groups(None) if groups is None else groups
    name = "lamina"
    emit = _emitter(name)
    _emit_versions(name, f"lamina {getattr(keras, '__version__', '?')}, "
                         f"numpy {np.__version__}")
    if "basic" in groups:
        _run_lamina_basic(keras, np, cnn, mlp, emit, quick)
    kw.run_keras_api(keras, emit, groups, warmup=warmup, quick=quick, calls=calls,
                     steps=steps)


def _run_lamina_basic(keras, np, cnn, mlp, emit, quick):
    rng = np.random.default_rng(0)

    def train(build, x, y, batch, epochs):
        keras.utils.set_random_seed(0)
        model = build(keras)
        model.compile(optimizer=keras.optimizers.Adam(1e-3),
                      loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
        model.fit(x, y, batch_size=batch, epochs=1, verbose=0)      # warm-up / trace
        kw.settle(model)                                            # chains compiled
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


def run_onnxruntime(groups, warmup: int = 10, quick: bool = False, calls=None) -> None:
    """Lamina's own ONNX export (``model.export(path, format="onnx")``) of ResNet50 and
    MobileNetV2 (weights=None) run in onnxruntime: median ms per call at batch 1 and 8."""
    import tempfile
    import numpy as np
    import lamina as keras
    import onnxruntime as ort

    emit = _emitter(ONNX_PEER)
    _emit_versions(ONNX_PEER, f"onnxruntime {ort.__version__} on Lamina's export")
    n = kw.counts(quick, calls, None)
    apps = [(g, name, arch) for g, name, arch in
            (("resnet", "resnet50", "ResNet50"), ("mobilenet", "mobilenetv2", "MobileNetV2"))
            if g in groups]
    if not apps:        # --only onnx alone: both models
        apps = [(None, "resnet50", "ResNet50"), (None, "mobilenetv2", "MobileNetV2")]
    options = ort.SessionOptions()
    if os.environ.get("THREADS"):
        options.intra_op_num_threads = int(os.environ["THREADS"])
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    rng = np.random.default_rng(0)
    with tempfile.TemporaryDirectory() as tmpdir:
        for _, name, arch in apps:
            keras.utils.set_random_seed(0)
            model = getattr(keras.applications, arch)(weights=None)
            path = os.path.join(tmpdir, f"{name}.onnx")
            model.export(path, format="onnx", verbose=False)
            session = ort.InferenceSession(path, options, providers=["CPUExecutionProvider"])
            feed = session.get_inputs()[0].name
            for batch in kw.PREDICT_BATCHES:
                x = kw.images(rng, batch)[0]
                ours, theirs = model.predict_on_batch(x), session.run(None, {feed: x})[0]
                if not np.allclose(ours, theirs, rtol=1e-3, atol=1e-5):
                    print(f"{arch} batch {batch}: onnxruntime differs from Lamina's predict "
                          f"(max {np.abs(ours - theirs).max():.3g})", file=sys.stderr)
                emit(f"{name}_infer_b{batch}",
                     kw.median_ms(lambda: session.run(None, {feed: x}), warmup,
                                  n["predict_calls"]), "ms/call")
            del model, session


def _environment(way: str) -> dict:
    env = dict(os.environ)
    if way == "unset":
        for name in BLAS_VARIABLES:
            env.pop(name, None)
    return env


VERSIONS: dict = {}


def _figures(command, env, timeout: float = 3600) -> dict:
    """The JSON lines of one child process as {(peer, workload): value}; a child that fails
    or times out still gives the figures it printed before (its error goes to stderr)."""
    try:
        done = subprocess.run(command, env=env, capture_output=True, text=True,
                              timeout=timeout)
        stdout, failed = done.stdout, done.returncode != 0
        stderr = done.stderr
    except subprocess.TimeoutExpired as error:
        stdout = error.stdout.decode() if isinstance(error.stdout, bytes) else error.stdout
        stdout, failed, stderr = stdout or "", True, f"timed out after {timeout} s"
    if failed:
        print(f"  {' '.join(command)} failed:\n{stderr[-2000:]}", file=sys.stderr)
    rows = [json.loads(line) for line in stdout.splitlines() if line.startswith("{")]
    for row in rows:
        if row["workload"] == "versions":
            VERSIONS[row["peer"]] = row.get("text", "")
    return {(row["peer"], row["workload"]): row["value"] for row in rows
            if row["workload"] != "versions"}


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
    parser.add_argument("--only", default=None,
                        help="comma-separated groups: basic,resnet,mobilenet,onnx,rnn "
                             "(default: all)")
    parser.add_argument("--warmup", type=int, default=10,
                        help="warm-up calls/steps before timing the larger workloads "
                             "(>= 10 for a measurement; fewer only for smoke tests)")
    parser.add_argument("--calls", type=int, default=None,
                        help="timed predict calls (default 20, --quick 5)")
    parser.add_argument("--steps", type=int, default=None,
                        help="timed training steps (default ResNet50 5 / RNN 50; "
                             "--quick 2 / 20)")
    parser.add_argument("--timeout", type=float, default=3600,
                        help="seconds one framework's process may run")
    parser.add_argument("--emit-lamina", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--emit-onnxrt", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    groups = kw.parse_groups(args.only)
    args.warmup = max(args.warmup, 1)
    if args.emit_lamina:
        return run_lamina(args.quick, groups, args.warmup, args.calls, args.steps)
    if args.emit_onnxrt:
        return run_onnxruntime(groups, args.warmup, args.quick, args.calls)
    options = ["--quick"] if args.quick else []
    if args.only:
        options += ["--only", ",".join(sorted(groups))]
    options += ["--warmup", str(args.warmup)]
    options += ["--calls", str(args.calls)] if args.calls else []
    options += ["--steps", str(args.steps)] if args.steps else []
    peers_py = os.path.join(HERE, "peers.py")
    lamina_groups = groups - {"onnx"}
    commands = {"gemm": [sys.executable, peers_py, "gemm"]}
    if lamina_groups:
        commands["lamina"] = [sys.executable, os.path.abspath(__file__), "--emit-lamina",
                              *options]
    if "onnx" in groups:
        commands["onnxruntime"] = [sys.executable, os.path.abspath(__file__), "--emit-onnxrt",
                                   *options]
    if lamina_groups and args.torch:
        commands["torch"] = [args.torch, peers_py, "torch", *options]
    if lamina_groups and args.keras:
        commands["keras"] = [args.keras, peers_py, "keras", *options]
    ways = ("env", "unset") if args.ways == "both" else (args.ways,)
    seen = {name: os.environ.get(name, "unset") for name in BLAS_VARIABLES}
    print(f"environment: {seen}; ways: {', '.join(ways)}; best of {args.rounds} rounds; "
          f"groups: {','.join(g for g in kw.GROUPS if g in groups)}; warm-up {args.warmup}",
          flush=True)
    for way in ways:
        env = _environment(way)
        if way == "env" and all(v == "unset" for v in seen.values()):
            print("(this environment sets neither variable: both ways run the same BLAS)")
        best: dict = {}
        for _ in range(args.rounds):
            for command in commands.values():
                env_for = dict(env, KERAS_BACKEND="jax") if command is commands.get("keras") \
                    else env
                for key, value in _figures(command, env_for, args.timeout).items():
                    unit = WORKLOADS.get(key[1], "GFLOP/s")
                    best[key] = _better(unit, best.get(key), value)
        _report(way, best)
    if VERSIONS:
        print("\nversions: " + "; ".join(f"{peer}: {text}" for peer, text in VERSIONS.items()))


def _report(way, best):
    roof = best.get(("numpy-gemm-roofline", "sgemm_1024"))
    print(f"\n== OpenBLAS {'as the environment sets it' if way == 'env' else 'variables unset'}"
          f" (numpy sgemm 1024: {roof} GFLOP/s)")
    peers = sorted({peer for peer, _ in best if peer not in ("lamina", "numpy-gemm-roofline")})
    print(f"{'workload':20s} {'lamina':>10s} " + " ".join(f"{p:>16s}" for p in peers))
    for workload, unit in WORKLOADS.items():
        ours = best.get(("lamina", workload))
        if ours is None and not any((peer, workload) in best for peer in peers):
            continue                                  # a group that was not run
        cells = []
        for peer in peers:
            theirs = best.get((peer, workload))
            if ours is None or theirs is None:
                cells.append(f"{'-':>16s}")
                continue
            ratio = ours / theirs if unit == "samples/s" else theirs / ours
            cells.append(f"{theirs:9.1f} {ratio:5.2f}x")
        print(f"{workload:20s} {ours if ours is not None else float('nan'):10.1f} "
              + " ".join(cells) + f"   ({unit}; ratio > 1: Lamina ahead)")


if __name__ == "__main__":
    main()
