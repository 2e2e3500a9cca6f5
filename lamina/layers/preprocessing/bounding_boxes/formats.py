"""Keras 3's bounding-box formats for the image layers, written with ``lamina.ops`` (so
boxes follow images through eager and graph mode): conversion through absolute corners
(``xyxy``) and clipping to the image."""
from __future__ import annotations

from .... import ops

FORMATS = ("xyxy", "yxyx", "xywh", "center_xywh", "center_yxhw", "rel_xyxy", "rel_yxyx",
           "rel_xywh", "rel_center_xywh")


def check_format(layer: str, value, arg: str = "bounding_box_format"):
    """``value`` (None or one of FORMATS, any case) lower-cased; else ValueError."""
    if value is None:
        return None
    if not isinstance(value, str) or value.lower() not in FORMATS:
        raise ValueError(f"{layer}: argument '{arg}' must be one of {', '.join(FORMATS)}; "
                         f"received {value!r}")
    return value.lower()


def _columns(boxes):
    return [boxes[..., i] for i in range(4)]


def _to_xyxy(boxes, source):
    a, b, c, d = _columns(boxes)
    if source == "yxyx":
        a, b, c, d = b, a, d, c
    elif source == "xywh":
        c, d = a + c, b + d
    elif source == "center_xywh":
        a, b, c, d = a - c / 2.0, b - d / 2.0, a + c / 2.0, b + d / 2.0
    elif source == "center_yxhw":
        a, b, c, d = b - d / 2.0, a - c / 2.0, b + d / 2.0, a + c / 2.0
    return a, b, c, d


def _from_xyxy(x1, y1, x2, y2, target):
    w, h = x2 - x1, y2 - y1
    if target == "yxyx":
        return y1, x1, y2, x2
    if target == "xywh":
        return x1, y1, w, h
    if target == "center_xywh":
        return x1 + w / 2.0, y1 + h / 2.0, w, h
    if target == "center_yxhw":
        return y1 + h / 2.0, x1 + w / 2.0, h, w
    return x1, y1, x2, y2


def convert_format(boxes, source: str, target: str, height=None, width=None,
                   dtype: str = "float32", what: str = "convert_format"):
    """``boxes`` (a (..., 4) tensor, or a bounding-box dict whose ``"boxes"`` is converted;
    the dict is returned as a new dict) from ``source`` to ``target`` as ``dtype``;
    relative formats (``rel_*``) need the image ``height`` and ``width``."""
    if isinstance(boxes, dict):
        return {**boxes, "boxes": convert_format(boxes["boxes"], source, target, height,
                                                 width, dtype, what)}
    source = check_format(what, source, "source")
    target = check_format(what, target, "target")
    boxes = ops.convert_to_tensor(boxes)
    if tuple(boxes.shape[-1:]) != (4,):
        raise ValueError(f"{what}: `boxes` must have a last dimension of 4; received "
                         f"boxes.shape={tuple(boxes.shape)}")
    relative = source.startswith("rel_") or target.startswith("rel_")
    if relative and (height is None or width is None):
        raise ValueError(f"{what}: converting between relative and absolute formats must "
                         f"receive `height` and `width`; received source={source!r}, "
                         f"target={target!r}, height={height}, width={width}")
    boxes = ops.cast(boxes, dtype)
    if source == target:
        return boxes
    if source.startswith("rel_") and target.startswith("rel_"):
        source, target = source[4:], target[4:]
    if relative:
        height, width = ops.cast(height, dtype), ops.cast(width, dtype)
    x1, y1, x2, y2 = _to_xyxy(boxes, source[4:] if source.startswith("rel_") else source)
    if source.startswith("rel_"):
        x1, y1, x2, y2 = x1 * width, y1 * height, x2 * width, y2 * height
    if target.startswith("rel_"):
        x1, y1, x2, y2 = x1 / width, y1 / height, x2 / width, y2 / height
        target = target[4:]
    return ops.stack(_from_xyxy(x1, y1, x2, y2, target), axis=-1)


def clip_to_image_size(bounding_boxes: dict, height=None, width=None,
                       bounding_box_format: str = "xyxy", what: str = "clip_to_image_size"):
    """Keras's clipping: ``xyxy`` boxes into [0, width] x [0, height] (``rel_xyxy`` into
    [0, 1]); the labels of boxes left with no area become -1. Returns a new dict."""
    if bounding_box_format not in ("xyxy", "rel_xyxy"):
        raise NotImplementedError(f"{what}: argument 'bounding_box_format' must be 'xyxy' "
                                  f"or 'rel_xyxy'; received {bounding_box_format!r}")
    boxes = bounding_boxes["boxes"]
    if bounding_box_format == "xyxy":
        if height is None or width is None:
            raise ValueError(f"{what}: `height` and `width` must be set if "
                             f"format='xyxy'; received height={height}, width={width}")
        high_x, high_y = ops.cast(width, boxes.dtype), ops.cast(height, boxes.dtype)
    else:
        high_x = high_y = 1.0
    x1, y1, x2, y2 = _columns(boxes)
    x1, x2 = ops.clip(x1, 0.0, high_x), ops.clip(x2, 0.0, high_x)
    y1, y2 = ops.clip(y1, 0.0, high_y), ops.clip(y2, 0.0, high_y)
    result = {**bounding_boxes, "boxes": ops.stack([x1, y1, x2, y2], axis=-1)}
    labels = bounding_boxes.get("labels")
    if labels is not None:
        area = ops.multiply(ops.subtract(x2, x1), ops.subtract(y2, y1))
        labels = ops.convert_to_tensor(labels)
        result["labels"] = ops.where(ops.greater(area, 0.0), labels,
                                     ops.cast(-1, labels.dtype))
    return result


def image_size(shape, data_format: str):
    """(height, width) of an image or batch ``shape`` in ``data_format``."""
    if data_format == "channels_first":
        return shape[-2], shape[-1]
    return shape[-3], shape[-2]
