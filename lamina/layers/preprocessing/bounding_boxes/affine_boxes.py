"""How the random geometric layers move bounding boxes, from Keras 3's transformation
dicts (the numbers of Keras's ``transform_bounding_boxes``): RandomTranslation,
RandomZoom, RandomShear and RandomPerspective. Boxes are ``(n, 4)`` (one image) or
``(batch, n, 4)``; the per-image draws are ``(batch, ...)``. The dict flow gives one
image's boxes a batch axis of 1 and removes it after."""
from __future__ import annotations

from .... import ops
from ....ops.image import _homography
from .formats import clip_to_image_size, convert_format, image_size


def _per_image(values, boxes):
    """(batch,) draws shaped to broadcast over one box column ((batch, n) or (n,))."""
    values = ops.reshape(values, (-1,))
    return ops.expand_dims(values, -1) if len(boxes.shape) == 3 else values


def _with_batch(boxes):
    """Keras's zoom and shear broadcast one image's (n, 4) boxes against the (batch, 1)
    draws: the boxes come back (batch, n, 4)."""
    return boxes if len(boxes.shape) == 3 else ops.expand_dims(boxes, 0)


def _columns(boxes):
    return [boxes[..., i] for i in range(4)]


def translate_boxes(layer, bounding_boxes, transformation):
    """``translations`` (batch, 2) pixels (x, y): boxes shifted, clipped to the image."""
    fmt = layer.bounding_box_format
    height, width = image_size(transformation["input_shape"], layer.data_format)
    boxes = convert_format(bounding_boxes, fmt, "xyxy", height, width, what=layer.name)
    shifts = ops.cast(ops.convert_to_tensor(transformation["translations"]), "float32")
    b = boxes["boxes"]
    dx, dy = _per_image(shifts[:, 0], b), _per_image(shifts[:, 1], b)
    x1, y1, x2, y2 = _columns(b)
    boxes["boxes"] = ops.stack([x1 + dx, y1 + dy, x2 + dx, y2 + dy], axis=-1)
    boxes = clip_to_image_size(boxes, height, width, "xyxy", what=layer.name)
    return convert_format(boxes, "xyxy", fmt, height, width, what=layer.name)


def zoom_boxes(layer, bounding_boxes, transformation):
    """``height_zoom``/``width_zoom`` (batch, 1): the window of the input the output shows
    is ``[x0, x0 + zoom * width]`` with ``x0 = (width - 1) / 2 * (1 - zoom)`` (same for
    y); boxes are clipped to it and rescaled to the image."""
    fmt = layer.bounding_box_format
    height, width = image_size(transformation["input_shape"], layer.data_format)
    boxes = convert_format(bounding_boxes, fmt, "xyxy", height, width, what=layer.name)
    b = _with_batch(boxes["boxes"])
    zw = _per_image(ops.cast(ops.convert_to_tensor(transformation["width_zoom"]), "float32"), b)
    zh = _per_image(ops.cast(ops.convert_to_tensor(transformation["height_zoom"]), "float32"),
                    b)
    x0 = (float(width) - 1.0) / 2.0 * (1.0 - zw)
    y0 = (float(height) - 1.0) / 2.0 * (1.0 - zh)
    x_end, y_end = zw * float(width) + x0, zh * float(height) + y0
    x1, y1, x2, y2 = _columns(b)
    x1, x2 = [(ops.clip(v, x0, x_end) - x0) / (x_end - x0) for v in (x1, x2)]
    y1, y2 = [(ops.clip(v, y0, y_end) - y0) / (y_end - y0) for v in (y1, y2)]
    boxes["boxes"] = ops.stack([x1, y1, x2, y2], axis=-1)
    boxes = clip_to_image_size(boxes, None, None, "rel_xyxy", what=layer.name)
    return convert_format(boxes, "rel_xyxy", fmt, height, width, what=layer.name)


def shear_boxes(layer, bounding_boxes, transformation):
    """``shear_factor`` (batch, 2) (x, y): Keras's corner shift of the relative boxes
    (``x - s_x * y`` at the edge the shear widens, same for y), clipped to the image."""
    fmt, dtype = layer.bounding_box_format, layer.compute_dtype
    height, width = image_size(transformation["input_shape"], layer.data_format)
    boxes = convert_format(bounding_boxes, fmt, "rel_xyxy", height, width, dtype,
                           what=layer.name)
    shear = ops.cast(ops.convert_to_tensor(transformation["shear_factor"]), dtype)
    b = _with_batch(boxes["boxes"])
    x1, y1, x2, y2 = _columns(b)
    sx, sy = _per_image(shear[:, 0], b), _per_image(shear[:, 1], b)
    left = ops.less(sx, 0.0)
    x1, x2 = (ops.where(left, x1 - sx * y1, x1 - sx * y2),
              ops.where(left, x2 - sx * y2, x2 - sx * y1))
    down = ops.greater(sy, 0.0)
    y1, y2 = (ops.where(down, y1 - sy * x2, y1 - sy * x1),
              ops.where(down, y2 - sy * x1, y2 - sy * x2))
    boxes["boxes"] = ops.stack([x1, y1, x2, y2], axis=-1)
    boxes = clip_to_image_size(boxes, height, width, "rel_xyxy", what=layer.name)
    return convert_format(boxes, "rel_xyxy", fmt, height, width, dtype, what=layer.name)


def perspective_boxes(layer, bounding_boxes, transformation):
    """``start_points``/``end_points`` (batch, 4, 2) and ``apply_perspective`` (batch,):
    each box's corners mapped by the inverse of the images' homography, the box made the
    bounds of the four, where applied; clipped to the image (boxes stay ``xyxy``, as in
    Keras)."""
    fmt, dtype = layer.bounding_box_format, layer.compute_dtype
    height, width = image_size(transformation["input_shape"], layer.data_format)
    boxes = convert_format(bounding_boxes, fmt, "xyxy", height, width, what=layer.name)
    start = ops.cast(ops.convert_to_tensor(transformation["start_points"]), dtype)
    end = ops.cast(ops.convert_to_tensor(transformation["end_points"]), dtype)
    h = _homography(start, end)
    matrix = ops.reshape(ops.concatenate([h, ops.ones_like(h[:, :1])], axis=-1), (-1, 3, 3))
    inverse = ops.linalg.inv(matrix)                                  # (batch, 3, 3)
    b = ops.cast(boxes["boxes"], dtype)
    batched = b if len(b.shape) == 3 else ops.expand_dims(b, 0)       # (batch, n, 4)
    x0, y0, x1, y1 = _columns(batched)
    xs, ys = [], []
    for x, y in ((x0, y0), (x1, y1), (x0, y1), (x1, y0)):
        points = ops.stack([x, y, ops.ones_like(x)], axis=1)           # (batch, 3, n)
        mapped = ops.matmul(inverse, points)
        xs.append(mapped[:, 0] / mapped[:, 2])
        ys.append(mapped[:, 1] / mapped[:, 2])
    xs, ys = ops.stack(xs, axis=-1), ops.stack(ys, axis=-1)
    moved = ops.stack([ops.min(xs, axis=-1), ops.min(ys, axis=-1), ops.max(xs, axis=-1),
                       ops.max(ys, axis=-1)], axis=-1)
    apply = ops.reshape(ops.convert_to_tensor(transformation["apply_perspective"]),
                        (-1, 1, 1))
    moved = ops.where(ops.cast(apply, "bool"), moved, batched)
    boxes["boxes"] = moved if len(b.shape) == 3 else moved[0]
    return clip_to_image_size(boxes, height, width, "xyxy", what=layer.name)
