"""How much of a PyDataset's batch-making time its workers hide behind training (issue 12
item 4: a PyDataset doing 5 ms of Python work per batch, 4 workers, target >= 70%).

    python benchmarks/pipeline.py [--work-ms 5] [--batches 60] [--rounds 3] [--workers 4]

Three workloads, each ``--work-ms`` per batch:

* ``python``: a pure-Python loop that holds the GIL; threads cannot overlap it with
  training, so it runs with ``use_multiprocessing=True`` (worker processes);
* ``sleep``: ``time.sleep``, the shape of I/O (reading files); threads;
* ``numpy``: elementwise numpy work on a large array, which releases the GIL; threads.

For each: D = the serial time to make one epoch's batches, T = the epoch time of training
on batches that cost nothing to make, E = the epoch time with the workers. Serially an
epoch would take D + T; the hidden fraction is (D + T - E) / D (1.0: all of D hidden;
0: none). The three are measured in interleaved rounds and the best of each taken (on a
shared machine, the round least disturbed by other processes; --median for medians); a worker
pool starts every epoch and its start is counted. Python and numpy work is a fixed amount,
calibrated to ``--work-ms`` on this machine before the rounds.
"""
import argparse
import os
import statistics
import sys
import threading
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import lamina  # noqa: E402
from lamina import layers  # noqa: E402

BATCH, FEATURES = 256, 512


def _python_work(units: int) -> int:
    total = 0
    for i in range(units * 100):
        total += i * i
    return total


_BUFFER = threading.local()


def _numpy_work(units: int) -> None:
    buffer = getattr(_BUFFER, "a", None)
    if buffer is None:                  # one per thread; large ops keep the GIL released
        buffer = _BUFFER.a = np.random.default_rng(0).random(1 << 19)
    for _ in range(units):
        np.sqrt(buffer, out=buffer)
        np.add(buffer, 1.0, out=buffer)


WORK = {"python": _python_work, "numpy": _numpy_work}


def calibrate(kind: str, seconds: float) -> int:
    """The units of ``kind`` work that take ``seconds`` on this machine (the best of a few
    tries: the least disturbed by other processes). ``sleep`` needs none."""
    if kind not in WORK:
        return 0
    units = 16
    while True:
        best = min(_timed(WORK[kind], units) for _ in range(5))
        if best > 2e-3:
            return max(1, round(units * seconds / best))
        units *= 2


def _timed(fn, *args) -> float:
    start = time.perf_counter()
    fn(*args)
    return time.perf_counter() - start


class Batches(lamina.utils.PyDataset):
    """``batches`` batches of (BATCH, FEATURES) data, each made with ``work`` seconds of
    the chosen workload (``units`` of it, calibrated to ``work`` seconds)."""

    def __init__(self, kind: str, work: float, units: int, batches: int, **kwargs):
        super().__init__(**kwargs)
        self.kind, self.work, self.units, self.batches = kind, work, units, batches
        rng = np.random.default_rng(1)
        self.x = rng.normal(size=(BATCH, FEATURES)).astype("float32")
        self.y = rng.integers(0, 10, size=(BATCH,))

    def __len__(self):
        return self.batches

    def __getitem__(self, index):
        if self.kind == "sleep":
            time.sleep(self.work)
        elif self.kind in WORK:
            WORK[self.kind](self.units)
        return self.x + np.float32(index % 7), self.y


class EpochTimer(lamina.callbacks.Callback):
    def on_train_begin(self, logs=None):
        self.times = []

    def on_epoch_begin(self, epoch, logs=None):
        self.start = time.perf_counter()

    def on_epoch_end(self, epoch, logs=None):
        self.times.append(time.perf_counter() - self.start)


def model(hidden: int):
    lamina.utils.set_random_seed(0)
    net = lamina.Sequential([layers.Input((FEATURES,)), layers.Dense(hidden, activation="relu"),
                             layers.Dense(10)])
    net.compile("sgd", "sparse_categorical_crossentropy")
    return net


def epoch_time(net, data) -> float:
    timer = EpochTimer()
    net.fit(data, epochs=1, verbose=0, shuffle=False, callbacks=[timer])
    return timer.times[0]


def serial_data_time(data) -> float:
    start = time.perf_counter()
    for index in range(len(data)):
        data[index]
    return time.perf_counter() - start


def measure(kind, args, net) -> float:
    """Rounds of (training on free batches, making the batches serially, training with the
    workers), interleaved so that a change in the machine's load hits all three; the best
round of each (or medians with --median)."""
    multiprocessing = kind == "python"
    work = args.work_ms / 1000
    units = calibrate(kind, work)
    free = Batches("none", 0.0, 0, args.batches)
    serial = Batches(kind, work, units, args.batches)
    piped = Batches(kind, work, units, args.batches, workers=args.workers,
                    use_multiprocessing=multiprocessing, max_queue_size=2 * args.workers)
    train, data, both = [], [], []
    for _ in range(args.rounds):
        train.append(epoch_time(net, free))
        data.append(serial_data_time(serial))
        both.append(epoch_time(net, piped))
    train_time, data_time, piped_time = (args.statistic(t) for t in (train, data, both))
    hidden = (data_time + train_time - piped_time) / data_time
    pool = "processes" if multiprocessing else "threads"
    print(f"{kind:6s} {args.workers} {pool:9s}: data {data_time * 1e3:7.1f} ms + train "
          f"{train_time * 1e3:7.1f} ms serially; epoch with workers {piped_time * 1e3:7.1f} "
          f"ms -> hidden {hidden:6.1%}", flush=True)
    return hidden


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work-ms", type=float, default=5.0)
    parser.add_argument("--batches", type=int, default=60)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--kinds", default="python,sleep,numpy")
    parser.add_argument("--hidden", type=int, default=1024,
                        help="the MLP's hidden width: sets the train step's time")
    parser.add_argument("--median", action="store_true",
                        help="medians of the rounds instead of their best (least disturbed)")
    args = parser.parse_args()
    args.statistic = statistics.median if args.median else min
    net = model(args.hidden)
    free = Batches("none", 0.0, 0, args.batches)
    epoch_time(net, free)                           # warm-up: trace, plan, first allocations
    step = epoch_time(net, free) / args.batches
    print(f"{os.cpu_count()} CPUs; {args.batches} batches of {BATCH}x{FEATURES} per epoch; "
          f"{args.work_ms:g} ms of work per batch; train step {step * 1e3:.1f} ms",
          flush=True)
    for kind in args.kinds.split(","):
        measure(kind, args, net)


if __name__ == "__main__":
    main()
