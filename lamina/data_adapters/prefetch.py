"""Fetching a PyDataset's batches ahead of training, in threads or worker processes.

``prefetch(dataset, indices, ...)`` yields ``dataset[i]`` for ``i`` in ``indices``, in that
order, while up to ``max_queue_size`` later batches are being fetched by ``workers``
threads (or processes with ``use_multiprocessing``).

No wait is unbounded:

- A worker's exception is re-raised in the training thread as soon as the training thread
  waits for any batch, carrying the worker's traceback (a process's as the text of its
  ``__cause__``) and a note naming the dataset and the index; a batch stuck in another
  worker does not hold it back.
- Waiting for one batch is bounded by ``LAMINA_WORKER_TIMEOUT`` seconds (default 600,
  read when a pass starts): past it, ``WaitTimeoutError`` names the dataset, the index and
  the setting.
- Closing the generator -- the epoch ended, training stopped early, an error or Ctrl-C in
  the training thread -- cancels what was not started and does not wait for what was:
  worker processes are terminated and joined; worker threads (which cannot be killed) are
  daemon threads told to stop, joined for at most ``CLOSE_GRACE_SECONDS``, and a thread
  still inside ``__getitem__`` then ends when that call returns, without taking new work.

Worker processes get the dataset once, through the pool's initializer (pickled under the
``spawn`` and ``forkserver`` start methods, inherited under ``fork``); each task is one
index, and each batch comes back through the pool's result queue. The workers ignore
SIGINT: Ctrl-C interrupts the training thread, which then shuts them down.
"""
from __future__ import annotations

import collections
import concurrent.futures
import multiprocessing
import os
import queue
import signal
import threading
import time
from concurrent.futures.process import BrokenProcessPool

from ..errors import WaitTimeoutError, WorkerError
from ..settings import env_seconds

# The start method of worker processes: None is the platform's default. Tests set it to
# check that the design holds under "spawn" as well as "fork".
start_method = None

TIMEOUT_VARIABLE = "LAMINA_WORKER_TIMEOUT"
DEFAULT_TIMEOUT_SECONDS = 600.0
CLOSE_GRACE_SECONDS = 0.5        # how long a close waits for a worker thread to finish

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


def worker_timeout(owner: str) -> float:
    """Seconds the training thread waits for one batch (``LAMINA_WORKER_TIMEOUT``)."""
    return env_seconds(TIMEOUT_VARIABLE, DEFAULT_TIMEOUT_SECONDS, owner)


class _ThreadWorkers:
    """At most ``workers`` daemon threads, started on demand, fetching one index per task.
    Daemon threads, so that one stuck in ``__getitem__`` cannot keep the interpreter
    from exiting (concurrent.futures joins its threads at exit)."""

    def __init__(self, dataset, workers: int):
        self._fetch = dataset.__getitem__
        self._name = f"lamina-{type(dataset).__name__}"
        self._workers = workers
        self._tasks = queue.SimpleQueue()
        self._threads: list = []
        self._stopped = False

    def submit(self, index):
        future = concurrent.futures.Future()
        self._tasks.put((index, future))
        if len(self._threads) < self._workers:
            thread = threading.Thread(target=self._work, daemon=True,
                                      name=f"{self._name}_{len(self._threads)}")
            thread.start()
            self._threads.append(thread)
        return future

    def _work(self) -> None:
        while not self._stopped:
            task = self._tasks.get()
            if task is None:
                return
            index, future = task
            if self._stopped or not future.set_running_or_notify_cancel():
                continue
            try:
                future.set_result(self._fetch(index))
            except BaseException as error:   # noqa: BLE001 - re-raised in the training thread
                future.set_exception(error)
            del future, task                  # no reference to the batch or error kept

    def close(self) -> None:
        self._stopped = True
        for _ in self._threads:
            self._tasks.put(None)
        deadline = time.monotonic() + CLOSE_GRACE_SECONDS
        for thread in self._threads:
            thread.join(max(0.0, deadline - time.monotonic()))


