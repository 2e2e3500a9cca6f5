"""How the deterministic image layers move bounding boxes (Keras 3's numbers): Resizing's
stretch / crop-to-aspect / pad-to-aspect maps and CenterCrop's window."""
from __future__ import annotations

from .... import ops
from .formats import clip_to_image_size, convert_format


def _scaled(boxes, scale_x, scale_y, dx, dy):
    b = [boxes[..., i] for i in range(4)]
    return ops.stack([b[0] * scale_x - dx, b[1] * scale_y - dy,
                      b[2] * scale_x - dx, b[3] * scale_y - dy], axis=-1)


def resize_boxes(layer, bounding_boxes: dict, height, width) -> dict:
    """``Resizing``'s boxes: ``layer`` gives the target size, the aspect-ratio mode and
    ``bounding_box_format``; (``height``, ``width``) is the input size."""
    fmt, out_h, out_w = layer.bounding_box_format, layer.height, layer.width
    raw = ops.convert_to_tensor(bounding_boxes["boxes"])
    padding = ops.logical_or(ops.all(ops.equal(raw, -1), axis=-1),
                             ops.all(ops.equal(raw, 0), axis=-1))
    boxes = convert_format(bounding_boxes, fmt, "xyxy", height, width, what=layer.name)
    h, w = float(height), float(width)
    if layer.pad_to_aspect_ratio:
        ratio = min(out_h / h, out_w / w)
        boxes["boxes"] = _scaled(boxes["boxes"], ratio, ratio, -((out_w - w * ratio) // 2),
                                 -((out_h - h * ratio) // 2))
    elif layer.crop_to_aspect_ratio:
        source, target = w / h, out_w / out_h
        new_w = out_h * source if source > target else float(out_w)
        new_h = float(out_h) if source > target else out_w / source
        boxes["boxes"] = _scaled(boxes["boxes"], new_w / w, new_h / h, (new_w - out_w) // 2,
                                 (new_h - out_h) // 2)
    else:
        boxes["boxes"] = _scaled(boxes["boxes"], out_w / w, out_h / h, 0.0, 0.0)
    boxes = clip_to_image_size(boxes, out_h, out_w, what=layer.name)
    boxes["boxes"] = ops.where(ops.expand_dims(padding, -1),
                               ops.zeros((4,), boxes["boxes"].dtype), boxes["boxes"])
    return convert_format(boxes, "xyxy", fmt, out_h, out_w, what=layer.name)


def center_crop_boxes(layer, bounding_boxes: dict, height: int, width: int) -> dict:
    """``CenterCrop``'s boxes: shifted into the central window (or, for an image smaller
    than the target, into the aspect-ratio window then scaled to the target), clipped."""
    fmt, out_h, out_w = layer.bounding_box_format, layer.height, layer.width
    boxes = convert_format(bounding_boxes, fmt, "xyxy", height, width, what=layer.name)
    if height >= out_h and width >= out_w:
        top, left, crop_h, crop_w = int((height - out_h) / 2), int((width - out_w) / 2), \
            out_h, out_w
    else:
        crop_h = max(min(height, int(float(width * out_h) / out_w)), 1)
        crop_w = max(min(width, int(float(height * out_w) / out_h)), 1)
        top, left = int(float(height - crop_h) / 2), int(float(width - crop_w) / 2)
    b = boxes["boxes"]
    x1, x2 = (ops.clip(b[..., i], left, left + crop_w) - left for i in (0, 2))
    y1, y2 = (ops.clip(b[..., i], top, top + crop_h) - top for i in (1, 3))
    b = ops.stack([x1, y1, x2, y2], axis=-1)
    if (crop_h, crop_w) != (out_h, out_w):
        b = _scaled(b, out_w / crop_w, out_h / crop_h, 0.0, 0.0)
    boxes = clip_to_image_size({**boxes, "boxes": b}, out_h, out_w, what=layer.name)
    return convert_format(boxes, "xyxy", fmt, out_h, out_w, what=layer.name)
