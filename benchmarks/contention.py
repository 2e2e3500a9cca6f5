"""Training under CPU contention, and across fresh processes, as ratios.

    python benchmarks/contention.py [--peer PEER_JAX/bin/python] [--epochs 2]
                                    [--competitor-threads 1] [--ways env|unset|both]
    python benchmarks/contention.py --fresh 8 [--samples 1024] [--peer ...]

Contention: the small VGG-style model of ``examples/vgg_digits.py`` is trained (``fit``,
batch 32, Adam) on the embedded digits dataset (the 1,437 training images) in a child
process (``contention_peer.py``): warmed up with one epoch, then timed over ``--epochs``
epochs quietly, then again while this script runs one competing CPU-bound process (a
Python loop of float32 1024x1024 numpy matmuls with ``--competitor-threads`` BLAS
threads, default 1: one core taken), then quietly once more (drift check). It prints
loaded/quiet: the time ratio (> 1: slower under load). The competing process is killed
whatever happens (try/finally; SIGTERM and Ctrl-C included). ``--peer`` runs the same
measurement in Keras 3 on JAX (``KERAS_BACKEND=jax``) with that Python.

``--fresh N``: the VGG-style CNN training throughput (``train_cnn.py``'s workload:
32x32x3, batch 64, Adam, after 10 warm-up batches) in N fresh processes one after
another, each one's samples/s and ms/step, and min/max (a bimodal step time shows as a
ratio well below 1).

``--ways``: ``env`` runs the children with OPENBLAS_CORETYPE/OPENBLAS_L2_SIZE as the
environment sets them, ``unset`` with both removed (as vs_peers.py does), ``both`` each.
Machines are shared and noisy: compare only figures taken in the same run.
"""
import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
PEER_SCRIPT = os.path.join(HERE, "contention_peer.py")
BLAS_VARIABLES = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")
THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")

COMPETITOR = """
import sys
import numpy as np
a = np.random.default_rng(0).random((1024, 1024), dtype=np.float32)
b = a.copy()
a @ b
print("running", flush=True)
while True:
    a @ b
"""


def environment(way: str, keras_backend: bool = False) -> dict:
    env = dict(os.environ)
    if way == "unset":
        for name in BLAS_VARIABLES:
            env.pop(name, None)
    if keras_backend:
        env["KERAS_BACKEND"] = "jax"
    return env


class Competitor:
    """One CPU-bound process (a numpy GEMM loop) for the duration of a ``with`` block;
    killed on the way out, however the block ends."""

    def __init__(self, threads: int, env: dict):
        self.env = dict(env, **{name: str(threads) for name in THREAD_VARIABLES})
        self.process = None

    def __enter__(self):
        self.process = subprocess.Popen([sys.executable, "-c", COMPETITOR], env=self.env,
                                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                        text=True)
        try:
            if self.process.stdout.readline().strip() != "running":
                raise RuntimeError("the competing process did not start")
            time.sleep(0.5)                         # let the scheduler settle
        except BaseException:
            self.stop()
            raise
        return self

    def stop(self):
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
        if self.process is not None:
            self.process.wait()
            self.process.stdout.close()

    def __exit__(self, *exc):
        self.stop()
        return False


class Timer:
    """A ``contention_peer.py digits`` child: warmed up on start, one timed fit per
    ``measure()``; ended on ``close()``."""

    def __init__(self, python: str, framework: str, data: str, epochs: int, env: dict):
        command = [python, PEER_SCRIPT, framework, "digits", "--data", data,
                   "--epochs", str(epochs)]
        self.process = subprocess.Popen(command, env=env, stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, text=True)
        self.info = self._read()

    def _read(self) -> dict:
        while True:
            line = self.process.stdout.readline()
            if not line:
                raise RuntimeError(f"the timing process ended (exit {self.process.wait()})")
            if line.startswith("{"):
                return json.loads(line)

    def measure(self) -> dict:
        self.process.stdin.write("measure\n")
        self.process.stdin.flush()
        return self._read()

    def kill(self):
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()

    def close(self):
        if self.process.poll() is None:
            try:
                self.process.stdin.write("quit\n")
                self.process.stdin.flush()
                self.process.wait(timeout=30)
            except (OSError, subprocess.TimeoutExpired):
                self.process.kill()
                self.process.wait()


