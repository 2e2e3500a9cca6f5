"""Fetching a PyDataset's batches ahead of training, in threads or worker processes.

``prefetch(dataset, indices, ...)`` yields ``dataset[i]`` for ``i`` in ``indices``, in that
order, while up to ``max_queue_size`` later batches are being fetched by ``workers``
threads (or processes with ``use_multiprocessing``). A worker's exception is re-raised in
the training thread carrying the worker's traceback (a process's as the text of its
``__cause__``). Closing the generator -- the epoch ended, training stopped early, an
exception or Ctrl-C in the training thread -- cancels what was not started, waits for what
was, and joins every thread and process before it returns.

Worker processes get the dataset once, through the pool's initializer (pickled under the
``spawn`` and ``forkserver`` start methods, inherited under ``fork``); each task is one
index, and each batch comes back through the pool's result queue. The workers ignore
SIGINT: Ctrl-C interrupts the training thread, which then shuts them down.
"""
from __future__ import annotations

import collections
import concurrent.futures
import multiprocessing
import signal
from concurrent.futures.process import BrokenProcessPool

# The start method of worker processes: None is the platform's default. Tests set it to
# check that the design holds under "spawn" as well as "fork".
start_method = None

_worker_dataset = None


def _start_worker(dataset) -> None:
    global _worker_dataset
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _worker_dataset = dataset


def _fetch_in_worker(index):
    return _worker_dataset[index]


def uses_workers(workers: int, use_multiprocessing: bool) -> bool:
    """Keras's rule: more than one worker, or one worker process."""
    return workers > 1 or (workers > 0 and bool(use_multiprocessing))


def _executor(dataset, workers: int, use_multiprocessing: bool):
    if not use_multiprocessing:
        return concurrent.futures.ThreadPoolExecutor(
            workers, thread_name_prefix=f"lamina-{type(dataset).__name__}"), dataset.__getitem__
    context = multiprocessing.get_context(start_method)
    return concurrent.futures.ProcessPoolExecutor(
        workers, mp_context=context, initializer=_start_worker,
        initargs=(dataset,)), _fetch_in_worker


def prefetch(dataset, indices, workers: int, use_multiprocessing: bool,
             max_queue_size: int):
    """``dataset[i]`` for ``i`` in ``indices`` (an iterable, possibly infinite), in order,
    fetched by a pool of ``workers`` at most ``max_queue_size`` batches ahead."""
    indices = iter(indices)
    executor, fetch = _executor(dataset, workers, use_multiprocessing)
    pending = collections.deque()
    try:
        for index in indices:
            pending.append((index, executor.submit(fetch, index)))
            if len(pending) >= max_queue_size:
                break
        while pending:
            index, future = pending.popleft()
            batch = _result(dataset, index, future)
            for index in indices:                    # keep the queue full: one more
                pending.append((index, executor.submit(fetch, index)))
                break
            yield batch
    finally:
        for _, future in pending:
            future.cancel()
        executor.shutdown(wait=True, cancel_futures=True)


def _result(dataset, index, future):
    try:
        return future.result()
    except BrokenProcessPool as error:
        raise RuntimeError(f"{type(dataset).__name__}: a worker process ended abruptly "
                           f"while fetching batch {index} (use_multiprocessing=True); "
                           f"check the dataset's __getitem__ for os._exit, crashes or "
                           f"running out of memory") from error
