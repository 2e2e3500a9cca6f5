"""TensorBoard event files: one :class:`EventWriter` per run folder (``train/``,
``validation/``), writing scalars, histograms, images, a GraphDef and the model's JSON.

The Event/Summary/GraphDef protos and summaries come from tensorboardX (the
``tensorboard`` extra: ``pip install lamina[tensorboard]``), with no TensorFlow; the file
itself is written by tensorboard_file.py (bounded waits, nothing left open). Images
are encoded to PNG here (zlib only), so Pillow is not needed.
"""
from __future__ import annotations

import struct
import sys
import time
import zlib

from .tensorboard_file import DEFAULT_TIMEOUT, EventFile

EXTRA_HINT = "pip install lamina[tensorboard]"


def _tensorboardx():
    try:
        import tensorboardX
        from tensorboardX import summary as summary_lib
        from tensorboardX.proto import event_pb2, summary_pb2, tensor_pb2
    except ImportError as error:
        raise ImportError(f"TensorBoard: writing TensorBoard logs needs the tensorboardX "
                          f"package; install it with `{EXTRA_HINT}` (received "
                          f"ImportError: {error})") from None
    return tensorboardX, summary_lib, event_pb2, summary_pb2, tensor_pb2


def png_bytes(pixels, height: int, width: int) -> bytes:
    """An 8-bit grayscale PNG of ``pixels`` (``height * width`` bytes, row by row)."""
    rows = b"".join(b"\x00" + pixels[r * width:(r + 1) * width] for r in range(height))

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) +
            chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


def gray_image(array) -> tuple[bytes, int, int]:
    """A 2-D host array as 8-bit pixels, min to max stretched over 0..255 (a constant
    array is mid gray); returns ``(pixels, height, width)``. The range is the finite
    values'; +inf is white, NaN and -inf are black."""
    height, width = array.shape
    values = array.astype("float64")
    finite, _ = _finite(values.reshape(-1))
    low, high = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 0.0)
    clipped = values.clip(low, high)              # NaN stays NaN; +-inf become high/low
    if high > low:
        scaled = (clipped - low) * (255.0 / (high - low))
    else:
        scaled = clipped * 0.0 + 128.0
    if finite.size < values.size:
        scaled[values == float("inf")] = 255.0
        scaled[(values == float("-inf")) | (values != values)] = 0.0
    return (scaled + 0.5).astype("uint8").tobytes(), height, width


_EDGES: list = []


def _bucket_edges() -> list:
    """TensorFlow's histogram bucket edges (histogram.cc): +-1e-12 growing by 10% up to
    1e20, 0, and the largest double at both ends, so that every finite value is binned."""
    if not _EDGES:
        positive, v = [], 1e-12
        while v < 1e20:
            positive.append(v)
            v *= 1.1
        positive.append(sys.float_info.max)
        _EDGES.extend([-x for x in reversed(positive)] + [0.0] + positive)
    return _EDGES


def _finite(values):
    """The finite entries of a flat float64 host array, and how many NaN, +inf and -inf
    it had."""
    nan = values != values
    positive, negative = values == float("inf"), values == float("-inf")
    counts = (int(nan.sum()), int(positive.sum()), int(negative.sum()))
    if not any(counts):
        return values, counts
    return values[~(nan | positive | negative)], counts


class EventWriter:
    """Writes the summaries of one run folder; the file is created on the first write.
    Writing happens on a writer thread with bounded waits (see tensorboard_file.py); when
    the file cannot be written :attr:`error` says why and later summaries are dropped."""

    def __init__(self, logdir: str, timeout: float = DEFAULT_TIMEOUT):
        self.logdir = logdir
        self.timeout = timeout
        self._file: EventFile | None = None
        self._stopped = False

    @property
    def error(self) -> str | None:
        return None if self._file is None else self._file.error

    def stop(self) -> None:
        """Write nothing more (what is queued is still written by :meth:`close`)."""
        self._stopped = True

    def _event(self, **fields) -> None:
        if self._stopped:
            return
        event_pb2 = _tensorboardx()[2]
        event = event_pb2.Event(wall_time=time.time(), **fields)
        if self._file is None:
            first = event_pb2.Event(wall_time=event.wall_time, file_version="brain.Event:2")
            self._file = EventFile(self.logdir, first.SerializeToString(), self.timeout)
        self._file.write(event.SerializeToString())

    def add_summary(self, summary, step: int) -> None:
        self._event(summary=summary, step=int(step))

    def scalar(self, tag: str, value, step: int) -> None:
        summary_lib = _tensorboardx()[1]
        self.add_summary(summary_lib.scalar(tag, float(value)), step)

    def histogram(self, tag: str, values, step: int) -> tuple[int, int, int]:
        """``values``: a host (numpy) array; TensorFlow's bucket edges. NaN and +-inf are
        left out (TensorFlow's ``tf.summary.histogram`` makes every bucket edge NaN when
        one value is NaN, losing all of them); a histogram with no finite value is not
        written. Returns the counts of NaN, +inf and -inf left out."""
        summary_lib = _tensorboardx()[1]
        values, left_out = _finite(values.reshape(-1).astype("float64"))
        if values.size:
            self.add_summary(summary_lib.histogram(tag, values, bins=_bucket_edges()), step)
        return left_out

    def image(self, tag: str, array, step: int) -> None:
        """``array``: a 2-D host array, written as one grayscale PNG."""
        summary_pb2 = _tensorboardx()[3]
        pixels, height, width = gray_image(array)
        image = summary_pb2.Summary.Image(height=height, width=width, colorspace=1,
                                          encoded_image_string=png_bytes(pixels, height,
                                                                         width))
        summary = summary_pb2.Summary(value=[summary_pb2.Summary.Value(tag=tag, image=image)])
        self.add_summary(summary, step)

    def graph(self, graph_def) -> None:
        """A GraphDef (tensorboardX's proto): what TensorBoard's Graphs tab draws."""
        self._event(graph_def=graph_def.SerializeToString())

    def model_json(self, tag: str, json_text: str, step: int = 0) -> None:
        """The model's config (``graph_keras_model`` plugin data: the Graphs tab's
        conceptual graph), as Keras writes it."""
        _, _, _, summary_pb2, tensor_pb2 = _tensorboardx()
        metadata = summary_pb2.SummaryMetadata(
            plugin_data=summary_pb2.SummaryMetadata.PluginData(
                plugin_name="graph_keras_model", content=b"1"))
        tensor = tensor_pb2.TensorProto(dtype=7, string_val=[json_text.encode("utf-8")])
        value = summary_pb2.Summary.Value(tag=tag, metadata=metadata, tensor=tensor)
        self.add_summary(summary_pb2.Summary(value=[value]), step)

    def flush(self) -> None:
        """Wait (at most ``timeout`` s) until what was written is on disk."""
        if self._file is not None:
            self._file.flush()

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