def digits_file(folder: str) -> str:
    """The embedded digits' training split as x (n, 8, 8, 1) float32 in [0, 1] and y."""
    sys.path.insert(0, ROOT)
    import numpy as np
    import lamina as keras
    (x, y), _ = keras.datasets.digits.load_data()
    path = os.path.join(folder, "digits_train.npz")
    np.savez(path, x=x[..., None].astype("float32") / 16.0, y=y.astype("int64"))
    return path


def contention(frameworks, data, epochs, threads, way):
    blas = "OpenBLAS variables unset" if way == "unset" else "environment as set"
    print(f"\n== contention ({blas}; one competing process, {threads} BLAS thread(s))")
    print(f"{'framework':12s} {'quiet':>10s} {'loaded':>10s} {'quiet again':>12s} "
          f"{'loaded/quiet':>13s}   (samples/s; the ratio is of times: > 1 slower)")
    for label, python, name in frameworks:
        env = environment(way, keras_backend=name == "keras")
        timer = None
        try:
            timer = Timer(python, name, data, epochs, env)
            quiet = timer.measure()["samples_per_s"]
            with Competitor(threads, environment(way)):
                loaded = timer.measure()["samples_per_s"]
            again = timer.measure()["samples_per_s"]
        except RuntimeError as error:
            print(f"{label:12s} failed: {error}")
            continue
        except BaseException:                  # SIGTERM, Ctrl-C: no waiting for a fit
            if timer is not None:
                timer.kill()
            raise
        finally:
            if timer is not None:
                timer.close()
        print(f"{label:12s} {quiet:10.1f} {loaded:10.1f} {again:12.1f} "
              f"{quiet / loaded:12.2f}x")


def fresh(frameworks, count, samples, way):
    print(f"\n== CNN training throughput in {count} fresh processes "
          f"({'OpenBLAS variables unset' if way == 'unset' else 'environment as set'})")
    for label, python, name in frameworks:
        env = environment(way, keras_backend=name == "keras")
        rates = []
        for index in range(count):
            done = subprocess.run([python, PEER_SCRIPT, name, "cnn", "--samples",
                                   str(samples)], env=env, capture_output=True, text=True,
                                  timeout=1800)
            rows = [json.loads(line) for line in done.stdout.splitlines()
                    if line.startswith("{")]
            if done.returncode != 0 or not rows:
                print(f"{label} process {index + 1}: failed\n{done.stderr[-1500:]}")
                continue
            rates.append(rows[-1]["samples_per_s"])
            print(f"{label} process {index + 1:2d}: {rates[-1]:8.1f} samples/s  "
                  f"{rows[-1]['ms_per_step']:7.1f} ms/step", flush=True)
        if rates:
            print(f"{label}: min {min(rates):.1f}, median {statistics.median(rates):.1f}, "
                  f"max {max(rates):.1f} samples/s; min/max {min(rates) / max(rates):.2f}")


def _terminate(signum, frame):
    raise SystemExit(128 + signum)      # unwinds through the finally blocks


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--peer", help="a Python with keras and jax (Keras 3 on JAX)")
    parser.add_argument("--epochs", type=int, default=2, help="timed epochs per figure")
    parser.add_argument("--competitor-threads", type=int, default=1)
    parser.add_argument("--ways", choices=("both", "env", "unset"), default="env")
    parser.add_argument("--fresh", type=int, default=0, metavar="N",
                        help="instead: CNN training throughput in N fresh processes")
    parser.add_argument("--samples", type=int, default=1024,
                        help="--fresh: timed samples per process (batch 64)")
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, _terminate)
    frameworks = [("lamina", sys.executable, "lamina")]
    if args.peer:
        frameworks.append(("keras3-jax", args.peer, "keras"))
    ways = ("env", "unset") if args.ways == "both" else (args.ways,)
    seen = {name: os.environ.get(name, "unset") for name in BLAS_VARIABLES}
    print(f"environment: {seen}; {os.cpu_count()} CPUs")
    if args.fresh:
        for way in ways:
            fresh(frameworks, args.fresh, args.samples, way)
        return
    with tempfile.TemporaryDirectory() as folder:
        data = digits_file(folder)
        for way in ways:
            contention(frameworks, data, args.epochs, args.competitor_threads, way)


if __name__ == "__main__":
    main()
