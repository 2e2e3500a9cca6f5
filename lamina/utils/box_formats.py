"""Keras's bounding-box formats, turned into absolute corner boxes (``xyxy``)."""
from __future__ import annotations

import numpy as np

FORMATS = ("xyxy", "yxyx", "xywh", "center_xywh", "center_yxhw", "rel_xyxy", "rel_yxyx",
           "rel_xywh", "rel_center_xywh")


def to_xyxy(what: str, boxes, source: str, height=None, width=None):
    """``boxes`` (..., 4) in ``source`` format as float32 (x1, y1, x2, y2) pixels;
    relative formats need the image ``height`` and ``width``."""
    source = source.lower()
    if source not in FORMATS:
        raise ValueError(f"{what}: 'bounding_box_format' must be one of {FORMATS}; "
                         f"received {source!r}")
    boxes = np.asarray(boxes, dtype="float32")
    if boxes.shape[-1:] != (4,):
        raise ValueError(f"{what}: boxes must have a last dimension of 4; received shape "
                         f"{boxes.shape}")
    a, b, c, d = np.moveaxis(boxes, -1, 0)
    if source.startswith("rel_"):
        if height is None or width is None:
            raise ValueError(f"{what}: the relative format {source!r} needs the image's "
                             f"height and width")
        source = source[4:]
        across, down = (height, width) if source == "yxyx" else (width, height)
        a, b, c, d = a * across, b * down, c * across, d * down
    if source == "yxyx":
        a, b, c, d = b, a, d, c
    elif source == "xywh":
        c, d = a + c, b + d
    elif source == "center_xywh":
        a, b, c, d = a - c / 2, b - d / 2, a + c / 2, b + d / 2
    elif source == "center_yxhw":
        a, b, c, d = b - d / 2, a - c / 2, b + d / 2, a + c / 2
    return np.stack([a, b, c, d], axis=-1).astype("float32")
