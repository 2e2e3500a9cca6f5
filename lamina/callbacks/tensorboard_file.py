"""One TensorBoard event file, written off the training thread with every wait bounded.

Records (serialized ``Event`` protos) are queued by the training thread and written by a
writer thread that runs only while it has work: it opens the file (append), writes what is
queued, flushes and closes it, and ends. So between bursts no thread and no file
descriptor is held, and an exception anywhere in ``fit`` leaves nothing behind.

Every wait on the writer thread (a full queue, ``flush``, ``close``) is bounded by
``timeout`` seconds (``LAMINA_TENSORBOARD_TIMEOUT``, default 60). A write that fails
(a full disk, a file-size limit, a folder that cannot be made) or a wait that runs out
stops the file: :attr:`EventFile.error` says why, what is queued is dropped and later
records are ignored. The caller (the ``TensorBoard`` callback) turns that into one warning.
A writer thread stuck in the kernel cannot be killed; it is a daemon, and when its write
returns it sees the file stopped, closes it and ends.
"""
from __future__ import annotations

import collections
import itertools
import os
import socket
import struct
import threading
import time

from ..errors import ArgumentTypeError
from ..settings import env_seconds

TIMEOUT_VARIABLE = "LAMINA_TENSORBOARD_TIMEOUT"
DEFAULT_TIMEOUT = 60.0
MAX_PENDING = 256                 # records queued before a write waits for the thread
THREAD_NAME = "lamina-tensorboard-writer"
_serial = itertools.count()


class TensorBoardWriteWarning(UserWarning):
    """TensorBoard logs could not be written; logging stopped and training went on."""


def writer_timeout() -> float:
    """``LAMINA_TENSORBOARD_TIMEOUT`` in seconds (default 60)."""
    return env_seconds(TIMEOUT_VARIABLE, DEFAULT_TIMEOUT, "TensorBoard", ArgumentTypeError)


def _masked_crc(data: bytes) -> int:
    from tensorboardX.record_writer import masked_crc32c
    return masked_crc32c(data)


def framed(record: bytes) -> bytes:
    """A TFRecord: length, its masked CRC-32C, the data, the data's masked CRC-32C."""
    header = struct.pack("<Q", len(record))
    return (header + struct.pack("<I", _masked_crc(header)) + record +
            struct.pack("<I", _masked_crc(record)))


class EventFile:
    """``events.out.tfevents.*`` in ``folder``; ``first`` (the file-version event) is
    its first record. Made on the first write."""

    def __init__(self, folder: str, first: bytes, timeout: float):
        self.folder = folder
        self.path = os.path.join(folder, f"events.out.tfevents.{int(time.time())}."
                                         f"{socket.gethostname()}.{os.getpid()}."
                                         f"{next(_serial)}.v2")
        self.timeout = timeout
        self.error: str | None = None
        self._cond = threading.Condition()
        self._pending = collections.deque([first])
        self._sync = False              # fsync at the end of the next burst
        self._thread: threading.Thread | None = None

    # ------------------------------------------------------------ training thread
    def write(self, record: bytes) -> None:
        with self._cond:
            deadline = time.monotonic() + self.timeout
            while self.error is None and len(self._pending) >= MAX_PENDING:
                if not self._wait(deadline, f"take a record ({len(self._pending)} "
                                            f"queued)"):
                    return
            if self.error is None:
                self._pending.append(record)
                self._start()

    def flush(self) -> None:
        """Return once every queued record is on disk (fsync'ed), or the file stopped."""
        with self._cond:
            if self.error is not None or (self._thread is None and not self._pending):
                return
            self._sync = True
            self._start()
            deadline = time.monotonic() + self.timeout
            while self.error is None and self._thread is not None:
                if not self._wait(deadline, f"write {len(self._pending)} queued records "
                                            f"and flush"):
                    return

    close = flush                      # the file is closed whenever the thread is idle

    def _wait(self, deadline: float, what: str) -> bool:
        remaining = deadline - time.monotonic()
        if remaining > 0:
            self._cond.wait(remaining)
            return True
        self._stop(f"waited {self.timeout:g} s ({TIMEOUT_VARIABLE}) for the writer thread "
                   f"to {what} {self.path!r}")
        return False

    def _stop(self, why: str) -> None:
        """Under the lock: the file takes nothing more."""
        if self.error is None:
            self.error = why
        self._pending.clear()
        self._cond.notify_all()

    def _start(self) -> None:
        if self._thread is not None:
            return
        thread = threading.Thread(target=self._run, name=THREAD_NAME, daemon=True)
        try:
            thread.start()
        except RuntimeError as error:          # no thread can be started
            self._stop(f"could not start a writer thread for {self.path!r} ({error})")
            return
        self._thread = thread

    # ------------------------------------------------------------ writer thread
    def _run(self) -> None:
        while True:
            failure = None
            try:
                self._burst()
            except OSError as error:
                failure = f"{type(error).__name__}: {error}"
            except Exception as error:         # a bug must not leave flush waiting
                failure = f"the writer thread failed ({type(error).__name__}: {error})"
            with self._cond:
                if failure is not None:
                    self._stop(failure)
                if self.error is not None or not (self._pending or self._sync):
                    self._thread = None
                    self._cond.notify_all()
                    return

    def _burst(self) -> None:
        """Open the file, write until nothing is queued, flush, close."""
        os.makedirs(self.folder, exist_ok=True)
        with open(self.path, "ab") as f:
            while True:
                with self._cond:
                    if self.error is not None or not self._pending:
                        sync, self._sync = self._sync, False
                        break
                    records = list(self._pending)
                    self._pending.clear()
                    self._cond.notify_all()
                f.write(b"".join(framed(record) for record in records))
            f.flush()
            if sync:
                os.fsync(f.fileno())
