"""Data-parallel step time: 2 processes vs 1, the share spent waiting for communication,
and the allreduce's latency and bandwidth (the alpha-beta model of docs/distributed.md).

    python benchmarks/distributed.py [--steps 30] [--batch 256] [--bucket-mb 25]

Runs itself under ``mpirun -n 1`` and ``mpirun -n 2`` (needs ``pip install
lamina[distributed]``; as root it sets OMPI_ALLOW_RUN_AS_ROOT*). The workload is the MLP
784-512-512-10 (669,706 float32 parameters, 2.7 MB of gradients), Adam, graph mode, a
global batch of ``--batch`` rows. Communication share = the time a step is blocked in
``allreduce_wait`` over the step time. The alpha-beta fit times blocking allreduces of
8 B .. 16 MB between the 2 processes (both on this host: shared memory, not a network).
"""
import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

SIZES = [8, 1 << 10, 1 << 14, 1 << 18, 1 << 20, 1 << 22, 1 << 24]


def worker(steps: int, batch: int, bucket_mb: float) -> None:
    import lamina as keras
    from common import mlp
    from lamina.distribution.world import world
    keras.distribution.initialize()
    data_parallel = keras.distribution.DataParallel()
    data_parallel.bucket_bytes = int(bucket_mb * 2 ** 20)
    keras.distribution.set_distribution(data_parallel)
    comm = world()
    keras.utils.set_random_seed(0)
    rng = np.random.default_rng(0)
    x = rng.normal(size=(batch, 784)).astype("float32")
    y = rng.integers(0, 10, size=batch)
    model = mlp(keras)
    model.compile(optimizer=keras.optimizers.Adam(1e-3),
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    for _ in range(3):
        model.train_on_batch(x, y)                 # build, trace, warm up
    comm.barrier()
    comm.wait_seconds = 0.0
    start = time.perf_counter()
    for _ in range(steps):
        model.train_on_batch(x, y)
    step = (time.perf_counter() - start) / steps
    waiting = comm.wait_seconds / steps
    timings = {}
    for size in SIZES:
        buffer = np.ones(size // 8, dtype="float64")
        repeats = 20 if size <= (1 << 20) else 5
        best = float("inf")
        for _ in range(repeats):          # the best of N: the host is shared and noisy
            comm.barrier()
            start = time.perf_counter()
            comm.allreduce_host([buffer])
            best = min(best, time.perf_counter() - start)
        timings[size] = best
    params = sum(int(np.prod(w.shape)) for w in model.get_weights())
    if comm.rank == 0:
        print("RESULT " + json.dumps({"processes": comm.size, "step": step,
                                      "waiting": waiting, "allreduce": timings,
                                      "gradient_bytes": 4 * params}))


def run(n: int, steps: int, batch: int, bucket_mb: float) -> dict:
    threads = os.environ.get("OMP_NUM_THREADS", "1")     # one BLAS thread a process
    env = {**os.environ, "OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
           "OMP_NUM_THREADS": threads, "OPENBLAS_NUM_THREADS": threads,
           "MKL_NUM_THREADS": threads,
           "PYTHONPATH": os.path.dirname(os.path.dirname(os.path.abspath(__file__)))}
    command = ["mpirun", "-n", str(n), "--oversubscribe", sys.executable,
               os.path.abspath(__file__), "--worker", "--steps", str(steps), "--batch",
               str(batch), "--bucket-mb", str(bucket_mb)]
    out = subprocess.run(command, env=env, capture_output=True, text=True, timeout=600)
    for line in out.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[7:])
    raise SystemExit(f"{' '.join(command)} failed:\n{out.stdout}\n{out.stderr}")


def fit_alpha_beta(timings: dict) -> tuple[float, float]:
    """Ring allreduce at p = 2 takes T(n) = 2 alpha + n beta (2(p-1) = 2 messages carrying
    2(p-1)/p = 1 times the bytes): alpha from the smallest message, beta from the slope
    between the two largest (each timing the best of several)."""
    sizes = sorted(timings)
    alpha = timings[sizes[0]] / 2
    beta = (timings[sizes[-1]] - timings[sizes[-2]]) / (sizes[-1] - sizes[-2])
    return alpha, beta


def ring(p: int, nbytes: float, alpha: float, beta: float) -> float:
    return 2 * (p - 1) * alpha + 2 * (p - 1) / p * nbytes * beta


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--bucket-mb", type=float, default=25.0,
                        help="DataParallel.bucket_bytes in MiB (default 25)")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        return worker(args.steps, args.batch, args.bucket_mb)
    one = run(1, args.steps, args.batch, args.bucket_mb)
    two = run(2, args.steps, args.batch, args.bucket_mb)
    print(f"MLP 784-512-512-10, global batch {args.batch}, {args.steps} steps, graph mode, "
          f"buckets of {args.bucket_mb:g} MiB, "
          f"{os.environ.get('OMP_NUM_THREADS', '1')} BLAS thread(s) per process, "
          f"{os.cpu_count()} CPU cores on this host")
    print(f"1 process : {one['step'] * 1e3:8.2f} ms/step")
    print(f"2 processes: {two['step'] * 1e3:8.2f} ms/step  speed-up "
          f"{one['step'] / two['step']:.2f}x  blocked in communication "
          f"{two['waiting'] * 1e3:.2f} ms ({100 * two['waiting'] / two['step']:.1f}% of a step)")
    timings = {int(k): v for k, v in two["allreduce"].items()}
    alpha, beta = fit_alpha_beta(timings)
    print(f"allreduce (2 processes, this host): alpha = {alpha * 1e6:.1f} us, "
          f"bandwidth 1/beta = {1 / beta / 1e9:.2f} GB/s")
    for size, seconds in sorted(timings.items()):
        print(f"  {size:>9d} B: measured {seconds * 1e6:9.1f} us, model "
              f"{ring(2, size, alpha, beta) * 1e6:9.1f} us")
    nbytes = two["gradient_bytes"]
    print(f"gradients {nbytes / 1e6:.2f} MB: model {ring(2, nbytes, alpha, beta) * 1e3:.2f} ms "
          f"per step at 2 processes; measured blocked {two['waiting'] * 1e3:.2f} ms "
          f"(the rest overlaps the backward pass)")
    compute = max(two["step"] - two["waiting"], 1e-9)
    print("weak scaling (per-process batch fixed, no overlap assumed):")
    for p in (2, 8, 64, 512):
        comm = ring(p, nbytes, alpha, beta)
        print(f"  {p:>3d} workers: allreduce {comm * 1e3:7.2f} ms, step "
              f"{(compute + comm) * 1e3:7.2f} ms, efficiency {compute / (compute + comm):.2f}")


if __name__ == "__main__":
    main()
