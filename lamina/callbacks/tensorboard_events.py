"""TensorBoard event files: one :class:`EventWriter` per run folder (``train/``,
``validation/``), writing scalars, histograms, images, a GraphDef and the model's JSON.

The records are written by tensorboardX (the ``tensorboard`` extra: ``pip install
lamina[tensorboard]``), a small, maintained writer with the Event/Summary/GraphDef protos
and no TensorFlow. Images are encoded to PNG here (zlib only), so Pillow is not needed.
"""
from __future__ import annotations

import struct
import zlib

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
    array is mid gray); returns ``(pixels, height, width)``."""
    height, width = array.shape
    values = array.astype("float64")
    low, high = float(values.min()), float(values.max())
    if high > low:
        scaled = (values - low) * (255.0 / (high - low))
    else:
        scaled = values * 0.0 + 128.0
    return (scaled + 0.5).astype("uint8").tobytes(), height, width


_EDGES: list = []


def _bucket_edges() -> list:
    """TensorFlow's histogram bucket edges: +-1e-12 growing by 10% up to 1e20, and 0."""
    if not _EDGES:
        positive, v = [], 1e-12
        while v < 1e20:
            positive.append(v)
            v *= 1.1
        _EDGES.extend([-x for x in reversed(positive)] + [0.0] + positive)
    return _EDGES


class EventWriter:
    """Writes the summaries of one run folder; the file is created on the first write."""

    def __init__(self, logdir: str):
        self.logdir = logdir
        self._writer = None

    @property
    def writer(self):
        if self._writer is None:
            tensorboardx = _tensorboardx()[0]
            self._writer = tensorboardx.FileWriter(self.logdir, flush_secs=10)
        return self._writer

    def scalar(self, tag: str, value, step: int) -> None:
        summary_lib = _tensorboardx()[1]
        self.writer.add_summary(summary_lib.scalar(tag, float(value)), int(step))

    def histogram(self, tag: str, values, step: int) -> None:
        """``values``: a host (numpy) array; TensorFlow's bucket edges."""
        summary_lib = _tensorboardx()[1]
        values = values.reshape(-1).astype("float64")
        self.writer.add_summary(summary_lib.histogram(tag, values, bins=_bucket_edges()),
                                int(step))

    def image(self, tag: str, array, step: int) -> None:
        """``array``: a 2-D host array, written as one grayscale PNG."""
        summary_pb2 = _tensorboardx()[3]
        pixels, height, width = gray_image(array)
        image = summary_pb2.Summary.Image(height=height, width=width, colorspace=1,
                                          encoded_image_string=png_bytes(pixels, height,
                                                                         width))
        summary = summary_pb2.Summary(value=[summary_pb2.Summary.Value(tag=tag, image=image)])
        self.writer.add_summary(summary, int(step))

    def graph(self, graph_def) -> None:
        """A GraphDef (tensorboardX's proto): what TensorBoard's Graphs tab draws."""
        event_pb2 = _tensorboardx()[2]
        self.writer.add_event(event_pb2.Event(graph_def=graph_def.SerializeToString()))

    def model_json(self, tag: str, json_text: str, step: int = 0) -> None:
        """The model's config (``graph_keras_model`` plugin data: the Graphs tab's
        conceptual graph), as Keras writes it."""
        _, _, _, summary_pb2, tensor_pb2 = _tensorboardx()
        metadata = summary_pb2.SummaryMetadata(
            plugin_data=summary_pb2.SummaryMetadata.PluginData(
                plugin_name="graph_keras_model", content=b"1"))
        tensor = tensor_pb2.TensorProto(dtype=7, string_val=[json_text.encode("utf-8")])
        value = summary_pb2.Summary.Value(tag=tag, metadata=metadata, tensor=tensor)
        self.writer.add_summary(summary_pb2.Summary(value=[value]), int(step))

    def flush(self) -> None:
        if self._writer is not None:
            self._writer.flush()

    def close(self) -> None:
        if self._writer is not None:
            self._writer.close()
            self._writer = None
