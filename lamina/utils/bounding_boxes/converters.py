"""Keras 3's ``keras.utils.bounding_boxes`` format conversion and box geometry (clip,
crop, pad, affine), on host numpy arrays."""
from __future__ import annotations

import math

import numpy as np

from ..box_formats import convert

__all__ = ["affine_transform", "clip_to_image_size", "convert_format", "crop", "pad"]


def convert_format(boxes, source, target, height=None, width=None, dtype="float32"):
    """``boxes`` (an array (..., 4), or a dict whose ``"boxes"`` is converted) from the
    ``source`` format to ``target``; relative formats need ``height`` and ``width``."""
    if isinstance(boxes, dict):
        boxes["boxes"] = convert_format(boxes["boxes"], source, target, height, width, dtype)
        return boxes
    return convert("convert_format", boxes, source, target, height, width, dtype)


def _only_xyxy(what, bounding_box_format):
    if bounding_box_format != "xyxy":
        raise NotImplementedError(f"{what}: only bounding_box_format='xyxy' is supported "
                                  f"(as in Keras); received {bounding_box_format!r}")


def _area(boxes):
    return (boxes[..., 2] - boxes[..., 0]) * (boxes[..., 3] - boxes[..., 1])


def clip_to_image_size(bounding_boxes, height=None, width=None, bounding_box_format="xyxy"):
    """``{"boxes", "labels"}`` with the boxes clipped to the image (``xyxy``: 0..width and
    0..height; ``rel_xyxy``: 0..1); boxes left with no area get label -1."""
    what = "clip_to_image_size"
    if bounding_box_format not in ("xyxy", "rel_xyxy"):
        raise NotImplementedError(f"{what}: bounding_box_format must be 'xyxy' or "
                                  f"'rel_xyxy'; received {bounding_box_format!r}")
    if bounding_box_format == "xyxy" and (height is None or width is None):
        raise ValueError(f"{what}: 'height' and 'width' must be set for the 'xyxy' format")
    boxes = np.asarray(bounding_boxes["boxes"])
    high_x, high_y = (1.0, 1.0) if bounding_box_format == "rel_xyxy" else (width, height)
    limits = np.array([high_x, high_y, high_x, high_y], dtype=boxes.dtype)
    boxes = np.clip(boxes, 0, limits).astype(boxes.dtype)
    result = dict(bounding_boxes)
    result["boxes"] = boxes
    if bounding_boxes.get("labels") is not None:
        result["labels"] = np.where(_area(boxes) > 0, bounding_boxes["labels"], -1)
    return result


def crop(boxes, top, left, height, width, bounding_box_format="xyxy"):
    """Boxes moved into the window at (``top``, ``left``) and clipped to its size."""
    _only_xyxy("crop", bounding_box_format)
    boxes = np.asarray(boxes)
    moved = boxes - np.array([left, top, left, top], dtype=boxes.dtype)
    return np.clip(moved, 0, np.array([width, height, width, height])).astype(boxes.dtype)


def pad(boxes, top, left, height=None, width=None, bounding_box_format="xyxy"):
    """Boxes moved by the padding added at the ``top`` and ``left``."""
    _only_xyxy("pad", bounding_box_format)
    boxes = np.asarray(boxes)
    return (boxes + np.array([left, top, left, top], dtype=boxes.dtype)).astype(boxes.dtype)


def _inverse_affine(center_x, center_y, angle, translate_x, translate_y, scale, shear_x,
                    shear_y, height, width):
    """Keras's (batch, 3, 3) matrices mapping pixels of the input to the output."""
    rot = -angle * math.pi / 180.0
    sx, sy = -shear_x * math.pi / 180.0, -shear_y * math.pi / 180.0
    cx, cy = center_x * (width - 1), center_y * (height - 1)
    tx, ty = -translate_x * (width - 1), -translate_y * (height - 1)
    a = np.cos(rot - sy) / np.cos(sy)
    b = a * np.tan(sx) + np.sin(rot)
    c = -np.sin(rot - sy) / np.cos(sy)
    d = np.cos(rot) - c * np.tan(sx)
    a0, a1, b0, b1 = d * scale, -b * scale, -c * scale, a * scale
    a2 = cx - a0 * (cx + tx) - a1 * (cy + ty)
    b2 = cy - b0 * (cx + tx) - b1 * (cy + ty)
    zeros, ones = np.zeros_like(a0), np.ones_like(a0)
    return np.stack([a0, a1, a2, b0, b1, b2, zeros, zeros, ones], -1).reshape(-1, 3, 3)


def affine_transform(boxes, angle, translate_x, translate_y, scale, shear_x, shear_y, height,
                     width, center_x=None, center_y=None, bounding_box_format="xyxy"):
    """The boxes (batch, n, 4) after the per-image affine transform (angle and shears in
    degrees, translations as fractions of the image): the bounding box of the four moved
    corners."""
    _only_xyxy("affine_transform", bounding_box_format)
    params = [np.asarray(v, dtype="float32") for v in
              (angle, translate_x, translate_y, scale, shear_x, shear_y)]
    matrix = _inverse_affine(0.5 if center_x is None else center_x,
                             0.5 if center_y is None else center_y, *params, height, width)
    boxes = np.asarray(boxes, dtype=matrix.dtype)
    x1, y1, x2, y2 = np.moveaxis(boxes, -1, 0)
    corners = np.stack([np.stack(p, -1) for p in ((x1, y1), (x2, y1), (x2, y2), (x1, y2))],
                       axis=2)                                        # (b, n, 4, 2)
    corners = np.concatenate([corners, np.ones(corners.shape[:-1] + (1,), corners.dtype)], -1)
    moved = np.einsum("bnxy,bzy->bnxz", corners, matrix[:, :2, :])
    return np.concatenate([moved.min(axis=2), moved.max(axis=2)], axis=-1)