class _ProcessWorkers:
    """A process pool whose close terminates the workers instead of waiting for them."""

    def __init__(self, dataset, workers: int):
        context = multiprocessing.get_context(start_method)
        self._executor = concurrent.futures.ProcessPoolExecutor(
            workers, mp_context=context, initializer=_start_worker, initargs=(dataset,))

    def submit(self, index):
        try:
            return self._executor.submit(_fetch_in_worker, index)
        except BrokenProcessPool as error:      # a worker died: reported with its batch
            future = concurrent.futures.Future()
            future.set_exception(error)
            return future

    def close(self) -> None:
        executor = self._executor
        # Private but stable (3.8-3.13): the pool's manager thread and its processes by
        # pid. Terminating the processes marks the pool broken; the manager thread then
        # joins them and ends, and only then are their pipes closed here.
        manager = getattr(executor, "_executor_manager_thread", None)
        processes = list((getattr(executor, "_processes", None) or {}).values())
        results = getattr(executor, "_result_queue", None)
        executor.shutdown(wait=False, cancel_futures=True)
        for process in processes:
            if process.is_alive():
                process.terminate()
        if manager is not None:
            manager.join(10)
        for process in processes:
            process.join(5)
            if process.is_alive():
                process.kill()
                process.join()
        if manager is None or not manager.is_alive():
            if results is not None:
                results.close()
            for process in processes:
                process.close()


def prefetch(dataset, indices, workers: int, use_multiprocessing: bool,
             max_queue_size: int):
    """``dataset[i]`` for ``i`` in ``indices`` (an iterable, possibly infinite), in order,
    fetched by a pool of ``workers`` at most ``max_queue_size`` batches ahead."""
    indices = iter(indices)
    owner = type(dataset).__name__
    limit = worker_timeout(owner)
    pool = (_ProcessWorkers if use_multiprocessing else _ThreadWorkers)(dataset, workers)
    kind = "process" if use_multiprocessing else "thread"
    pending = collections.deque()
    try:
        for index in indices:
            pending.append((index, pool.submit(index)))
            if len(pending) >= max_queue_size:
                break
        while pending:
            batch = _next_result(owner, kind, pending, limit)
            pending.popleft()
            for index in indices:                    # keep the queue full: one more
                pending.append((index, pool.submit(index)))
                break
            yield batch
    finally:
        for _, future in pending:
            future.cancel()
        pending.clear()
        pool.close()


def _next_result(owner: str, kind: str, pending, limit: float):
    """The batch of ``pending[0]``; an error of any pending batch as soon as it is known
    (a stuck batch does not hide a failed one); WaitTimeoutError after ``limit`` s."""
    head_index, head = pending[0]
    deadline = time.monotonic() + limit
    waiting = {future for _, future in pending}
    while True:
        if head.done():
            return _result(owner, kind, head_index, head)
        for index, future in pending:
            if future.done() and not future.cancelled() and future.exception() is not None:
                return _result(owner, kind, index, future)
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise WaitTimeoutError(
                f"{owner}: batch {head_index} was not fetched within {limit:g} s by its "
                f"worker {kind} (its __getitem__({head_index}) may be stuck); the limit "
                f"is the environment variable {TIMEOUT_VARIABLE} (seconds)")
        done, _ = concurrent.futures.wait(waiting, timeout=remaining,
                                          return_when=concurrent.futures.FIRST_COMPLETED)
        waiting -= done


def _result(owner: str, kind: str, index, future):
    try:
        return future.result(timeout=0)
    except BrokenProcessPool as error:
        raise WorkerError(f"{owner}: a worker process ended abruptly while fetching batch "
                          f"{index} (use_multiprocessing=True); check the dataset's "
                          f"__getitem__ for os._exit, crashes or running out of memory"
                          ) from error
    except Exception as error:
        error.add_note(f"{owner}: raised by __getitem__({index}) in a worker {kind}")
        raise
