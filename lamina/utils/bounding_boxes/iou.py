"""Keras 3's box overlap measures: pairwise IoU and complete IoU (CIoU)."""
from __future__ import annotations

import math

import numpy as np

from ... import backend as _backend
from .converters import convert_format

__all__ = ["compute_ciou", "compute_iou"]


def _size(image_shape):
    return (None, None) if image_shape is None else tuple(image_shape[:2])


def compute_iou(boxes1, boxes2, bounding_box_format, use_masking=False, mask_val=-1,
                image_shape=None):
    """The (n1, n2) (or batched (b, n1, n2)) intersection over union of every pair;
    ``use_masking`` puts ``mask_val`` where either box is all negative (padding)."""
    what = "compute_iou"
    for name, boxes in (("boxes1", boxes1), ("boxes2", boxes2)):
        if np.ndim(boxes) not in (2, 3):
            raise ValueError(f"{what}: '{name}' must have rank 2 (boxes) or 3 (a batch); "
                             f"received shape {np.shape(boxes)}")
    if "rel" in bounding_box_format and image_shape is None:
        raise ValueError(f"{what}: the relative format {bounding_box_format!r} needs "
                         f"'image_shape'")
    height, width = _size(image_shape)
    a = convert_format(boxes1, bounding_box_format, "yxyx", height, width)[..., :, None, :]
    b = convert_format(boxes2, bounding_box_format, "yxyx", height, width)[..., None, :, :]
    # every pair: (..., n1, 1, 4) against (..., 1, n2, 4) broadcasts to (..., n1, n2)
    high = np.minimum(a[..., 2:], b[..., 2:])
    low = np.maximum(a[..., :2], b[..., :2])
    intersection = np.prod(np.maximum(0, high - low), axis=-1)
    area_a = np.prod(a[..., 2:] - a[..., :2], axis=-1)
    area_b = np.prod(b[..., 2:] - b[..., :2], axis=-1)
    iou = intersection / (area_a + area_b - intersection + np.float32(_backend.epsilon()))
    if not use_masking:
        return iou
    padding = (a.max(axis=-1) < 0) | (b.max(axis=-1) < 0)
    return np.where(padding, np.asarray(mask_val, iou.dtype), iou)


def compute_ciou(boxes1, boxes2, bounding_box_format, image_shape=None):
    """Element-wise complete IoU: IoU minus the normalised centre distance and the
    aspect-ratio penalty (Zheng et al. 2020), as Keras computes it."""
    if "rel" in bounding_box_format:
        raise ValueError(f"compute_ciou: relative formats are not supported (as in Keras); "
                         f"received {bounding_box_format!r}")
    height, width = _size(image_shape)
    a = convert_format(boxes1, bounding_box_format, "xyxy", height, width)
    b = convert_format(boxes2, bounding_box_format, "xyxy", height, width)
    eps = np.float32(_backend.epsilon())
    ax1, ay1, ax2, ay2 = np.moveaxis(a[..., :4], -1, 0)
    bx1, by1, bx2, by2 = np.moveaxis(b[..., :4], -1, 0)
    w1, h1 = ax2 - ax1, ay2 - ay1 + eps
    w2, h2 = bx2 - bx1, by2 - by1 + eps
    inter = np.maximum(np.minimum(ax2, bx2) - np.maximum(ax1, bx1), 0) * \
        np.maximum(np.minimum(ay2, by2) - np.maximum(ay1, by1), 0)
    union = w1 * h1 + w2 * h2 - inter + eps
    iou = inter / (union + eps)
    diagonal = (np.maximum(ax2, bx2) - np.minimum(ax1, bx1)) ** 2 + \
        (np.maximum(ay2, by2) - np.minimum(ay1, by1)) ** 2 + eps
    centres = ((ax1 + ax2) / 2 - (bx1 + bx2) / 2) ** 2 + ((ay1 + ay2) / 2 - (by1 + by2) / 2) ** 2
    v = np.float32(4 / math.pi ** 2) * (np.arctan(w2 / h2) - np.arctan(w1 / h1)) ** 2
    alpha = v / (v - iou + (1 + eps))
    return iou - (centres / diagonal + v * alpha)
