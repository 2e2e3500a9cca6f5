"""Keras's bounding-box formats, converted through absolute corner boxes (``xyxy``)."""
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


def from_xyxy(boxes, target: str, height=None, width=None):
    """Absolute (x1, y1, x2, y2) boxes in the ``target`` format."""
    x1, y1, x2, y2 = np.moveaxis(boxes, -1, 0)
    relative = target.startswith("rel_")
    target = target[4:] if relative else target
    if relative:
        x1, x2, y1, y2 = x1 / width, x2 / width, y1 / height, y2 / height
    w, h = x2 - x1, y2 - y1
    columns = {"xyxy": (x1, y1, x2, y2), "yxyx": (y1, x1, y2, x2), "xywh": (x1, y1, w, h),
               "center_xywh": (x1 + w / 2, y1 + h / 2, w, h),
               "center_yxhw": (y1 + h / 2, x1 + w / 2, h, w)}[target]
    return np.stack(columns, axis=-1)


def convert(what: str, boxes, source: str, target: str, height=None, width=None,
            dtype="float32"):
    """``boxes`` from ``source`` to ``target`` format, as ``dtype``."""
    source, target = source.lower(), target.lower()
    for name, value in (("source", source), ("target", target)):
        if value not in FORMATS:
            raise ValueError(f"{what}: argument '{name}' must be one of {FORMATS}; "
                             f"received {value!r}")
    if (source.startswith("rel_") or target.startswith("rel_")) and \
            (height is None or width is None):
        raise ValueError(f"{what}: converting between relative and absolute formats needs "
                         f"'height' and 'width' (it must receive `height` and `width`); "
                         f"received source={source!r}, "
                         f"target={target!r}, height={height}, width={width}")
    boxes = np.asarray(boxes).astype(dtype)
    if boxes.shape[-1:] != (4,):
        raise ValueError(f"{what}: boxes must have a last dimension of 4; received shape "
                         f"{boxes.shape}")
    if source == target:
        return boxes
    if source.startswith("rel_") and target.startswith("rel_"):
        source, target = source[4:], target[4:]
    corners = to_xyxy(what, boxes, source, height, width)
    return from_xyxy(corners, target, height, width).astype(dtype)
