"""Keras 3's anchor-box encodings: boxes as deltas from anchors, and back."""
from __future__ import annotations

import numpy as np

from ... import backend as _backend
from .converters import convert_format

__all__ = ["decode_deltas_to_boxes", "encode_box_to_deltas"]

CENTER_FORMATS = ("center_xywh", "center_yxhw")


def _check(what, argument, encoding, variance):
    if variance is not None:
        variance = np.asarray(variance, dtype="float32")
        if variance.shape[-1] != 4:
            raise ValueError(f"{what}: 'variance' must have length 4; received "
                             f"{variance.tolist()}")
    if encoding not in CENTER_FORMATS:
        raise ValueError(f"{what}: argument '{argument}' must be 'center_xywh' or "
                         f"'center_yxhw'; received {encoding!r}")
    return variance


def _size(image_shape):
    return (None, None) if image_shape is None else tuple(image_shape[:2])


def encode_box_to_deltas(anchors, boxes, anchor_format, box_format,
                         encoding_format="center_yxhw", variance=None, image_shape=None):
    """(centre offset / anchor size, log(box size / anchor size)) per box, divided by
    ``variance`` when given."""
    variance = _check("encode_box_to_deltas", "encoding_format", encoding_format, variance)
    height, width = _size(image_shape)
    anchors = convert_format(anchors, anchor_format, encoding_format, height, width)
    boxes = convert_format(boxes, box_format, encoding_format, height, width)
    eps = np.float32(_backend.epsilon())
    anchor_size = np.maximum(anchors[..., 2:], eps)
    box_size = np.maximum(boxes[..., 2:], eps)
    deltas = np.concatenate([(boxes[..., :2] - anchors[..., :2]) / anchor_size,
                             np.log(box_size / anchor_size)], axis=-1)
    return deltas / variance if variance is not None else deltas


def decode_deltas_to_boxes(anchors, boxes_delta, anchor_format, box_format,
                           encoded_format="center_yxhw", variance=None, image_shape=None):
    """The inverse of ``encode_box_to_deltas``; dicts of levels decode level by level."""
    variance = _check("decode_deltas_to_boxes", "encoded_format", encoded_format, variance)
    height, width = _size(image_shape)

    def decode(anchor, delta):
        anchor = convert_format(anchor, anchor_format, encoded_format, height, width)
        delta = np.asarray(delta, dtype="float32")
        if variance is not None:
            delta = delta * variance
        box = np.concatenate([delta[..., :2] * anchor[..., 2:] + anchor[..., :2],
                              np.exp(delta[..., 2:]) * anchor[..., 2:]], axis=-1)
        return convert_format(box, encoded_format, box_format, height, width)

    if isinstance(anchors, dict) and isinstance(boxes_delta, dict):
        return {level: decode(anchor, boxes_delta[level]) for level, anchor in anchors.items()}
    return decode(anchors, boxes_delta)
